//===- Canonicalize.cpp - Entry 1, computed live with MLIR ----------------===//
#include "cachekey/mlir/Canonicalize.h"
#include "cachekey/mlir/Callbacks.h"
#include "cachekey/mlir/CloneModule.h"
#include "cachekey/mlir/ModuleIO.h"
#include "cachekey/mlir/MosaicKernels.h"
#include "cachekey/mlir/StripDebugInfo.h"

namespace cachekey {

/// `_serialize_ir`: the callback rewrite happens on a clone, so the module
/// passed in is left as it was.
static Expected<Bytes> serialize(mlir::ModuleOp module, CallbackRemoval mode) {
  if (mode == CallbackRemoval::None)
    return writeMlirBytecode(module);
  mlir::OwningOpRef<mlir::ModuleOp> copy = cloneModule(module);
  CACHEKEY_TRY(removeCallbacks(*copy, mode));
  return writeMlirBytecode(*copy);
}

Expected<ComputationEntry> canonicalize(const ModuleSpec &module,
                                        Profile profile) {
  if (!module.text)
    return Error{"", "no module text to canonicalise"};
  std::unique_ptr<mlir::MLIRContext> context = makeMlirContext();
  DiagnosticCapture quiet(*context); // whatever else is emitted, not stderr
  auto parsed = parseMlirModule(*context, *module.text);
  if (!parsed)
    return parsed.takeError();
  mlir::ModuleOp original = **parsed;

  ComputationEntry entry;
  std::optional<llvm::StringRef> symName = original.getSymName();
  if (!symName)
    return Error{"", "the top-level module has no sym_name (JAX reads "
                     "module.operation.attributes['sym_name'])"};
  entry.symName = symName->str();

  CallbackRemoval removal = callbackRemovalFor(module, profile);
  Expected<Bytes> bytes = Bytes();
  if (module.includeMetadata) {
    bytes = serialize(original, removal);
  } else {
    mlir::OwningOpRef<mlir::ModuleOp> canonical = cloneModule(original);
    CACHEKEY_TRY(stripDebugInfo(*canonical));
    MosaicReport report;
    CACHEKEY_TRY(stripMosaicKernels(*canonical, profileSpec(profile).mosaic, &report));
    entry.unreadableKernels = report.unreadableKernels;
    entry.unreadableDetail = report.firstError;
    bytes = serialize(*canonical, removal);
  }
  if (!bytes)
    return bytes.takeError();
  entry.bytes = std::move(*bytes);
  entry.producer = bytecodeProducer(entry.bytes);
  entry.live = true;
  return entry;
}

void registerMlirCanonicalizer() { setCanonicalizer(&canonicalize); }

} // namespace cachekey
