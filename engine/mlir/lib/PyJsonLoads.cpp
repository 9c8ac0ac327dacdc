//===- PyJsonLoads.cpp - Python's json.loads ------------------------------===//
//
// nlohmann's SAX parser does the parsing: the grammar, nesting, UTF-8 and
// escape validation, and the error positions. It refuses four things that
// CPython's `json.loads` accepts:
//
//   1. the literals NaN, Infinity and -Infinity;
//   2. floats that overflow a double (`1e400` is `inf` in Python);
//   3. integers beyond 64 bits: it reads them as doubles, losing digits, and
//      refuses them outright once they overflow a double;
//   4. lone surrogate escapes (`"\ud800"`).
//
// A pre-pass (`neutralise`) walks the text once, tracking only whether it is
// inside a string. It overwrites each such token, in place and with the same
// length, by something nlohmann accepts (` 0` padded with spaces; a `\u003f`
// escape for a lone surrogate) and records, by ordinal, the value the SAX
// handler must use instead: the n-th number event, the n-th string event.
// Length is kept so that error positions still point into the caller's text.
// The pre-pass never decides validity: a token is only replaced where CPython
// would accept it, and everything else is left for nlohmann to judge.
//
//===----------------------------------------------------------------------===//
#include "cachekey/mlir/PyJson.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>

