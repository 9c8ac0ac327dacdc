// The CPU target under --xla_cpu_max_isa (engine/lib/key/CpuMaxIsa.cpp), and
// the key it gives on hosts other than the engine's.
//
// Expected values, all from real jaxlib:
// - the topologies tools/xla-flag-table measured for each ceiling
//   (fixtures/xla_flags/<jaxlib>.json, "topology": one fresh CPU client each);
// - the keys real JAX computed on other CPU models, each under one ceiling
//   (fixtures/xla_flags/hosts/<jaxlib>/*.json, tools/cpu-host-keys: a real
//   host, or real jaxlib under QEMU's emulated CPUID, as each file's
//   provenance says).
// Neither depends on the CPU of the machine the test runs on.
#include "TestUtil.h"

#include "cachekey/CpuMaxIsa.h"
#include "cachekey/XlaFlags.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {

const char *kReleases[] = {"0.10.2", "0.12.0.1"};

bool hasNote(const KeyResult &r, NoteCode code) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [code](const Note &n) { return n.code == code; });
}

} // namespace

// Each measured ceiling's topology, from the table's own host without a
// ceiling, by the rule: CPU name and feature string byte for byte.
TEST(CpuMaxIsa, RuleGivesEveryMeasuredTopology) {
  for (const char *release : kReleases) {
    SCOPED_TRACE(release);
    const XlaFlagTable *table = xlaFlagTable(release);
    ASSERT_NE(table, nullptr);
    ASSERT_GE(table->maxIsa.size(), 8u);
    for (const MeasuredCpuTarget &m : table->maxIsa) {
      SCOPED_TRACE(m.value);
      CpuTarget t = cpuTargetUnder({table->hostCpu, table->hostFeatures},
                                   cpuIsaFromFlag(m.value, table->cpuIsaRule), table->cpuIsaRule);
      EXPECT_EQ(t.cpu, m.cpu);
      EXPECT_EQ(t.features, m.features);
    }
  }
}

// The rule's own edges, from its statement: a ceiling at or above every
// host feature keeps the host's name; one that turns a feature off names its
// generation; case does not matter; an unknown value is no ceiling.
TEST(CpuMaxIsa, CeilingsByTheirDefinition) {
  for (CpuIsaRule rule : {CpuIsaRule::ToGraniteRapids, CpuIsaRule::ToDiamondRapids}) {
    SCOPED_TRACE(static_cast<int>(rule));
    const CpuTarget host{"somecpu", "+avx,+avx2,+fma,+sse4.2,-avx512f"};
    CpuTarget same = cpuTargetUnder(host, cpuIsaFromFlag("AVX2", rule), rule);
    EXPECT_EQ(same.cpu, "somecpu");
    EXPECT_EQ(same.turnedOff, 0u);
    EXPECT_EQ(same.features, host.features);
    CpuTarget avx = cpuTargetUnder(host, cpuIsaFromFlag("avx", rule), rule);
    EXPECT_EQ(avx.cpu, "sandybridge");
    EXPECT_EQ(avx.turnedOff, 2u); // avx2, fma
    EXPECT_EQ(avx.features, "+avx,+sse4.2,-avx2,-avx512f,-fma");
    EXPECT_FALSE(cpuIsaFromFlag("SSE3", rule).has_value());
    EXPECT_FALSE(cpuIsaFromFlag("", rule).has_value());
    EXPECT_EQ(cpuTargetUnder(host, std::nullopt, rule).features, host.features);
    // AVX-512 left on brings XLA's two tuning features; turned off, they go.
    const CpuTarget wide{"w", "+avx2,+avx512f,+prefer-no-gather,+prefer-no-scatter"};
    EXPECT_EQ(cpuTargetUnder(wide, cpuIsaFromFlag("AVX512", rule), rule).features,
              "+avx2,+avx512f,+prefer-no-gather,+prefer-no-scatter");
    EXPECT_EQ(cpuTargetUnder(wide, cpuIsaFromFlag("AVX2", rule), rule).features, "+avx2,-avx512f");
  }
}

