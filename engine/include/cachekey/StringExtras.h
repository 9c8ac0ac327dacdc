//===- StringExtras.h - Small string predicates -----------------*- C++ -*-===//
//
// The engine's one spelling of prefix and suffix tests (C++17 has no
// std::string::starts_with), in the manner of llvm/ADT/StringExtras.h.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_STRINGEXTRAS_H
#define CACHEKEY_STRINGEXTRAS_H

#include <string_view>

namespace cachekey {

/// True when `s` begins with `prefix` (every string begins with "").
/// Compares bytes; no allocation.
inline bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// True when `s` ends with `suffix` (every string ends with "").
inline bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace cachekey

#endif // CACHEKEY_STRINGEXTRAS_H
