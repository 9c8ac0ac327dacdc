//===- Run.cpp - The one text → key pipeline of every front end -----------===//
#include "cachekey/Run.h"

#ifndef CACHEKEY_VERSION
#error "CACHEKEY_VERSION (CMake's PROJECT_VERSION) must be defined"
#endif

namespace cachekey {

const char *engineVersion() { return "cachekey " CACHEKEY_VERSION; }

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
