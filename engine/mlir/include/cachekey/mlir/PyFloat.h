//===- PyFloat.h - Python's repr() of a float --------------------*- C++ -*-===//
//
// `json.dumps` writes a finite float with `float.__repr__`. The Mosaic strip
// (main) rewrites a kernel's `backend_config` with `json.dumps`, so every float
// in that JSON must come out exactly as CPython prints it.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_PYFLOAT_H
#define CACHEKEY_MLIR_PYFLOAT_H

#include <string>

namespace cachekey {

/// CPython's `repr(x)` for a finite double: the shortest digit string that
/// reads back as `x`, in positional form (`0.0025`, `100.0`, `-0.0`) when the
/// decimal exponent e of the first digit satisfies -5 < e < 16, otherwise in
/// scientific form with a signed, at least two-digit exponent (`1e-05`,
/// `1e+16`, `1.5e+300`). Positional results always carry a fractional part.
///
/// Non-finite values are not Python reprs of JSON output; this returns the
/// spellings `json.dumps` uses for them (`NaN`, `Infinity`, `-Infinity`), so
/// callers may pass any double.
std::string pyFloatRepr(double x);

} // namespace cachekey

#endif // CACHEKEY_MLIR_PYFLOAT_H
