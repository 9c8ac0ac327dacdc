// Every TPU fixture (fixtures/tpu/, written by tools/tpu_fixtures.py from
// tools/capture_tpu.py captures: real jax + jaxlib + libtpu, deviceless
// compilation on a CPU machine) must reproduce what real JAX logged: the key,
// all eight per-entry digests, the running digests and the trace, and the
// engine must feed the bytes JAX fed. The pairwise tests check, on the
// engine's results, what the captures show: a libtpu upgrade moves entry 3
// and not entry 6, and so on. Expectations come from the captures only.
#include "TestUtil.h"

#include "cachekey/Diff.h"

#include <dirent.h>

#include <map>
#include <set>

using namespace cachekey;
using namespace cachekey::test;

namespace {
std::vector<std::string> tpuFixtureIds() {
  std::vector<std::string> ids;
  if (DIR *d = opendir(sourcePath("fixtures/tpu").c_str())) {
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
  const Json &expected = fx["expected"];
  ASSERT_EQ(fx["profile"].get<std::string>(), fx["provenance"]["jax"].get<std::string>());
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
    EXPECT_EQ(n.find("stand-in"), std::string::npos) << n;
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

// Same jax 0.12.0.1, libtpu 0.0.50 -> 0.0.50.1: only entry 3 (the
// platform_version carries libtpu's build line) moves; the topology
// fingerprint of entry 6 is the same under both builds.
TEST(TpuFixtures, LibtpuUpgradeMovesEntry3NotEntry6) {
  for (const char *program :
       {"add_v5e_1x1", "add_v5e_2x2_dev0", "matmul_v5e_2x2", "matmul_v5e_2x4",
        "matmul_v5p_2x2x1"}) {
    SCOPED_TRACE(program);
    KeyResult older = computeTpu(std::string(program) + "__0.12.0.1__libtpu0.0.50");
    KeyResult newer = computeTpu(std::string(program) + "__0.12.0.1");
    EXPECT_NE(older.key, newer.key);
    EXPECT_EQ(movedEntries(older, newer), std::vector<int>{3});
    Comparison c = compareResults(older, newer);
    EXPECT_EQ(c.cause, 3);
    EXPECT_TRUE(c.alsoChanged.empty());
    EXPECT_EQ(older.accelerator.fingerprint, newer.accelerator.fingerprint);
  }
}

// The same sharded matmul on 4 and on 8 v5e chips: the module (partition
// count), the compile options (device assignment) and the topology move.
TEST(TpuFixtures, FourVersusEightChips) {
  for (const char *jax : {"0.10.2", "0.12.0.1"}) {
    SCOPED_TRACE(jax);
    KeyResult four = computeTpu(std::string("matmul_v5e_2x2__") + jax);
    KeyResult eight = computeTpu(std::string("matmul_v5e_2x4__") + jax);
    EXPECT_EQ(movedEntries(four, eight), (std::vector<int>{1, 5, 6}));
    EXPECT_EQ(compareResults(four, eight).cause, 1);
  }
}

// A v5e slice and a v5p slice of 4 chips: the module is the same; the
// platform_version names the chip, the topology differs, and make_mesh
// orders the devices differently, so the device assignment does too.
TEST(TpuFixtures, V5eVersusV5p) {
  for (const char *jax : {"0.10.2", "0.12.0.1"}) {
    SCOPED_TRACE(jax);
    KeyResult v5e = computeTpu(std::string("matmul_v5e_2x2__") + jax);
    KeyResult v5p = computeTpu(std::string("matmul_v5p_2x2x1__") + jax);
    EXPECT_EQ(movedEntries(v5e, v5p), (std::vector<int>{3, 5, 6}));
    EXPECT_EQ(compareResults(v5e, v5p).cause, 3);
  }
}

// On TPU the device assignment is hashed as it is: the same single-device
// program on device 3 instead of device 0 of the same v5e:2x2 gets another
// key, through entry 5 only (on "gpu" JAX would renumber it to [[0]]).
TEST(TpuFixtures, DeviceAssignmentHashedAsIs) {
  for (const char *jax : {"0.10.2", "0.12.0.1"}) {
    SCOPED_TRACE(jax);
    KeyResult dev0 = computeTpu(std::string("add_v5e_2x2_dev0__") + jax);
    KeyResult dev3 = computeTpu(std::string("add_v5e_2x2_dev3__") + jax);
    EXPECT_EQ(movedEntries(dev0, dev3), std::vector<int>{5});
    // And the single device of v5e:1x1 differs from device 0 of v5e:2x2 in
    // the topology only: the fingerprint describes the whole slice.
    KeyResult one = computeTpu(std::string("add_v5e_1x1__") + jax);
    EXPECT_EQ(movedEntries(one, dev0), std::vector<int>{6});
  }
}

// The Pallas add-one kernel defined at two source lines. jax 0.12.0.1
// deletes the kernel's debug_locations before hashing: the captured entry-1
// bytes are equal and so are the keys. jax 0.10.2 keeps the locations inside
// the kernel body; with metadata in the key both releases differ.
TEST(TpuFixtures, PallasSourceLines) {
  KeyResult a12 = computeTpu("pallas_a__0.12.0.1");
  KeyResult b12 = computeTpu("pallas_b__0.12.0.1");
  EXPECT_EQ(a12.entries[0].bytes, b12.entries[0].bytes);
  EXPECT_EQ(a12.key, b12.key);
  EXPECT_TRUE(movedEntries(a12, b12).empty());

  KeyResult a10 = computeTpu("pallas_a__0.10.2");
  KeyResult b10 = computeTpu("pallas_b__0.10.2");
  EXPECT_EQ(movedEntries(a10, b10), std::vector<int>{1});

  for (const char *jax : {"0.10.2", "0.12.0.1"}) {
    SCOPED_TRACE(jax);
    KeyResult am = computeTpu(std::string("pallas_a_meta__") + jax);
    KeyResult bm = computeTpu(std::string("pallas_b_meta__") + jax);
    EXPECT_EQ(movedEntries(am, bm), std::vector<int>{1});
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
