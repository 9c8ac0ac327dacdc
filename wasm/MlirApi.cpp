//===- MlirApi.cpp - The MLIR module's calls ------------------------------===//
//
// Only in cachekey_engine_mlir: registers the live MLIR canonicaliser (module
// text is canonicalised as JAX does) and the structural module differ (a
// moved entry 1 is diffed by operations), and binds diffModules. The other
// modules link no MLIR.
//
//===----------------------------------------------------------------------===//
#include "Binding.h"

#include "cachekey/mlir/Canonicalize.h"
#include "cachekey/mlir/ModuleDiff.h"

#include <emscripten/bind.h>

using namespace cachekey;
using namespace cachekey::wasm;

namespace {

/// diffModules(before, after): two modules (MLIR text, or bytecode as a
/// binary string) → moduleDiffToJson (ModuleDiff.h): {"same", "ops_before",
/// "ops_after", "findings": [{code, changes, total, x64, advice, text}],
/// "changes": [...]}, or an error object naming the module that did not
/// parse. Only in the MLIR module: the key-only module links no MLIR.
std::string diffModulesJson(const std::string &before, const std::string &after) {
  auto d = diffModules(before, after);
  if (!d)
    return errorText(d.takeError());
  return dump(moduleDiffToJson(*d));
}

} // namespace

EMSCRIPTEN_BINDINGS(cachekey_mlir) {
  registerMlirCanonicalizer(); // module text is canonicalised live
  registerMlirModuleDiffer();  // a moved entry 1 is diffed structurally
  emscripten::function("diffModules", &diffModulesJson);
}
