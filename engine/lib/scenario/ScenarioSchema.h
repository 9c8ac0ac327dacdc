//===- ScenarioSchema.h - Typed members with JSON paths ---------*- C++ -*-===//
//
// Private to engine/lib. The vocabulary the scenario reader and the base
// resolver are written in: which members a scenario document has, the schema
// version check, and strict typed reads of one member each. Every read checks
// the type before touching the value (the documents are untrusted and
// exceptions are off) and reports a problem as an Error whose path is the
// member's JSON path, e.g. `$.flags.argv[2]`.
//
// The reads return a Status; CACHEKEY_TRY (Support.h) returns its Error from
// the enclosing function.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_LIB_SCENARIOSCHEMA_H
#define CACHEKEY_LIB_SCENARIOSCHEMA_H

#include "cachekey/Scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cachekey::schema {

/// The members that describe a fixture rather than an ingredient of the key.
/// The reader accepts and ignores them; a patch over a base drops the base's,
/// since they describe the fixture and not the patched scenario.
inline const std::vector<const char *> kAnnotationKeys = {
    "id", "title", "description", "provenance", "expected", "capture", "notes"};

/// The members of a scenario document that name ingredients (or the format),
/// in the order docs/scenario.md lists them.
inline const std::vector<const char *> kIngredientKeys = {
    "schema",         "base",        "profile",     "module",
    "jaxlib_version", "backend",     "flags",       "compile_options",
    "accelerator",    "compression", "custom_hook"};

/// JSON's name for the type of `j`: "null", "object", "array", "string",
/// "boolean", "integer" or "number".
const char *typeName(const Json &j);

/// Code Type at `path`: "expected <want>, got <type of got>".
Error typeError(const std::string &path, const char *want, const Json &got);

/// `path` + "." + `key`.
std::string keyPath(const std::string &path, const std::string &key);

/// `path` + "[" + `i` + "]".
std::string indexPath(const std::string &path, size_t i);

/// The member `key` of object `obj`, or nullptr.
const Json *member(const Json &obj, const char *key);

/// Code UnknownKey at the first member of `obj` (at `path`) that is not in
/// `allowed`, listing `allowed` in order.
Status checkKeys(const Json &obj, const std::string &path,
                               const std::vector<const char *> &allowed);

/// Checks `document.schema` (at "$.schema"): code Missing when absent,
/// Unsupported when it is not the integer kScenarioSchema. The version
/// belongs to each document: a patch never inherits it from its base.
Status checkSchemaVersion(const Json &document);

/// Reads string member `key` of `obj` into `out`. Absent: code Missing when
/// `required`, else `out` is left as is. Not a string: code Type.
Status readString(const Json &obj, const char *key,
                                const std::string &path, std::string &out,
                                bool required);

/// Reads member `key` (a string, null or absent) into `out`; null and absent
/// leave it unset.
Status readOptString(const Json &obj, const char *key,
                                   const std::string &path,
                                   std::optional<std::string> &out);

/// Reads boolean member `key` into `out` when present.
Status readBool(const Json &obj, const char *key,
                              const std::string &path, bool &out);

/// Reads an integer in [lo, hi] at `path` into `out`; code Type when `v` is
/// not an integer, code Invalid when it is out of range.
template <typename Int>
Status readInt(const Json &v, const std::string &path, Int &out,
                             int64_t lo, int64_t hi) {
  if (!v.is_number_integer())
    return typeError(path, "an integer", v);
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi))
    return Error{path, "integer out of range"};
  int64_t x = v.get<int64_t>();
  if (x < lo || x > hi)
    return Error{path, "integer " + std::to_string(x) + " out of range [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "]"};
  out = static_cast<Int>(x);
  return {};
}

/// Appends the strings of array member `key` (absent or null: none) to `out`;
/// a non-string element is a Type error at its index path.
Status readStringArray(const Json &obj, const char *key,
                                     const std::string &path,
                                     std::vector<std::string> &out);

/// Reads required member `key` as strict standard base64 (Support.h's
/// base64Decode) into `out`; a decoding problem names the member's path.
Status readBase64(const Json &obj, const char *key,
                                const std::string &path, Bytes &out);

} // namespace cachekey::schema

#endif // CACHEKEY_LIB_SCENARIOSCHEMA_H