// What Diamond Rapids adds over Granite Rapids, under the two versions of
// the rule, from their statement in xla/backends/cpu/codegen/cpu_features.cc
// (the newer one in jaxlib 0.12.0.1, which knows AMX_FP8; the older one in
// 0.10.2, which logs "Unknown CPU ISA: AMX_FP8", both observed).
TEST(CpuMaxIsa, DiamondRapidsFeaturesByRelease) {
  const CpuTarget dmr{"diamondrapids",
                      "+amx-fp16,+amx-fp8,+amx-movrs,+amx-tf32,+avx10.2-512,+avx2,+avx512f,"
                      "+ccmp,+egpr,+jmpabs,+movrs,+ndd,+nf,+ppx,+prefer-no-gather,"
                      "+prefer-no-scatter,+push2pop2,+zu"};
  // jaxlib 0.10.2: AMX_FP16 is the top ceiling and leaves all of it on.
  CpuTarget old = cpuTargetUnder(dmr, cpuIsaFromFlag("AMX_FP16", CpuIsaRule::ToGraniteRapids),
                                 CpuIsaRule::ToGraniteRapids);
  EXPECT_EQ(old.turnedOff, 0u);
  EXPECT_EQ(old.cpu, "diamondrapids");
  EXPECT_EQ(old.features, dmr.features);
  EXPECT_FALSE(cpuIsaFromFlag("amx_fp8", CpuIsaRule::ToGraniteRapids).has_value());
  // jaxlib 0.12.0.1: AMX_FP16 turns the 13 Diamond Rapids additions off.
  CpuTarget gnr = cpuTargetUnder(dmr, cpuIsaFromFlag("AMX_FP16", CpuIsaRule::ToDiamondRapids),
                                 CpuIsaRule::ToDiamondRapids);
  EXPECT_EQ(gnr.turnedOff, 13u);
  EXPECT_EQ(gnr.cpu, "graniterapids");
  EXPECT_EQ(gnr.features,
            "+amx-fp16,+avx2,+avx512f,+prefer-no-gather,+prefer-no-scatter,"
            "-amx-fp8,-amx-movrs,-amx-tf32,-avx10.2-512,-ccmp,-egpr,-jmpabs,-movrs,-ndd,-nf,"
            "-ppx,-push2pop2,-zu");
  // ... and so does every older ceiling, with its own turned off too.
  CpuTarget avx2 = cpuTargetUnder(dmr, cpuIsaFromFlag("AVX2", CpuIsaRule::ToDiamondRapids),
                                  CpuIsaRule::ToDiamondRapids);
  EXPECT_EQ(avx2.cpu, "haswell");
  EXPECT_EQ(avx2.turnedOff, 15u); // the 13, amx-fp16, avx512f
  EXPECT_EQ(cpuTargetUnder(dmr, cpuIsaFromFlag("AVX2", CpuIsaRule::ToGraniteRapids),
                           CpuIsaRule::ToGraniteRapids)
                .turnedOff,
            5u); // avx512f and the four amx-* (AVX512_BF16's row: every "amx" prefix)
  // AMX_FP8 is the top ceiling: nothing is newer, the host keeps its name.
  auto fp8 = cpuIsaFromFlag("AMX_FP8", CpuIsaRule::ToDiamondRapids);
  ASSERT_TRUE(fp8.has_value());
  CpuTarget top = cpuTargetUnder(dmr, fp8, CpuIsaRule::ToDiamondRapids);
  EXPECT_EQ(top.turnedOff, 0u);
  EXPECT_EQ(top.cpu, "diamondrapids");
  EXPECT_EQ(std::string(cpuIsaTargetCpu(*fp8)), "diamondrapids");
}

// The rule each table carries, as observed with its real jaxlib.
TEST(CpuMaxIsa, EachJaxlibHasItsRule) {
  ASSERT_NE(xlaFlagTable("0.10.2"), nullptr);
  ASSERT_NE(xlaFlagTable("0.12.0.1"), nullptr);
  EXPECT_EQ(xlaFlagTable("0.10.2")->cpuIsaRule, CpuIsaRule::ToGraniteRapids);
  EXPECT_EQ(xlaFlagTable("0.12.0.1")->cpuIsaRule, CpuIsaRule::ToDiamondRapids);
}

