//===- ModuleDiff.h - What changed inside entry 1, in JAX's terms -*- C++ -*-===//
//
// Entry 1 is the module JAX hashes (`_hash_computation` in
// jax/_src/cache_key.py: the bytecode of the module after strip-debuginfo,
// unless metadata is in the key). When it moves, a structural diff of the
// two modules (engine/mlir/lib/ModuleDiff.cpp, MLIR 19: functions matched by
// symbol name, operations aligned by structure, then attribute dictionaries
// compared) gives ModuleChanges; interpretModuleChanges (here, no MLIR)
// turns them into ModuleFindings with a code that says what in JAX makes
// such a difference and what to do about it. The words are
// ModuleDiffWording.cpp; the CLI, the wasm API and the page share them.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MODULEDIFF_H
#define CACHEKEY_MODULEDIFF_H

#include "cachekey/Computation.h"
#include "cachekey/Json.h"
#include "cachekey/Support.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cachekey {

/// One structural difference of two modules, as a fact. Attribute values and
/// types are MLIR's own printed forms, shortened (shortenAttribute).
struct ModuleChange {
  enum class Kind : uint8_t {
    ConstantChanged,   // `op` (stablehlo.constant, arith.constant) in `func`:
                       // `value` `before` → `after`
    AttributeChanged,  // attribute `attr` of `op` in `func`: `before` →
                       // `after` ("" = absent)
    CustomCallTarget,  // a stablehlo.custom_call in `func`: call_target_name
                       // `before` → `after`
    CustomCallConfig,  // the custom_call `target` in `func`: `attr`
                       // (backend_config, mhlo.backend_config, …) changed
    OpAdded,           // `op` (custom_call: `target`; a symbol: its name
                       // in `attr`) added in `func`
    OpRemoved,         // `op` (likewise) removed from `func`
    OperandsChanged,   // `op` in `func` takes other operands
    FunctionAdded,     // function `func` only in the second module
    FunctionRemoved,   // function `func` only in the first module
    ArgType,           // argument `index` of `func`: type `before` → `after`
    ResultType,        // result `index` of `func`: type `before` → `after`
    ArgCount,          // `func` takes `before` → `after` arguments
    ResultCount,       // `func` returns `before` → `after` results
    ArgAttribute,      // attribute `attr` of argument `index` of `func`
    ResultAttribute,   // attribute `attr` of result `index` of `func`
    ModuleAttribute,   // module attribute `attr`: `before` → `after`
    Locations,         // `count` operations (or functions) whose location
                       // differs, nothing else about them
  };
  Kind kind = Kind::AttributeChanged;
  std::string func, op, attr, target, before, after;
  int index = -1;
  size_t count = 0;
};

/// snake_case name of a change kind ("constant_changed", …), for JSON.
const char *moduleChangeKindName(ModuleChange::Kind kind);

/// What a group of module changes means for a JAX user. Ordered: the
/// interpretation lists findings in this order.
struct ModuleFinding {
  enum class Code : uint8_t {
    MatmulPrecision,  // precision_config changed: jax_default_matmul_precision
                      // or a precision= argument
    Donation,         // tf.aliasing_output / jax.buffer_donor: donate_argnums
    Sharding,         // mhlo.sharding / sdy.* / mhlo.num_partitions: the
                      // mesh, the device count or jax_use_shardy_partitioner
    ArgumentTypes,    // argument shapes or dtypes of @main (`x64`: every
                      // float widened 32 → 64 bits: jax_enable_x64);
                      // `retyped` operations follow from it
    RandomBits,       // the code of jax.random's helpers (@_uniform,
                      // @threefry2x32, …) or rng ops: jax_threefry_
                      // partitionable or jax_default_prng_impl
    Checkpoint,       // stablehlo.optimization_barrier and the operations
                      // recomputed around it: the checkpoint (remat) policy
    CustomCall,       // custom_call targets or backend_config: host
                      // callbacks, Pallas or Mosaic kernels
    BakedConstant,    // a constant differs: a Python value baked in at
                      // trace time (static argument, closure, global)
    MetadataInKey,    // only locations differ: metadata in the key
    Structural,       // anything else: a structural summary
  };
  Code code = Code::Structural;
  /// The changes this finding explains, in module order (at most
  /// kMaxChangesPerFinding kept; `total` counts them all).
  std::vector<ModuleChange> changes;
  size_t total = 0;
  bool x64 = false; // ArgumentTypes: every changed float went f32 → f64
  /// ArgumentTypes: operations (and results) that only took the new types,
  /// counted, not listed: in each function the operations added and
  /// removed are the same kinds, so they are the old ones retyped.
  size_t retyped = 0;
};

