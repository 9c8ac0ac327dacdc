//===- LogPrefix.cpp - What a log handler puts before JAX's message -------===//
#include "cachekey/LogPrefix.h"
#include "cachekey/StringExtras.h"

#include <cctype>

namespace cachekey {

void stripTerminalCodes(std::string &line) {
  if (!line.empty() && line.back() == '\r')
    line.pop_back();
  if (line.find('\x1b') == std::string::npos)
    return;
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\x1b') {
      out += line[i];
      continue;
    }
    if (i + 1 < line.size() && line[i + 1] == '[') {
      // CSI: parameters and intermediates, then one final byte 0x40–0x7E.
      size_t j = i + 2;
      while (j < line.size() && !(line[j] >= 0x40 && line[j] <= 0x7e))
        ++j;
      i = j;
    } else {
      ++i; // a two-character escape
    }
  }
  line.swap(out);
}

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isWord(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

/// Length of `n` or more digits at `s[i]`, or 0.
size_t digits(std::string_view s, size_t i, size_t n) {
  size_t j = i;
  while (j < s.size() && isDigit(s[j]))
    ++j;
  return j - i >= n ? j - i : 0;
}

/// Length of a date (2026-11-30, 2026/11/30) at `i`, or 0.
size_t dateAt(std::string_view s, size_t i) {
  if (digits(s, i, 4) != 4 || i + 10 > s.size())
    return 0;
  char sep = s[i + 4];
  if ((sep != '-' && sep != '/') || digits(s, i + 5, 2) != 2 ||
      s[i + 7] != sep || digits(s, i + 8, 2) != 2)
    return 0;
  return 10;
}

/// Length of a time (T20:20:12, 20:20:12.452898, …,448Z, +01:00) at `i`.
size_t timeAt(std::string_view s, size_t i) {
  size_t j = i;
  if (j < s.size() && s[j] == 'T')
    ++j;
  size_t h = digits(s, j, 1);
  if (h == 0 || h > 2 || j + h + 6 > s.size() || s[j + h] != ':' ||
      digits(s, j + h + 1, 2) != 2 || s[j + h + 3] != ':' ||
      digits(s, j + h + 4, 2) != 2)
    return 0;
  j += h + 6;
  if (j < s.size() && (s[j] == '.' || s[j] == ',') && digits(s, j + 1, 1))
    j += 1 + digits(s, j + 1, 1);
  if (j < s.size() && s[j] == 'Z')
    ++j;
  else if (j < s.size() && (s[j] == '+' || s[j] == '-') &&
           digits(s, j + 1, 2) == 2) {
    j += 3;
    if (j < s.size() && s[j] == ':')
      ++j;
    j += digits(s, j, 2) == 2 ? 2 : 0;
  }
  return j - i;
}

bool isLevel(std::string_view w) {
  // Views, not C strings: no length is counted per word (every word of
  // every new prefix comes here).
  static constexpr std::string_view levels[] = {"DEBUG", "INFO", "WARNING", "WARN",
                                                "ERROR", "CRITICAL", "FATAL", "debug",
                                                "info", "warning", "warn", "error",
                                                "critical", "fatal", "Debug", "Info",
                                                "Warning", "Error"};
  if (w.size() < 4 || w.size() > 8)
    return false;
  for (std::string_view l : levels)
    if (w == l)
      return true;
  // glog/absl: one of DIWEF and the month and day, e.g. I1130.
  return w.size() == 5 && std::string_view("DIWEF").find(w[0]) !=
                              std::string_view::npos &&
         digits(w, 1, 4) == 4;
}

/// A logger name of JAX or a Python source file, which differ between the
/// lines of one process (jax._src.cache_key vs jax._src.compiler).
bool isSourceName(std::string_view w) {
  if (startsWith(w, "jax.") || startsWith(w, "jaxlib."))
    return true;
  return w.size() > 3 && endsWith(w, ".py");
}

bool isSeparator(char c) {
  return c == ' ' || c == '\t' || c == ':' || c == '-' || c == '|' ||
         c == ',';
}

} // namespace

std::string streamTag(std::string_view prefix) {
  std::string out;
  streamTag(prefix, out);
  return out;
}

void streamTag(std::string_view prefix, std::string &out) {
  out.clear();
  size_t i = 0;
  while (i < prefix.size()) {
    if (size_t n = dateAt(prefix, i)) {
      i += n;
      continue;
    }
    if (size_t n = timeAt(prefix, i)) {
      i += n;
      continue;
    }
    if (isWord(prefix[i])) {
      size_t j = i;
      while (j < prefix.size() && isWord(prefix[j]))
        ++j;
      std::string_view w = prefix.substr(i, j - i);
      if (isLevel(w)) {
        i = j;
        continue;
      }
      if (isSourceName(w)) {
        // ... and the line number after it (`cache_key.py:157`,
        // `jax._src.cache_key:157:`).
        if (j < prefix.size() && prefix[j] == ':' && digits(prefix, j + 1, 1))
          j += 1 + digits(prefix, j + 1, 1);
        i = j;
        continue;
      }
      out.append(w);
      i = j;
      continue;
    }
    char c = prefix[i++];
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ')
        out += ' ';
    } else {
      out += c;
    }
  }
  // Drop the separators the removed parts leave at both ends.
  size_t b = 0, e = out.size();
  while (b < e && isSeparator(out[b]))
    ++b;
  while (e > b && isSeparator(out[e - 1]))
    --e;
  out.resize(e);
  out.erase(0, b);
  // absl's "2930 ]": a closing bracket with nothing it closes.
  if (!out.empty() && out.back() == ']' && out.find('[') == std::string::npos) {
    out.pop_back();
    while (!out.empty() && isSeparator(out.back()))
      out.pop_back();
  }
  if (out.size() > 64)
    out.resize(64);
}

} // namespace cachekey
