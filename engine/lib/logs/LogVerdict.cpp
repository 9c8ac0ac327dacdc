//===- LogVerdict.cpp - The answer of a two-log comparison, as facts ------===//
//
// What the second run recompiled and why, counted from the pairs the
// comparison made (LogCompare.cpp): a program "missed" when JAX logged a
// persistent-cache miss for it (compiler.py's "PERSISTENT COMPILATION CACHE
// MISS" / "Not writing …" family, LogReader.h Lookup::Miss); its key
// "moved" when its digest differs from its pair's in the first run. The
// words are logVerdictText's (LogSummaryWording.cpp).
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include "cachekey/English.h"

#include <string_view>
#include <unordered_set>

namespace cachekey {

LogVerdict logVerdict(const LogComparison &r) {
  using Keys = ProgramPair::Keys;
  LogVerdict v;
  const LogSummary &lb = r.logs[1];
  std::unordered_set<std::string_view> namesOfFirst; // made at the first new miss
  int move = -2; // -2: no moved miss yet; -1: several moves
  bool sameKeyReasons = true; // the same-key misses so far share one reason
  auto name = [&v](size_t i) {
    if (v.named.size() < NameSample::kKept)
      v.named.push_back(static_cast<uint32_t>(i));
  };
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    const ProgramPair &p = r.pairs[i];
    if (p.a >= 0 && p.b >= 0) {
      ++v.paired;
      v.pairedMoved += p.keys == Keys::Differ;
    }
    if (p.b < 0)
      continue;
    ++v.programs;
    const LoggedProgram &b = lb.programs[p.b];
    if (b.lookup == Lookup::Hit)
      ++v.hits;
    if (b.lookup != Lookup::Miss)
      continue;
    ++v.missed;
    name(i);
    if (lb.endsCompiling(b))
      v.stopped = static_cast<int>(i);
    if (p.a < 0) {
      ++v.fresh;
      if (namesOfFirst.empty())
        for (const LoggedProgram &x : r.logs[0].programs)
          namesOfFirst.insert(x.name.view());
      v.freshShapes += b.shapes >= 0 && !b.name.empty() && !p.shapesInFirst &&
                       r.renamedFrom(p) < 0 && namesOfFirst.count(b.name.view());
    } else if (p.keys == Keys::Differ) {
      ++v.moved;
      int m = static_cast<int>(p.move);
      move = move == -2 || move == m ? m : -1;
    } else if (p.keys == Keys::Unknown) {
      ++v.unknown;
    } else {
      // One reason for all of them, or none said.
      if (v.sameKey == 0) {
        v.sameKeyReason = p.miss;
      } else if (!sameKeyReasons || v.sameKeyReason != p.miss) {
        sameKeyReasons = false;
        v.sameKeyReason.reset();
      }
      ++v.sameKey;
    }
    if (const WriteOutcome w = b.write(); w.compileSeconds >= 0) {
      v.compileSeconds += w.compileSeconds;
      ++v.timedMisses;
    }
  }
  v.oneMove = move >= 0 ? move : -1;
  v.cutAt = lb.endsInsideKeyAt();
  if (v.hits + v.missed == 0) {
    v.code = LogVerdict::Code::NoOutcomes;
    v.named.clear();
    for (size_t i = 0; i < r.pairs.size(); ++i)
      if (r.pairs[i].keys == Keys::Differ && r.pairs[i].a >= 0 && r.pairs[i].b >= 0)
        name(i);
  } else {
    v.code = v.missed ? LogVerdict::Code::Missed : LogVerdict::Code::AllHit;
  }
  return v;
}

const char *logVerdictCode(LogVerdict::Code code) {
  switch (code) {
  case LogVerdict::Code::AllHit: return "all_hit";
  case LogVerdict::Code::Missed: return "missed";
  case LogVerdict::Code::NoOutcomes: return "no_outcomes";
  }
  return "unknown";
}

} // namespace cachekey