inline constexpr size_t kMaxChangesPerFinding = 20;

/// The snake_case code of a finding ("matmul_precision", …), for JSON.
const char *moduleFindingCodeName(ModuleFinding::Code code);

/// Who calls whom: for each function symbol, the functions that hold a
/// func.call of it, in either module (the union of both modules' calls).
using ModuleCallers = std::map<std::string, std::set<std::string>>;

/// The structural diff of two modules: the changes, then what they mean.
struct ModuleDiff {
  std::vector<ModuleChange> changes;
  ModuleCallers callers;
  std::vector<ModuleFinding> findings;
  size_t opsBefore = 0, opsAfter = 0; // operations walked in each module
  bool same = false; // no structural difference and no location difference
};

/// Groups `changes` into findings by what in JAX makes them (see
/// ModuleFinding::Code), most specific first; changes no rule explains go
/// into one Structural finding. Empty for no changes.
///
/// Two rules read several changes at once. When @main's argument types
/// changed, a function whose added and removed operations are the same
/// kinds (and its result types) only took the new types: those changes are
/// counted in ArgumentTypes' `retyped`, not reported as structure. When an
/// optimization_barrier came or went in a function, the other operations
/// added or removed there are the recomputed ones: part of Checkpoint.
/// `callers` (optional) extends the jax.random helpers to the functions
/// only they call (@closed_call under @threefry2x32).
std::vector<ModuleFinding> interpretModuleChanges(
    const std::vector<ModuleChange> &changes,
    const ModuleCallers &callers = {});

/// A module differ: two modules (MLIR text or bytecode, e.g. entry-1 bytes)
/// → their structural diff, or why they cannot be read.
using ModuleDiffer = Expected<ModuleDiff> (*)(const std::string &before,
                                              const std::string &after);

/// Installs the module differ (done by the MLIR library, or by the CLI's
/// lazy plugin loader). compareResults uses it when entry 1 moved.
void setModuleDiffer(ModuleDiffer differ);

/// The installed differ, or nullptr.
ModuleDiffer moduleDiffer();

/// What version 2 of the MLIR plugin interface (`cachekey_mlir_plugin_v2`
/// in libcachekey-mlir.so, engine/mlir/lib/Plugin.cpp) hands over. Version 1
/// (`cachekey_mlir_plugin_v1`) gives the canonicaliser alone.
struct MlirPluginV2 {
  Canonicalizer canonicalize = nullptr;
  ModuleDiffer diffModules = nullptr;
};

// The words (ModuleDiffWording.cpp).

/// A change as a clause, e.g. "stablehlo.constant in @main: value
/// dense<7.290000e-02> → dense<6.561000e-02>".
std::string moduleChangeText(const ModuleChange &change);

/// A finding as one sentence: what changed, what in JAX makes it, and what
/// to do, e.g. "a constant in the program changed (…): a Python value was
/// baked in at trace time …; pass it as a traced argument …".
std::string moduleFindingText(const ModuleFinding &finding);

/// What to do about a finding, as one sentence (the advice line).
std::string moduleFindingAdvice(const ModuleFinding &finding);

/// {"code": kind name, "func", "op", "attr", "target", "before", "after",
///  "index", "count", "text"} (empty fields left out).
Json moduleChangeToJson(const ModuleChange &change);

/// {"code": finding code, "changes": [moduleChangeToJson], "total", "x64",
///  "retyped",
///  "advice", "text"}.
Json moduleFindingToJson(const ModuleFinding &finding);

/// {"same", "ops_before", "ops_after", "findings": [...], "changes": [...]}.
Json moduleDiffToJson(const ModuleDiff &diff);

} // namespace cachekey

#endif // CACHEKEY_MODULEDIFF_H
