// Every TPU fixture (fixtures/tpu/, written by tools/capture-tpu from
// captures of real jax + jaxlib + libtpu, deviceless
// compilation on a CPU machine) must reproduce what real JAX logged: the key,
// all eight per-entry digests, the running digests and the trace, and the
// engine must feed the bytes JAX fed. The pairwise tests check, on the
// engine's results, what the captures show: a libtpu upgrade moves entry 3
// and not entry 6, and so on. Expectations come from the captures only.
#include "TestUtil.h"

#include "cachekey/Diff.h"

#include <map>
#include <set>

using namespace cachekey;
using namespace cachekey::test;

namespace {
std::vector<std::string> tpuFixtureIds() { return jsonIdsIn("fixtures/tpu"); }

Json tpuFixture(const std::string &id) {
  return loadJson("fixtures/tpu/" + id + ".json");
}

Bytes b64(const Json &j) {
  auto r = base64Decode(j.get<std::string>());
  EXPECT_TRUE(static_cast<bool>(r));
  return r ? *r : Bytes();
}

std::string hex16(uint64_t v) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(v));
  return hex;
}

// Entries (1…8) whose own digest differs between two results.
std::vector<int> movedEntries(const KeyResult &a, const KeyResult &b) {
  std::vector<int> out;
  for (int i = 0; i < kNumEntries; ++i)
    if (a.entries[i].digest != b.entries[i].digest)
      out.push_back(i + 1);
  return out;
}

KeyResult computeTpu(const std::string &id) { return mustCompute(tpuFixture(id)); }
} // namespace

class TpuFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(TpuFixture, ReproducesRealJax) {
  Json fx = tpuFixture(GetParam());
  ASSERT_EQ(fx["profile"].get<std::string>(), fx["provenance"]["jax"].get<std::string>());
  expectMatchesCapture(fx["expected"], mustCompute(fx));
}

TEST_P(TpuFixture, FeedsTheCapturedBytes) {
  Json fx = tpuFixture(GetParam());
  KeyResult r = mustCompute(fx);
  const Json &bytes = fx["capture"]["entry_bytes_b64"];
  for (int i = 1; i < kNumEntries; ++i) {
    SCOPED_TRACE(kEntryNames[i]);
    ASSERT_TRUE(bytes.contains(kEntryNames[i]));
    EXPECT_EQ(toHex(b64(bytes[kEntryNames[i]])), toHex(r.entries[i].bytes));
  }
}

TEST_P(TpuFixture, RealFingerprintNoStandIn) {
  Json fx = tpuFixture(GetParam());
  KeyResult r = mustCompute(fx);
  EXPECT_FALSE(r.accelerator.standIn);
  for (const auto &n : r.notes)
    EXPECT_EQ(noteText(n).find("stand-in"), std::string::npos) << noteText(n);
  if (fx["accelerator"].contains("device_kinds")) {
    // The forced fallback: JAX fed each device's device_kind.
    EXPECT_TRUE(r.accelerator.fallback);
    EXPECT_FALSE(fx["provenance"]["synthetic_trigger"].is_null());
    return;
  }
  ASSERT_TRUE(r.accelerator.fingerprint.has_value());
  EXPECT_EQ(fx["capture"]["topology_fingerprint_hex"].get<std::string>(),
            hex16(*r.accelerator.fingerprint));
}

INSTANTIATE_TEST_SUITE_P(Tpu, TpuFixture, ::testing::ValuesIn(tpuFixtureIds()),
                         [](const auto &info) {
                           std::string n = info.param;
                           for (char &c : n)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return n;
                         });

TEST(TpuFixtures, AllCapturesArePresent) {
  auto ids = tpuFixtureIds();
  std::set<std::string> have(ids.begin(), ids.end());
  for (const char *program :
       {"add_v5e_1x1", "add_v5e_2x2_dev0", "add_v5e_2x2_dev3", "matmul_v5e_2x2",
        "matmul_v5e_2x4", "matmul_v5e_4x4", "matmul_v5e_2x2_2slices",
        "matmul_v5p_2x2x1", "matmul_v6e_2x2", "matmul_v4_2x2x1_megacore",
        "matmul_tpu7x_2x2x1", "pallas_a", "pallas_b", "pallas_a_meta",
        "pallas_b_meta", "fallback_add_v5e_1x1", "fallback_matmul_v5e_2x2"})
    for (const char *jax : {"0.10.2", "0.12.0.1"})
      EXPECT_TRUE(have.count(std::string(program) + "__" + jax)) << program << " " << jax;
  EXPECT_TRUE(have.count("matmul_v5e_2x2__0.12.0.1__libtpu0.0.50"));
}

