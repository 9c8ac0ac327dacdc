// Every GPU fixture (fixtures/gpu/, written by tools/capture-gpu: real jax
// 0.12.0.1 compiling deviceless with the CUDA plugin's compile-only client
// on a CPU-only machine, under cachekey.capture, the entry written) must
// reproduce what real JAX logged: the key, the eight per-entry digests, the
// running digests and the trace. Entry 6 is the plugin's measured
// fingerprint, which must be the one fixtures/gpu_topologies.json records for
// the topology; no fixture relies on a computed GpuTopologyProto. The
// pairwise tests check, on the engine's results, what the captures show (JAX
// renumbers the device assignment on platform "gpu"). Expectations come from
// the captures only.
#include "TestUtil.h"

#include <map>
#include <set>

using namespace cachekey;
using namespace cachekey::test;

namespace {
std::vector<std::string> gpuFixtureIds() { return jsonIdsIn("fixtures/gpu"); }

Json gpuFixture(const std::string &id) { return loadJson("fixtures/gpu/" + id + ".json"); }

std::string hex16(uint64_t v) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(v));
  return hex;
}

std::vector<int> movedEntries(const KeyResult &a, const KeyResult &b) {
  std::vector<int> out;
  for (int i = 0; i < kNumEntries; ++i)
    if (a.entries[i].digest != b.entries[i].digest)
      out.push_back(i + 1);
  return out;
}

const Json &gpuTopologies() {
  static const Json table = loadJson("fixtures/gpu_topologies.json");
  return table;
}
} // namespace

class GpuFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuFixture, ReproducesRealJax) {
  Json fx = gpuFixture(GetParam());
  ASSERT_EQ(fx["profile"].get<std::string>(), fx["provenance"]["jax"].get<std::string>());
  expectMatchesCapture(fx["expected"], mustCompute(fx));
}

TEST_P(GpuFixture, FeedsTheCapturedEntrySizes) {
  Json fx = gpuFixture(GetParam());
  KeyResult r = mustCompute(fx);
  const Json &entries = fx["capture"]["entries"];
  ASSERT_EQ(entries.size(), static_cast<size_t>(kNumEntries));
  for (int i = 0; i < kNumEntries; ++i) {
    SCOPED_TRACE(kEntryNames[i]);
    EXPECT_EQ(entries[i]["bytes"].get<size_t>(), r.entries[i].bytes.size());
  }
}

TEST_P(GpuFixture, MeasuredFingerprintOfTheTable) {
  Json fx = gpuFixture(GetParam());
  ASSERT_TRUE(fx["accelerator"].contains("fingerprint")) << "entry 6 must be the plugin's fingerprint";
  EXPECT_FALSE(fx["accelerator"].contains("gpu_topology"));
  KeyResult r = mustCompute(fx);
  EXPECT_FALSE(r.accelerator.standIn);
  ASSERT_TRUE(r.accelerator.fingerprint.has_value());
  EXPECT_EQ(fx["capture"]["topology"]["fingerprint_hex"].get<std::string>(),
            hex16(*r.accelerator.fingerprint));
  // The fingerprint real JAX fed is the table's for the topology compiled for.
  const std::string topology = fx["provenance"]["topology"].get<std::string>();
  const Json *row = nullptr;
  for (const Json &t : gpuTopologies()["topologies"])
    if (t["id"].get<std::string>() == topology)
      row = &t;
  ASSERT_NE(row, nullptr) << topology << " is not in fixtures/gpu_topologies.json";
  EXPECT_EQ((*row)["fingerprint"]["value"].get<std::string>(), hex16(*r.accelerator.fingerprint));
  EXPECT_EQ((*row)["platform_version"], fx["backend"]["platform_version"]);
  // The label of every GPU value.
  const std::string label = gpuTopologies()["label"].get<std::string>();
  EXPECT_EQ(label.rfind("compile-only GPU client, host CPU ", 0), 0u) << label;
  EXPECT_EQ(fx["provenance"]["label"].get<std::string>(), label);
  EXPECT_NE(fx["accelerator"]["fingerprint"]["provenance"].get<std::string>().find(label), std::string::npos);
}

