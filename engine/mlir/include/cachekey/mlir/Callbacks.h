//===- Callbacks.h - Remove callback pointers before serialising -*- C++ -*-===//
//
// The serialise step of entry 1 (§3 of the reference). A custom_partitioning
// op's `backend_config` holds a Python object id, and host callbacks hold
// function pointers, so they differ on every run; JAX can replace them with
// "REMOVED" before writing bytecode.
//
//   main:   `_remove_custom_partitioning_callbacks`, when
//           `ignore_custom_partitioning` is set;
//   0.10.2: `_remove_callbacks`, with IgnoreCallbacks NO / ALL /
//           CUSTOM_PARTITIONING.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_CALLBACKS_H
#define CACHEKEY_MLIR_CALLBACKS_H

#include "cachekey/Profile.h"
#include "cachekey/Scenario.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace cachekey {

/// Which `stablehlo.custom_call` ops get `backend_config = "REMOVED"`.
enum class CallbackRemoval {
  None,               ///< nothing is rewritten, and the module is not cloned
  CustomPartitioning, ///< call_target_name == "CustomSPMDPartitioning"
  All,                ///< the above, and call_target_name ending in "callback"
};

/// The removal `profile` applies for `module`, by its CallbackRule: none
/// before 0.4.34; `ignoreCustomPartitioning` for the bool config (0.4.34 –
/// 0.4.35) and the bool argument (0.11.0 and later); `ignoreCallbacks` for
/// the IgnoreCallbacks enum (0.4.36 – 0.10.2).
CallbackRemoval callbackRemovalFor(const ModuleSpec &module, Profile profile);

/// Walks every op of `module`. An op that has a `call_target_name` must hold
/// a string there (upstream asserts it; the Error names the op). Each
/// `stablehlo.custom_call` selected by `mode` gets `backend_config` set to
/// StringAttr "REMOVED", replacing or adding it (`op.attributes[...] = ...`).
/// `mode == None` changes nothing.
Status removeCallbacks(mlir::ModuleOp module,
                                     CallbackRemoval mode);

/// "op 'stablehlo.custom_call' #2 in @main": an op named for messages by its
/// name, its 1-based position among same-named ops in walk order, and the
/// nearest enclosing symbol.
std::string describeOp(mlir::Operation *op, size_t ordinal);

} // namespace cachekey

#endif // CACHEKEY_MLIR_CALLBACKS_H
