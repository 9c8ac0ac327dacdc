//===- LogSummaryWording.cpp - The words of a whole log comparison -------===//
//
// The explanation sentence, the reading notes, the run summary and stats,
// the N-run lines and the text the CLI prints (LogWording.cpp words each
// program; LogAdviceWording.cpp the advice). Grouping and "the same reason"
// are decided on facts by the callers; the list and plural grammar is
// Wording.h's.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include "cachekey/English.h"
#include "cachekey/KnownDigests.h"
#include "cachekey/Parallel.h"
#include "cachekey/PyText.h"
#include "cachekey/Wording.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>

namespace cachekey {
namespace logs {


std::string sameLogText(const std::vector<std::string> &names) {
  return nameList(names) + " are one file, given " +
         timesText(names.size()) +
         ": its programs are compared with themselves, so nothing here is about "
         "another run";
}

std::vector<LogNote> readingNotes(const LogSummary &la, const LogSummary &lb) {
  std::vector<LogNote> notes;
  auto note = [&](LogNote::Kind kind, int log, uint32_t item = 0) {
    LogNote n;
    n.kind = kind;
    n.log = log;
    n.item = item;
    notes.push_back(std::move(n));
  };
  if (sameLog(la, lb)) {
    LogNote n;
    n.logs = {0, 1};
    notes.push_back(std::move(n));
  }
  const LogSummary *both[] = {&la, &lb};
  for (int side = 0; side < 2; ++side) {
    const LogSummary *l = both[side];
    for (size_t i = 0; i < l->incomplete.size(); ++i)
      note(LogNote::Kind::IncompleteKey, side, static_cast<uint32_t>(i));
    for (size_t i = 0; i < l->problems.size(); ++i)
      note(LogNote::Kind::UnreadableLine, side, static_cast<uint32_t>(i));
    if (l->problemCount > l->problems.size())
      note(LogNote::Kind::MoreUnreadableLines, side);
    if (l->longLines)
      note(LogNote::Kind::LongLines, side);
    if (l->keyErrors)
      note(LogNote::Kind::KeyErrors, side);
    if (!l->unsupportedRuntime.empty())
      note(LogNote::Kind::UnsupportedRuntime, side);
    if (l->verificationErrors)
      note(LogNote::Kind::VerificationErrors, side);
    if (l->pgleLoaded || l->pgleMisses)
      note(LogNote::Kind::Pgle, side);
    if (l->pgleProbes)
      note(LogNote::Kind::PgleProbes, side);
    for (size_t i = 0; i < l->cacheDirs.size(); ++i)
      if (isRelativeCachePath(l->cacheDirs[i])) {
        note(LogNote::Kind::RelativeCacheDir, side, static_cast<uint32_t>(i));
        break;
      }
    if (l->cacheDisabled || l->cacheInitFailed)
      note(LogNote::Kind::CacheOff, side);
  }
  return notes;
}

std::string logNoteText(const LogNote &n, const LogSummary *logs) {
  if (n.kind == LogNote::Kind::SameLog) {
    std::vector<std::string> names;
    for (int i : n.logs)
      names.push_back(logs[i].name);
    return sameLogText(names);
  }
  const LogSummary *l = &logs[n.log];
  switch (n.kind) {
  case LogNote::Kind::SameLog:
    break;
  case LogNote::Kind::IncompleteKey:
    return l->name + ": " + logReadNoteText(l->incomplete[n.item]) + "; that program is left out.";
  case LogNote::Kind::UnreadableLine:
    return l->name + ": " + logReadNoteText(l->problems[n.item]);
  case LogNote::Kind::MoreUnreadableLines:
    return l->name + ": " + std::to_string(l->problemCount - l->problems.size()) +
           " more unreadable lines";
  case LogNote::Kind::LongLines:
    return l->name + ": " + plural(l->longLines, "line", "lines") +
           " longer than 1 MiB, read in part";
  case LogNote::Kind::KeyErrors:
    return l->name + ": " + plural(l->keyErrors, "program", "programs") +
           " skipped the cache because JAX could not make a key: " +
           shortened(l->firstKeyError, 160);
  case LogNote::Kind::UnsupportedRuntime:
    return l->name + ": this runtime never uses the persistent cache (\"Unsupported runtime: " +
           l->unsupportedRuntime + "\")";
  case LogNote::Kind::VerificationErrors:
    return l->name + ": " + plural(l->verificationErrors, "entry", "entries") +
           " failed the cache's verification (\"Persistent compilation "
           "cache inconsistency\"): an entry's executable differs from a "
           "fresh compile of the same key";
  case LogNote::Kind::Pgle:
    return l->name + ": PGLE: " + std::to_string(l->pgleLoaded) +
           " PGLE-optimized programs loaded from the cache, " +
           std::to_string(l->pgleMisses) +
           " missed although their non-PGLE key hit (the PGLE-optimized "
           "key is another key)";
  case LogNote::Kind::PgleProbes:
    return l->name + ": " + plural(l->pgleProbes, "PGLE probe key", "PGLE probe keys") +
           " left out (jax_enable_pgle or jax_compilation_cache_expect_pgle: before "
           "each compile JAX computes the key of the PGLE-optimized entry, whose "
           "compile options carry an FDO profile, and looks for it in the cache; "
           "that key is not a program)";
  case LogNote::Kind::RelativeCacheDir:
    return l->name + ": the cache path " + pyRepr(l->cacheDirs[n.item]) +
           " is relative: it depends on the working directory";
  case LogNote::Kind::CacheOff:
    return l->name + ": the persistent cache is " +
           (l->cacheDisabled ? "disabled" : "not initialised") + " in this run";
  }
  return {};
}

std::vector<std::string> findingsText(const std::vector<EntryChange> &findings,
                                      bool other) {
  std::vector<std::string> out;
  out.reserve(findings.size());
  for (const auto &f : findings)
    out.push_back(other ? entryLabel(f.entry) + ": " + entryChangeText(f)
                        : entryChangeText(f));
  return out;
}

std::string pairSentence(const Comparison &c, const std::vector<EntryChange> &findings,
                         const std::vector<EntryChange> &otherFindings) {
  return comparisonSentence(c, findingsText(findings, false),
                            findingsText(otherFindings, true));
}

std::string comparisonSentence(const LogComparison &r) {
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  size_t na = la.comparable().size(), nb = lb.comparable().size();
  std::string s = la.name + " holds " + plural(na, "program", "programs") +
                  " and " + lb.name + " " + std::to_string(nb) + "; ";
  size_t byKey = 0, byOther = 0;
  for (const auto &p : r.pairs) {
    byKey += p.match == PairMatch::Key;
    byOther += p.a >= 0 && p.b >= 0 && p.match != PairMatch::Key;
  }
  if (byKey)
    s += plural(byKey, "program is", "programs are") +
         " matched by key (" + lb.name + "'s key is one " + la.name +
         " computed, whatever the name or order)" +
         (byOther == 0 ? std::string(". ") : "; the others are ");
  else
    s += "programs are ";
  if (!byKey || byOther)
    s += r.pairedBy == PairedBy::Order
             ? "paired in order (the logs name no programs: no hit or miss "
               "lines). "
             : std::string("paired by ") + pairedByName(r.pairedBy) +
                   ", then by argument shapes, then by order within a name. ";
  NameSample onlyA, onlyB, equal; // a large log has thousands
  for (const auto &p : r.pairs) {
    if (p.a < 0)
      onlyB.add([&] { return r.labelOf(p); });
    else if (p.b < 0)
      onlyA.add([&] { return r.labelOf(p); });
    else if (p.keys == ProgramPair::Keys::Equal)
      equal.add([&] { return r.labelOf(p); });
  }
  if (r.explained >= 0 && r.pairs[r.explained].keys == ProgramPair::Keys::Differ) {
    const ProgramPair &x = r.pairs[r.explained];
    size_t differing = 0, sameAsFirst = 0;
    for (size_t i = 0; i < r.pairs.size(); ++i)
      if (r.pairs[i].keys == ProgramPair::Keys::Differ) {
        ++differing;
        sameAsFirst += r.pairs[i].move == r.pairs[r.explained].move;
      }
    bool oneCause = differing >= 2 && sameAsFirst == differing;
    if (oneCause)
      s += "All " + std::to_string(differing) +
           " programs whose keys differ moved the same way, for one cause "
           "(said once, for " + r.labelOf(x) + "). ";
    else
      s += upperFirst(r.labelOf(x)) + " is the first pair whose keys differ. ";
    s += r.comparison.cause ? pairSentence(r.comparison, r.findings, r.otherFindings)
                            : capitalised(keyMoveText(r.moveOf(r.pairs[r.explained]))) + ".";
    // The other differing pairs: the same cause, or which other, grouped in
    // the order the reasons first appear.
    NameSample same;
    std::map<KeyMove, NameSample> other;
    std::vector<KeyMove> otherOrder;
    for (size_t i = 0; i < r.pairs.size(); ++i) {
      if (static_cast<int>(i) == r.explained ||
          r.pairs[i].keys != ProgramPair::Keys::Differ)
        continue;
      const KeyMove &move = r.moveOf(r.pairs[i]);
      if (r.pairs[i].move == r.pairs[r.explained].move)
        same.add([&] { return r.labelOf(r.pairs[i]); });
      else {
        if (!other.count(move))
          otherOrder.push_back(move);
        other[move].add([&] { return r.labelOf(r.pairs[i]); });
      }
    }
    if (!same.empty() && !oneCause)
      s += " " + upperFirst(nameList(same)) +
           agree(same.size(), " differs", " differ") + " for the same reason.";
    for (const auto &m : otherOrder)
      s += " " + upperFirst(nameList(other[m])) +
           agree(other[m].size(), " differs", " differ") +
           " for another reason: " + keyMoveText(m) + ".";
    if (!equal.empty())
      s += " " + upperFirst(nameList(equal)) +
           agree(equal.size(), " has", " have") + " the same key in both runs.";
  } else if (!equal.empty()) {
    s += capitalised(everyOf(equal.size(), "the paired program has", "paired programs have")) +
         " the same key in both runs: nothing moved.";
    if (const auto &unhashed = r.comparison.unhashedInputs; !unhashed.empty()) {
      s += " Not hashed, so not a cause: ";
      for (size_t i = 0; i < unhashed.size() && i < 4; ++i)
        s += (i ? "; " : "") + unhashedText(unhashed[i]);
      s += ".";
    }
  } else {
    s += "No program pairs with one in the other log.";
  }
  if (!onlyB.empty())
    s += " Only in " + lb.name + ": " + nameList(onlyB) + ".";
  if (!onlyA.empty())
    s += " Only in " + la.name + ": " + nameList(onlyA) + ".";
  if (!r.notes.empty()) {
    size_t cuts = la.incomplete.size() + lb.incomplete.size();
    if (cuts)
      s += " " + plural(cuts, "key is", "keys are") +
           " incomplete and left out (see the notes).";
  }
  return s;
}

std::string runSummary(const LogComparison &r) {
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  size_t n = 0, hits = 0, misses = 0, differing = 0, paired = 0, onlyB = 0;
  for (const auto &p : r.pairs) {
    if (p.b < 0)
      continue;
    ++n;
    const LoggedProgram &pb = lb.programs[p.b];
    hits += pb.lookup == Lookup::Hit;
    misses += pb.lookup == Lookup::Miss;
    paired += p.a >= 0;
    differing += p.keys == ProgramPair::Keys::Differ;
    onlyB += p.a < 0;
  }
  std::string s = lb.name + ": ";
  if (hits + misses == 0) {
    // No hit or miss lines: say what the keys say.
    if (paired == 0)
      s += "no program pairs with one in " + la.name;
    else if (differing == 0)
      s += everyOf(paired, "the paired program has", "paired programs have") +
           " the same key as in " + la.name;
    else
      s += std::to_string(differing) + " of " +
           plural(paired, "paired program", "paired programs") +
           agree(differing, " has", " have") + " another key";
    if (onlyB)
      s += "; " + plural(onlyB, "program is", "programs are") + " new";
    return s + " (no hit or miss lines: enable DEBUG on jax._src.compiler to "
               "see the outcomes).";
  }
  s += std::to_string(hits) + " of " + plural(n, "program", "programs") + " hit";
  if (misses == 0)
    return s + ".";
  s += ", " + std::to_string(misses) + " missed.";
  // The misses, grouped by reason in the order the reasons first appear.
  struct Group {
    enum class Kind { New, Moved, Unknown, Equal } kind;
    KeyMove move;                               // Moved
    MissReason reason = MissReason::Unknown;    // Equal
    NameSample names;
    std::vector<const LoggedProgram *> inA, inB;
    auto key() const { return std::tie(kind, move, reason); }
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    const auto &p = r.pairs[i];
    if (p.b < 0 || lb.programs[p.b].lookup != Lookup::Miss)
      continue;
    Group g;
    g.kind = p.a < 0                                   ? Group::Kind::New
             : p.keys == ProgramPair::Keys::Differ     ? Group::Kind::Moved
             : p.keys == ProgramPair::Keys::Unknown    ? Group::Kind::Unknown
                                                       : Group::Kind::Equal;
    if (g.kind == Group::Kind::Moved)
      g.move = r.moveOf(p);
    if (g.kind == Group::Kind::Equal)
      g.reason = p.miss ? *p.miss : MissReason::Unknown;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group &x) { return x.key() == g.key(); });
    if (it == groups.end()) {
      groups.push_back(g);
      it = groups.end() - 1;
    }
    it->names.add([&] { return r.labelOf(p); });
    if (p.a >= 0)
      it->inA.push_back(&la.programs[p.a]);
    it->inB.push_back(&lb.programs[p.b]);
  }
  bool compileTime = false;
  for (const Group &g : groups) {
    size_t k = g.names.size();
    std::string who = k == misses && k > 1 ? "All " + std::to_string(k)
                                            : nameList(g.names);
    who = upperFirst(who);
    switch (g.kind) {
    case Group::Kind::New:
      s += " " + who + agree(k, " is ", " are ") + "new in this run.";
      break;
    case Group::Kind::Equal:
      s += " " + who + agree(k, " has", " have") + " the same key as in " +
           la.name + ", " +
           missClause(g.reason, ClauseForm::Relative, la, lb, g.inA, g.inB) + ".";
      for (const auto *p : g.inA)
        compileTime = compileTime || (g.reason == MissReason::NotWritten &&
                                      p->writeReason == NotWrittenReason::CompileTime);
      break;
    case Group::Kind::Moved:
      s += " " + who + agree(k, " has ", " have ") + "another key: " +
           keyMoveText(g.move) + ".";
      break;
    case Group::Kind::Unknown:
      s += " " + who + agree(k, " has ", " have ") +
           "keys that cannot be compared.";
      break;
    }
  }
  if (compileTime)
    s += " To cache programs that compile fast, lower " +
         std::string(kMinCompileTime) + ", e.g. jax.config.update(\"" +
         kMinCompileTime + "\", 0) or JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0.";
  return s;
}

