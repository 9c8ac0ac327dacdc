//===- Run.h - The one text → key pipeline of every front end ---*- C++ -*-===//
//
// The CLI (engine/tools/cachekey) and the wasm binding (wasm/api.cpp) turn
// the same inputs into the same answers through these functions; a front
// end only reads its inputs (files, JS strings) and prints or returns the
// JSON. As zstd's programs/ call lib/, never the other way round.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_RUN_H
#define CACHEKEY_RUN_H

#include "cachekey/Capture.h"
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

/// A computed document: the key, and the captured program when the
/// document is a capture (docs/capture.md), for checkCapturedKey.
struct Computed {
  KeyResult result;
  std::optional<CapturedProgram> captured;
};

/// One opened document named `name` (a file name, without its directory):
/// a captured one (isCapturedScenario) through readCapturedProgram, its
/// sidecars read with `read`, and computeCapturedKey; any other through
/// readScenario (a "base" resolved through `resolver`) and computeKey. What
/// `cachekey explain FILE` and the page's opened files both compute.
///
/// Errors: those of the steps, unchanged; the caller gives them context.
Expected<Computed> computeDocument(const std::string &name, const Json &document,
                                   const FixtureResolver &resolver,
                                   const CaptureFileReader &read);

} // namespace cachekey

#endif // CACHEKEY_RUN_H
