// Every captured fixture must reproduce exactly what real JAX logged: all
// eight per-entry digests, the running digests, the key and the DEBUG trace.
// The expectations were written by tools/capture from real jax 0.10.2 runs.
#include "TestUtil.h"

#include <dirent.h>

using namespace cachekey;
using namespace cachekey::test;

namespace {
std::vector<std::string> fixtureIds() {
  std::vector<std::string> ids;
  if (DIR *d = opendir(sourcePath("fixtures").c_str())) {
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.substr(n.size() - 5) == ".json") {
        Json j = loadJson("fixtures/" + n);
        if (j.is_object() && j.contains("expected") && j.contains("schema"))
          ids.push_back(n.substr(0, n.size() - 5));
      }
    }
    closedir(d);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}
} // namespace

class CapturedFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CapturedFixture, ReproducesRealJax) {
  Json fx = loadJson("fixtures/" + GetParam() + ".json");
  const Json &expected = fx["expected"];
  KeyResult r = mustCompute(fx);
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
  EXPECT_EQ(expected["trace"].get<std::vector<std::string>>(), r.trace);
}

TEST_P(CapturedFixture, CpuTopologyMatchesRealFingerprint) {
  Json fx = loadJson("fixtures/" + GetParam() + ".json");
  if (!fx["accelerator"].contains("cpu_topology"))
    GTEST_SKIP() << "not a CPU topology fixture";
  KeyResult r = mustCompute(fx);
  ASSERT_TRUE(r.accelerator.fingerprint.has_value());
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(*r.accelerator.fingerprint));
  EXPECT_EQ(fx["capture"]["topology_fingerprint_hex"].get<std::string>(), hex);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CapturedFixture,
                         ::testing::ValuesIn(fixtureIds()),
                         [](const auto &info) { return info.param; });

TEST(Fixtures, AllRequiredFixturesArePresent) {
  auto ids = fixtureIds();
  for (const char *want :
       {"add_1x1", "mul_2x2", "lines_a_nometa", "lines_b_nometa", "lines_a_meta",
        "lines_b_meta", "sharded_4dev", "custom_partitioning_off",
        "custom_partitioning_on", "large_mlp"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), want), ids.end()) << want;
}
