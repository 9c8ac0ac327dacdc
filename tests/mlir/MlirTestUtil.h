// Shared helpers for the MLIR canonicaliser tests: fixture text, module
// building, and reading our bytecode back with MLIR.
#ifndef CACHEKEY_TESTS_MLIRTESTUTIL_H
#define CACHEKEY_TESTS_MLIRTESTUTIL_H

#include "../engine/TestUtil.h" // sourcePath, readText, loadJson
#include "cachekey/Scenario.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace cachekey::test {

/// `capture.<which>` of a fixture: real jaxlib module text, with locations.
inline std::string fixtureModule(const std::string &id,
                                 const std::string &which = "module_generic") {
  Json j = loadJson("fixtures/" + id + ".json");
  return j["capture"][which].get<std::string>();
}

/// `text` as an MLIR string literal body (between the quotes).
inline std::string mlirEscape(const std::string &text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7F) {
      char buf[4];
      std::snprintf(buf, sizeof buf, "\\%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

/// A generic-form module `@<sym>` whose @main applies one
/// `stablehlo.custom_call` with the given target and backend_config.
inline std::string customCallModule(const std::string &target,
                                    const std::string &backendConfig,
                                    const std::string &sym = "jit_kernel") {
  return "\"builtin.module\"() <{sym_name = \"" + sym + "\"}> ({\n"
         "  \"func.func\"() <{function_type = (tensor<8xf32>) -> "
         "tensor<8xf32>, sym_name = \"main\", sym_visibility = \"public\"}> ({\n"
         "  ^bb0(%arg0: tensor<8xf32> loc(\"/src/model.py\":3:7)):\n"
         "    %0 = \"stablehlo.custom_call\"(%arg0) <{api_version = 1 : i32, "
         "backend_config = \"" + mlirEscape(backendConfig) +
         "\", call_target_name = \"" + target +
         "\"}> : (tensor<8xf32>) -> tensor<8xf32> loc(\"/src/model.py\":4:9)\n"
         "    \"func.return\"(%0) : (tensor<8xf32>) -> () "
         "loc(\"/src/model.py\":5:1)\n"
         "  }) : () -> () loc(\"/src/model.py\":2:1)\n"
         "}) : () -> () loc(\"/src/model.py\":1:1)\n";
}

/// Reads bytecode (or text) back with a context of our own, independent of
/// the library under test.
struct ReadBack {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;

  explicit ReadBack(const std::string &bytes) {
    context.allowUnregisteredDialects();
    context.getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
    module = mlir::parseSourceString<mlir::ModuleOp>(bytes, &context);
  }

  /// backend_config strings of every stablehlo.custom_call, in walk order.
  std::vector<std::string> backendConfigs() {
    std::vector<std::string> out;
    (*module)->walk([&](mlir::Operation *op) {
      if (op->getName().getStringRef() != "stablehlo.custom_call")
        return;
      auto props =
          mlir::dyn_cast_or_null<mlir::DictionaryAttr>(op->getPropertiesAsAttribute());
      mlir::Attribute a = props ? props.get("backend_config") : mlir::Attribute();
      if (!a)
        a = op->getDiscardableAttr("backend_config");
      auto s = mlir::dyn_cast_or_null<mlir::StringAttr>(a);
      out.push_back(s ? s.getValue().str() : "<missing>");
    });
    return out;
  }

  /// The module printed generically with its locations.
  std::string printed() {
    std::string s;
    llvm::raw_string_ostream os(s);
    mlir::OpPrintingFlags flags;
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
    flags.printGenericOpForm();
    (*module)->print(os, flags);
    return os.str();
  }
};

} // namespace cachekey::test

#endif // CACHEKEY_TESTS_MLIRTESTUTIL_H