std::string runStatsText(const LogSummary &log, const RunStats &st) {
  std::string s = log.name + ": " + plural(st.programs, "program", "programs") +
                  ", " + plural(st.hits, "hit", "hits") + ", " +
                  plural(st.misses, "miss", "misses");
  if (st.hits + st.misses)
    s += " (" + percentText(st.hits, st.hits + st.misses) + " hit rate)";
  if (st.noOutcome)
    s += ", " + std::to_string(st.noOutcome) + " without a logged outcome";
  if (st.timedMisses)
    s += "; " + seconds(st.missCompileSeconds) + " compiling the misses" +
         (st.timedMisses < st.misses
              ? " (" + std::to_string(st.timedMisses) + " of them timed)"
              : std::string());
  if (st.written)
    s += "; " + std::to_string(st.written) + " written";
  if (!st.notCached.empty()) {
    s += "; not cached: ";
    bool first = true;
    for (auto [why, n] : st.notCached) {
      const char *t = "";
      switch (why) {
      case NotCached::CompileTime: t = "under the minimum compile time"; break;
      case NotCached::EntrySize: t = "under the minimum entry size"; break;
      case NotCached::HostCallbacks: t = "host callbacks"; break;
      case NotCached::NotProcessZero: t = "not process 0"; break;
      case NotCached::NoCache: t = "no cache initialised yet"; break;
      case NotCached::TooLarge: t = "over the maximum cache size"; break;
      case NotCached::WriteFailed: t = "write failed"; break;
      case NotCached::ReadFailed: t = "found but unreadable"; break;
      case NotCached::CompileOnly: t = "found, but a compile-only client cannot load entries"; break;
      case NotCached::Unknown: t = "write not logged"; break;
      }
      s += (first ? "" : ", ") + std::to_string(n) + " " + t;
      first = false;
    }
  }
  if (st.evictions)
    s += "; " + plural(st.evictions, "eviction", "evictions");
  return s + ".";
}

