//===- PyText.h - Python-exact string handling ------------------*- C++ -*-===//
//
// The cache key is computed by Python code, so the few string operations it
// uses must behave exactly as CPython's do. Strings here are UTF-8 `std::string`
// holding Python `str` values; bytes are `Bytes`.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_PYTEXT_H
#define CACHEKEY_PYTEXT_H

#include "cachekey/Support.h"

#include <string>
#include <vector>

namespace cachekey {

/// True for the code points Python's `str.isspace()` accepts, which are the
/// separators of `str.split()` with no argument: `\t \n \x0b \x0c \r`,
/// `\x1c`–`\x1f`, space, `\x85`, `\xa0`, `\u1680`, `\u2000`–`\u200a`,
/// `\u2028`, `\u2029`, `\u202f`, `\u205f`, `\u3000`.
bool isPythonWhitespace(char32_t codePoint);

/// Python `s.split()` for a UTF-8 string: splits on runs of Unicode
/// whitespace and drops empty pieces. Invalid UTF-8 bytes are never treated as
/// whitespace and are kept inside the pieces unchanged.
std::vector<std::string> pySplit(const std::string &s);

/// Python `b.strip()` with no argument: removes ASCII whitespace
/// (space, `\t`, `\n`, `\r`, `\x0b`, `\x0c`) from both ends of the bytes.
Bytes pyBytesStrip(const Bytes &b);

/// The bytes JAX's `_hash_string` feeds for `s`: `s.encode("utf-8").strip()`
/// (see `jax/_src/cache_key.py`). There is no length prefix or separator.
inline Bytes hashStringBytes(const std::string &s) { return pyBytesStrip(s); }

/// Python `s.strip(chars)` for ASCII `chars`, e.g. `name.strip("-")`.
std::string pyStripChars(const std::string &s, const std::string &chars);

/// Python `s.split("=")[0]`: the text before the first `=`, or all of `s`.
std::string flagName(const std::string &flag);

/// Python `repr(s)` of a str, for messages that quote user text.
std::string pyRepr(const std::string &s);

} // namespace cachekey

#endif // CACHEKEY_PYTEXT_H
