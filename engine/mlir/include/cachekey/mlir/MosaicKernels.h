//===- MosaicKernels.h - Strip locations inside Mosaic kernels --*- C++ -*-===//
//
// Step 3 of entry-1 canonicalisation from jax 0.11.0 on
// (`_strip_mosaic_debug_info` in jax/_src/cache_key.py). A Pallas TPU kernel
// travels inside a `stablehlo.custom_call @tpu_custom_call` as base64 MLIR in
// the JSON of its `backend_config`; the module-level strip-debuginfo cannot
// see into that string, so the kernel's source paths would otherwise reach
// the key. jax 0.12.0 changed the step (MosaicRule::DeleteDebugLocations).
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_MOSAICKERNELS_H
#define CACHEKEY_MLIR_MOSAICKERNELS_H

#include "cachekey/Profile.h"
#include "cachekey/Support.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <optional>
#include <string>

namespace cachekey {

/// Kernel bytes (text or bytecode) → the stripped kernel's bytecode; nullopt
/// when the kernel does not parse (upstream catches that MLIRError); an Error
/// when the strip itself fails (upstream does not catch that one).
using KernelStripper =
    std::function<Expected<std::optional<Bytes>>(const Bytes &kernel)>;

/// The JSON half of the step, for one `backend_config` string, as `rule`
/// (SkipMissingBody or DeleteDebugLocations) does it. Python's semantics are
/// kept exactly; where Python raises, the Error names the exception
/// (`KeyError: 'body'`, `TypeError: …`) and says that JAX computes no key.
///
/// SkipMissingBody (jax 0.11.x):
///  1. `bc = json.loads(config)` (pyJsonLoads); failure is an Error;
///  2. `body = bc.get("custom_call_config", {}).get("body")`: `bc` and a
///     present `custom_call_config` must be dicts (AttributeError);
///  3. a falsy body (missing, null, "", 0, false, [], {}) → nullopt: the op
///     is left alone;
///  4. `base64.b64decode(body)` (pyB64Decode): a body that is not a str is a
///     TypeError; non-ASCII or wrong padding a binascii.Error;
///  5. `strip(kernel)`; nullopt (the kernel does not parse) → nullopt;
///  6. the body becomes base64 (standard, padded) of the result, and the
///     whole object is written back compactly (pyJsonDumps).
///
/// DeleteDebugLocations (jax 0.12.0 and later):
///  1. as above;
///  2. `ccc = bc["custom_call_config"]`: KeyError when missing, TypeError
///     when `bc` is not a dict;
///  3. `"debug_locations" in ccc`: for a dict the member is deleted and the
///     object written back compactly, and the body is not looked at (for a
///     list or str, `in` tests an element or substring and the `del` then
///     raises TypeError; for a number, bool or null `in` raises TypeError);
///  4. otherwise `ccc["body"]`: KeyError when missing; every body, an empty
///     or falsy one included, goes to `base64.b64decode` (TypeError unless a
///     str); an empty string parses as an empty module;
///  5./6. as above.
/// Returns the new `backend_config` string, or nullopt to leave it as is.
Expected<std::optional<std::string>>
rewriteMosaicBackendConfig(const std::string &config,
                           const KernelStripper &strip,
                           MosaicRule rule = MosaicRule::SkipMissingBody);

/// What the step met that MLIR 19 could not read.
struct MosaicReport {
  /// Kernel bodies in MLIR bytecode that the step would strip but MLIR could
  /// not read; jaxlib's newer MLIR reads its own bytecode, so JAX's entry 1
  /// then differs from this one. (Kernel text that does not parse is left
  /// alone by both, and is not counted.)
  int unreadableKernels = 0;
  /// The first parse error, e.g. "unknown attribute code: 23 … produced by
  /// MLIR24.0.0git".
  std::string firstError;
};

/// Applies the step of `rule` to `module`, in place, walking every
/// `stablehlo.custom_call` in post-order. SkipMissingBody indexes
/// `call_target_name` unconditionally (an Error when it is missing or not a
/// string); DeleteDebugLocations skips such ops. Ops naming
/// `tpu_custom_call` must have a string `backend_config`, which
/// `rewriteMosaicBackendConfig` rewrites; the kernel is parsed in the
/// module's context (unregistered dialects allowed), stripped with
/// `stripDebugInfo` and written as bytecode. Errors name the op. `report`,
/// when given, counts the kernels MLIR could not read.
Status stripMosaicKernels(mlir::ModuleOp module,
                                        MosaicRule rule = MosaicRule::SkipMissingBody,
                                        MosaicReport *report = nullptr);

} // namespace cachekey

#endif // CACHEKEY_MLIR_MOSAICKERNELS_H