std::string programAcrossRunsText(const ManyLogComparison &r,
                                  const ProgramAcrossRuns &p) {
  auto names = [&](const std::vector<int> &runs) {
    std::vector<std::string> v;
    for (int run : runs)
      v.push_back(r.logs[run].name);
    return nameList(v);
  };
  size_t present = r.logs.size() - p.absent.size();
  std::string s = p.label + ": ";
  if (p.common < 0) {
    s += "no key logged";
  } else if (p.odd.empty()) {
    s += present == 1 ? "in " + names(p.groups[0]) + " only"
         : present == r.logs.size()
             ? "all " + std::to_string(present) + " runs share its key"
             : names(p.groups[0]) + " share its key";
  } else {
    s += names(p.groups[p.common]) +
         agree(p.groups[p.common].size(), " has", " share") + " the common key";
    for (const OddRun &o : p.odd) {
      s += "; " + r.logs[o.run].name + " is an odd one out";
      // How its key moved, as for two logs; else the entries that differ.
      if (std::string how = keyMoveText(o.move); !how.empty()) {
        s += ": " + how;
      } else if (!o.entries.empty()) {
        std::vector<std::string> e;
        for (int x : o.entries)
          e.push_back(entryLabel(x));
        s += ": " + nameList(e, 8) + agree(o.entries.size(), " differs", " differ");
      }
    }
  }
  if (!p.absent.empty() && present > 1)
    s += "; not compiled in " + names(p.absent);
  return s;
}

