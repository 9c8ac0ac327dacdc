//===- Callbacks.cpp - Remove callback pointers before serialising --------===//
#include "cachekey/mlir/Callbacks.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

#include <unordered_map>

namespace cachekey {

CallbackRemoval callbackRemovalFor(const ModuleSpec &module, Profile profile) {
  switch (profileSpec(profile).callbacks) {
  case CallbackRule::None:
    return CallbackRemoval::None;
  case CallbackRule::CustomPartitioningConfig:
  case CallbackRule::IgnoreCustomPartitioningBool:
    return module.ignoreCustomPartitioning ? CallbackRemoval::CustomPartitioning
                                           : CallbackRemoval::None;
  case CallbackRule::IgnoreCallbacksEnum:
    break;
  }
  switch (module.ignoreCallbacks) {
  case IgnoreCallbacks::No:
    return CallbackRemoval::None;
  case IgnoreCallbacks::All:
    return CallbackRemoval::All;
  case IgnoreCallbacks::CustomPartitioning:
    return CallbackRemoval::CustomPartitioning;
  }
  return CallbackRemoval::None;
}

std::string describeOp(mlir::Operation *op, size_t ordinal) {
  std::string s = "op '" + op->getName().getStringRef().str() + "' #" +
                  std::to_string(ordinal);
  for (mlir::Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (auto name = p->getAttrOfType<mlir::StringAttr>(
            mlir::SymbolTable::getSymbolAttrName())) {
      s += " in @" + name.getValue().str();
      break;
    }
  return s;
}

Status removeCallbacks(mlir::ModuleOp module,
                                     CallbackRemoval mode) {
  if (mode == CallbackRemoval::None)
    return {};
  mlir::MLIRContext *context = module.getContext();
  mlir::StringAttr removed = mlir::StringAttr::get(context, "REMOVED");
  std::unordered_map<std::string, size_t> seen;
  Status error;
  module->walk([&](mlir::Operation *op) {
    size_t ordinal = ++seen[op->getName().getStringRef().str()];
    mlir::Attribute target = op->getAttr("call_target_name");
    if (!target)
      return mlir::WalkResult::advance();
    auto name = mlir::dyn_cast<mlir::StringAttr>(target);
    if (!name) { // upstream: assert isinstance(call_target_name, ir.StringAttr)
      error = Error{"", describeOp(op, ordinal) +
                            ": call_target_name is not a string attribute"};
      return mlir::WalkResult::interrupt();
    }
    if (op->getName().getStringRef() != "stablehlo.custom_call")
      return mlir::WalkResult::advance();
    llvm::StringRef value = name.getValue();
    if (value == "CustomSPMDPartitioning" ||
        (mode == CallbackRemoval::All && value.ends_with("callback")))
      op->setAttr("backend_config", removed);
    return mlir::WalkResult::advance();
  });
  return error;
}

} // namespace cachekey
