//===- CloneModule.h - m.operation.clone() that keeps properties -*- C++ -*-===//
//
// JAX clones the module before canonicalising it and again before removing
// callbacks. In MLIR 19, `Operation::clone` drops the properties (`<{...}>`)
// of *unregistered* operations: the unregistered op model's initProperties
// ignores the value it is given (newer MLIR copies it). Every stablehlo op is
// unregistered here, so a plain clone would lose `call_target_name`,
// `backend_config`, a constant's `value` … jaxlib, with stablehlo
// registered, never sees this.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_MLIR_CLONEMODULE_H
#define CACHEKEY_MLIR_CLONEMODULE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace cachekey {

/// A deep copy of `module`, as `module.operation.clone()` gives in Python:
/// `Operation::clone`, then the properties of every unregistered op copied
/// over from its original (walked in the same order in both trees).
mlir::OwningOpRef<mlir::ModuleOp> cloneModule(mlir::ModuleOp module);

} // namespace cachekey

#endif // CACHEKEY_MLIR_CLONEMODULE_H
