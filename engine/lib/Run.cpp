//===- Run.cpp - The one text → key pipeline of every front end -----------===//
#include "cachekey/Run.h"

#ifndef CACHEKEY_VERSION
#error "CACHEKEY_VERSION (CMake's PROJECT_VERSION) must be defined"
#endif

namespace cachekey {

const char *engineVersion() { return "cachekey " CACHEKEY_VERSION; }

Expected<Computed> computeDocument(const std::string &name, const Json &document,
                                   const FixtureResolver &resolver,
                                   const CaptureFileReader &read) {
  if (isCapturedScenario(document)) {
    auto p = readCapturedProgram(name, document, read);
    if (!p)
      return p.takeError();
    auto r = computeCapturedKey(*p);
    if (!r)
      return r.takeError();
    return Computed{std::move(*r), std::move(*p)};
  }
  auto scenario = readScenario(document, resolver);
  if (!scenario)
    return scenario.takeError();
  auto r = computeKey(*scenario);
  if (!r)
    return r.takeError();
  return Computed{std::move(*r), std::nullopt};
}

Expected<KeyResult> computeFromText(const std::string &text,
                                    const FixtureResolver &resolver) {
  auto doc = parseJsonText(text);
  if (!doc)
    return doc.takeError();
  auto scenario = readScenario(*doc, resolver);
  if (!scenario)
    return scenario.takeError();
  return computeKey(*scenario);
}

std::string dumpJson(const Json &json, int indent) {
  return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace cachekey
