//===- Document.h - One opened document, captured or not -------*- C++ -*-===//
//
// A file the CLI's `explain` or the page's opened files give: a scenario
// (docs/scenario.md), computed by Run.h's pipeline, or a capture
// (docs/capture.md), read with its sidecars. In capture/, the library that
// reads captures; the text -> key pipeline below it (Run.h) knows nothing of
// them.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_DOCUMENT_H
#define CACHEKEY_DOCUMENT_H

#include "cachekey/Capture.h"
#include "cachekey/Key.h"

#include <optional>
#include <string>

namespace cachekey {

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

#endif // CACHEKEY_DOCUMENT_H
