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

/// The kind of value a protobuf field holds, as far as the engine needs
/// it: to check an edit's JSON value and to show a wire value.
enum class FieldKind : uint8_t {
  Bool,
  Int32,
  Int64,
  /// An integer of unknown width (a table entry without a kind; an
  /// OptionOverrideProto's int).
  Int,
  Enum,
  String,
  Float,
  Double,
  /// Serialized bytes, never text.
  Bytes,
  /// Not known: a short printable payload is shown as text.
  Unknown,
};

/// "bool", "int32", "int64", "int", "enum", "string", "float", "double",
/// "bytes", "" (Unknown): the DebugOptions table's spelling.
const char *fieldKindName(FieldKind kind);

/// The kind the DebugOptions table spells `name`; Int for a name it does
/// not use.
FieldKind parseFieldKind(const std::string &name);

/// The DebugOptions fields JAX's compiler.py fills from its cache settings
/// (jax_compilation_cache_dir, jax_persistent_cache_enable_xla_caches):
/// the XLA autotuning cache path, the kernel cache file, and the module
/// compilation parallelism it turns on with the kernel cache.
inline constexpr char kAutotuneField[] = "xla_gpu_per_fusion_autotune_cache_dir";
inline constexpr char kKernelField[] = "xla_gpu_kernel_cache_file";
inline constexpr char kParallelismField[] =
    "xla_gpu_enable_llvm_module_compilation_parallelism";

/// A `DebugOptions` field known by name.
struct DebugOptionField {
  std::string name;
  uint32_t number = 0;
  /// The table's kind (Bool, Int32, Int64, Enum, String or Float; Int when
  /// the table gives none), parsed once when the table is loaded.
  FieldKind kind = FieldKind::Int;
};

/// Looks a DebugOptions field up by name; nullptr when the table has none.
const DebugOptionField *findDebugOption(const std::string &name);
/// Looks a DebugOptions field up by field number; nullptr when unknown.
const DebugOptionField *findDebugOption(uint32_t number);
/// Every known DebugOptions field, ordered by field number.
const std::vector<DebugOptionField> &knownDebugOptions();

} // namespace cachekey

#endif // CACHEKEY_DEBUGOPTIONS_H
