//===- CloneModule.cpp - m.operation.clone() that keeps properties --------===//
#include "cachekey/mlir/CloneModule.h"

#include "llvm/ADT/SmallVector.h"

namespace cachekey {

static llvm::SmallVector<mlir::Operation *> preorder(mlir::Operation *root) {
  llvm::SmallVector<mlir::Operation *> ops;
  root->walk<mlir::WalkOrder::PreOrder>(
      [&](mlir::Operation *op) { ops.push_back(op); });
  return ops;
}

mlir::OwningOpRef<mlir::ModuleOp> cloneModule(mlir::ModuleOp module) {
  mlir::OwningOpRef<mlir::ModuleOp> copy = module.clone();
  llvm::SmallVector<mlir::Operation *> from = preorder(module);
  llvm::SmallVector<mlir::Operation *> to = preorder(*copy);
  // A clone has the same shape as its original, so the two walks pair up.
  for (size_t i = 0; i < from.size() && i < to.size(); ++i)
    if (!from[i]->isRegistered() && from[i]->getPropertiesStorageSize())
      if (mlir::Attribute props = from[i]->getPropertiesAsAttribute())
        (void)to[i]->setPropertiesFromAttribute(props, /*emitError=*/nullptr);
  return copy;
}

} // namespace cachekey
