//===- TextDiff.h - A unified diff of two texts -----------------*- C++ -*-===//
//
// Line-based, like `diff -u`: the shortest edit script (a longest common
// subsequence of lines) found with Myers' O((N+M)·D) algorithm after the
// common head and tail are set aside, as unified hunks. Used to show how a
// captured module's text moved when entry 1 did. The diff is made as facts,
// one DiffLine per line with what the line is (its op), and printed from
// them: the CLI prints the text, the page renders each line by its op.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_TEXTDIFF_H
#define CACHEKEY_TEXTDIFF_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

/// One line of a unified diff: what it is and its fields. diffLineText
/// prints it as `diff -u` does.
struct DiffLine {
  enum class Op : uint8_t {
    FileA,    // "--- `text`": side A's name
    FileB,    // "+++ `text`": side B's name
    Hunk,     // "@@ -firstA,countA +firstB,countB @@"
    Context,  // " `text`": a line both sides have
    Del,      // "-`text`": a line only side A has
    Add,      // "+`text`": a line only side B has
    Cut,      // "… `more` more lines": the lines left out after maxLines
    TooLarge, // more than `more` (maxEdits) lines inserted or deleted, so
              // no hunks: side A has countA lines, side B countB
  };
  Op op = Op::Context;
  std::string text;
  /// Hunk: the first line of each side it covers (1-based; for an empty
  /// side, the line after which the other side's lines go) and how many.
  size_t firstA = 0, countA = 0, firstB = 0, countB = 0;
  /// Cut: the lines left out; TooLarge: the edit limit.
  size_t more = 0;
};

/// The line as `diff -u` prints it, without its '\n'.
std::string diffLineText(const DiffLine &line);

/// The lines of the unified diff of `before` and `after`, split at '\n' (a
/// final line without '\n' is a line): FileA, FileB, then hunks; empty when
/// the texts are equal.
std::vector<DiffLine> diffLines(const std::string &before,
                                const std::string &after,
                                const std::string &nameBefore,
                                const std::string &nameAfter,
                                const UnifiedDiffOptions &options = {});

/// The lines printed, each followed by '\n'.
std::string unifiedDiffText(const std::vector<DiffLine> &lines);

/// A unified diff of `before` and `after`, split at '\n' (a final line
/// without '\n' is a line). Starts with "--- nameBefore" and "+++ nameAfter"
/// and holds "@@ -l,n +l,n @@" hunks; empty when the texts are equal.
std::string unifiedDiff(const std::string &before, const std::string &after,
                        const std::string &nameBefore,
                        const std::string &nameAfter,
                        const UnifiedDiffOptions &options = {});

} // namespace cachekey

#endif // CACHEKEY_TEXTDIFF_H
