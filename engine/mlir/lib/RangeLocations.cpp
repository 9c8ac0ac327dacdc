//===- RangeLocations.cpp - Read newer MLIR's range locations -------------===//
#include "cachekey/mlir/RangeLocations.h"

namespace cachekey {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// Matches `[0-9]+` at `p`; returns the index after it, or npos.
size_t digitsAt(const std::string &s, size_t p) {
  size_t q = p;
  while (q < s.size() && isDigit(s[q]))
    ++q;
  return q > p ? q : std::string::npos;
}

/// Matches `:L:C to [L2]:C2` at `p` (just after a string literal). On success
/// returns the index after `:L:C` in `*startEnd` and the index after the whole
/// range.
size_t matchRange(const std::string &s, size_t p, size_t *startEnd) {
  auto colonDigits = [&](size_t q) {
    return q < s.size() && s[q] == ':' ? digitsAt(s, q + 1) : std::string::npos;
  };
  size_t q = colonDigits(p);
  if (q == std::string::npos || (q = colonDigits(q)) == std::string::npos)
    return std::string::npos;
  if (s.compare(q, 4, " to ") != 0)
    return std::string::npos;
  *startEnd = q;
  q += 4;
  if (q < s.size() && isDigit(s[q]))
    q = digitsAt(s, q); // an end line
  return colonDigits(q);
}

} // namespace

std::string downgradeRangeLocations(const std::string &text, size_t *rewritten) {
  std::string out = text;
  size_t count = 0;
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') { // comment to end of line
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    if (c != '"') {
      ++i;
      continue;
    }
    // A string literal: skip to its closing quote, honouring escapes.
    size_t j = i + 1;
    while (j < n && text[j] != '"')
      j += text[j] == '\\' ? 2 : 1;
    i = j + 1;
    if (i >= n)
      break;
    size_t startEnd = 0;
    size_t end = matchRange(text, i, &startEnd);
    if (end == std::string::npos)
      continue;
    for (size_t k = startEnd; k < end; ++k)
      out[k] = ' ';
    ++count;
    i = end;
  }
  if (rewritten)
    *rewritten = count;
  return out;
}

} // namespace cachekey
