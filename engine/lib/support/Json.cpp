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

/// Whether nlohmann's serializer writes `text` as it is between quotes:
/// printable ASCII without '"' or '\\' (it escapes control characters, and
/// checks and may replace every byte of 0x80 or more).
bool writtenVerbatim(std::string_view text) {
  // Eight bytes at a time, with the word tests of "Bit Twiddling Hacks"
  // (a byte below n: (w - n×ones) & ~w & highs; a zero byte: n = 1): most
  // of a document's text passes through here, and under a fuzzer's
  // instrumentation every comparison of a byte-by-byte loop is a call.
  constexpr uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  const auto below = [](uint64_t w, uint64_t n) { return (w - n * ones) & ~w; };
  uint64_t flagged = 0;
  const auto check = [&](uint64_t w) {
    flagged |= w | below(w, 0x20) | below(w ^ ('"' * ones), 1) | below(w ^ ('\\' * ones), 1);
  };
  const char *p = text.data();
  const size_t n = text.size();
  size_t i = 0;
  for (; n - i >= 8; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    check(w);
  }
  if (i < n) {
    uint64_t w = 0x20 * ones; // spaces after the last byte
    std::memcpy(&w, p + i, n - i);
    check(w);
  }
  return (flagged & highs) == 0;
}

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
  if (!writtenVerbatim(text)) {
    appender.append(Json(std::string(text)), depth());
    return;
  }
  out += '"';
  out.append(text);
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
