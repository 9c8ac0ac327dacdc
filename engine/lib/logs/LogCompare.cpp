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
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

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
      why = p.compileOnlyRead() ? NotCached::CompileOnly : NotCached::ReadFailed;
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

namespace {

/// Whether `x` can stand for a function under another name: named (not
/// one of JAX's own programs), its argument shapes and types logged, and
/// its whole key trace (entries 1…8) read.
bool renameCandidate(const LoggedProgram &x) {
  return !x.name.empty() && x.shapes >= 0 && x.digests().whole &&
         !isJaxOwnProgram(x.name.view());
}

/// The programs of one run only that are one function under two names
/// (LogComparison::renames, in the second run's pair order): a program of
/// the second run alone, and one of the first run alone, whose names each
/// appear in their own log only, with the same argument shapes and types
/// (the pxla "Compiling …" line) and the same own digests of entries 2…8,
/// where only entry 1 (the module, which JAX names after the function)
/// differs. Only one-to-one matches are linked: two candidates either way
/// link neither.
std::vector<std::pair<uint32_t, uint32_t>>
linkRenamedPrograms(const LogSummary &la, const LogSummary &lb,
                    const std::vector<ProgramPair> &pairs) {
  std::vector<uint32_t> onlyA, onlyB;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const ProgramPair &p = pairs[i];
    if (p.b < 0 && p.a >= 0 && renameCandidate(la.programs[p.a]))
      onlyA.push_back(static_cast<uint32_t>(i));
    else if (p.a < 0 && p.b >= 0 && !p.keyOfFirst && !p.shapesInFirst &&
             renameCandidate(lb.programs[p.b]))
      onlyB.push_back(static_cast<uint32_t>(i));
  }
  std::vector<std::pair<uint32_t, uint32_t>> renames;
  if (onlyA.empty() || onlyB.empty())
    return renames;
  // What must be equal, as one string: the shapes line's text and the own
  // digests of entries 2…8 (entry 3 may be absent, in both).
  const auto sameness = [](const LogSummary &log, const LoggedProgram &x) {
    std::string s = log.texts[x.shapes];
    for (int e = 2; e <= kNumEntries; ++e)
      if (const auto &d = x.digests().own[e - 1])
        s.append(reinterpret_cast<const char *>(d->data()), d->size());
      else
        s += '-';
    return s;
  };
  std::unordered_map<std::string, std::vector<uint32_t>> byA;
  for (uint32_t i : onlyA)
    byA[sameness(la, la.programs[pairs[i].a])].push_back(i);
  std::unordered_set<std::string_view> namesA, namesB;
  for (const LoggedProgram &x : la.programs)
    namesA.insert(x.name.view());
  for (const LoggedProgram &x : lb.programs)
    namesB.insert(x.name.view());
  std::unordered_map<uint32_t, int> chosen; // an A-only pair: how many chose it
  std::vector<std::pair<uint32_t, uint32_t>> links;
  for (uint32_t j : onlyB) {
    const LoggedProgram &b = lb.programs[pairs[j].b];
    auto it = byA.find(sameness(lb, b));
    if (it == byA.end() || namesA.count(b.name.view()))
      continue;
    int found = -1, count = 0;
    for (uint32_t i : it->second) {
      const LoggedProgram &a = la.programs[pairs[i].a];
      if (a.name.view() == b.name.view() || namesB.count(a.name.view()) ||
          a.digests().own[0] == b.digests().own[0])
        continue;
      found = static_cast<int>(i);
      ++count;
    }
    if (count != 1)
      continue;
    ++chosen[static_cast<uint32_t>(found)];
    links.emplace_back(static_cast<uint32_t>(found), j);
  }
  for (auto [i, j] : links)
    if (chosen[i] == 1)
      renames.emplace_back(i, j);
  return renames;
}

} // namespace

int LogComparison::renamedFrom(const ProgramPair &pair) const {
  // Asked of every pair (its JSON, its words): a pair of both runs, or no
  // link at all, answers at once; `renames` is in the second run's pair
  // order, so a pair of the second run only is looked up by bisection.
  if (renames.empty() || pair.a >= 0)
    return -1;
  const auto at = static_cast<uint32_t>(&pair - pairs.data());
  auto it = std::lower_bound(renames.begin(), renames.end(), at,
                             [](const auto &link, uint32_t j) { return link.second < j; });
  return it != renames.end() && it->second == at ? static_cast<int>(it->first) : -1;
}

