//===- MosaicKernels.h - Strip locations inside Mosaic kernels --*- C++ -*-===//
//
// Step 3 of entry-1 canonicalisation on jax main (`_strip_mosaic_debug_info`,
// not in 0.10.2). A Pallas TPU kernel travels inside a
// `stablehlo.custom_call @tpu_custom_call` as base64 MLIR in the JSON of its
// `backend_config`; the module-level strip-debuginfo cannot see into that
// string, so the kernel's source paths would otherwise reach the key.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_MOSAICKERNELS_H
#define CACHEKEY_MLIR_MOSAICKERNELS_H

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

/// The JSON half of the strip, for one `backend_config` string:
///  1. `bc = json.loads(config)` (pyJsonLoads); failure is an Error;
///  2. `body = bc.get("custom_call_config", {}).get("body")`: `bc` and a
///     present `custom_call_config` must be dicts, else an Error (upstream
///     raises AttributeError);
///  3. a falsy body (missing, null, "", 0, false, [], {}) → nullopt: leave
///     the op alone;
///  4. `base64.b64decode(body)` (pyB64Decode): a body that is not a str is an
///     Error (TypeError); non-ASCII or wrong padding is an Error;
///  5. `strip(kernel)`; nullopt (the kernel does not parse) → nullopt; an
///     Error is passed on;
///  6. the body becomes base64 (standard, padded) of the result, and the
///     whole object is written back with pyJsonDumps.
/// Returns the new `backend_config` string.
Expected<std::optional<std::string>>
rewriteMosaicBackendConfig(const std::string &config,
                           const KernelStripper &strip);

/// Applies the strip to `module`, in place. Every `stablehlo.custom_call`
/// (post-order walk) must have a string `call_target_name` (upstream indexes
/// it unconditionally); those naming `tpu_custom_call` must have a string
/// `backend_config`, which `rewriteMosaicBackendConfig` rewrites, the kernel
/// being parsed in the module's context (unregistered dialects allowed),
/// stripped with `stripDebugInfo` and written as bytecode. Errors name the op.
std::optional<Error> stripMosaicKernels(mlir::ModuleOp module);

} // namespace cachekey

#endif // CACHEKEY_MLIR_MOSAICKERNELS_H
