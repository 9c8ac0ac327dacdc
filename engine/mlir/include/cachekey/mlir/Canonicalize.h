//===- Canonicalize.h - Entry 1, computed live with MLIR --------*- C++ -*-===//
//
// The live canonicaliser that `computationEntry` (Computation.h) calls for a
// module given as text: JAX's `_hash_computation` (§3 of the reference), run
// on MLIR 19 instead of jaxlib's MLIR. The bytes therefore carry MLIR 19's
// producer string and format; they equal `mlir-opt --strip-debuginfo
// --emit-bytecode` from the same release, not jaxlib's bytes.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_CANONICALIZE_H
#define CACHEKEY_MLIR_CANONICALIZE_H

#include "cachekey/Computation.h"

namespace cachekey {

/// Entry 1 for `module.text` under `profile`:
///  1. parse the text or bytecode (parseMlirModule) in a fresh context;
///  2. unless `module.includeMetadata`: clone, run
///     `builtin.module(strip-debuginfo)`, and on main strip the Mosaic
///     kernels (`_canonicalize_ir`);
///  3. serialise (`_serialize_ir`): when callbacks are to be removed
///     (callbackRemovalFor), clone and rewrite the clone; write bytecode.
/// `symName` is the top-level module's `sym_name`, `producer` the bytecode's
/// producer (e.g. "MLIR19.1.7"), `live` is true.
///
/// Errors (never exceptions): no text; a parse error with MLIR's
/// `line:column: message`; no `sym_name`; a Mosaic `backend_config` that
/// json.loads or b64decode rejects, naming the op. Each call owns its
/// context, so a failure leaves nothing behind for the next call.
Expected<ComputationEntry> canonicalize(const ModuleSpec &module,
                                        Profile profile);

/// Installs `canonicalize` as the engine's canonicaliser (setCanonicalizer).
void registerMlirCanonicalizer();

} // namespace cachekey

#endif // CACHEKEY_MLIR_CANONICALIZE_H
