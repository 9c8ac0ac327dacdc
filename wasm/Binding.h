//===- Binding.h - What the Embind modules share ----------------*- C++ -*-===//
//
// The wasm binding is only a binding: every function takes and returns JSON
// text (UTF-8 strings, which Embind converts faithfully) and delegates to
// the engine. Errors are returned as errorToJson (cachekey/Json.h) gives
// them, {"error": {"code", "path", "message", "source"?, "subject"?}};
// nothing throws, so an instance never aborts on bad input. The JS API over
// this is web/engine.mjs.
//
// Each module is a link choice (wasm/CMakeLists.txt): the key module
// (KeyApi.cpp) links the key and explain libraries only; the worker's module
// adds WorkerApi.cpp and the whole engine; the MLIR module adds MlirApi.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_WASM_BINDING_H
#define CACHEKEY_WASM_BINDING_H

#include "cachekey/Json.h"
#include "cachekey/Scenario.h"
#include "cachekey/Support.h"

#include <emscripten/val.h>

#include <map>
#include <string>

namespace cachekey::wasm {

/// The fixtures registered with registerFixture, by id: what a scenario's
/// "base" names.
std::map<std::string, Json> &fixtures();

/// Resolves a "base" from fixtures(); an unknown id is an UnknownFixture
/// error whose subject is the id.
FixtureResolver resolver();

/// `j` as compact JSON text (dumpJson).
std::string dump(const Json &j);

/// `e` as the JSON text {"error": …} (errorToJson).
std::string errorText(const Error &e);

/// The first `n` bytes of the Uint8Array `arr` (n ≤ arr.length), copied
/// into the engine in one call.
Bytes copyBytes(const emscripten::val &arr, size_t n);

} // namespace cachekey::wasm

#endif // CACHEKEY_WASM_BINDING_H
