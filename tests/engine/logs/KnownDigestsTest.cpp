// Entry 3 read back from its digest for every backend the project measured
// without a device: each TPU platform_version of fixtures/tpu_topologies.json
// (libtpu's deviceless topologies) and each platform / platform_version of
// fixtures/gpu_topologies.json (the CUDA plugin's compile-only client). The
// expected strings are the tables' own; the digest is made here with
// hashlib's rule (cache_key.py _hash_platform: hash_string(platform) then
// hash_string(platform_version), each UTF-8 and stripped), and
// tests/cases/decode_vectors.json checks the same strings against Python's
// hashlib.
#include "../TestUtil.h"
#include "cachekey/KnownDigests.h"
#include "cachekey/Sha256.h"

#include <gtest/gtest.h>

#include <set>

namespace cachekey::test {
namespace {

std::string stripped(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\n\r\f\v"), e = s.find_last_not_of(" \t\n\r\f\v");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

void expectDecodes(const std::string &platform, const std::string &version) {
  Digest d = Sha256::of(stripped(platform) + stripped(version));
  auto v = decodeEntryDigest(3, d);
  ASSERT_TRUE(v) << platform << " / " << version;
  EXPECT_EQ(v->value, platform + " / " + version);
}

TEST(KnownDigests, EveryMeasuredTpuPlatformVersionDecodes) {
  std::set<std::string> seen;
  const Json table = loadJson("fixtures/tpu_topologies.json");
  for (const auto &t : table["topologies"])
    for (const auto &v : t["platform_versions"])
      if (seen.insert(v["value"].get<std::string>()).second)
        expectDecodes("tpu", v["value"].get<std::string>());
  EXPECT_GT(seen.size(), 10u);
}

TEST(KnownDigests, EveryMeasuredGpuPlatformVersionDecodes) {
  size_t n = 0;
  const Json table = loadJson("fixtures/gpu_topologies.json");
  for (const auto &t : table["topologies"]) {
    expectDecodes(t["platform"].get<std::string>(), t["platform_version"].get<std::string>());
    ++n;
  }
  EXPECT_GT(n, 10u);
}

} // namespace
} // namespace cachekey::test
