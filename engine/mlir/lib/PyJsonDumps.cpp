//===- PyJsonDumps.cpp - Python's json.dumps ------------------------------===//
#include "cachekey/mlir/PyFloat.h"
#include "cachekey/mlir/PyJson.h"

#include <cstdio>

namespace cachekey {
namespace {

/// Decodes one code point of UTF-8 (surrogates allowed, see PyJson.h) at
/// `s[i]` and advances `i`. Bytes that do not start a sequence, which a
/// PyJson string never holds, come out as U+FFFD.
char32_t nextCodePoint(const std::string &s, size_t &i) {
  unsigned char b = static_cast<unsigned char>(s[i]);
  int len = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 0;
  if (len == 0 || i + static_cast<size_t>(len) > s.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
  for (int k = 1; k < len; ++k)
    cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += static_cast<size_t>(len);
  return cp;
}

void appendEscapedUnit(std::string &out, unsigned unit) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", unit);
  out += buf;
}

/// CPython's `py_encode_basestring_ascii`.
void dumpString(const std::string &s, std::string &out) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    char32_t cp = nextCodePoint(s, i);
    switch (cp) {
    case '"': out += "\\\""; continue;
    case '\\': out += "\\\\"; continue;
    case '\n': out += "\\n"; continue;
    case '\r': out += "\\r"; continue;
    case '\t': out += "\\t"; continue;
    case '\b': out += "\\b"; continue;
    case '\f': out += "\\f"; continue;
    default: break;
    }
    if (cp >= 0x20 && cp <= 0x7E) {
      out += static_cast<char>(cp);
    } else if (cp < 0x10000) {
      appendEscapedUnit(out, cp);
    } else {
      cp -= 0x10000;
      appendEscapedUnit(out, 0xD800 | (cp >> 10));
      appendEscapedUnit(out, 0xDC00 | (cp & 0x3FF));
    }
  }
  out += '"';
}

void dump(const PyJson &v, std::string &out) {
  switch (v.type()) {
  case PyJson::value_t::null:
    out += "null";
    return;
  case PyJson::value_t::boolean:
    out += v.get<bool>() ? "true" : "false";
    return;
  case PyJson::value_t::number_integer:
    out += std::to_string(v.get<PyJson::number_integer_t>());
    return;
  case PyJson::value_t::number_unsigned:
    out += std::to_string(v.get<PyJson::number_unsigned_t>());
    return;
  case PyJson::value_t::number_float:
    out += pyFloatRepr(v.get<double>());
    return;
  case PyJson::value_t::binary: { // an integer beyond 64 bits, as digits
    const auto &digits = v.get_binary();
    out.append(digits.begin(), digits.end());
    return;
  }
  case PyJson::value_t::string:
    dumpString(v.get_ref<const std::string &>(), out);
    return;
  case PyJson::value_t::array: {
    out += '[';
    bool first = true;
    for (const auto &e : v) {
      if (!first)
        out += ',';
      first = false;
      dump(e, out);
    }
    out += ']';
    return;
  }
  case PyJson::value_t::object: {
    out += '{';
    bool first = true;
    for (const auto &[key, value] : v.items()) {
      if (!first)
        out += ',';
      first = false;
      dumpString(key, out);
      out += ':';
      dump(value, out);
    }
    out += '}';
    return;
  }
  case PyJson::value_t::discarded:
    return;
  }
}

} // namespace

std::string pyJsonDumps(const PyJson &value) {
  std::string out;
  dump(value, out);
  return out;
}

bool pyTruthy(const PyJson &v) {
  switch (v.type()) {
  case PyJson::value_t::null:
  case PyJson::value_t::discarded:
    return false;
  case PyJson::value_t::boolean:
    return v.get<bool>();
  case PyJson::value_t::number_integer:
    return v.get<PyJson::number_integer_t>() != 0;
  case PyJson::value_t::number_unsigned:
    return v.get<PyJson::number_unsigned_t>() != 0;
  case PyJson::value_t::number_float:
    return v.get<double>() != 0.0; // NaN != 0.0, so NaN is true
  case PyJson::value_t::binary:
    return true; // beyond 64 bits, hence non-zero
  case PyJson::value_t::string: // nlohmann's empty() is false for any string
    return !v.get_ref<const std::string &>().empty();
  case PyJson::value_t::array:
  case PyJson::value_t::object:
    return !v.empty();
  }
  return false;
}

const char *pyTypeName(const PyJson &v) {
  switch (v.type()) {
  case PyJson::value_t::null:
  case PyJson::value_t::discarded:
    return "NoneType";
  case PyJson::value_t::boolean:
    return "bool";
  case PyJson::value_t::number_integer:
  case PyJson::value_t::number_unsigned:
  case PyJson::value_t::binary:
    return "int";
  case PyJson::value_t::number_float:
    return "float";
  case PyJson::value_t::string:
    return "str";
  case PyJson::value_t::array:
    return "list";
  case PyJson::value_t::object:
    return "dict";
  }
  return "object";
}

} // namespace cachekey
