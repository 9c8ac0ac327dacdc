//===- Diff.h - Which ingredient moved --------------------------*- C++ -*-===//
//
// Two keys are compared the way a reader compares two DEBUG traces: the first
// entry whose own digest differs is the cause; every running digest after it
// differs only as a consequence. The engine also says what changed inside the
// cause entry ("flag --xla_gpu_autotune_level=1 replaced …=0").
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_DIFF_H
#define CACHEKEY_DIFF_H

#include "cachekey/Key.h"

#include <string>
#include <vector>

namespace cachekey {

/// The outcome of comparing two keys or two traces.
struct Comparison {
  /// 1…8: the first entry whose own digest differs; 0 when none does.
  int cause = 0;
  /// Later entries whose own digest also differs (a second ingredient moved).
  std::vector<int> alsoChanged;
  /// Later entries whose own digest is equal but whose running digest
  /// differs, because of the cause.
  std::vector<int> consequences;
  /// What changed inside the cause entry, one item per change.
  std::vector<std::string> details;
  /// One sentence naming the cause, its details and the consequences.
  std::string sentence;
  /// Caveats of either side, once each (live MLIR bytes, stand-in
  /// fingerprints).
  std::vector<std::string> notes;
};

/// Fills `cause`, `alsoChanged` and `consequences` from which entries' own
/// (`own[i]`) and running (`running[i]`) digests differ, entry i + 1.
void classifyEntries(Comparison &c, const std::array<bool, kNumEntries> &own,
                     const std::array<bool, kNumEntries> &running);

/// Builds `sentence` from the other fields of `c`.
void writeSentence(Comparison &c);

/// Compares two computed keys entry by entry, with details for every entry
/// that changed (the cause's details first).
Comparison compareResults(const KeyResult &before, const KeyResult &after);

/// What changed inside entry `index` (1…8) between two results.
std::vector<std::string> describeEntryChange(const KeyResult &before,
                                             const KeyResult &after, int index);

/// The flag-level change between two sets of collected flags, e.g.
/// "flag --a=1 replaced --a=0", "added flag --b", "removed flag --c".
std::vector<std::string> describeFlagChange(
    const std::vector<std::pair<bool, std::string>> &before,
    const std::vector<std::pair<bool, std::string>> &after);

Json comparisonToJson(const Comparison &c);

} // namespace cachekey

#endif // CACHEKEY_DIFF_H
