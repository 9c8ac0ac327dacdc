//===- PyJson.h - Python's json.loads / json.dumps --------------*- C++ -*-===//
//
// The Mosaic strip (main) reads a kernel's `backend_config` with
// `json.loads` and writes it back with
// `json.dumps(obj, separators=(",", ":"))`. Whatever the kernel JSON holds,
// the rewritten string must be byte-identical to CPython's, because it ends up
// in the entry-1 bytecode.
//
// Values are held in `nlohmann::ordered_json` with these conventions:
//  - dict   → object, in insertion order; a duplicate key keeps the position
//             of its first occurrence and the value of its last;
//  - list   → array; True/False → boolean; None → null;
//  - str    → string in UTF-8. A lone surrogate (`"\ud800"`, which CPython
//             accepts) is held as its 3-byte generalised-UTF-8 form (WTF-8),
//             so every Python str has exactly one representation;
//  - int    → number_integer / number_unsigned when it fits 64 bits, else a
//             binary value of subtype `kPyBigIntSubtype` whose bytes are the
//             decimal digits (with `-` for negatives). JSON text never yields
//             binary values, so the two cannot be confused;
//  - float  → number_float, NaN and ±infinity included.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_PYJSON_H
#define CACHEKEY_MLIR_PYJSON_H

#include "cachekey/Support.h"

#include <nlohmann/json.hpp>

#include <string>

namespace cachekey {

/// A Python value as `json.loads` returns it (see the file comment).
using PyJson = nlohmann::ordered_json;

/// Binary subtype marking an integer too large for 64 bits.
constexpr std::uint8_t kPyBigIntSubtype = 0x69; // 'i'

/// CPython `json.loads(text)` where `text` is a `str` given as UTF-8.
///
/// Accepts what CPython accepts and nothing more: RFC 8259 JSON plus the
/// literals `NaN`, `Infinity` and `-Infinity`; lone surrogate escapes;
/// integers of any size up to CPython's 4300-digit conversion limit; floats
/// that overflow to ±infinity (`1e400`). A leading byte-order mark is
/// rejected, as CPython does for a `str`.
///
/// The structure is parsed by nlohmann's SAX parser. Errors (a value, not an
/// exception) carry the byte offset and nlohmann's description.
///
/// Lists and dicts nested deeper than kPyJsonMaxDepth are an error, as in
/// CPython, whose C scanner raises RecursionError: at 995 levels on Python
/// 3.11.7 and 1498 on 3.12.1 (measured at the top of a script; fewer deeper
/// in a call stack). The engine stops at the lower one, so pyJsonDumps,
/// which recurses, never meets a deeper value from here.
Expected<PyJson> pyJsonLoads(const std::string &text);

/// The deepest nesting pyJsonLoads accepts (Python 3.11's json.loads at the
/// top of a script: 994 levels load, 995 raise RecursionError).
inline constexpr size_t kPyJsonMaxDepth = 994;

/// CPython `json.dumps(value, separators=(",", ":"))` with the defaults
/// `ensure_ascii=True` and `allow_nan=True`: keys in insertion order; every
/// character outside printable ASCII, `"` and `\` escaped (`\n` `\r` `\t`
/// `\b` `\f` `\"` `\\` short forms, otherwise `\u` with four lowercase hex
/// digits, astral characters as surrogate pairs); floats as `float.__repr__`
/// (`pyFloatRepr`), `NaN`, `Infinity`, `-Infinity`; integers as their exact
/// decimal digits.
std::string pyJsonDumps(const PyJson &value);

/// Python's truth value of a `json.loads` result: false for None, False, 0,
/// 0.0, -0.0, "", [] and {}; true otherwise (NaN included).
bool pyTruthy(const PyJson &value);

/// Python's type name of a `json.loads` result ("dict", "list", "str",
/// "int", "float", "bool", "NoneType"), for messages.
const char *pyTypeName(const PyJson &value);

} // namespace cachekey

#endif // CACHEKEY_MLIR_PYJSON_H
