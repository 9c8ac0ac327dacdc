//===- Run.h - The one text → key pipeline of every front end ---*- C++ -*-===//
//
// The CLI (engine/tools/cachekey) and the wasm binding (wasm/) turn the same
// inputs into the same answers through these functions; a front end only
// reads its inputs (files, JS strings) and prints or returns the JSON. As
// zstd's programs/ call lib/, never the other way round. A document that may
// be a capture goes through computeDocument (Document.h).
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_RUN_H
#define CACHEKEY_RUN_H

#include "cachekey/Key.h"

#include <string>

namespace cachekey {

/// "cachekey <version>", the version being CMake's PROJECT_VERSION.
const char *engineVersion();

/// Scenario JSON text (docs/scenario.md) → its key: parseJsonText,
/// readScenario (a "base" resolved through `resolver`), computeKey.
///
/// Errors: those of the three steps, unchanged (a Syntax error at "$" for
/// text that is not JSON; the scenario's JSON path otherwise); the caller
/// says which input with Error::from.
Expected<KeyResult> computeFromText(const std::string &text,
                                    const FixtureResolver &resolver);

/// computeFromText with entry 1's bytes given beside the text (large
/// modules: no base64, no JSON string of hundreds of megabytes): after "base"
/// is resolved, `module.text` and `module.entry1_b64` give way to `entry1`,
/// the bytes `_hash_computation` would hash (bytecode, or text under
/// strip-debuginfo as the profile does). The page's opened module files.
///
/// Errors: those of computeFromText.
Expected<KeyResult> computeFromText(const std::string &text,
                                    const FixtureResolver &resolver,
                                    Bytes entry1);

} // namespace cachekey

#endif // CACHEKEY_RUN_H