namespace {
/// Two captures and what moved between them, as the captures show it.
struct TpuPair {
  std::string what, before, after;
  std::vector<int> moved; // entries whose own digest differs; empty: equal keys
};

std::vector<TpuPair> tpuPairs() {
  std::vector<TpuPair> out;
  // Same jax 0.12.0.1, libtpu 0.0.50 -> 0.0.50.1: only entry 3 moves (the
  // platform_version carries the build line); entry 6's fingerprint is the
  // same under both builds.
  for (std::string p : {"add_v5e_1x1", "add_v5e_2x2_dev0", "matmul_v5e_2x2",
                        "matmul_v5e_2x4", "matmul_v5p_2x2x1"})
    out.push_back({"libtpu upgrade", p + "__0.12.0.1__libtpu0.0.50", p + "__0.12.0.1", {3}});
  for (std::string jax : {"0.10.2", "0.12.0.1"}) {
    // 4 and 8 v5e chips: the module (partitions), the device assignment
    // and the topology move.
    out.push_back({"4 vs 8 chips", "matmul_v5e_2x2__" + jax, "matmul_v5e_2x4__" + jax, {1, 5, 6}});
    // v5e and v5p: the same module; platform_version names the chip, the
    // topology differs, and make_mesh orders the devices differently.
    out.push_back({"v5e vs v5p", "matmul_v5e_2x2__" + jax, "matmul_v5p_2x2x1__" + jax, {3, 5, 6}});
    // On TPU the device assignment is hashed as it is (JAX renumbers it on
    // "gpu" only): device 3 instead of device 0 moves entry 5.
    out.push_back({"device 0 vs 3", "add_v5e_2x2_dev0__" + jax, "add_v5e_2x2_dev3__" + jax, {5}});
    // The fingerprint describes the whole slice, not the devices used.
    out.push_back({"1x1 vs 2x2", "add_v5e_1x1__" + jax, "add_v5e_2x2_dev0__" + jax, {6}});
    // With metadata in the key the kernel's source line is hashed.
    out.push_back({"Pallas, metadata", "pallas_a_meta__" + jax, "pallas_b_meta__" + jax, {1}});
  }
  // The Pallas kernel at two source lines: jax 0.12.0.1 deletes its
  // debug_locations, so the captured entry-1 bytes and the keys are equal;
  // jax 0.10.2 keeps the locations inside the kernel body.
  out.push_back({"Pallas", "pallas_a__0.12.0.1", "pallas_b__0.12.0.1", {}});
  out.push_back({"Pallas", "pallas_a__0.10.2", "pallas_b__0.10.2", {1}});
  return out;
}
} // namespace

TEST(TpuFixtures, WhatTheCapturesShow) {
  for (const auto &p : tpuPairs()) {
    SCOPED_TRACE(p.what + ": " + p.before + " -> " + p.after);
    KeyResult before = computeTpu(p.before);
    KeyResult after = computeTpu(p.after);
    EXPECT_EQ(movedEntries(before, after), p.moved);
    EXPECT_EQ(before.key == after.key, p.moved.empty());
    Comparison c = compareResults(before, after);
    EXPECT_EQ(c.cause, p.moved.empty() ? 0 : p.moved.front());
  }
}

// Every topology a fixture compiled for is in fixtures/tpu_topologies.json,
// with the fixture's fingerprint and, for the fixture's libtpu, its
// platform_version; nothing in that file is a stand-in.
TEST(TpuFixtures, TopologiesFileAgreesWithCaptures) {
  Json topo = loadJson("fixtures/tpu_topologies.json");
  ASSERT_EQ(topo["schema"].get<int>(), 2);
  std::map<std::string, const Json *> byFingerprint;
  for (const Json &t : topo["topologies"]) {
    EXPECT_FALSE(t["fingerprint"]["stand_in"].get<bool>()) << t["id"];
    byFingerprint[t["fingerprint"]["value"].get<std::string>()] = &t;
  }
  for (const auto &id : tpuFixtureIds()) {
    SCOPED_TRACE(id);
    Json fx = tpuFixture(id);
    std::string fp = fx["capture"]["topology_fingerprint_hex"].get<std::string>();
    ASSERT_TRUE(byFingerprint.count(fp)) << fp;
    const Json &t = *byFingerprint[fp];
    EXPECT_EQ(t["device_kind"], fx["capture"]["devices_passed"][0]["device_kind"]);
    bool found = false;
    for (const Json &pv : t["platform_versions"])
      if (pv["libtpu"] == fx["provenance"]["libtpu"]) {
        found = true;
        EXPECT_EQ(pv["value"], fx["backend"]["platform_version"]);
      }
    EXPECT_TRUE(found);
  }
}
