//===- LogMany.cpp - Which runs share each program's key ------------------===//
//
// `compare-logs A B C …`: logs of several hosts, ranks or days. Every run is
// paired with the first (LogPairing.cpp: by key, then name, shapes, order);
// a program is then the first run's program and its partner in each other
// run, or a program the first run lacks, merged by label. Per program the
// runs are grouped by final key digest; the largest group (the first run's
// on a tie) is the common key, the others are the odd ones out, each with
// the entries whose own digests differ from the common key's program.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include <algorithm>
#include <set>
#include <map>
#include <unordered_map>

namespace cachekey {

using namespace logs;

bool ManyLogComparison::keysDiffer() const {
  for (const auto &p : programs)
    if (!p.odd.empty())
      return true;
  return false;
}

Expected<ManyLogComparison> compareManyLogSummaries(std::vector<LogSummary> logs) {
  ManyLogComparison r;
  if (logs.size() < 2)
    return Error{"logs", "compare at least two logs"};
  // A log without any cache line (logged at WARNING only, or with
  // JAX_DEBUG_LOG_MODULES alone) is left out of the pairing, and named in
  // the advice (LogOutcomes), as long as two logs can still be compared.
  size_t usable = 0;
  for (const LogSummary &log : logs) {
    usable += !log.comparable().empty();
    // A compressed or UTF-16 file is not a quiet run: say so, whatever the
    // others hold.
    if (log.encoding != LogSummary::Encoding::Text)
      return noKeyError(log);
  }
  if (usable < 2)
    for (const LogSummary &log : logs)
      if (log.comparable().empty())
        return noKeyError(log);
  // The first run orders the programs: when it is the quiet one, the first
  // log that can be compared takes its place (the others keep their order).
  if (logs[0].comparable().empty()) {
    auto first = std::find_if(logs.begin(), logs.end(), [](const LogSummary &l) {
      return !l.comparable().empty();
    });
    std::rotate(logs.begin(), first, first + 1);
  }
  r.logs = std::move(logs);
  const size_t n = r.logs.size();
  // Programs of the first run, then those it lacks, by label.
  std::map<int, size_t> ofFirst;
  std::map<std::string, size_t> byLabel;
  for (int i : r.logs[0].comparable()) {
    ProgramAcrossRuns p;
    p.program.assign(n, -1);
    p.program[0] = i;
    p.name = r.logs[0].programs[i].name;
    ofFirst[i] = r.programs.size();
    r.programs.push_back(std::move(p));
  }
  for (size_t run = 1; run < n; ++run) {
    if (r.logs[run].comparable().empty())
      continue; // a quiet log: its programs are unknown, not absent
    PairedBy how;
    auto pairs = pairPrograms(r.logs[0], r.logs[run], how);
    const LogSummary &first = r.logs[0], &other = r.logs[run];
    for (const ProgramPair &pair : pairs) {
      if (pair.b < 0) {
        if (pair.a >= 0 && r.programs[ofFirst[pair.a]].label.empty())
          r.programs[ofFirst[pair.a]].label = pairLabel(first, other, how, pair);
        continue;
      }
      size_t at;
      if (pair.a >= 0) {
        at = ofFirst[pair.a];
        if (r.programs[at].label.empty())
          r.programs[at].label = pairLabel(first, other, how, pair);
      } else {
        std::string label = pairLabel(first, other, how, pair);
        auto it = byLabel.find(label);
        if (it == byLabel.end()) {
          ProgramAcrossRuns p;
          p.program.assign(n, -1);
          p.name = pairName(first, other, how, pair);
          p.label = label;
          it = byLabel.emplace(std::move(label), r.programs.size()).first;
          r.programs.push_back(std::move(p));
        }
        at = it->second;
      }
      r.programs[at].program[run] = pair.b;
    }
  }
  std::map<std::pair<int, int>,
           std::unordered_map<PairInputs, std::pair<KeyMove, int>, PairInputsHash>>
      kinds; // by (common run, odd run)
  for (ProgramAcrossRuns &p : r.programs) {
    if (p.label.empty())
      p.label = p.name.empty() ? "key" : p.name;
    // Group the runs by final digest, in run order.
    std::vector<std::pair<Digest, std::vector<int>>> groups;
    for (size_t run = 0; run < n; ++run) {
      if (p.program[run] < 0) {
        if (!r.logs[run].comparable().empty())
          p.absent.push_back(static_cast<int>(run));
        continue;
      }
      auto d = r.logs[run].programs[p.program[run]].finalDigest();
      if (!d)
        continue;
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const auto &g) { return g.first == *d; });
      if (it == groups.end())
        groups.push_back({*d, {static_cast<int>(run)}});
      else
        it->second.push_back(static_cast<int>(run));
    }
    for (auto &g : groups)
      p.groups.push_back(g.second);
    if (p.groups.empty())
      continue;
    // The largest group is the common key; one file given twice counts once.
    auto weight = [&](const std::vector<int> &runs) {
      size_t w = 0;
      for (size_t i = 0; i < runs.size(); ++i) {
        bool again = false;
        for (size_t j = 0; j < i && !again; ++j)
          again = sameLog(r.logs[runs[i]], r.logs[runs[j]]);
        w += !again;
      }
      return w;
    };
    size_t common = 0;
    for (size_t g = 1; g < p.groups.size(); ++g)
      if (weight(p.groups[g]) > weight(p.groups[common]))
        common = g;
    p.common = static_cast<int>(common);
    const int ref = p.groups[common].front();
    const LoggedProgram &rp = r.logs[ref].programs[p.program[ref]];
    for (size_t g = 0; g < p.groups.size(); ++g) {
      if (g == common)
        continue;
      for (int run : p.groups[g]) {
        OddRun odd;
        odd.run = run;
        const LoggedProgram &op = r.logs[run].programs[p.program[run]];
        for (int e = 0; e < kNumEntries; ++e)
          if (rp.digests().own[e] && op.digests().own[e] && rp.digests().own[e] != op.digests().own[e])
            odd.entries.push_back(e + 1);
        if (rp.complete() && op.complete()) {
          // Explained as a pair of the two runs is; pairs alike (same
          // runs, same inputs) once.
          // In the order the logs were given, as two logs are compared
          // (first to second): a run given before the common one is the
          // start of its move ("the jaxlib upgrade 0.4.30 -> 0.10.2" for an
          // older first log), not its end.
          const bool before = run < ref;
          auto &known = kinds[{ref, run}];
          PairInputs in = before ? pairInputs(op, rp) : pairInputs(rp, op);
          auto it = known.find(in);
          if (it == known.end()) {
            PairExplanation x = before ? explainPair(r.logs[run], r.logs[ref], op, rp)
                                       : explainPair(r.logs[ref], r.logs[run], rp, op);
            it = known.emplace(in, std::make_pair(std::move(x.move),
                                                  static_cast<int>(x.comparison.cause)))
                     .first;
          }
          odd.move = it->second.first;
          odd.cause = it->second.second;
        }
        p.odd.push_back(std::move(odd));
      }
    }
  }
  // One global setting per odd run, as for two logs (LogCompare.cpp):
  // entry 1 of every program the run shares with the others moved, JAX's
  // own programs among them or two or more programs of different names, and
  // the shapes lines show no dtype change.
  for (size_t run = 0; run < n; ++run) {
    size_t present = 0, moved = 0;
    bool plain = true, jaxOwn = false;
    std::set<std::string> names;
    for (const ProgramAcrossRuns &p : r.programs) {
      if (p.common < 0 || p.program[run] < 0)
        continue;
      ++present;
      for (const OddRun &o : p.odd)
        if (o.run == static_cast<int>(run)) {
          ++moved;
          using M = KeyMove::Code;
          plain = plain && (o.move.code == M::ProgramChanged || o.move.code == M::JaxOwnProgram);
          jaxOwn = jaxOwn || o.move.code == M::JaxOwnProgram;
          names.insert(p.name);
        }
    }
    if (plain && (jaxOwn || names.size() >= 2) && moved >= 2 && moved == present) {
      KeyMove every;
      every.code = KeyMove::Code::EveryProgram;
      every.both = jaxOwn;
      every.before = std::to_string(moved);
      for (ProgramAcrossRuns &p : r.programs)
        for (OddRun &o : p.odd)
          if (o.run == static_cast<int>(run))
            o.move = every, o.cause = 1;
    }
  }
  // Per run, the one cause of all its odd programs: their moves, leaving
  // out JAX's own programs (a global setting moves those too) when the
  // others agree; moves of one kind that differ only in the dtypes
  // (jax_enable_x64 on int32 and float32 arguments) are one, their dtypes
  // merged.
  r.oddCause.assign(n, KeyMove{});
  for (size_t run = 0; run < n; ++run) {
    std::vector<const KeyMove *> all, own;
    for (const ProgramAcrossRuns &p : r.programs)
      for (const OddRun &o : p.odd)
        if (o.run == static_cast<int>(run))
          (o.move.code == KeyMove::Code::JaxOwnProgram ? own : all).push_back(&o.move);
    if (all.empty() || all.size() + own.size() < 2)
      continue;
    KeyMove cause = *all.front();
    bool one = cause.code != KeyMove::Code::None && cause.code != KeyMove::Code::TraceMissing &&
               cause.code != KeyMove::Code::Inconsistent;
    auto addTo = [](std::string &list, const std::string &items) {
      // Both are ", "-joined dtype lists.
      size_t at = 0;
      while (at <= items.size()) {
        size_t end = items.find(", ", at);
        std::string t = items.substr(at, end == std::string::npos ? std::string::npos : end - at);
        std::string padded = ", " + list + ", ";
        if (!t.empty() && padded.find(", " + t + ", ") == std::string::npos)
          list += (list.empty() ? "" : ", ") + t;
        if (end == std::string::npos)
          break;
        at = end + 2;
      }
    };
    for (const KeyMove *m : all) {
      if (!one)
        break;
      if (*m == cause)
        continue;
      if (m->code == KeyMove::Code::EnableX64 && cause.code == KeyMove::Code::EnableX64) {
        addTo(cause.before, m->before);
        addTo(cause.after, m->after);
      } else {
        one = false;
      }
    }
    if (one)
      r.oddCause[run] = cause;
  }
  // One note per file given more than once (LogSummary::source).
  std::vector<bool> noted(n, false);
  for (size_t i = 0; i < n; ++i) {
    if (noted[i])
      continue;
    LogNote note;
    note.logs = {static_cast<int>(i)};
    for (size_t j = i + 1; j < n; ++j)
      if (sameLog(r.logs[i], r.logs[j])) {
        note.logs.push_back(static_cast<int>(j));
        noted[j] = true;
      }
    if (note.logs.size() > 1)
      r.notes.push_back(std::move(note));
  }
  for (const LogSummary &log : r.logs)
    r.stats.push_back(runStats(log));
  r.advice = adviseManyLogs(r);
  // The answer first: the counts behind the verdict line.
  ManyLogVerdict &v = r.verdict;
  v.oddPrograms.assign(n, 0);
  for (const ProgramAcrossRuns &p : r.programs) {
    if (p.common < 0)
      continue;
    ++v.programs;
    v.sameKey += p.odd.empty() && p.absent.empty();
    for (const OddRun &o : p.odd)
      ++v.oddPrograms[o.run];
  }
  const bool odd = std::any_of(v.oddPrograms.begin(), v.oddPrograms.end(),
                               [](size_t k) { return k > 0; });
  v.code = odd                       ? ManyLogVerdict::Code::OddRuns
           : v.sameKey == v.programs ? ManyLogVerdict::Code::OneKey
                                     : ManyLogVerdict::Code::NotInEveryRun;
  return r;
}

const char *manyVerdictCode(ManyLogVerdict::Code code) {
  // As logVerdictCode (LogVerdict.cpp) names the two-log verdict's codes.
  switch (code) {
  case ManyLogVerdict::Code::OneKey: return "one_key";
  case ManyLogVerdict::Code::OddRuns: return "odd_runs";
  case ManyLogVerdict::Code::NotInEveryRun: return "not_in_every_run";
  }
  return "unknown";
}

} // namespace cachekey