// A capture from another CPU model, with each ceiling added to its
// XLA_FLAGS, gives the key real JAX computed on that model.
TEST(CpuMaxIsa, OtherHostsGiveTheirRealKeys) {
  size_t files = 0, checked = 0;
  for (const char *release : kReleases) {
    const std::string dir = std::string("fixtures/xla_flags/hosts/") + release;
    for (const std::string &id : jsonIdsIn(dir)) {
      SCOPED_TRACE(dir + "/" + id);
      ++files;
      Json doc = loadJson(dir + "/" + id + ".json");
      Json base = doc["base"];
      const std::string baseKey = base["expected"]["key"].get<std::string>();
      for (auto it = doc["real"].begin(); it != doc["real"].end(); ++it) {
        if (!it->contains("key"))
          continue;
        SCOPED_TRACE(it.key());
        Json s = base;
        for (const char *k : {"expected", "provenance", "title", "id"})
          s.erase(k);
        s["compile_options"]["xla_flags"] = base["flags"]["XLA_FLAGS"];
        s["flags"]["XLA_FLAGS"] = it.key();
        KeyResult r = mustCompute(s);
        EXPECT_EQ(r.key, (*it)["key"].get<std::string>());
        EXPECT_FALSE(hasNote(r, NoteCode::CpuTargetUnknown));
        EXPECT_NE(r.key, baseKey); // entry 5 holds the flag's value
        ++checked;
      }
    }
  }
  // Real hosts and emulated ones, both releases.
  EXPECT_GE(files, 4u);
  EXPECT_GE(checked, 40u);
}

// A capture made under a ceiling that hid host features cannot say what a
// higher ceiling, or none, leaves: the engine keeps the captured target and
// says so (the key is not given as JAX's). A lower ceiling that turns more
// off is known whatever the host had.
TEST(CpuMaxIsa, CaptureUnderACeilingLimitsWhatIsKnown) {
  for (const char *release : kReleases) {
    SCOPED_TRACE(release);
    const std::string dir = std::string("fixtures/xla_flags/hosts/") + release;
    Json doc = loadJson(dir + "/znver4.json");
    const Json &real = doc["real"];
    const XlaFlagTable *table = xlaFlagTable(release);
    const MeasuredCpuTarget *avx2 = nullptr;
    for (const auto &m : table->maxIsa)
      if (m.value == "AVX2")
        avx2 = &m;
    ASSERT_NE(avx2, nullptr);
    // The base as a process under --xla_cpu_max_isa=AVX2 captured it: its
    // flags, and the target real jaxlib measured for AVX2 on this CPU.
    Json s = doc["base"];
    for (const char *k : {"expected", "provenance", "title", "id"})
      s.erase(k);
    s["compile_options"]["xla_flags"] = "--xla_cpu_max_isa=AVX2";
    s["accelerator"]["cpu_topology"]["target_machine"]["cpu"] = avx2->cpu;
    s["accelerator"]["cpu_topology"]["target_machine"]["features"] = avx2->features;
    s["flags"]["XLA_FLAGS"] = "--xla_cpu_max_isa=AVX2";
    KeyResult kept = mustCompute(s);
    EXPECT_EQ(kept.key, real["--xla_cpu_max_isa=AVX2"]["key"].get<std::string>());
    s["flags"]["XLA_FLAGS"] = "--xla_cpu_max_isa=SSE4_2";
    KeyResult lower = mustCompute(s);
    EXPECT_EQ(lower.key, real["--xla_cpu_max_isa=SSE4_2"]["key"].get<std::string>());
    EXPECT_FALSE(hasNote(lower, NoteCode::CpuTargetUnknown));
    s["flags"]["XLA_FLAGS"] = "--xla_cpu_max_isa=AVX512";
    KeyResult higher = mustCompute(s);
    EXPECT_TRUE(hasNote(higher, NoteCode::CpuTargetUnknown));
    EXPECT_FALSE(resultToJson(higher)["fidelity"]["jax_key"].get<bool>());
  }
}
