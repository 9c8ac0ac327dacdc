//===- TextDiff.h - A unified diff of two texts -----------------*- C++ -*-===//
//
// Line-based, like `diff -u`: the shortest edit script (a longest common
// subsequence of lines) found with Myers' O((N+M)·D) algorithm after the
// common head and tail are set aside, printed as unified hunks. Used to show
// how a captured module's text moved when entry 1 did.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_TEXTDIFF_H
#define CACHEKEY_TEXTDIFF_H

#include <cstddef>
#include <string>

namespace cachekey {

struct UnifiedDiffOptions {
  /// Unchanged lines shown around each change (diff -u's default).
  size_t context = 3;
  /// Largest number of inserted plus deleted lines searched for; beyond it the
  /// result only says how many lines each side has (the search is O(D²) in
  /// memory).
  size_t maxEdits = 4000;
  /// Output lines (hunk headers included) after which the diff is cut with a
  /// "… N more lines" line.
  size_t maxLines = 400;
};

/// A unified diff of `before` and `after`, split at '\n' (a final line
/// without '\n' is a line). Starts with "--- nameBefore" and "+++ nameAfter"
/// and holds "@@ -l,n +l,n @@" hunks; empty when the texts are equal.
std::string unifiedDiff(const std::string &before, const std::string &after,
                        const std::string &nameBefore,
                        const std::string &nameAfter,
                        const UnifiedDiffOptions &options = {});

} // namespace cachekey

#endif // CACHEKEY_TEXTDIFF_H
