//===- PyFloat.cpp - Python's repr() of a float ---------------------------===//
#include "cachekey/mlir/PyFloat.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace cachekey {

std::string pyFloatRepr(double x) {
  if (std::isnan(x))
    return "NaN";
  if (std::isinf(x))
    return x > 0 ? "Infinity" : "-Infinity";

  // The shortest round-trip digits, which CPython's repr picks (dtoa mode
  // 0): the fewest significant digits whose correctly rounded decimal reads
  // back as the same double. (Emscripten 3.1.6's libc++ has no floating-point
  // std::to_chars, so both builds search with printf/strtod alike.) The form
  // is "[-]d[.ddd]e±XX".
  char buf[64];
  for (int precision = 0; precision < 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision, x);
    if (std::strtod(buf, nullptr) == x)
      break;
  }
  std::string sci(buf);

  std::string out;
  size_t i = 0;
  if (sci[0] == '-') {
    out += '-';
    i = 1;
  }
  size_t ePos = sci.find('e');
  std::string digits;
  for (size_t k = i; k < ePos; ++k)
    if (sci[k] != '.')
      digits += sci[k];
  int exponent = std::atoi(sci.c_str() + ePos + 1);

  // CPython (format_float_short, mode 'r') switches to scientific notation
  // when the decimal point position `decpt = exponent + 1` is <= -4 or > 16.
  int decpt = exponent + 1;
  if (decpt <= -4 || decpt > 16) {
    out += digits[0];
    if (digits.size() > 1)
      out += "." + digits.substr(1);
    out += 'e';
    out += exponent < 0 ? '-' : '+';
    int mag = std::abs(exponent);
    if (mag < 10)
      out += '0';
    out += std::to_string(mag);
    return out;
  }
  int n = static_cast<int>(digits.size());
  if (decpt <= 0) {
    out += "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
  } else if (decpt >= n) {
    out += digits + std::string(static_cast<size_t>(decpt - n), '0') + ".0";
  } else {
    out += digits.substr(0, static_cast<size_t>(decpt)) + "." +
           digits.substr(static_cast<size_t>(decpt));
  }
  return out;
}

} // namespace cachekey
