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

namespace {

/// An exception Python raises inside the step: JAX computes no key. The step
/// runs as a callback of MLIR's `walk`, whose Python bindings re-raise what
/// the callback raised as a RuntimeError naming it; that is what reaches the
/// compile.
Error raised(const std::string &cause) {
  return Error{"",
               "RuntimeError: Exception raised in callback: " + cause +
                   " (JAX raises here, so the compile fails and there is no "
                   "key)",
               ErrorCode::JaxRaises};
}

/// `base64.b64decode(body)`, strip, re-encode into `body`; nullopt when the
/// kernel does not parse.
Expected<bool> stripBody(PyJson &body, const KernelStripper &strip) {
  if (!body.is_string())
    return raised(std::string("TypeError: custom_call_config.body is a ") +
                  pyTypeName(body) + ", which base64.b64decode does not accept");
  auto kernel = pyB64Decode(body.get_ref<const std::string &>());
  if (!kernel) {
    // A str with a character outside ASCII fails before decoding (ValueError);
    // bad padding or length is binascii.Error.
    return raised(kernel.error().subject + ": custom_call_config.body: " +
                  kernel.error().message);
  }
  Expected<std::optional<Bytes>> stripped = strip(*kernel);
  if (!stripped)
    return stripped.takeError();
  if (!*stripped)
    return false;
  body = base64Encode(**stripped);
  return true;
}

/// Strips `body` (a member of `bc`) and returns `bc` dumped compactly, or
/// nullopt when the kernel does not parse (the op is left alone).
Expected<std::optional<std::string>>
stripBodyAndDump(const PyJson &bc, PyJson &body, const KernelStripper &strip) {
  auto done = stripBody(body, strip);
  if (!done)
    return done.takeError();
  if (!*done)
    return std::optional<std::string>();
  return std::optional<std::string>(pyJsonDumps(bc));
}

Expected<std::optional<std::string>>
skipMissingBody(PyJson &bc, const KernelStripper &strip) {
  if (!bc.is_object())
    return raised(std::string("AttributeError: backend_config JSON is a ") +
                  pyTypeName(bc) + ", not a dict ('" + pyTypeName(bc) +
                  "' object has no attribute 'get')");
  auto cfg = bc.find("custom_call_config");
  if (cfg == bc.end())
    return std::optional<std::string>(); // {}.get("body") is None
  if (!cfg->is_object())
    return raised(std::string("AttributeError: custom_call_config is a ") +
                  pyTypeName(*cfg) + ", not a dict ('" + pyTypeName(*cfg) +
                  "' object has no attribute 'get')");
  auto body = cfg->find("body");
  if (body == cfg->end() || !pyTruthy(*body))
    return std::optional<std::string>();
  return stripBodyAndDump(bc, *body, strip);
}

Expected<std::optional<std::string>>
deleteDebugLocations(PyJson &bc, const KernelStripper &strip) {
  if (!bc.is_object())
    return raised(std::string("TypeError: backend_config JSON is a ") +
                  pyTypeName(bc) + ", which cannot be indexed by the key "
                                   "'custom_call_config'");
  auto cfg = bc.find("custom_call_config");
  if (cfg == bc.end())
    return raised("KeyError: 'custom_call_config'");
  PyJson &ccc = *cfg;
  // `"debug_locations" in ccc`, as Python evaluates it for each JSON type.
  bool has = false;
  if (ccc.is_object()) {
    has = ccc.contains("debug_locations");
  } else if (ccc.is_array()) {
    for (const PyJson &x : ccc)
      has = has || (x.is_string() && x.get_ref<const std::string &>() ==
                                          "debug_locations");
  } else if (ccc.is_string()) {
    has = ccc.get_ref<const std::string &>().find("debug_locations") !=
          std::string::npos;
  } else {
    return raised(std::string("TypeError: argument of type '") +
                  pyTypeName(ccc) + "' is not iterable (custom_call_config)");
  }
  if (has) {
    if (!ccc.is_object())
      return raised(std::string("TypeError: custom_call_config is a ") +
                    pyTypeName(ccc) +
                    ", which does not support deleting 'debug_locations'");
    ccc.erase("debug_locations");
    return std::optional<std::string>(pyJsonDumps(bc));
  }
  if (!ccc.is_object())
    return raised(std::string("TypeError: custom_call_config is a ") +
                  pyTypeName(ccc) + ", which cannot be indexed by 'body'");
  auto body = ccc.find("body");
  if (body == ccc.end())
    return raised("KeyError: 'body'");
  return stripBodyAndDump(bc, *body, strip);
}

} // namespace