namespace cachekey {
namespace {

/// CPython refuses to convert integer strings longer than this
/// (`sys.get_int_max_str_digits()`, default 4300 since 3.11).
constexpr size_t kIntMaxStrDigits = 4300;

/// The input as nlohmann will read it, plus the values it cannot produce.
struct Neutralised {
  std::string text;
  std::map<size_t, PyJson> numbers;      // number-event ordinal → value
  std::map<size_t, std::string> strings; // string-event ordinal → WTF-8 value
};

bool isHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

/// The code unit of `\uXXXX` whose four hex digits start at `p`, or -1.
long hex4(const std::string &s, size_t p) {
  if (p + 4 > s.size())
    return -1;
  for (size_t k = p; k < p + 4; ++k)
    if (!isHex(s[k]))
      return -1;
  return std::strtol(s.substr(p, 4).c_str(), nullptr, 16);
}

bool isHigh(long u) { return u >= 0xD800 && u <= 0xDBFF; }
bool isLow(long u) { return u >= 0xDC00 && u <= 0xDFFF; }

void appendUtf8(std::string &out, unsigned long cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) { // surrogates too: generalised UTF-8 (WTF-8)
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

/// True if `t` matches JSON's number grammar, which is also CPython's
/// `-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?`.
bool isJsonNumber(const std::string &t) {
  size_t i = 0, n = t.size();
  auto digits = [&] {
    size_t s = i;
    while (i < n && t[i] >= '0' && t[i] <= '9')
      ++i;
    return i > s;
  };
  if (i < n && t[i] == '-')
    ++i;
  if (i < n && t[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < n && t[i] == '.') {
    ++i;
    if (!digits())
      return false;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-'))
      ++i;
    if (!digits())
      return false;
  }
  return i == n;
}

/// Overwrites [at, at+len) with " 0" and spaces: one number token that cannot
/// run into a neighbouring token.
void blankNumber(std::string &text, size_t at, size_t len) {
  for (size_t k = 0; k < len; ++k)
    text[at + k] = ' ';
  text[at + (len > 1 ? 1 : 0)] = '0';
}

/// Scans the string token whose opening quote is at `i` and returns the index
/// of its closing quote (or the end of the text). If the token holds a lone
/// surrogate escape, CPython's decoding of it is stored as `decoded` and the
/// escape is overwritten in `out` with `\u003f`, which nlohmann accepts.
size_t scanString(const std::string &in, size_t i, std::string &out,
                  std::string *decoded, bool &hasLone) {
  hasLone = false;
  size_t j = i + 1;
  std::string value;
  while (j < in.size() && in[j] != '"') {
    if (in[j] != '\\') {
      value += in[j++];
      continue;
    }
    char e = j + 1 < in.size() ? in[j + 1] : '\0';
    long u = e == 'u' ? hex4(in, j + 2) : -1;
    if (u < 0) { // a short escape, or an invalid one nlohmann will report
      static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
      const char *p = e ? std::strchr(from, e) : nullptr;
      value += p ? to[p - from] : e;
      j += 2;
      continue;
    }
    // CPython joins a high surrogate with an immediately following low one;
    // any other surrogate stands alone.
    if (isHigh(u) && in.compare(j + 6, 2, "\\u") == 0) {
      long v = hex4(in, j + 8);
      if (isLow(v)) {
        appendUtf8(value, 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00));
        j += 12;
        continue;
      }
    }
    if (isHigh(u) || isLow(u)) {
      hasLone = true;
      out.replace(j + 2, 4, "003f");
    }
    appendUtf8(value, static_cast<unsigned long>(u));
    j += 6;
  }
  if (hasLone)
    *decoded = std::move(value);
  return j;
}

/// True if the integer token `t` (JSON grammar) fits int64 or uint64, which
/// is what nlohmann reads as an integer.
bool fits64(const std::string &t) {
  errno = 0;
  if (t[0] == '-')
    (void)std::strtoll(t.c_str(), nullptr, 10);
  else
    (void)std::strtoull(t.c_str(), nullptr, 10);
  return errno != ERANGE;
}

/// The pre-pass described in the file comment. Fails only for what CPython
/// rejects before nlohmann would (a BOM, an over-long integer).
Expected<Neutralised> neutralise(const std::string &in) {
  if (in.compare(0, 3, "\xEF\xBB\xBF") == 0)
    return Error{"", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 "
                     "column 1 (char 0)"};
  Neutralised r;
  r.text = in;
  size_t numberOrdinal = 0, stringOrdinal = 0;
  const double inf = std::numeric_limits<double>::infinity();
  size_t i = 0;
  while (i < in.size()) {
    char c = in[i];
    if (c == '"') {
      std::string decoded;
      bool hasLone = false;
      size_t end = scanString(in, i, r.text, &decoded, hasLone);
      if (hasLone)
        r.strings[stringOrdinal] = std::move(decoded);
      ++stringOrdinal;
      i = end + 1;
    } else if (c == '-' && in.compare(i, 9, "-Infinity") == 0) {
      r.numbers[numberOrdinal++] = PyJson(-inf);
      blankNumber(r.text, i, 9);
      i += 9;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t j = i;
      while (j < in.size() && in[j] && std::strchr("0123456789+-.eE", in[j]))
        ++j;
      std::string token = in.substr(i, j - i);
      if (isJsonNumber(token)) {
        bool isFloat = token.find_first_of(".eE") != std::string::npos;
        size_t digits = token.size() - (token[0] == '-');
        if (isFloat && std::isinf(std::strtod(token.c_str(), nullptr))) {
          r.numbers[numberOrdinal] = PyJson(token[0] == '-' ? -inf : inf);
          blankNumber(r.text, i, token.size());
        } else if (!isFloat && digits > kIntMaxStrDigits) {
          return Error{"", "Exceeds the limit (4300 digits) for integer string "
                           "conversion: value has " +
                               std::to_string(digits) + " digits (at byte " +
                               std::to_string(i) + ")"};
        } else if (!isFloat && !fits64(token)) {
          // Python ints have no size limit: keep the exact digits.
          r.numbers[numberOrdinal] = PyJson::binary(
              PyJson::binary_t::container_type(token.begin(), token.end()),
              kPyBigIntSubtype);
          blankNumber(r.text, i, token.size());
        }
      }
      ++numberOrdinal;
      i = j;
    } else if (in.compare(i, 3, "NaN") == 0) {
      r.numbers[numberOrdinal++] = PyJson(std::numeric_limits<double>::quiet_NaN());
      blankNumber(r.text, i, 3);
      i += 3;
    } else if (in.compare(i, 8, "Infinity") == 0) {
      r.numbers[numberOrdinal++] = PyJson(inf);
      blankNumber(r.text, i, 8);
      i += 8;
    } else {
      ++i;
    }
  }
  return r;
}

/// Builds the PyJson tree from nlohmann's SAX events, substituting the values
/// the pre-pass recorded.
class Builder {
public:
  explicit Builder(const Neutralised &neutralised) : n(neutralised) {}

  bool null() { return place(PyJson(nullptr)); }
  bool boolean(bool v) { return place(PyJson(v)); }
  bool number_integer(PyJson::number_integer_t v) { return number(PyJson(v)); }
  bool number_unsigned(PyJson::number_unsigned_t v) { return number(PyJson(v)); }
  bool number_float(PyJson::number_float_t v, const std::string &) {
    return number(PyJson(v)); // integers beyond 64 bits never get here
  }
  bool string(std::string &v) { return place(PyJson(take(v))); }
  bool binary(PyJson::binary_t &) { return false; } // not produced by JSON text
  bool start_object(std::size_t) { return open(PyJson::object()); }
  bool key(std::string &k) {
    // operator[] returns the existing member for a repeated key: its value
    // is overwritten below and its position kept, as a Python dict does.
    slot = &(*stack.back())[take(k)];
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(PyJson::array()); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &ex) {
    // "[json.exception.parse_error.101] parse error at line 1, column 13:
    // syntax error ... - unexpected ','; last read: '...'". The id and the
    // echo of the (possibly neutralised) input are dropped.
    std::string what = ex.what();
    size_t from = what.find("] ");
    from = from == std::string::npos ? 0 : from + 2;
    size_t to = what.find("; last read:");
    error = Error{"", "invalid JSON (byte " + std::to_string(position - 1) +
                          "): " + what.substr(from, to == std::string::npos
                                                        ? std::string::npos
                                                        : to - from)};
    return false;
  }

  PyJson root;
  Error error;

private:
  std::string take(std::string &v) {
    auto it = n.strings.find(stringOrdinal++);
    return it == n.strings.end() ? std::move(v) : it->second;
  }
  bool number(PyJson v) {
    auto it = n.numbers.find(numberOrdinal++);
    return place(it == n.numbers.end() ? std::move(v) : it->second);
  }
  PyJson *put(PyJson v) {
    if (stack.empty()) {
      root = std::move(v);
      return &root;
    }
    PyJson *top = stack.back();
    if (top->is_array()) {
      top->push_back(std::move(v));
      return &top->back();
    }
    *slot = std::move(v);
    return slot;
  }
  bool place(PyJson v) {
    put(std::move(v));
    return true;
  }
  bool open(PyJson container) {
    if (stack.size() >= kPyJsonMaxDepth) {
      error = Error{"", "invalid JSON: nested deeper than " +
                            std::to_string(kPyJsonMaxDepth) +
                            " lists and dicts, where CPython's json.loads "
                            "raises RecursionError (at 995 levels on Python "
                            "3.11, 1498 on 3.12, at the top of a script)"};
      return false;
    }
    // Pointers into a container stay valid: a container only grows while it
    // is the innermost open one, and by then its children are closed.
    stack.push_back(put(std::move(container)));
    return true;
  }
  bool close() {
    stack.pop_back();
    return true;
  }

  const Neutralised &n;
  std::vector<PyJson *> stack;
  PyJson *slot = nullptr;
  size_t numberOrdinal = 0, stringOrdinal = 0;
};

} // namespace

Expected<PyJson> pyJsonLoads(const std::string &text) {
  auto n = neutralise(text);
  if (!n)
    return n.takeError();
  Builder builder(*n);
  bool ok = false;
  try {
    ok = PyJson::sax_parse(n->text, &builder,
                           nlohmann::detail::input_format_t::json,
                           /*strict=*/true, /*ignore_comments=*/false);
  } catch (const std::exception &e) { // defensive: the handler never throws
    return Error{"", std::string("invalid JSON: ") + e.what()};
  }
  if (!ok)
    return builder.error;
  return std::move(builder.root);
}

} // namespace cachekey