TEST_P(GpuFixture, CompileOnlyGpuBackend) {
  Json fx = gpuFixture(GetParam());
  EXPECT_EQ(fx["backend"]["platform"].get<std::string>(), "gpu");
  EXPECT_EQ(fx["backend"]["runtime_type"].get<std::string>(), "compile_only_runtime");
}

INSTANTIATE_TEST_SUITE_P(Gpu, GpuFixture, ::testing::ValuesIn(gpuFixtureIds()),
                         [](const auto &info) {
                           std::string n = info.param;
                           for (char &c : n)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return n;
                         });

TEST(GpuFixtures, AtLeastTenCaptures) { EXPECT_GE(gpuFixtureIds().size(), 10u); }

TEST(GpuTopologies, EveryTargetAndShapeMeasured) {
  const Json &table = gpuTopologies();
  EXPECT_EQ(table["target_configs"].size(), 17u);
  std::set<std::string> ids;
  for (const Json &t : table["topologies"]) {
    ids.insert(t["id"].get<std::string>());
    EXPECT_FALSE(t["fingerprint"]["stand_in"].get<bool>());
    EXPECT_EQ(t["platform"].get<std::string>(), "gpu");
    EXPECT_EQ(t["runtime_type"].get<std::string>(), "compile_only_runtime");
  }
  for (const Json &c : table["target_configs"])
    for (const char *shape : {"1x1x1", "1x1x8", "1x2x8"})
      EXPECT_TRUE(ids.count(c["name"].get<std::string>() + "/" + shape)) << c["name"] << " " << shape;
}

namespace {
/// Two GPU captures and what moved between them, as the captures show it.
struct GpuPair {
  std::string what, before, after;
  std::vector<int> moved; // entries whose own digest differs; empty: equal keys
  /// The device assignments differ: the captured CompileOptionsProto bytes
  /// must differ (they also differ elsewhere, e.g. by the cache directory
  /// paths JAX puts in DebugOptions, which the key excludes).
  bool assignmentDiffers;
};

std::vector<GpuPair> gpuPairs() {
  const std::string v = "__0.12.0.1";
  return {
      // On platform "gpu" JAX renumbers the device assignment before hashing:
      // the compile options JAX built differ ([[0]] / [[3]], [0..7] / [7..0],
      // [0..3] / [4..7]) and entry 5 does not move.
      {"device 0 vs device 3", "add_h100_1x1x8_dev0" + v, "add_h100_1x1x8_dev3" + v, {}, true},
      {"mesh in reverse order", "matmul_h100_1x1x8_mesh2x4" + v, "matmul_h100_1x1x8_reversed" + v, {}, true},
      {"devices 0-3 vs 4-7", "matmul_h100_1x1x8_dev0to3" + v, "matmul_h100_1x1x8_dev4to7" + v, {}, true},
      // The device name is the compile-only client's platform_version, and
      // the target config is in the topology fingerprint.
      {"H100 vs A100", "add_h100_1x1x1" + v, "add_a100_1x1x1" + v, {3, 6}, false},
      // The fingerprint describes the whole host, not the device used.
      {"1x1x1 vs device 0 of 1x1x8", "add_h100_1x1x1" + v, "add_h100_1x1x8_dev0" + v, {6}, false},
      // 8 GPUs on one host and 16 on two: module, device assignment, topology.
      {"8 vs 16 GPUs", "matmul_h100_1x1x8_mesh2x4" + v, "matmul_h100_1x2x8_mesh4x4" + v, {1, 5, 6}, true},
  };
}
} // namespace

TEST(GpuFixtures, PairsMoveWhatTheCapturesShow) {
  for (const GpuPair &p : gpuPairs()) {
    SCOPED_TRACE(p.what);
    Json a = gpuFixture(p.before), b = gpuFixture(p.after);
    // The expectation, from the captures alone.
    std::vector<int> captured;
    for (int i = 0; i < kNumEntries; ++i)
      if (a["expected"]["entries"][i]["digest"] != b["expected"]["entries"][i]["digest"])
        captured.push_back(i + 1);
    ASSERT_EQ(captured, p.moved);
    if (p.assignmentDiffers) {
      EXPECT_NE(a["compile_options"]["proto_b64"], b["compile_options"]["proto_b64"]);
    }
    EXPECT_EQ(movedEntries(mustCompute(a), mustCompute(b)), p.moved);
  }
}
