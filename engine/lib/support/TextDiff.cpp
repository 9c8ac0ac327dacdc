//===- TextDiff.cpp - A unified diff of two texts -------------------------===//
#include "cachekey/TextDiff.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <vector>

namespace cachekey {

namespace {

std::vector<std::string_view> splitLines(const std::string &text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      out.emplace_back(text.data() + start, text.size() - start);
      break;
    }
    out.emplace_back(text.data() + start, nl - start);
    start = nl + 1;
  }
  return out;
}

enum class Op : uint8_t { Equal, Delete, Insert };

/// Myers' greedy shortest edit script between a[0..n) and b[0..m), as one Op
/// per line; false when it needs more than `maxEdits` edits.
bool myers(const std::string_view *a, long n, const std::string_view *b, long m,
           long maxEdits, std::vector<Op> &script) {
  const long maxD = std::min(n + m, maxEdits);
  const long offset = maxD + 1;
  std::vector<long> v(static_cast<size_t>(2 * maxD + 3), 0);
  std::vector<std::vector<long>> trace; // trace[d] = v over k in [-d, d]
  long found = -1;
  for (long d = 0; d <= maxD && found < 0; ++d) {
    for (long k = -d; k <= d; k += 2) {
      long x;
      if (k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]))
        x = v[offset + k + 1]; // down: an insertion
      else
        x = v[offset + k - 1] + 1; // right: a deletion
      long y = x - k;
      while (x < n && y < m && a[x] == b[y])
        ++x, ++y;
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    trace.emplace_back(v.begin() + (offset - d), v.begin() + (offset + d + 1));
  }
  if (found < 0)
    return false;
  // Walk back from (n, m) through the saved frontiers.
  std::vector<Op> reversed;
  long x = n, y = m;
  for (long d = found; d > 0; --d) {
    const std::vector<long> &prev = trace[static_cast<size_t>(d - 1)];
    auto at = [&](long k) { return prev[static_cast<size_t>(k + d - 1)]; };
    long k = x - y;
    long prevK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1;
    long prevX = at(prevK), prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      reversed.push_back(Op::Equal);
      --x, --y;
    }
    reversed.push_back(x == prevX ? Op::Insert : Op::Delete);
    x = prevX, y = prevY;
  }
  while (x > 0 && y > 0) {
    reversed.push_back(Op::Equal);
    --x, --y;
  }
  script.assign(reversed.rbegin(), reversed.rend());
  return true;
}

std::string range(size_t first, size_t count) {
  // diff -u: "l,n", "l" when n == 1, and "l-1,0" for an empty side.
  if (count == 1)
    return std::to_string(first);
  return std::to_string(first) + "," + std::to_string(count);
}

} // namespace

std::string diffLineText(const DiffLine &line) {
  using Op = DiffLine::Op;
  switch (line.op) {
  case Op::FileA:
    return "--- " + line.text;
  case Op::FileB:
    return "+++ " + line.text;
  case Op::Hunk:
    return "@@ -" + range(line.firstA, line.countA) + " +" +
           range(line.firstB, line.countB) + " @@";
  case Op::Context:
    return " " + line.text;
  case Op::Del:
    return "-" + line.text;
  case Op::Add:
    return "+" + line.text;
  case Op::Cut:
    return "\u2026 " + std::to_string(line.more) + " more lines";
  case Op::TooLarge:
    return "(more than " + std::to_string(line.more) +
           " lines inserted or deleted; " + std::to_string(line.countA) +
           " lines before, " + std::to_string(line.countB) + " after)";
  }
  return "";
}

std::string unifiedDiffText(const std::vector<DiffLine> &lines) {
  std::string out;
  for (const DiffLine &line : lines)
    out += diffLineText(line) + "\n";
  return out;
}

std::vector<DiffLine> diffLines(const std::string &before,
                                const std::string &after,
                                const std::string &nameBefore,
                                const std::string &nameAfter,
                                const UnifiedDiffOptions &options) {
  using LineOp = DiffLine::Op;
  if (before == after)
    return {};
  std::vector<std::string_view> a = splitLines(before), b = splitLines(after);
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head])
    ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  std::vector<DiffLine> out;
  out.push_back({LineOp::FileA, nameBefore});
  out.push_back({LineOp::FileB, nameAfter});
  std::vector<Op> middle;
  if (!myers(a.data() + head, static_cast<long>(a.size() - head - tail),
             b.data() + head, static_cast<long>(b.size() - head - tail),
             static_cast<long>(options.maxEdits), middle)) {
    DiffLine tooLarge;
    tooLarge.op = LineOp::TooLarge;
    tooLarge.more = options.maxEdits;
    tooLarge.countA = a.size(), tooLarge.countB = b.size();
    out.push_back(std::move(tooLarge));
    return out;
  }
  std::vector<Op> script(head, Op::Equal);
  script.insert(script.end(), middle.begin(), middle.end());
  script.insert(script.end(), tail, Op::Equal);

  // Positions in a and b before each op.
  std::vector<size_t> ia(script.size() + 1), ib(script.size() + 1);
  for (size_t i = 0; i < script.size(); ++i) {
    ia[i + 1] = ia[i] + (script[i] != Op::Insert);
    ib[i + 1] = ib[i] + (script[i] != Op::Delete);
  }
  std::vector<DiffLine> lines;
  size_t i = 0;
  const size_t ctx = options.context;
  while (i < script.size()) {
    while (i < script.size() && script[i] == Op::Equal)
      ++i;
    if (i == script.size())
      break;
    size_t start = i >= ctx ? i - ctx : 0, end = i;
    // Extend over changes separated by at most 2·context equal lines.
    while (end < script.size()) {
      while (end < script.size() && script[end] != Op::Equal)
        ++end;
      size_t run = end;
      while (run < script.size() && script[run] == Op::Equal)
        ++run;
      if (run == script.size() || run - end > 2 * ctx) {
        end = std::min(end + ctx, script.size());
        break;
      }
      end = run;
    }
    DiffLine hunk;
    hunk.op = LineOp::Hunk;
    hunk.countA = ia[end] - ia[start], hunk.countB = ib[end] - ib[start];
    // diff -u numbers an empty side by the line before it.
    hunk.firstA = ia[start] + (hunk.countA != 0);
    hunk.firstB = ib[start] + (hunk.countB != 0);
    lines.push_back(std::move(hunk));
    for (size_t j = start; j < end; ++j) {
      if (script[j] == Op::Equal)
        lines.push_back({LineOp::Context, std::string(a[ia[j]])});
      else if (script[j] == Op::Delete)
        lines.push_back({LineOp::Del, std::string(a[ia[j]])});
      else
        lines.push_back({LineOp::Add, std::string(b[ib[j]])});
    }
    i = end;
  }
  size_t shown = std::min(lines.size(), options.maxLines);
  out.insert(out.end(), std::make_move_iterator(lines.begin()),
             std::make_move_iterator(lines.begin() + static_cast<long>(shown)));
  if (shown < lines.size()) {
    DiffLine cut;
    cut.op = LineOp::Cut;
    cut.more = lines.size() - shown;
    out.push_back(std::move(cut));
  }
  return out;
}

std::string unifiedDiff(const std::string &before, const std::string &after,
                        const std::string &nameBefore,
                        const std::string &nameAfter,
                        const UnifiedDiffOptions &options) {
  return unifiedDiffText(diffLines(before, after, nameBefore, nameAfter, options));
}

} // namespace cachekey
