// Shared helpers for the engine tests: fixture loading and scenario building.
#ifndef CACHEKEY_TESTS_TESTUTIL_H
#define CACHEKEY_TESTS_TESTUTIL_H

#include "cachekey/Key.h"

#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
      return Error{"", "unknown fixture " + id, ErrorCode::UnknownFixture, "",
                   id};
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

/// The ids (file names without ".json") of the JSON files in source folder
/// `dir`, sorted.
inline std::vector<std::string> jsonIdsIn(const std::string &dir) {
  std::vector<std::string> ids;
  if (DIR *d = opendir(sourcePath(dir).c_str())) {
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.substr(n.size() - 5) == ".json")
        ids.push_back(n.substr(0, n.size() - 5));
    }
    closedir(d);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

/// Checks a result against a captured fixture's `expected` block: the key,
/// each entry's name, own digest and running digest, and the trace.
inline void expectMatchesCapture(const Json &expected, const KeyResult &r) {
  ASSERT_EQ(expected["entries"].size(), 8u);
  for (int i = 0; i < kNumEntries; ++i) {
    SCOPED_TRACE(kEntryNames[i]);
    EXPECT_EQ(expected["entries"][i]["name"].get<std::string>(), r.entries[i].name);
    EXPECT_EQ(expected["entries"][i]["digest"].get<std::string>(),
              toHex(r.entries[i].digest));
    EXPECT_EQ(expected["entries"][i]["running"].get<std::string>(),
              toHex(r.entries[i].running));
  }
  EXPECT_EQ(expected["key"].get<std::string>(), r.key);
  std::vector<std::string> messages;
  for (const TraceLine &t : r.trace)
    messages.push_back(t.message);
  EXPECT_EQ(expected["trace"].get<std::vector<std::string>>(), messages);
}

} // namespace cachekey::test

#endif
