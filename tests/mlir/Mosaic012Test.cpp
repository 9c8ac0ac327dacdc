// The Mosaic step as jax 0.12.0.1 does it (MosaicRule::DeleteDebugLocations),
// checked against what the real jax 0.12.0.1 did with the scenarios of
// tests/cases/12-mosaic-0.12.0.1 (see its README for the provenance).
#include "MlirTestUtil.h"

#include "cachekey/Key.h"
#include "cachekey/mlir/Canonicalize.h"
#include "cachekey/mlir/MosaicKernels.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {

const char *kCase = "tests/cases/12-mosaic-0.12.0.1/";

Json caseScenario(const std::string &name, const std::string &profile) {
  Json j = loadJson(std::string(kCase) + name + ".scenario.json");
  j["profile"] = profile;
  return j;
}

struct Mosaic012 : ::testing::Test {
  void SetUp() override { registerMlirCanonicalizer(); }
};

TEST_F(Mosaic012, DebugLocationsAreDeletedSoTheTwoModulesGiveOneKey) {
  KeyResult a = mustCompute(caseScenario("mosaic_dl_A", "0.12.0.1"));
  KeyResult b = mustCompute(caseScenario("mosaic_dl_B", "0.12.0.1"));
  EXPECT_EQ(toHex(a.entries[0].digest), toHex(b.entries[0].digest));
  EXPECT_EQ(a.key, b.key);
}

TEST_F(Mosaic012, TheConfigIsRewrittenAsRealJaxRewroteIt) {
  KernelStripper never = [](const Bytes &) -> Expected<std::optional<Bytes>> {
    ADD_FAILURE() << "the body must not be parsed when debug_locations exists";
    return std::optional<Bytes>();
  };
  auto r = rewriteMosaicBackendConfig(
      R"({"custom_call_config":{"body":"","debug_locations":"QUFB"}})", never,
      MosaicRule::DeleteDebugLocations);
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_TRUE(*r);
  EXPECT_EQ(**r, R"({"custom_call_config":{"body":""}})");
}

TEST_F(Mosaic012, MissingConfigOrBodyIsAKeyErrorAndNoKey) {
  for (const char *name : {"mosaic_no_ccc", "mosaic_no_body"}) {
    SCOPED_TRACE(name);
    auto r = compute(caseScenario(name, "0.12.0.1"));
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("KeyError"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("no key"), std::string::npos);
    EXPECT_EQ(r.error().path.rfind("$.module.text", 0), 0u) << r.error().path;
  }
  // `main` is the newest profile: the same.
  EXPECT_FALSE(compute(caseScenario("mosaic_no_body", "main")));
}

TEST_F(Mosaic012, KernelsMlir19CannotReadAreNeverPassedOffAsJaxsKey) {
  for (const char *name : {"pallas_a", "pallas_b"}) {
    SCOPED_TRACE(name);
    KeyResult r = mustCompute(caseScenario(name, "0.12.0.1"));
    EXPECT_EQ(r.computation.unreadableKernels, 1);
    EXPECT_NE(r.computation.unreadableDetail.find("MLIR24"), std::string::npos)
        << r.computation.unreadableDetail;
    bool noted = false;
    for (const auto &n : r.notes)
      noted = noted || noteText(n).rfind("Not JAX's key", 0) == 0;
    EXPECT_TRUE(noted);
    Json j = resultToJson(r);
    EXPECT_EQ(j["fidelity"]["jax_key"], false);
    EXPECT_EQ(j["fidelity"]["unreadable_kernels"], 1);
  }
}

TEST_F(Mosaic012, ProfilesBeforeTheStepHashTheKernelAsLowered) {
  // jax 0.10.2 has no Mosaic step: debug_locations reach the key, and a
  // missing body is not an error (the config is never read).
  KeyResult a = mustCompute(caseScenario("mosaic_dl_A", "0.10.2"));
  KeyResult b = mustCompute(caseScenario("mosaic_dl_B", "0.10.2"));
  EXPECT_NE(a.key, b.key);
  EXPECT_TRUE(compute(caseScenario("mosaic_no_ccc", "0.10.2")));
}

} // namespace
