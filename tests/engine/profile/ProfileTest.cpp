// The profile table: which releases it covers and what each profile changes
// in the key. Release lists come from PyPI (the jax project's release list,
// read by the team from PyPI's JSON index on 2026-11-30, yanked 0.4.32
// included); behaviour expectations come from reading each release's
// jax/_src/cache_key.py, and are proven byte for byte by the differential
// oracle (tools/oracle --jax RELEASE).
#include "TestUtil.h"

#include "cachekey/ProfileInfo.h"

#include <map>
#include <set>
#include <sstream>

using namespace cachekey;
using namespace cachekey::test;

namespace {

// Every jax release on PyPI from 0.4.30 to 0.12.0.1.
const std::vector<std::string> kPyPiReleases = {
    "0.4.30", "0.4.31", "0.4.32", "0.4.33", "0.4.34", "0.4.35", "0.4.36",
    "0.4.37", "0.4.38", "0.5.0",  "0.5.1",  "0.5.2",  "0.5.3",  "0.6.0",
    "0.6.1",  "0.6.2",  "0.7.0",  "0.7.1",  "0.7.2",  "0.8.0",  "0.8.1",
    "0.8.2",  "0.8.3",  "0.9.0",  "0.9.0.1", "0.9.1", "0.9.2",  "0.10.0",
    "0.10.1", "0.10.2", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.12.0.1"};

TEST(Profile, EveryReleaseFrom0430To01201IsCoveredExactlyOnce) {
  std::vector<std::string> covered;
  for (const ProfileSpec &p : allProfiles())
    for (const char *r : p.releases)
      covered.push_back(r);
  EXPECT_EQ(covered, kPyPiReleases); // oldest first, no gaps, no repeats
}

// The jaxlib each release was installed with by the oracle sweep (pip
// install jax==R, docs/oracle-sweep.md's "jaxlib" column), read from that
// table: profileToJson's "jaxlibs" must give the same for every release.
TEST(Profile, EachReleasesJaxlibIsTheOneTheOracleSweepInstalled) {
  std::string sweep = readText(sourcePath("docs/oracle-sweep.md"));
  std::map<std::string, std::string> installed;
  // The first table, "| release | jaxlib | profile | …", to its end.
  size_t table = sweep.find("| release | jaxlib |");
  ASSERT_NE(table, std::string::npos);
  std::istringstream in(sweep.substr(table, sweep.find("\n\n", table) - table));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| 0.", 0) != 0)
      continue;
    std::vector<std::string> cells;
    std::istringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');)
      cells.push_back(cell.substr(1, cell.size() - 2));
    installed[cells.at(0)] = cells.at(1);
  }
  ASSERT_EQ(installed.size(), kPyPiReleases.size());
  size_t jaxOnly = 0;
  for (const ProfileSpec &p : allProfiles()) {
    Json j = profileToJson(p.profile);
    ASSERT_EQ(j["jaxlibs"].size(), p.releases.size()) << p.id;
    for (const char *r : p.releases) {
      EXPECT_EQ(j["jaxlibs"][r], installed.at(r)) << r;
      jaxOnly += installed.at(r) != r;
    }
  }
  EXPECT_EQ(jaxOnly, 2u); // 0.4.37 and 0.5.2 came without a jaxlib
}

TEST(Profile, AReleaseOrMainResolvesToItsProfile) {
  EXPECT_EQ(profileName(*parseProfile("0.9.0.1")), std::string("0.9.2"));
  EXPECT_EQ(profileName(*parseProfile("0.4.30")), std::string("0.4.33"));
  EXPECT_EQ(profileName(*parseProfile("0.11.1")), std::string("0.11.2"));
  EXPECT_EQ(*parseProfile("main"), kNewestProfile);
  EXPECT_EQ(profileName(kNewestProfile), kPyPiReleases.back());
  auto bad = parseProfile("0.4.29");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("0.4.30"), std::string::npos);
}

TEST(Profile, ExclusionListAndZeroedFieldsGrowAsUpstreamDid) {
  // Counts read from each release's cache_key.py.
  EXPECT_EQ(excludedFlagNames(Profile::V0_4_33).size(), 21u);
  EXPECT_EQ(excludedFlagNames(Profile::V0_5_3).size(), 24u);
  EXPECT_EQ(excludedFlagNames(Profile::V0_11_0).size(), 25u);
  EXPECT_EQ(excludedFlagNames(Profile::V0_12_0_1).size(), 26u);
  EXPECT_EQ(zeroedDebugFields(Profile::V0_4_35).size(), 18u);
  EXPECT_EQ(zeroedDebugFields(Profile::V0_10_2).size(), 19u);
  EXPECT_EQ(zeroedDebugFields(Profile::V0_11_0).size(), 20u);
}

