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

/// An Error (Support.h) as JSON: {"error": {"code", "path", "message",
/// "source"?, "subject"?, "cause"?}}; `code` is errorCodeName, and the
/// optional members appear only when set. An error made by Error::within
/// has its cause as "cause" (the same members, nested), and its "message" is
/// the cause's whole text, as before causes were kept. The one error shape of
/// the CLI's --json output and of every wasm call.
Json errorToJson(const Error &error);

} // namespace cachekey

#endif // CACHEKEY_JSON_H
