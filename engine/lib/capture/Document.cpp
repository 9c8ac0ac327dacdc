//===- Document.cpp - One opened document, captured or not ---------------===//
#include "cachekey/Document.h"
#include "cachekey/Scenario.h"

namespace cachekey {

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

} // namespace cachekey