std::string manyVerdictText(const ManyLogComparison &r) {
  const ManyLogVerdict &v = r.verdict;
  std::string s = std::to_string(v.sameKey) + " of " +
                  plural(v.programs, "program has", "programs have") +
                  " one key in all " + std::to_string(r.logs.size()) + " runs";
  // A run whose odd programs moved for one cause (one global setting, an
  // upgrade; ManyLogComparison::oddCause): said once.
  for (size_t run = 0; run < v.oddPrograms.size(); ++run)
    if (v.oddPrograms[run]) {
      s += "; " + r.logs[run].name + " is the odd one out for " +
           plural(v.oddPrograms[run], "program", "programs");
      if (run < r.oddCause.size())
        if (std::string how = keyMoveText(r.oddCause[run]); !how.empty())
          s += ", all for one cause: " + how;
    }
  return s + ".";
}

} // namespace logs


namespace {

/// "What to do: …" on one line, or a list of them.
template <class Comparison>
void writeAdvice(std::ostream &os, const Comparison &r) {
  const std::vector<LogAdvice> &advice = r.advice;
  if (advice.size() == 1)
    os << "What to do: " << r.adviceText(advice.front()) << "\n";
  else if (!advice.empty()) {
    os << "What to do:\n";
    for (const LogAdvice &a : advice)
      os << "  - " << r.adviceText(a) << "\n";
  }
}

} // namespace

