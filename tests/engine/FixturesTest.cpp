// Every captured fixture must reproduce exactly what real JAX logged: all
// eight per-entry digests, the running digests, the key and the DEBUG trace.
// The expectations were written by tools/capture from real jax 0.10.2 runs.
#include "TestUtil.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {
std::vector<std::string> fixtureIds() {
  std::vector<std::string> ids;
  for (const auto &id : jsonIdsIn("fixtures")) {
    Json j = loadJson("fixtures/" + id + ".json");
    if (j.is_object() && j.contains("expected") && j.contains("schema"))
      ids.push_back(id);
  }
  return ids;
}
} // namespace

class CapturedFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(CapturedFixture, ReproducesRealJax) {
  Json fx = loadJson("fixtures/" + GetParam() + ".json");
  expectMatchesCapture(fx["expected"], mustCompute(fx));
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
