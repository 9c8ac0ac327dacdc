//===- PyBase64.h - Python's base64.b64decode -------------------*- C++ -*-===//
//
// The Mosaic strip (main) decodes a kernel body with `base64.b64decode(body)`
// and its default `validate=False`, which is laxer than RFC 4648 in some ways
// and stricter in others. The engine's own `base64Decode` (Support.h) is
// strict; this one reproduces CPython.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_PYBASE64_H
#define CACHEKEY_MLIR_PYBASE64_H

#include "cachekey/Support.h"

#include <string>

namespace cachekey {

/// CPython `base64.b64decode(s)` (validate=False, i.e. `binascii.a2b_base64`
/// in non-strict mode) of a `str` given as UTF-8:
///  - a non-ASCII character is an Error (`ValueError: string argument should
///    contain only ASCII characters`);
///  - characters outside `A–Z a–z 0–9 + /` and `=` are skipped;
///  - `=` counts as padding only once two data characters of a quad are
///    seen; once the quad is complete (e.g. `xy==`, `xyz=`) decoding stops
///    and the rest of the input is ignored; other `=` are skipped;
///  - a final partial quad is an Error: one leftover data character gives
///    CPython's "number of data characters (N) cannot be 1 more than a
///    multiple of 4", two or three give "Incorrect padding".
/// Unused low bits of the last character are ignored, as CPython does.
/// The Error's subject is the class CPython raises: "ValueError" or
/// "binascii.Error".
Expected<Bytes> pyB64Decode(const std::string &s);

} // namespace cachekey

#endif // CACHEKEY_MLIR_PYBASE64_H