void writeManyLogComparison(std::ostream &os, const ManyLogComparison &r) {
  // The answer first (ManyLogVerdict), as the page shows it.
  os << "Verdict: " << logs::manyVerdictText(r) << "\n";
  os << "Programs across " << r.logs.size() << " runs (each paired with "
     << r.logs[0].name << " by key, then name, shapes and order):\n";
  for (const auto &p : r.programs)
    os << "  " << logs::programAcrossRunsText(r, p) << ".\n";
  for (const auto &n : r.notes)
    os << "note: " << logs::logNoteText(n, r.logs.data()) << "\n";
  for (size_t i = 0; i < r.logs.size(); ++i)
    os << "Run: " << logs::runStatsText(r.logs[i], r.stats[i]) << "\n";
  writeAdvice(os, r);
}

void writeLogComparison(std::ostream &os, const LogComparison &r) {
  // The answer first (LogVerdict), as the page shows it; how the programs
  // were paired and explained follows.
  os << "Verdict: " << logVerdictText(r) << "\n";
  os << logs::comparisonSentence(r) << "\n";
  bool byKey = std::any_of(r.pairs.begin(), r.pairs.end(), [](const ProgramPair &p) {
    return p.match == PairMatch::Key;
  });
  os << "Programs (paired by " << (byKey ? "key and " : "")
     << pairedByName(r.pairedBy) << "):\n";
  // One line per pair, made on every core a block at a time and written in
  // order (the bytes one thread would write).
  makeInOrder(
      workerThreads(), r.pairs.size(), 2048,
      [&](size_t i, std::string &out) {
        const ProgramPair &p = r.pairs[i];
        out += "  ";
        out += r.labelOf(p);
        out += ": ";
        out += pairVerdictText(r, p);
        out += '.';
        for (int side = 0; side < 2; ++side)
          if ((side ? p.b : p.a) >= 0) {
            out += ' ';
            out += r.logs[side].name;
            out += ": ";
            out += pairOutcomeText(r, p, side);
            out += '.';
          }
        out += '\n';
      },
      [&](const std::string &piece) {
        os.write(piece.data(), static_cast<std::streamsize>(piece.size()));
      });
  for (const auto &n : r.notes)
    os << "note: " << logs::logNoteText(n, r.logs) << "\n";
  for (int side = 0; side < 2; ++side)
    os << "Run: " << logs::runStatsText(r.logs[side], r.stats[side]) << "\n";
  os << "Summary: " << logs::runSummary(r) << "\n";
  writeAdvice(os, r);
}

std::string formatLogComparison(const LogComparison &r) {
  std::ostringstream os;
  writeLogComparison(os, r);
  return os.str();
}

} // namespace cachekey
