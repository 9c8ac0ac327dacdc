//===- StripDebugInfo.h - builtin.module(strip-debuginfo) -------*- C++ -*-===//
//
// Step 2 of entry-1 canonicalisation (§3 of the reference), and the same step
// on each Mosaic kernel (main).
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_STRIPDEBUGINFO_H
#define CACHEKEY_MLIR_STRIPDEBUGINFO_H

#include "cachekey/Support.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace cachekey {

/// The textual pipeline jax runs, verbatim.
constexpr const char *kStripPipeline = "builtin.module(strip-debuginfo)";

/// Runs `kStripPipeline` on `module`, every location becoming `loc(unknown)`,
/// the way `pm.PassManager.parse(kStripPipeline).run(m.operation)` does:
/// the whole string is parsed into an OpPassManager anchored on
/// builtin.module, which is then assigned to a PassManager (default
/// settings, so the module is verified after the pass). Parsing the string
/// into a PassManager already anchored on builtin.module instead would nest
/// it and strip nothing.
///
/// Errors: a pipeline or verification failure, with its diagnostics.
Status stripDebugInfo(mlir::ModuleOp module);

} // namespace cachekey

#endif // CACHEKEY_MLIR_STRIPDEBUGINFO_H
