//===- English.cpp - The grammar every wording module uses ----------------===//
#include "cachekey/English.h"

#include <cstdio>

#include <algorithm>

namespace cachekey {

std::string plural(size_t n, const char *one, const char *many) {
  return std::to_string(n) + " " + agree(n, one, many);
}

std::string timesText(size_t n) {
  return n == 1 ? "once" : n == 2 ? "twice" : std::to_string(n) + " times";
}

std::string everyOf(size_t n, const char *one, const char *many) {
  return n == 1 ? std::string(one) : "all " + std::to_string(n) + " " + many;
}

namespace {
/// "a, b and c" of the first min(count, max) of `first`, then " and N more"
/// up to `count` names.
std::string listNames(const std::vector<std::string> &first, size_t count, size_t max) {
  std::string s;
  size_t shown = std::min(count, max);
  for (size_t i = 0; i < shown; ++i)
    s += (i == 0 ? "" : (i + 1 == shown && shown == count) ? " and " : ", ") + first[i];
  if (count > max)
    s += " and " + std::to_string(count - max) + " more";
  return s;
}
} // namespace

std::string nameList(const std::vector<std::string> &names, size_t max) {
  return listNames(names, names.size(), max);
}

std::string nameList(const NameSample &names, size_t max) {
  return listNames(names.first, names.count, std::min(max, NameSample::kKept));
}

std::string shortened(const std::string &text, size_t max) {
  if (text.size() <= max)
    return text;
  // Cut at a character boundary (UTF-8 continuation bytes are 10xxxxxx).
  size_t cut = max > 20 ? max - 20 : max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80)
    --cut;
  return text.substr(0, cut) + "\u2026 (" + std::to_string(text.size()) +
         " chars)";
}

std::string capitalised(std::string text) {
  if (!text.empty() && text[0] >= 'a' && text[0] <= 'z')
    text[0] = static_cast<char>(text[0] - 'a' + 'A');
  return text;
}

std::string shortDigest(const std::string &hex) { return hex.substr(0, 16) + "\u2026"; }

std::string percentText(size_t part, size_t whole) {
  char buf[32];
  const double pct = whole ? 100.0 * double(part) / double(whole) : 0.0;
  if (part == whole || part == 0 || (pct >= 1 && pct <= 99))
    std::snprintf(buf, sizeof buf, "%.0f%%", pct);
  else if (pct > 99.9)
    return ">99.9%";
  else if (pct < 0.1)
    return "<0.1%";
  else
    std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  return buf;
}

} // namespace cachekey
