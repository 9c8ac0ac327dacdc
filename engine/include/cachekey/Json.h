//===- Json.h - JSON documents, read without exceptions ---------*- C++ -*-===//
//
// Every JSON document the engine reads (scenarios, fixtures, a capture's
// index.json, the DebugOptions table) is an nlohmann `ordered_json`, which
// keeps members in document order. Text is parsed with exceptions off, so a
// bad document is an Error and can never abort the wasm instance, which is
// built without C++ exception support.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_JSON_H
#define CACHEKEY_JSON_H

#include "cachekey/Support.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace cachekey {

/// A JSON value whose objects keep their members in document order.
using Json = nlohmann::ordered_json;

/// Parses JSON text (RFC 8259, UTF-8). `what` names the document in
/// messages ("scenario", "fixture add_1x1", "index.json").
///
/// Errors, all with path "$": code Syntax, "malformed <what> JSON: " and
/// nlohmann's message with the line and column of the first syntax error
/// (bytes that are not UTF-8 included); code TooLarge when arrays and
/// objects nest deeper than 64 levels (later steps recurse per level).
Expected<Json> parseJsonText(const std::string &text,
                             const std::string &what = "scenario");

/// `json` as text, the way every front end and message writes it: `indent`
/// spaces per level (-1: one line), bytes that are not UTF-8 replaced by
/// U+FFFD rather than failing (nlohmann's error_handler_t::replace).
std::string dumpJson(const Json &json, int indent = -1);

/// Appends JSON values to one string, as dumpJson(value, indent) writes
/// them but nested `depth` levels deep (each line after the first indented
/// by depth × indent more spaces, as a member of a member is): for long
/// outputs written one element at a time. One nlohmann serializer is kept
/// for every value appended (dumpJson makes a new one per call); bytes that
/// are not UTF-8 become U+FFFD, as in dumpJson.
class JsonAppender {
public:
  JsonAppender(std::string &out, int indent)
      : serializer(nlohmann::detail::output_adapter<char, std::string>(out), ' ',
                   Json::error_handler_t::replace),
        indent(indent) {}
  void append(const Json &value, int depth = 0) {
    serializer.dump(value, indent >= 0, false,
                    static_cast<unsigned>(indent < 0 ? 0 : indent),
                    static_cast<unsigned>(indent < 0 ? 0 : indent * depth));
  }

private:
  nlohmann::detail::serializer<Json> serializer;
  int indent;
};

/// Writes one JSON document as a stream of events, in the style of LLVM's
/// `json::OStream`: objectBegin / attribute / objectEnd, arrayBegin / value
/// / arrayEnd, with the bytes dumpJson(tree, indent) would write for the
/// same tree (an empty object is "{}", an empty array "[]"; with `indent`
/// -1, one line with no spaces). The text goes to `out`; a writer may start
/// `depth` levels deep (a piece of a longer document made on another
/// thread, the items of an array that is open elsewhere), and then writes
/// the separators of items it continues after `items` earlier ones.
///
/// Values given whole (`value(const Json &)`) are walked and written at the
/// current depth (doubles and strings that need escaping by nlohmann's
/// serializer); `raw` inserts text made elsewhere at the
/// same depth (a finding written once and reused). Misuse (a member outside
/// an object, an end without a begin) is a programming error: the writer
/// asserts in debug builds and writes what it was told otherwise.
class JsonWriter {
public:
  explicit JsonWriter(std::string &out, int indent = 2, int depth = 0,
                      size_t items = 0);

  /// Opens an object or array: as a member's value after `key`, as an item
  /// of the enclosing array, or as the document.
  void objectBegin();
  void objectEnd();
  void arrayBegin();
  void arrayEnd();

  /// Starts member `name` of the open object; the next value, begin or raw
  /// is its value.
  void key(std::string_view name);

  /// A whole value (an item of the open array, a member's value after
  /// key, or the document).
  void value(const Json &v);

  /// Scalars, written as value(Json(x)) writes them, without making a Json:
  /// a string (UTF-8; text that is not is replaced as dumpJson replaces
  /// it), an integer, a boolean, null.
  void string(std::string_view text);
  void integer(long long number);
  void boolean(bool truth);
  void null();

  /// `text`, already JSON written at this writer's current depth (as
  /// JsonAppender(…, indent).append(v, depth) writes it), as a value.
  void raw(std::string_view text);

  /// key(name) then value(v).
  void attribute(std::string_view name, const Json &v) {
    key(name);
    value(v);
  }

  /// Counts `n` items of the open array as written: another writer wrote
  /// them (started at this depth(), with the count of items before them),
  /// so that the separators and the array's end come out right.
  void itemsWrittenElsewhere(size_t n);

  /// The nesting depth now (0: the document's own level).
  int depth() const { return static_cast<int>(levels.size()) + base; }

private:
  void beforeValue();
  void newline(int level);

  std::string &out;
  JsonAppender appender;
  int indent;
  int base;
  struct Level {
    bool object;
    size_t items;
  };
  std::vector<Level> levels;
  /// An array continued from elsewhere (`items` given): its separators.
  size_t continued;
  bool afterKey = false;
};

/// An Error (Support.h) as JSON: {"error": {"code", "path", "message",
/// "source"?, "subject"?, "cause"?}}; `code` is errorCodeName, and the
/// optional members appear only when set. An error made by Error::within
/// has its cause as "cause" (the same members, nested), and its "message" is
/// the cause's whole text, as before causes were kept. The one error shape of
/// the CLI's --json output and of every wasm call.
Json errorToJson(const Error &error);

} // namespace cachekey

#endif // CACHEKEY_JSON_H
