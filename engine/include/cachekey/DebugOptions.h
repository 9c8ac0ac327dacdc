//===- DebugOptions.h - XLA's DebugOptions fields, by name ------*- C++ -*-===//
//
// XLA's `DebugOptions` message (xla/xla.proto) has hundreds of fields and
// changes every release, so the engine does not compile its schema. It knows
// the fields from a table discovered in the real jaxlib by tools/capture
// (fixtures/debug_options_fields.json: each field's number, wire type and
// kind, found by setting attributes and by injecting wire fields, the two
// cross-checked), compiled in at build time.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_DEBUGOPTIONS_H
#define CACHEKEY_DEBUGOPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace cachekey {

/// A `DebugOptions` field known by name.
struct DebugOptionField {
  std::string name;
  uint32_t number = 0;
  /// The table's kind: "bool", "int32", "int64", "enum", "string" or
  /// "float" ("int" when the table gives none).
  std::string kind;
};

/// Looks a DebugOptions field up by name; nullptr when the table has none.
const DebugOptionField *findDebugOption(const std::string &name);
/// Looks a DebugOptions field up by field number; nullptr when unknown.
const DebugOptionField *findDebugOption(uint32_t number);
/// Every known DebugOptions field, ordered by field number.
const std::vector<DebugOptionField> &knownDebugOptions();

} // namespace cachekey

#endif // CACHEKEY_DEBUGOPTIONS_H