Expected<std::optional<std::string>>
rewriteMosaicBackendConfig(const std::string &config,
                           const KernelStripper &strip, MosaicRule rule) {
  auto parsed = pyJsonLoads(config);
  if (!parsed)
    return raised("json.JSONDecodeError: backend_config is not valid JSON: " +
                  parsed.error().message);
  if (rule == MosaicRule::DeleteDebugLocations)
    return deleteDebugLocations(*parsed, strip);
  return skipMissingBody(*parsed, strip);
}

Status stripMosaicKernels(mlir::ModuleOp module, MosaicRule rule,
                                        MosaicReport *report) {
  if (rule == MosaicRule::None)
    return {};
  llvm::SmallVector<mlir::Operation *> calls;
  module->walk([&](mlir::Operation *op) {
    if (op->getName().getStringRef() == "stablehlo.custom_call")
      calls.push_back(op);
  });
  if (calls.empty())
    return {};

  mlir::MLIRContext *context = module.getContext();
  KernelStripper strip =
      [context, report](const Bytes &kernel) -> Expected<std::optional<Bytes>> {
    auto parsed = parseMlirModule(*context, kernel);
    if (!parsed) {
      // Upstream leaves such an op alone too, but only when *its* MLIR
      // cannot read the kernel. Kernel bytecode that MLIR 19 cannot read was
      // most likely written by jaxlib's newer MLIR, which reads it: the keys
      // then differ. Text that does not parse is left alone by both.
      const bool bytecode = kernel.compare(0, 4, "ML\xefR") == 0;
      if (report && bytecode) {
        if (report->unreadableKernels++ == 0)
          report->firstError = parsed.error().message;
      }
      return std::optional<Bytes>();
    }
    if (auto s = stripDebugInfo(**parsed); !s)
      return s.takeError().about("the kernel body");
    return std::optional<Bytes>(writeMlirBytecode(**parsed));
  };

  for (size_t i = 0; i < calls.size(); ++i) {
    mlir::Operation *op = calls[i];
    auto target =
        mlir::dyn_cast_or_null<mlir::StringAttr>(op->getAttr("call_target_name"));
    if (!target) {
      if (rule == MosaicRule::DeleteDebugLocations)
        continue; // 0.12 checks presence and compares as a StringAttr
      Error e = raised(op->getAttr("call_target_name")
                           ? "AttributeError: call_target_name is not a string"
                           : "KeyError: 'attempt to access a non-existent "
                             "attribute' (call_target_name)");
      e.message = describeOp(op, i + 1) + ": " + e.message;
      return e;
    }
    if (target.getValue() != "tpu_custom_call")
      continue;
    auto config =
        mlir::dyn_cast_or_null<mlir::StringAttr>(op->getAttr("backend_config"));
    if (!config) {
      Error e = raised(
          !op->getAttr("backend_config")
              ? "KeyError: 'attempt to access a non-existent attribute' "
                "(backend_config)"
          : rule == MosaicRule::DeleteDebugLocations
              ? "ValueError: Cannot cast attribute to StringAttr "
                "(backend_config)"
              : "AttributeError: backend_config is not a string attribute "
                "(it has no .value)");
      e.message = describeOp(op, i + 1) + " (tpu_custom_call): " + e.message;
      return e;
    }
    auto rewritten =
        rewriteMosaicBackendConfig(config.getValue().str(), strip, rule);
    if (!rewritten)
      return Error{"",
                   describeOp(op, i + 1) + " (tpu_custom_call): " +
                       rewritten.error().message,
                   rewritten.error().code};
    if (*rewritten)
      op->setAttr("backend_config", mlir::StringAttr::get(context, **rewritten));
  }
  return {};
}

} // namespace cachekey
