//===- CompileOptions.h - Entry 5: compile options --------------*- C++ -*-===//
//
// Mirrors `_hash_serialized_compile_options` in jax/_src/cache_key.py. On a
// copy of the serialized `CompileOptionsProto`:
//   1. the debug `DebugOptions` fields are set to false / 0 / "" — with
//      explicit presence, so each stays on the wire as tag plus zero value;
//   2. `env_option_overrides` entries whose name is on the exclusion list
//      (with dashes stripped from the list's names only) are dropped;
//   3. on platform "gpu", the device assignment becomes 0 … R·C−1 laid out
//      R×C;
// and the result is serialized deterministically (field-number order, map
// entries sorted by key). All edits are made at the wire level (Wire.h).
//
// The edits live in CompileOptionsEdits.cpp, the description of what differs
// in CompileOptionsDiff.cpp, the DebugOptions field table in DebugOptions.h.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_COMPILEOPTIONS_H
#define CACHEKEY_COMPILEOPTIONS_H

#include "cachekey/DebugOptions.h"
#include "cachekey/Profile.h"
#include "cachekey/Scenario.h"
#include "cachekey/Wire.h"

#include <string>
#include <vector>

namespace cachekey {

/// Field numbers on the path to the edited messages.
namespace field {
constexpr uint32_t kExecutableBuildOptions = 3; // CompileOptionsProto
constexpr uint32_t kSerializedMultiSliceConfig = 6; // CompileOptionsProto
constexpr uint32_t kEnvOptionOverrides = 7;     // CompileOptionsProto (map)
constexpr uint32_t kDebugOptions = 3;           // ExecutableBuildOptionsProto
constexpr uint32_t kNumReplicas = 4;            // ExecutableBuildOptionsProto
constexpr uint32_t kNumPartitions = 5;          // ExecutableBuildOptionsProto
constexpr uint32_t kDeviceAssignment = 9;       // ExecutableBuildOptionsProto
constexpr uint32_t kFdoProfile = 14;            // ExecutableBuildOptionsProto
} // namespace field

/// One effective change of JAX's cache-key edits, as a fact; the words are
/// cacheKeyEditText. Values are rendered as fieldChangeText shows them
/// (a string quoted, a repeated field "[…]", "unset").
struct CacheKeyEdit {
  enum class Code : uint8_t {
    Zeroed,      // 1. DebugOptions field `name` (number `number`): `before`
                 //    → `after` ("0" or "\"\""), written as `zero` says
    Renumbered,  // 3. the device assignment `before` → `after` (gpu)
    Dropped,     // 2. env_option_overrides[`name`] dropped: on the
                 //    exclusion list
  };
  /// How a zeroed field is written.
  enum class Zero : uint8_t {
    Replaced,   // explicit presence: the zero replaces the value
    Added,      // explicit presence: a zero is written where none was
    NotWritten, // proto3 implicit presence (jaxlib < 0.7.0): left off
  };
  Code code = Code::Zeroed;
  std::string name;
  uint32_t number = 0;
  std::string before, after;
  Zero zero = Zero::Replaced;
};

/// snake_case name of `code`, for JSON: "zeroed", "renumbered", "dropped".
const char *cacheKeyEditCode(CacheKeyEdit::Code code);

/// One edit as a line, e.g. "DebugOptions.xla_dump_to (field 109)
/// \"/tmp/d\" → \"\"", "env_option_overrides[\"x\"] dropped (on the
/// exclusion list)" (CompileOptionsWording.cpp).
std::string cacheKeyEditText(const CacheKeyEdit &edit);

/// The result of the cache-key edits.
struct EditedCompileOptions {
  Bytes input;  // CompileOptionsProto after the scenario's structured edits
  Bytes output; // the bytes entry 5 feeds to the hash
  /// Each effective change, in the order JAX's edits make them.
  std::vector<CacheKeyEdit> changes;
};

/// Applies the scenario's structured edits to `proto` (a serialized
/// CompileOptionsProto), as setting the same attributes on the Python
/// `CompileOptions` object would. With `explicitZeroes` false (the
/// DebugOptions of jaxlib before 0.7.0, proto3 implicit presence) a
/// DebugOptions field set to zero, false, "" or +0.0 is left off the wire.
/// Returns `proto` unchanged when `edits` is empty.
///
/// Errors: "$.compile_options.proto_b64" when a message on the path does not
/// parse (MalformedProto, the message named in the text);
/// "$.compile_options.edits.debug_options.<name>" for a field the table does
/// not know or a value of the wrong kind or range.
Expected<Bytes> applyStructuredEdits(const Bytes &proto,
                                     const CompileOptionsEdits &edits,
                                     bool explicitZeroes = true);

/// Applies JAX's cache-key edits for `profile` and `platform` to `proto`;
/// `changes` says what each edit changed.
///
/// Errors, with an empty path (the caller knows which input it passed):
/// MalformedProto naming the message and the byte offset, e.g.
/// "DebugOptions (ExecutableBuildOptionsProto field 3): malformed protobuf:
/// …"; on "gpu", a device assignment that does not parse or declares more
/// than 2^20 devices.
Expected<EditedCompileOptions> applyCacheKeyEdits(const Bytes &proto,
                                                  Profile profile,
                                                  const std::string &platform);

/// The three messages of entry 5 a change can sit in.
enum class ProtoMessage : uint8_t { CompileOptions, ExecutableBuildOptions, DebugOptions };

/// One difference between two serialized CompileOptionsProto, as a fact:
/// which field, and its value on each side (rendered for a person, e.g.
/// `4`, `"/tmp/d"`, `unset`). The words are written by `fieldChangeText`
/// (explain/Wording.cpp) only.
struct FieldChange {
  enum class Kind : uint8_t {
    /// Field `number` (`name`, "?" when the table does not know it) of
    /// `message`; `occurrencesBefore/After` count a repeated field.
    Field,
    /// env_option_overrides entry `name` (the map key).
    EnvOverride,
    /// The same env_option_overrides entries in another order or repeated.
    EnvOverrideOrder,
    /// ExecutableBuildOptionsProto.device_assignment, as R rows of C ids.
    DeviceAssignment,
    /// A nested message (`name`: "CompileOptionsProto",
    /// "executable_build_options", "debug_options") does not parse;
    /// `before`/`after` are the byte counts.
    Unreadable,
    /// The bytes differ but no field does (e.g. another field order).
    BytesDiffer,
  };
  Kind kind = Kind::Field;
  ProtoMessage message = ProtoMessage::CompileOptions;
  uint32_t number = 0;
  std::string name;
  std::string before, after;
  size_t occurrencesBefore = 0, occurrencesAfter = 0;
  /// Whether the change reaches the hash (false: the cache-key edits zero
  /// or drop it). Set by the comparison of inputs and outputs (Diff.h).
  bool hashed = true;

  /// Whether `other` is a change of the same field (values aside).
  bool sameField(const FieldChange &other) const {
    return kind == other.kind && message == other.message &&
           number == other.number && name == other.name;
  }
};

/// How two serialized CompileOptionsProto differ, field by field,
/// descending into ExecutableBuildOptions, DebugOptions, the device
/// assignment and the overrides, in field-number order. Empty when the bytes
/// are equal; never fails (a part that does not parse is one Unreadable
/// change). Mirrors nothing upstream: JAX hashes the bytes whole
/// (`_hash_serialized_compile_options`); this is for the reader.
std::vector<FieldChange> compileOptionsChanges(const Bytes &before,
                                               const Bytes &after);

/// compileOptionsChanges as lines (fieldChangeText), e.g.
/// "DebugOptions.xla_gpu_autotune_level (field 123) 4 → 1".
std::vector<std::string> describeCompileOptionsDiff(const Bytes &before,
                                                    const Bytes &after);

} // namespace cachekey

#endif // CACHEKEY_COMPILEOPTIONS_H