int LogComparison::renamedTo(const ProgramPair &pair) const {
  if (renames.empty() || pair.b >= 0)
    return -1;
  const auto at = static_cast<uint32_t>(&pair - pairs.data());
  for (const auto &[first, second] : renames)
    if (first == at)
      return static_cast<int>(second);
  return -1;
}

Expected<LogComparison> compareLogSummaries(LogSummary &&first, LogSummary &&second) {
  // Checked before the comparison is made: most logs a fuzzer makes hold
  // no key, and a LogComparison's two LogSummaries allocate even empty.
  for (const LogSummary *log : {&first, &second})
    if (log->comparable().empty())
      return noKeyError(*log);
  LogComparison r;
  r.logs[0] = std::move(first);
  r.logs[1] = std::move(second);
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  r.pairs = pairPrograms(la, lb, r.pairedBy);
  // Programs of the second run only: was their key the first run's, or
  // written earlier in the second log? (Only built when there are such.)
  if (std::any_of(r.pairs.begin(), r.pairs.end(),
                  [](const ProgramPair &p) { return p.a < 0 && p.b >= 0; })) {
    // Sorted vectors, not trees: 32 bytes a key where a node would take
    // twice that (a large log has hundreds of thousands of programs).
    std::vector<Digest> keysOfFirst;
    for (const LoggedProgram &x : la.programs)
      if (auto d = x.finalDigest())
        keysOfFirst.push_back(*d);
    std::sort(keysOfFirst.begin(), keysOfFirst.end());
    // Keys the second log wrote, each with the programs that wrote it,
    // sorted so that the first program that wrote a key comes first.
    std::vector<std::pair<Digest, int>> writtenAt;
    for (size_t i = 0; i < lb.programs.size(); ++i)
      if (lb.programs[i].writeState == WriteState::Written)
        if (auto d = lb.programs[i].finalDigest())
          writtenAt.emplace_back(*d, static_cast<int>(i));
    std::sort(writtenAt.begin(), writtenAt.end());
    // The names and argument shapes the first log compiled: a hash of each
    // nameAndShapes with the program's index (16 bytes a program, not a copy
    // of its shapes line), a match checked against the texts themselves.
    const auto hashOf = [](const LogSummary &log, const LoggedProgram &x) {
      return std::hash<std::string>()(nameAndShapes(log, x));
    };
    std::vector<std::pair<size_t, int>> shapesOfFirst;
    for (size_t i = 0; i < la.programs.size(); ++i)
      if (la.programs[i].shapes >= 0)
        shapesOfFirst.emplace_back(hashOf(la, la.programs[i]), static_cast<int>(i));
    std::sort(shapesOfFirst.begin(), shapesOfFirst.end());
    const auto compiledInFirst = [&](const LoggedProgram &b) {
      const size_t h = hashOf(lb, b);
      for (auto it = std::lower_bound(shapesOfFirst.begin(), shapesOfFirst.end(),
                                      std::make_pair(h, -1));
           it != shapesOfFirst.end() && it->first == h; ++it) {
        const LoggedProgram &x = la.programs[it->second];
        if (x.name.view() == b.name.view() && la.texts[x.shapes] == lb.texts[b.shapes])
          return true;
      }
      return false;
    };
    for (ProgramPair &p : r.pairs)
      if (p.a < 0 && p.b >= 0)
        if (auto d = lb.programs[p.b].finalDigest()) {
          p.keyOfFirst = std::binary_search(keysOfFirst.begin(), keysOfFirst.end(), *d);
          auto w = std::lower_bound(writtenAt.begin(), writtenAt.end(), std::make_pair(*d, -1));
          p.keyWrittenBefore = w != writtenAt.end() && w->first == *d && w->second < p.b;
          const LoggedProgram &b = lb.programs[p.b];
          p.shapesInFirst = !p.keyOfFirst && !b.name.empty() && b.shapes >= 0 &&
                            compiledInFirst(b);
        }
    r.renames = linkRenamedPrograms(la, lb, r.pairs);
  }
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

  const std::vector<char> readsFirst = dirsReadingFirst(la, lb, r.pairs);
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
        p.miss = equalKeyMiss(la, lb, pa, pb, [&] {
          const int d = cacheDirIndexOf(lb, pb);
          return d >= 0 && readsFirst[d];
        }());
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
  // One global setting: entry 1 of every paired program moved, and the
  // shapes lines show no dtype change, in JAX's own programs too or in two
  // or more programs of different names (one name compiled again and again
  // is a static argument or a captured constant: StaticOrConstant below).
  {
    size_t paired = 0, moved = 0;
    bool jaxOwn = false, plain = true;
    // Whether two or more names moved: the first name, and whether another
    // came after it (no set of 220,000 names in a large log).
    std::optional<std::string_view> firstName;
    bool twoNames = false;
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
      std::string_view name = lb.programs[p.b].name.view();
      if (!firstName)
        firstName = name;
      else
        twoNames = twoNames || name != *firstName;
    }
    if (plain && (jaxOwn || twoNames) && moved >= 2 && moved == paired) {
      KeyMove every;
      every.code = KeyMove::Code::EveryProgram;
      every.both = jaxOwn;
      every.before = std::to_string(moved);
      uint32_t id = moveId(every);
      for (ProgramPair &p : r.pairs)
        if (p.keys == ProgramPair::Keys::Differ)
          p.move = id;
    }
  }

  // One setting outside the programs (issue 34): an entry E > 1 moved in
  // every paired program, and entry 1 moved in some of them too (a sharded
  // program lowered for other devices, or by another partitioner). The
  // setting that moved E moved those programs as well: they take the move
  // of the pairs where entry 1 did not move, when those share one. When
  // that move is entry 5 with nothing in the logs naming why, it is one
  // global setting (jax_use_shardy_partitioner, …): GlobalSetting.
  {
    auto ownMoved = [&](const ProgramPair &p, int e) {
      const auto &x = la.programs[p.a].digests().own[e - 1];
      const auto &y = lb.programs[p.b].digests().own[e - 1];
      return x && y && *x != *y;
    };
    size_t paired = 0, moved = 0;
    for (const ProgramPair &p : r.pairs)
      if (p.a >= 0 && p.b >= 0) {
        ++paired;
        moved += p.keys == ProgramPair::Keys::Differ && la.programs[p.a].complete() &&
                 lb.programs[p.b].complete();
      }
    // A program whose module carries shardings: its logged compile options
    // (get_compile_options) partition it. Only those are lowered anew by
    // another partitioner or device count; an unpartitioned program's entry
    // 1 moved for a reason of its own.
    auto partitioned = [&](const LogSummary &log, const LoggedProgram &x) {
      if (x.compileOptions < 0)
        return false;
      const std::string &t = log.texts[x.compileOptions];
      for (const char *k : {"num_partitions=", "num_replicas="}) {
        size_t at = t.find(k);
        if (at != std::string::npos && std::atoi(t.c_str() + at + std::strlen(k)) > 1)
          return true;
      }
      return false;
    };
    for (int e = 2; e <= 6 && moved >= 2 && moved == paired; ++e) {
      bool everywhere = true, withProgram = false, one = true;
      std::optional<uint32_t> ref;
      for (const ProgramPair &p : r.pairs) {
        if (p.a < 0 || p.b < 0)
          continue;
        if (!ownMoved(p, e)) {
          everywhere = false;
          break;
        }
        if (ownMoved(p, 1)) {
          withProgram = true;
          if (!partitioned(la, la.programs[p.a]) || !partitioned(lb, lb.programs[p.b]))
            one = false; // entry 1 moved for a reason of its own
        } else if (!ref)
          ref = p.move;
        else if (*ref != p.move)
          one = false;
      }
      if (!everywhere)
        continue;
      if (!withProgram || !ref || !one)
        break;
      uint32_t id = *ref;
      if (r.moves[id].code == KeyMove::Code::CompileOptionsChanged) {
        KeyMove g;
        g.code = KeyMove::Code::GlobalSetting;
        g.before = std::to_string(moved);
        g.after = std::to_string(e);
        id = moveId(g);
      }
      for (ProgramPair &p : r.pairs)
        if (p.a >= 0 && p.b >= 0) {
          p.move = id;
          p.cause = static_cast<uint8_t>(e);
        }
      break;
    }
  }
  // A static argument or a captured constant: a program whose entry 1 moved
  // ("the program changed") that one run compiled several times under one
  // name with the same argument shapes and types (the pxla "Compiling …"
  // line), each time with another key.
  if (std::any_of(r.pairs.begin(), r.pairs.end(), [&](const ProgramPair &p) {
        return p.keys == ProgramPair::Keys::Differ &&
               r.moveOf(p).code == KeyMove::Code::ProgramChanged &&
               lb.programs[p.b].shapes >= 0;
      })) {
    // (name, shapes line) -> the distinct keys of that run.
    auto compiles = [](const LogSummary &log) {
      std::unordered_map<std::string, std::vector<Digest>> out;
      for (const LoggedProgram &x : log.programs) {
        auto d = x.finalDigest();
        if (x.shapes < 0 || !d)
          continue;
        auto &v = out[nameAndShapes(log, x)];
        if (std::find(v.begin(), v.end(), *d) == v.end())
          v.push_back(*d);
      }
      return out;
    };
    const auto ca = compiles(la), cb = compiles(lb);
    auto count = [](const std::unordered_map<std::string, std::vector<Digest>> &c,
                    const LogSummary &log, const LoggedProgram &x) -> size_t {
      if (x.shapes < 0)
        return 0;
      auto it = c.find(nameAndShapes(log, x));
      return it == c.end() ? 0 : it->second.size();
    };
    for (ProgramPair &p : r.pairs) {
      if (p.keys != ProgramPair::Keys::Differ ||
          r.moveOf(p).code != KeyMove::Code::ProgramChanged)
        continue;
      size_t n = std::max(count(ca, la, la.programs[p.a]), count(cb, lb, lb.programs[p.b]));
      if (n < 2)
        continue;
      KeyMove m;
      m.code = KeyMove::Code::StaticOrConstant;
      m.before = std::to_string(n);
      p.move = moveId(m);
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
    // The move holds the count of programs as its `before` (KeyMove).
    EntryChange f;
    f.code = EntryChange::Code::EveryProgram;
    f.entry = 1;
    f.sizeAfter = static_cast<size_t>(
        std::max(0, std::atoi(r.moveOf(r.pairs[r.explained]).before.c_str())));
    f.jaxOwn = r.moveOf(r.pairs[r.explained]).both;
    r.findings = {f};
  }
  for (int side = 0; side < 2; ++side)
    r.stats[side] = runStats(r.logs[side]);
  r.notes = readingNotes(r.logs[0], r.logs[1]);
  r.advice = adviseLogComparison(r);
  r.verdict = logVerdict(r);
  return r;
}

NoteCode LogNote::code() const {
  switch (kind) {
  case Kind::SameLog: return NoteCode::SameLog;
  case Kind::IncompleteKey: return NoteCode::IncompleteKey;
  case Kind::UnreadableLine:
  case Kind::VerificationErrors: return NoteCode::UnreadableLine;
  case Kind::MoreUnreadableLines: return NoteCode::MoreUnreadableLines;
  case Kind::LongLines: return NoteCode::LongLines;
  case Kind::KeyErrors: return NoteCode::KeyErrors;
  case Kind::PgleProbes: return NoteCode::PgleProbeKeys;
  case Kind::UnsupportedRuntime:
  case Kind::Pgle:
  case Kind::RelativeCacheDir:
  case Kind::CacheOff: return NoteCode::CacheOff;
  }
  return NoteCode::CacheOff;
}

Expected<LogComparison> compareLogs(std::string_view logA, std::string_view logB,
                                    const std::string &nameA,
                                    const std::string &nameB) {
  return compareLogSummaries(readLog(logA, nameA), readLog(logB, nameB));
}

} // namespace cachekey