TEST(Profile, ReleasesBefore060HashSevenEntries) {
  KeyResult r = mustCompute(patched("add_1x1", {{"profile", "0.5.3"}}));
  EXPECT_FALSE(r.entries[2].hashed);
  EXPECT_TRUE(r.entries[2].bytes.empty());
  // The key is the SHA-256 of the seven other entries' bytes, in order.
  Bytes all;
  for (const auto &e : r.entries)
    if (e.hashed)
      all += e.bytes;
  EXPECT_EQ(r.key, r.symName + "-" + toHex(Sha256::of(all)));
  // Seven entries, two digest lines each, and no "backend version" line.
  int digestLines = 0;
  for (const auto &t : r.trace) {
    const std::string &line = t.message;
    digestLines += line.rfind("get_cache_key hash ", 0) == 0;
    EXPECT_EQ(line.find("backend version"), std::string::npos) << line;
  }
  EXPECT_EQ(digestLines, 14);
}

TEST(Profile, RuntimeTypeIsFedByEntryThreeUntil081) {
  Json withType = patched("add_1x1", {{"profile", "0.7.2"}});
  withType["backend"] = {{"platform", "cpu"}, {"platform_version", "cpu"},
                         {"runtime_type", "pjrt_ifrt"}};
  KeyResult r = mustCompute(withType);
  EXPECT_EQ(r.entries[2].bytes, "cpucpupjrt_ifrt");
  withType["profile"] = "0.8.2";
  EXPECT_EQ(mustCompute(withType).entries[2].bytes, "cpucpu");
}

TEST(Profile, TopologyIsSerializedBefore0100AndFingerprintedAfter) {
  KeyResult old = mustCompute(patched("add_1x1", {{"profile", "0.9.2"}}));
  KeyResult now = mustCompute(patched("add_1x1", {{"profile", "0.10.0"}}));
  ASSERT_EQ(now.entries[5].bytes.size(), 8u);
  ASSERT_TRUE(old.accelerator.fingerprint);
  // The 8 bytes are the fingerprint of exactly the bytes the older release
  // feeds whole.
  EXPECT_EQ(fingerprint64(old.entries[5].bytes), *old.accelerator.fingerprint);
  EXPECT_EQ(now.entries[5].bytes, bigEndian64(*old.accelerator.fingerprint));
  // A bare fingerprint cannot stand for the serialized topology.
  Json tpu = patched("add_1x1", {{"profile", "0.9.2"}});
  tpu["accelerator"] = {{"fingerprint",
                         {{"value", "39c4708627f0a39b"},
                          {"provenance", "libtpu, TPU v4 2x2x1"}}}};
  auto r = compute(tpu);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().path, "$.accelerator.fingerprint");
}

TEST(Profile, TheOldFallbackAlsoFeedsTheBackend) {
  Json doc = patched("add_1x1", {{"profile", "0.4.33"}});
  doc["accelerator"] = {{"device_kinds", {"cpu"}}, {"error", "UNIMPLEMENTED"}};
  KeyResult r = mustCompute(doc);
  EXPECT_EQ(r.entries[5].bytes, "cpucpucpupjrt_ifrt");
  bool line = false;
  for (const auto &t : r.trace)
    line = line || t.message.find("falling back to hashing devices + platform: "
                          "UNIMPLEMENTED") != std::string::npos;
  EXPECT_TRUE(line);
}

TEST(Profile, OverridesAreFilteredFrom0436On) {
  Json doc = patched("add_1x1", {{"profile", "0.4.35"}});
  doc["compile_options"] = {
      {"edits",
       {{"env_option_overrides",
         Json::array({Json::array({"xla_dump_to", "/tmp/x"})})}}}};
  KeyResult kept = mustCompute(doc);
  doc["profile"] = "0.4.36";
  KeyResult dropped = mustCompute(doc);
  EXPECT_GT(kept.entries[4].bytes.size(), dropped.entries[4].bytes.size());
}

TEST(Profile, DifferencesNameWhatMoved) {
  auto d = profileDifferences(Profile::V0_10_2, Profile::V0_12_0_1);
  std::string all;
  for (const auto &s : d)
    all += s + "\n";
  EXPECT_NE(all.find("--xla_gpu_per_fusion_autotune_cache_dir"), std::string::npos);
  EXPECT_NE(all.find("--xla_tpu_compiler_variant"), std::string::npos);
  EXPECT_NE(all.find("Mosaic"), std::string::npos);
  EXPECT_TRUE(profileDifferences(Profile::V0_9_2, Profile::V0_9_2).empty());
  // jaxlib 0.7.0 keeps zeroed DebugOptions fields on the wire (measured in
  // the wheels); 0.6.1 changes only the exception class in the trace.
  std::string zeros;
  for (const auto &s : profileDifferences(Profile::V0_6_2, Profile::V0_7_0))
    zeros += s;
  EXPECT_NE(zeros.find("zero is now written"), std::string::npos) << zeros;
  EXPECT_FALSE(profileDifferences(Profile::V0_6_0, Profile::V0_6_2).empty());
}

} // namespace
