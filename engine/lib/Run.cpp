//===- Run.cpp - The one text → key pipeline of every front end -----------===//
#include "cachekey/Run.h"

#ifndef CACHEKEY_VERSION
#error "CACHEKEY_VERSION (CMake's PROJECT_VERSION) must be defined"
#endif

namespace cachekey {

const char *engineVersion() { return "cachekey " CACHEKEY_VERSION; }

namespace {

/// parseJsonText, resolveBase, scenarioFromJson and computeKey, with entry
/// 1's bytes replaced by `*entry1` when given.
Expected<KeyResult> compute(const std::string &text, const FixtureResolver &resolver,
                            Bytes *entry1) {
  auto doc = parseJsonText(text);
  if (!doc)
    return doc.takeError();
  auto resolved = resolveBase(*doc, resolver);
  if (!resolved)
    return resolved.takeError();
  if (entry1) {
    Json &module = (*resolved)["module"];
    if (!module.is_object())
      module = Json::object();
    module.erase("text");
    module["entry1_b64"] = "";
  }
  auto scenario = scenarioFromJson(*resolved);
  if (!scenario)
    return scenario.takeError();
  if (entry1)
    scenario->module.entry1 = std::move(*entry1);
  return computeKey(*scenario);
}

} // namespace

Expected<KeyResult> computeFromText(const std::string &text,
                                    const FixtureResolver &resolver) {
  return compute(text, resolver, nullptr);
}

Expected<KeyResult> computeFromText(const std::string &text,
                                    const FixtureResolver &resolver, Bytes entry1) {
  return compute(text, resolver, &entry1);
}

} // namespace cachekey
