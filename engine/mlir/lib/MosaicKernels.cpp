//===- MosaicKernels.cpp - Strip locations inside Mosaic kernels ----------===//
#include "cachekey/mlir/MosaicKernels.h"
#include "cachekey/mlir/Callbacks.h"
#include "cachekey/mlir/ModuleIO.h"
#include "cachekey/mlir/PyBase64.h"
#include "cachekey/mlir/PyJson.h"
#include "cachekey/mlir/StripDebugInfo.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

namespace cachekey {

Expected<std::optional<std::string>>
rewriteMosaicBackendConfig(const std::string &config,
                           const KernelStripper &strip) {
  auto parsed = pyJsonLoads(config);
  if (!parsed)
    return Error{"", "backend_config is not valid JSON for json.loads: " +
                         parsed.error().message};
  PyJson &bc = *parsed;
  if (!bc.is_object())
    return Error{"", std::string("backend_config JSON is a ") +
                         pyTypeName(bc) + ", not a dict ('" + pyTypeName(bc) +
                         "' object has no attribute 'get')"};
  auto cfg = bc.find("custom_call_config");
  if (cfg == bc.end())
    return std::optional<std::string>(); // {}.get("body") is None
  if (!cfg->is_object())
    return Error{"", std::string("custom_call_config is a ") +
                         pyTypeName(*cfg) + ", not a dict ('" +
                         pyTypeName(*cfg) +
                         "' object has no attribute 'get')"};
  auto body = cfg->find("body");
  if (body == cfg->end() || !pyTruthy(*body))
    return std::optional<std::string>();
  if (!body->is_string())
    return Error{"", std::string("custom_call_config.body is a ") +
                         pyTypeName(*body) +
                         ", which base64.b64decode does not accept"};
  auto kernel = pyB64Decode(body->get_ref<const std::string &>());
  if (!kernel)
    return Error{"", "custom_call_config.body: base64.b64decode failed: " +
                         kernel.error().message};
  Expected<std::optional<Bytes>> stripped = strip(*kernel);
  if (!stripped)
    return stripped.takeError();
  if (!*stripped)
    return std::optional<std::string>();
  *body = base64Encode(**stripped);
  return std::optional<std::string>(pyJsonDumps(bc));
}

std::optional<Error> stripMosaicKernels(mlir::ModuleOp module) {
  llvm::SmallVector<mlir::Operation *> calls;
  module->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == "stablehlo.custom_call")
      calls.push_back(op);
  });
  if (calls.empty())
    return std::nullopt;

  mlir::MLIRContext *context = module.getContext();
  KernelStripper strip =
      [context](const Bytes &kernel) -> Expected<std::optional<Bytes>> {
    auto parsed = parseMlirModule(*context, kernel);
    if (!parsed)
      return std::optional<Bytes>(); // the op is kept as it is
    if (auto e = stripDebugInfo(**parsed))
      return Error{"", "the kernel body: " + e->message};
    return std::optional<Bytes>(writeMlirBytecode(**parsed));
  };

  for (size_t i = 0; i < calls.size(); ++i) {
    mlir::Operation *op = calls[i];
    auto target =
        mlir::dyn_cast_or_null<mlir::StringAttr>(op->getAttr("call_target_name"));
    if (!target)
      return Error{"", describeOp(op, i + 1) +
                           ": call_target_name is missing or not a string"};
    if (target.getValue() != "tpu_custom_call")
      continue;
    auto config =
        mlir::dyn_cast_or_null<mlir::StringAttr>(op->getAttr("backend_config"));
    if (!config)
      return Error{"", describeOp(op, i + 1) +
                           " (tpu_custom_call): backend_config is missing or "
                           "not a string"};
    auto rewritten = rewriteMosaicBackendConfig(config.getValue().str(), strip);
    if (!rewritten)
      return Error{"", describeOp(op, i + 1) + " (tpu_custom_call): " +
                           rewritten.error().message};
    if (*rewritten)
      op->setAttr("backend_config", mlir::StringAttr::get(context, **rewritten));
  }
  return std::nullopt;
}

} // namespace cachekey
