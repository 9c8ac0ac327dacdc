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

/// `json` as text, the way every front end writes it: `indent` spaces per
/// level (-1: one line), bytes that are not UTF-8 replaced by U+FFFD rather
/// than failing.
std::string dumpJson(const Json &json, int indent = -1);

} // namespace cachekey

#endif // CACHEKEY_RUN_H
