// Shared helpers for the engine tests: fixture loading and scenario building.
#ifndef CACHEKEY_TESTS_TESTUTIL_H
#define CACHEKEY_TESTS_TESTUTIL_H

#include "cachekey/Key.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace cachekey::test {

inline std::string sourcePath(const std::string &rel) {
  return std::string(CACHEKEY_SOURCE_DIR) + "/" + rel;
}

inline std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline Json loadJson(const std::string &rel) {
  Json j = Json::parse(readText(sourcePath(rel)), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << rel;
  return j;
}

inline FixtureResolver fixtureResolver() {
  return [](const std::string &id) -> Expected<Json> {
    std::string text = readText(sourcePath("fixtures/" + id + ".json"));
    if (text.empty())
      text = readText(sourcePath("fixtures/tpu/" + id + ".json"));
    if (text.empty())
      text = readText(sourcePath("fixtures/derived/" + id + ".json"));
    if (text.empty())
      return Error{"", "unknown fixture " + id};
    return parseJsonText(text);
  };
}

/// Computes a scenario given as a JSON document (with `base` allowed).
inline Expected<KeyResult> compute(const Json &doc) {
  auto s = readScenario(doc, fixtureResolver());
  if (!s)
    return s.takeError();
  return computeKey(*s);
}

/// A scenario that patches fixture `base` with `patch`.
inline Json patched(const std::string &base, Json patch) {
  patch["schema"] = 1;
  patch["base"] = base;
  return patch;
}

/// Computes and fails the test on error.
inline KeyResult mustCompute(const Json &doc) {
  auto r = compute(doc);
  if (!r) {
    ADD_FAILURE() << r.error().str();
    return KeyResult{};
  }
  return std::move(*r);
}

} // namespace cachekey::test

#endif
