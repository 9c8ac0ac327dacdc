//===- LogVerdictWording.cpp - The words of a log comparison's verdict ---===//
//
// The only place that words LogVerdict (LogCompare.h): the answer first,
// in the vocabulary the CLI and the page share ("missed", "hit", "moved").
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include "cachekey/English.h"

#include <string>
#include <vector>

namespace cachekey {

namespace {

/// What a verdict says of a second log that ends inside a key (cutAt).
std::string cutText(const LogVerdict &v) {
  return "it ends in the middle of another key (line " + std::to_string(v.cutAt) +
         "): the log was cut, or the run stopped, while that program was "
         "compiled, so whether it hit is not in the log.";
}

std::string verdictWords(const LogComparison &r);

/// Of the programs new in the second run, those the first run compiled
/// under their name with other argument shapes (freshShapes): "" for none.
std::string newShapesText(const LogVerdict &v) {
  if (!v.freshShapes)
    return "";
  if (v.freshShapes == v.fresh)
    return v.fresh == 1 ? " (its name compiled before, with other argument shapes)"
                        : " (their names compiled before, with other argument shapes)";
  return " (" + std::to_string(v.freshShapes) + " of them compiled before under "
         "their names, with other argument shapes)";
}

} // namespace

std::string logVerdictText(const LogComparison &r) {
  const LogVerdict &v = r.verdict;
  std::string s = verdictWords(r);
  if (!v.cutAt)
    return s;
  std::string cut = cutText(v);
  if (v.code == LogVerdict::Code::AllHit) // "…, but it ends …"
    return s.substr(0, s.size() - 1) + ", but " + cut;
  cut[0] = 'I';
  return s + " " + cut;
}

namespace {

std::string verdictWords(const LogComparison &r) {
  using namespace logs;
  const LogVerdict &v = r.verdict;
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  NameSample names;
  for (uint32_t i : v.named)
    names.push_back(r.labelOf(r.pairs[i]));
  names.count = v.code == LogVerdict::Code::NoOutcomes ? v.pairedMoved : v.missed;
  switch (v.code) {
  case LogVerdict::Code::AllHit:
    return lb.name + ": " +
           (v.hits == v.programs
                ? (v.cutAt ? "every program it logs whole hit the cache ("
                           : "every program hit the cache (") +
                      std::to_string(v.hits) + " of " + std::to_string(v.programs) +
                      (v.cutAt ? ")." : "), so nothing compiled again.")
                : "no program missed the cache (" + std::to_string(v.hits) +
                      " of " + plural(v.programs, "program", "programs") +
                      " hit; the others logged no outcome).");
  case LogVerdict::Code::NoOutcomes:
    if (v.pairedMoved == 0)
      return lb.name + " logs no hit or miss lines; " +
             everyOf(v.paired, "its paired program has", "paired programs have") +
             " the same key as in " + la.name + ".";
    return lb.name + " logs no hit or miss lines; " +
           std::to_string(v.pairedMoved) + " of " +
           plural(v.paired, "paired program", "paired programs") +
           agree(v.pairedMoved, " has", " have") + " another key than in " +
           la.name + ": " + nameList(names) + ".";
  case LogVerdict::Code::Missed:
    break;
  }
  // A miss the run was compiling when it stopped did not compile again.
  std::string s = lb.name + ": " + std::to_string(v.missed) + " of " +
                  plural(v.programs, "program", "programs") +
                  (v.stopped >= 0 ? " missed the cache" : " missed the cache and compiled again");
  if (v.timedMisses)
    s += " (" + seconds(v.compileSeconds) + " of compiling" +
         (v.timedMisses < v.missed
              ? ", logged for " + std::to_string(v.timedMisses) + " of them"
              : std::string()) +
         ")";
  s += ": " + nameList(names) + ".";
  if (v.stopped >= 0)
    s += " The run stopped while compiling " + r.labelOf(r.pairs[v.stopped]) +
         " (its miss at line " + std::to_string(lb.endsCompilingAt) +
         " is the log's last word on it), before writing it" +
         (v.missed > 1 ? std::string("; the ") + agree(v.missed - 1, "other", "others") + " compiled again."
                       : ".");
  const std::string theirs = agree(v.missed, "Its key", "Their keys");
  if (v.moved == v.missed)
    return s + " " + theirs +
           (v.oneMove >= 0 ? agree(v.missed, " moved: ", " moved the same way: ") +
                                 keyMoveText(r.moves[v.oneMove]) + "."
                           : " moved in several ways (each program below).");
  std::vector<std::string> parts;
  if (v.moved)
    parts.push_back(std::to_string(v.moved) + " with another key" +
                    (v.oneMove >= 0 ? " (" + keyMoveText(r.moves[v.oneMove]) + ")"
                                    : std::string()));
  if (v.fresh)
    parts.push_back(std::to_string(v.fresh) + " new in this run" + newShapesText(v));
  if (v.sameKey)
    parts.push_back(std::to_string(v.sameKey) + " with the same key as in " +
                    la.name + ", so not found in the cache");
  if (v.unknown)
    parts.push_back(std::to_string(v.unknown) + " whose keys cannot be compared");
  if (parts.size() == 1 && v.fresh == v.missed)
    return s + " " + agree(v.missed, "It is", "All are") +
           " new in this run" + newShapesText(v) + ".";
  if (parts.size() == 1 && v.sameKey == v.missed) {
    s += " " + theirs + agree(v.missed, " is", " are") + " the same as in " +
         la.name;
    if (!v.sameKeyReason)
      return s + ", yet " + agree(v.missed, "it was", "they were") +
             " not found in the cache (why, for each, below).";
    // The reason they share, as the summary words it for its groups.
    std::vector<const LoggedProgram *> inA, inB;
    for (const ProgramPair &p : r.pairs)
      if (p.a >= 0 && p.b >= 0 && p.keys == ProgramPair::Keys::Equal &&
          p.miss == v.sameKeyReason && lb.programs[p.b].lookup == Lookup::Miss) {
        inA.push_back(&la.programs[p.a]);
        inB.push_back(&lb.programs[p.b]);
      }
    if (inA.empty())
      return s + ".";
    return s + ", " + missClause(*v.sameKeyReason, ClauseForm::Relative, la, lb, inA, inB) + ".";
  }
  std::string list;
  for (size_t i = 0; i < parts.size(); ++i)
    list += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return s + " Of them, " + list + ".";
}

} // namespace

} // namespace cachekey
