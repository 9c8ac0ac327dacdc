//===- StripDebugInfo.cpp - builtin.module(strip-debuginfo) ---------------===//
#include "cachekey/mlir/StripDebugInfo.h"
#include "cachekey/mlir/ModuleIO.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

namespace cachekey {

Status stripDebugInfo(mlir::ModuleOp module) {
  // The textual pipeline names the pass, so it must be in the (process-wide)
  // registry. Registering is idempotent; once is enough.
  static std::once_flag registered;
  std::call_once(registered, [] { mlir::registerStripDebugInfoPass(); });

  mlir::MLIRContext *context = module.getContext();
  DiagnosticCapture diagnostics(*context);
  std::string pipelineError;
  llvm::raw_string_ostream errorStream(pipelineError);
  mlir::FailureOr<mlir::OpPassManager> parsed =
      mlir::parsePassPipeline(kStripPipeline, errorStream);
  if (mlir::failed(parsed))
    return Error{"", "cannot parse the pass pipeline " +
                         std::string(kStripPipeline) + ": " +
                         errorStream.str()};

  mlir::PassManager pm(context, mlir::ModuleOp::getOperationName());
  static_cast<mlir::OpPassManager &>(pm) = std::move(*parsed);
  if (mlir::failed(pm.run(module)))
    return Error{"", "strip-debuginfo failed: " +
                         diagnostics.joined("pass manager failure")};
  return {};
}

} // namespace cachekey
