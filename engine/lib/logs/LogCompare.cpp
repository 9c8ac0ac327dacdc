//===- LogCompare.cpp - Why the second run missed the cache ---------------===//
//
// The orchestration of a log comparison (LogCompare.h): pair the programs
// (LogPairing.cpp), compare each pair's keys and explain it from the logs
// (LogEvidence.cpp), then say it (LogWording.cpp).
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include "cachekey/Parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <unordered_map>

namespace cachekey {

using namespace logs;

bool LogComparison::keysDiffer() const {
  for (const auto &p : pairs)
    if (p.keys == ProgramPair::Keys::Differ)
      return true;
  return false;
}

RunStats runStats(const LogSummary &log) {
  RunStats s;
  std::array<size_t, static_cast<size_t>(NotCached::Unknown) + 1> counts{};
  for (int i : log.comparable()) {
    const LoggedProgram &p = log.programs[i];
    ++s.programs;
    if (p.lookup == Lookup::Hit) {
      ++s.hits;
      continue;
    }
    if (p.lookup == Lookup::Unknown) {
      ++s.noOutcome;
      continue;
    }
    ++s.misses;
    const WriteOutcome w = p.write();
    if (w.compileSeconds >= 0) {
      s.missCompileSeconds += w.compileSeconds;
      ++s.timedMisses;
    }
    std::optional<NotCached> why;
    if (p.lookupNoCache || (w.state == WriteState::NotWritten &&
                            w.reason == NotWrittenReason::CacheDisabled))
      why = NotCached::NoCache;
    else if (p.readError() >= 0)
      why = NotCached::ReadFailed;
    else if (w.state == WriteState::Failed)
      why = NotCached::WriteFailed;
    else if (w.state == WriteState::NotWritten)
      switch (w.reason) {
      case NotWrittenReason::CompileTime: why = NotCached::CompileTime; break;
      case NotWrittenReason::EntrySize: why = NotCached::EntrySize; break;
      case NotWrittenReason::HostCallbacks: why = NotCached::HostCallbacks; break;
      case NotWrittenReason::NotProcessZero: why = NotCached::NotProcessZero; break;
      case NotWrittenReason::TooLarge: why = NotCached::TooLarge; break;
      case NotWrittenReason::CacheDisabled: why = NotCached::NoCache; break;
      case NotWrittenReason::None: why = NotCached::Unknown; break;
      }
    else if (w.state == WriteState::Unknown)
      why = NotCached::Unknown;
    else
      ++s.written;
    if (why)
      ++counts[static_cast<size_t>(*why)];
  }
  for (size_t k = 0; k < counts.size(); ++k)
    if (counts[k])
      s.notCached.push_back({static_cast<NotCached>(k), counts[k]});
  s.evictions = log.evictionLines;
  return s;
}

Expected<LogComparison> compareLogSummaries(LogSummary first, LogSummary second) {
  LogComparison r;
  r.logs[0] = std::move(first);
  r.logs[1] = std::move(second);
  for (const LogSummary &log : r.logs)
    if (log.comparable().empty())
      return Error{log.name, noKeyMessage(log)};
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  r.pairs = pairPrograms(la, lb, r.pairedBy);
  // Moves are interned: thousands of pairs that moved the same way share
  // one KeyMove. Of the explanations only two are kept: the first pair
  // whose keys differ and the first pair in both runs (the one explained
  // when no key differs), so memory does not grow with the pairs.
  std::map<KeyMove, uint32_t> moveIds{{KeyMove{}, 0}};
  auto moveId = [&](const KeyMove &m) {
    auto [it, added] = moveIds.emplace(m, static_cast<uint32_t>(r.moves.size()));
    if (added)
      r.moves.push_back(m);
    return it->second;
  };
  int firstInBoth = -1;
  for (size_t i = 0; i < r.pairs.size() && firstInBoth < 0; ++i)
    if (r.pairs[i].a >= 0 && r.pairs[i].b >= 0)
      firstInBoth = static_cast<int>(i);
  // explainPair reads of a program only its digest lines, flags, compile
  // options, fallback and shapes lines, and its name when it is one of
  // JAX's own (LogEvidence.cpp); of the logs, what is the same for every
  // pair. Pairs alike in those are explained once (a log that compiles the
  // same programs again and again has few such kinds), and the kinds new in
  // a wave of pairs are explained on every core. Only the KeyMove and the
  // cause are kept per kind; the two explanations shown are made again.
  struct Kind {
    uint32_t move = 0;
    uint8_t cause = 0;
  };
  std::unordered_map<PairInputs, Kind, PairInputsHash> kinds;

  int firstDiffer = -1;
  const size_t wave = 8192;
  const unsigned threads = workerThreads();
  std::vector<size_t> toExplain;          // pairs of the wave whose kind is new
  std::vector<std::pair<KeyMove, uint8_t>> explained;
  std::vector<PairInputs> waveInputs;
  for (size_t from = 0; from < r.pairs.size(); from += wave) {
    const size_t to = std::min(r.pairs.size(), from + wave);
    toExplain.clear();
    waveInputs.assign(to - from, PairInputs{});
    std::unordered_map<PairInputs, size_t, PairInputsHash> newKinds;
    for (size_t i = from; i < to; ++i) {
      ProgramPair &p = r.pairs[i];
      if (p.a < 0 || p.b < 0)
        continue;
      const LoggedProgram &pa = la.programs[p.a], &pb = lb.programs[p.b];
      auto fa = pa.finalDigest(), fb = pb.finalDigest();
      p.keys = !fa || !fb   ? ProgramPair::Keys::Unknown
               : *fa == *fb ? ProgramPair::Keys::Equal
                            : ProgramPair::Keys::Differ;
      if (p.keys == ProgramPair::Keys::Equal && pb.lookup == Lookup::Miss)
        p.miss = equalKeyMiss(la, lb, pa, pb);
      if (!(pa.complete() && pb.complete()))
        continue;
      // The explanation shown for a moved key is that of the first pair
      // whose keys differ and whose traces are both complete.
      if (p.keys == ProgramPair::Keys::Differ && firstDiffer < 0)
        firstDiffer = static_cast<int>(i);
      PairInputs &k = waveInputs[i - from] = pairInputs(pa, pb);
      if (!kinds.count(k) && newKinds.emplace(k, toExplain.size()).second)
        toExplain.push_back(i);
    }
    explained.assign(toExplain.size(), {});
    std::atomic<size_t> next{0};
    runOnThreads(toExplain.size() < 64 ? 1u : threads, [&] {
      for (size_t j; (j = next++) < toExplain.size();) {
        const ProgramPair &p = r.pairs[toExplain[j]];
        PairExplanation x = explainPair(la, lb, la.programs[p.a], lb.programs[p.b]);
        explained[j] = {std::move(x.move), static_cast<uint8_t>(x.comparison.cause)};
      }
    });
    // Interned in pair order, as one pair at a time would.
    for (size_t i = from; i < to; ++i) {
      ProgramPair &p = r.pairs[i];
      if (p.a < 0 || p.b < 0)
        continue;
      const LoggedProgram &pa = la.programs[p.a], &pb = lb.programs[p.b];
      if (pa.complete() && pb.complete()) {
        const PairInputs &k = waveInputs[i - from];
        auto known = kinds.find(k);
        if (known == kinds.end()) {
          auto &[move, cause] = explained[newKinds.at(k)];
          known = kinds.emplace(k, Kind{moveId(move), cause}).first;
        }
        p.move = known->second.move;
        if (p.keys == ProgramPair::Keys::Differ)
          p.cause = known->second.cause;
      } else if (p.keys == ProgramPair::Keys::Differ) {
        KeyMove m;
        m.code = KeyMove::Code::TraceMissing;
        m.both = !pa.complete() && !pb.complete();
        p.move = moveId(m);
      }
    }
  }
  // With a relative cache path in both runs, an entry the first run wrote
  // and never evicted that the second run still missed (RelativeDir) shows
  // that the runs resolved the path in different working directories: the
  // evicted entries were missed for that reason too, whatever the LRU did.
  if (std::any_of(r.pairs.begin(), r.pairs.end(),
                  [](const ProgramPair &p) { return p.miss == MissReason::RelativeDir; }))
    for (ProgramPair &p : r.pairs)
      if (p.miss == MissReason::Evicted)
        p.miss = MissReason::RelativeDir;
  // The two explanations that are shown, made again (explainPair is pure).
  auto explainAgain = [&](int i) -> std::optional<PairExplanation> {
    if (i < 0)
      return std::nullopt;
    const ProgramPair &p = r.pairs[i];
    const LoggedProgram &pa = la.programs[p.a], &pb = lb.programs[p.b];
    if (!(pa.complete() && pb.complete()))
      return std::nullopt;
    return explainPair(la, lb, pa, pb);
  };
  std::optional<PairExplanation> firstDifferExplanation = explainAgain(firstDiffer);
  std::optional<PairExplanation> firstInBothExplanation =
      firstInBoth >= 0 && r.pairs[firstInBoth].keys != ProgramPair::Keys::Differ
          ? explainAgain(firstInBoth)
          : std::nullopt;
  // One global setting: entry 1 of every paired program moved, JAX's own
  // programs among them, and the shapes lines show no dtype change.
  {
    size_t paired = 0, moved = 0;
    bool jaxOwn = false, plain = true;
    for (const ProgramPair &p : r.pairs) {
      if (p.a < 0 || p.b < 0)
        continue;
      ++paired;
      if (p.keys != ProgramPair::Keys::Differ)
        continue;
      ++moved;
      using M = KeyMove::Code;
      M code = r.moveOf(p).code;
      plain = plain && (code == M::ProgramChanged || code == M::JaxOwnProgram);
      jaxOwn = jaxOwn || code == M::JaxOwnProgram;
    }
    if (plain && jaxOwn && moved >= 2 && moved == paired) {
      KeyMove every;
      every.code = KeyMove::Code::EveryProgram;
      every.before = std::to_string(moved);
      uint32_t id = moveId(every);
      for (ProgramPair &p : r.pairs)
        if (p.keys == ProgramPair::Keys::Differ)
          p.move = id;
    }
  }

  // The pair the explanation names: the first whose keys differ, else the
  // first in both runs.
  for (size_t i = 0; i < r.pairs.size() && r.explained < 0; ++i)
    if (r.pairs[i].keys == ProgramPair::Keys::Differ)
      r.explained = static_cast<int>(i);
  for (size_t i = 0; i < r.pairs.size() && r.explained < 0; ++i)
    if (r.pairs[i].a >= 0 && r.pairs[i].b >= 0)
      r.explained = static_cast<int>(i);
  const PairExplanation *x = nullptr;
  if (r.explained >= 0 && r.pairs[r.explained].keys == ProgramPair::Keys::Differ)
    x = firstDifferExplanation ? &*firstDifferExplanation : nullptr;
  else if (r.explained >= 0 && r.explained == firstInBoth && firstInBothExplanation)
    x = &*firstInBothExplanation;
  if (x) {
    r.comparison = x->comparison;
    r.findings = x->findings;
    r.otherFindings = x->otherFindings;
  }
  if (x && r.explained >= 0 &&
      r.moveOf(r.pairs[r.explained]).code == KeyMove::Code::EveryProgram) {
    LogFinding f;
    f.code = LogFinding::Code::EveryProgram;
    f.entry = 1;
    f.subject = r.moveOf(r.pairs[r.explained]).before;
    r.findings = {f};
    r.comparison.details = {logFindingText(f)};
    writeSentence(r.comparison);
  }
  for (int side = 0; side < 2; ++side) {
    r.stats[side] = runStats(r.logs[side]);
    r.statsText[side] = runStatsText(r.logs[side], r.stats[side]);
  }
  readingNotes(la, lb, r.notes, r.noteCodes);
  r.sentence = comparisonSentence(r);
  r.summary = runSummary(r);
  r.advice = adviseLogComparison(r);
  return r;
}

Expected<LogComparison> compareLogs(std::string_view logA, std::string_view logB,
                                    const std::string &nameA,
                                    const std::string &nameB) {
  return compareLogSummaries(readLog(logA, nameA), readLog(logB, nameB));
}

} // namespace cachekey
