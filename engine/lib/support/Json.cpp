//===- Json.cpp - JSON documents, read without exceptions -----------------===//
#include "cachekey/Json.h"

#include <cassert>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace cachekey {
namespace {

/// Collects the first syntax error nlohmann's SAX parser reports.
struct ErrorSax : nlohmann::json_sax<Json> {
  std::string message;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    // Without the library's own tag ("[json.exception.parse_error.101] "):
    // what the user reads is where and what, not nlohmann's class name.
    message = ex.what();
    if (message.size() > 1 && message.front() == '[') {
      size_t close = message.find("] ");
      if (close != std::string::npos)
        message.erase(0, close + 2);
    }
    return false;
  }
};

} // namespace

Expected<Json> parseJsonText(const std::string &text, const std::string &what) {
  // Later steps (copies, merge patch, dump) recurse per level; a scenario
  // never needs more than a handful, so refuse absurd nesting up front.
  constexpr int kMaxDepth = 64;
  bool tooDeep = false;
  Json::parser_callback_t limitDepth = [&](int depth, Json::parse_event_t,
                                           Json &) {
    if (depth > kMaxDepth)
      tooDeep = true;
    return !tooDeep;
  };
  Json j = Json::parse(text, limitDepth, /*allow_exceptions=*/false);
  if (tooDeep)
    return Error{"$",
                 "malformed " + what + " JSON: nested deeper than " +
                     std::to_string(kMaxDepth) + " levels",
                 ErrorCode::TooLarge};
  if (!j.is_discarded())
    return j;
  // The DOM parser says only that it failed; the SAX parser says where.
  ErrorSax sax;
  Json::sax_parse(text, &sax);
  return Error{"$", "malformed " + what + " JSON: " + sax.message,
               ErrorCode::Syntax};
}

std::string dumpJson(const Json &json, int indent) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

JsonWriter::JsonWriter(std::string &out, int indent, int depth, size_t items)
    : out(out), appender(out, indent), indent(indent), base(depth),
      continued(items) {}

void JsonWriter::newline(int level) {
  if (indent < 0)
    return;
  out += '\n';
  out.append(static_cast<size_t>(indent * level), ' ');
}

void JsonWriter::beforeValue() {
  if (afterKey) {
    afterKey = false;
    return;
  }
  size_t *items = levels.empty() ? (base > 0 ? &continued : nullptr) : &levels.back().items;
  if (!items)
    return; // the document itself
  assert(levels.empty() || !levels.back().object);
  if (*items)
    out += ',';
  newline(depth());
  ++*items;
}

void JsonWriter::objectBegin() {
  beforeValue();
  out += '{';
  levels.push_back({true, 0});
}

void JsonWriter::arrayBegin() {
  beforeValue();
  out += '[';
  levels.push_back({false, 0});
}

void JsonWriter::objectEnd() {
  assert(!levels.empty() && levels.back().object && !afterKey);
  size_t items = levels.back().items;
  levels.pop_back();
  if (items)
    newline(depth());
  out += '}';
}

void JsonWriter::arrayEnd() {
  assert(!levels.empty() && !levels.back().object);
  size_t items = levels.back().items;
  levels.pop_back();
  if (items)
    newline(depth());
  out += ']';
}

namespace {

/// Whether nlohmann's serializer writes byte `c` as it is: printable ASCII
/// other than '"' and '\\' (it escapes control characters, and checks and
/// may replace every byte of 0x80 or more).
bool verbatimByte(char c) {
  const auto b = static_cast<unsigned char>(c);
  return b >= 0x20 && b < 0x80 && c != '"' && c != '\\';
}

/// How many of the first bytes of `text` nlohmann's serializer writes as
/// they are (verbatimByte).
size_t verbatimPrefix(std::string_view text) {
  // Eight bytes at a time, with the word tests of "Bit Twiddling Hacks"
  // (a byte below n: (w - n×ones) & ~w & highs; a zero byte: n = 1): most
  // of a document's text passes through here, and under a fuzzer's
  // instrumentation every comparison of a byte-by-byte loop is a call.
  constexpr uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  const auto below = [](uint64_t w, uint64_t n) { return (w - n * ones) & ~w; };
  const auto flagged = [&](uint64_t w) {
    return ((w | below(w, 0x20) | below(w ^ ('"' * ones), 1) | below(w ^ ('\\' * ones), 1)) &
            highs) != 0;
  };
  const char *p = text.data();
  const size_t n = text.size();
  size_t i = 0;
  for (; n - i >= 8; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (flagged(w))
      break;
  }
  // The word that holds the first byte to escape, or the last few bytes.
  while (i < n && verbatimByte(p[i]))
    ++i;
  return i;
}

/// Whether nlohmann's serializer writes `text` as it is between quotes.
bool writtenVerbatim(std::string_view text) { return verbatimPrefix(text) == text.size(); }

} // namespace

void JsonWriter::key(std::string_view name) {
  assert(!levels.empty() && levels.back().object && !afterKey);
  Level &l = levels.back();
  if (l.items)
    out += ',';
  newline(depth());
  ++l.items;
  if (writtenVerbatim(name)) {
    out += '"';
    out.append(name);
    out += '"';
  } else {
    appender.append(Json(std::string(name)));
  }
  out += indent < 0 ? ":" : ": ";
  afterKey = true;
}

void JsonWriter::value(const Json &v) {
  // Walked here, event by event: strings, integers, booleans and null are
  // written without nlohmann's serializer (most of a document's text);
  // doubles, strings that need escaping and binary values go through it.
  switch (v.type()) {
  case Json::value_t::object:
    objectBegin();
    for (auto it = v.begin(); it != v.end(); ++it) {
      key(it.key());
      value(it.value());
    }
    objectEnd();
    return;
  case Json::value_t::array:
    arrayBegin();
    for (const Json &item : v)
      value(item);
    arrayEnd();
    return;
  case Json::value_t::string:
    string(v.get_ref<const std::string &>());
    return;
  case Json::value_t::number_integer:
    integer(v.get<long long>());
    return;
  case Json::value_t::boolean:
    boolean(v.get<bool>());
    return;
  case Json::value_t::null:
    null();
    return;
  default:
    beforeValue();
    appender.append(v, depth());
  }
}

void JsonWriter::string(std::string_view text) {
  beforeValue();
  // The bytes nlohmann's serializer writes as they are (verbatimByte) are
  // copied here; each run of the others goes through it alone. A run it
  // gets starts at a whole character (after a printable ASCII byte or at
  // the start) and ends before one or at the end, where a sequence it
  // breaks is replaced as it would be inside the whole string: the bytes
  // are those of the whole string written by it.
  out += '"';
  while (!text.empty()) {
    const size_t plain = verbatimPrefix(text);
    out.append(text.substr(0, plain));
    text.remove_prefix(plain);
    size_t special = 0;
    while (special < text.size() && !verbatimByte(text[special]))
      ++special;
    if (special == 0)
      continue;
    const size_t at = out.size();
    appender.append(Json(std::string(text.substr(0, special))));
    out.erase(at, 1); // its quotes: the string's are written here
    out.pop_back();
    text.remove_prefix(special);
  }
  out += '"';
}

void JsonWriter::integer(long long number) {
  beforeValue();
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, number).ptr;
  out.append(digits, static_cast<size_t>(end - digits));
}

void JsonWriter::boolean(bool truth) {
  beforeValue();
  out += truth ? "true" : "false";
}

void JsonWriter::null() {
  beforeValue();
  out += "null";
}

void JsonWriter::itemsWrittenElsewhere(size_t n) {
  assert(!levels.empty() && !levels.back().object);
  levels.back().items += n;
}

void JsonWriter::raw(std::string_view text) {
  beforeValue();
  out.append(text);
}

namespace {

Json errorMembers(const Error &error) {
  Json e = {{"code", errorCodeName(error.code)},
            {"path", error.path},
            {"message", error.text()}};
  if (!error.source.empty())
    e["source"] = error.source;
  if (!error.subject.empty())
    e["subject"] = error.subject;
  if (error.cause)
    e["cause"] = errorMembers(*error.cause);
  return e;
}

} // namespace

Json errorToJson(const Error &error) { return Json{{"error", errorMembers(error)}}; }

} // namespace cachekey
