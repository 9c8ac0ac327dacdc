// Large and extreme inputs work or fail with a clear error, never abort.
#include "TestUtil.h"

#include "cachekey/Permalink.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {
Scenario baseScenario() {
  auto s = readScenario(patched("add_1x1", Json::object()), fixtureResolver());
  EXPECT_TRUE(s);
  return *s;
}
} // namespace

TEST(Extreme, HundredThousandFlags) {
  Scenario s = baseScenario();
  std::string flags;
  for (int i = 0; i < 100000; ++i)
    flags += "--xla_flag_" + std::to_string(i % 997) + "=" + std::to_string(i) +
             (i % 10 == 0 ? " --xla_dump_to=/x " : " ");
  s.flags.xlaFlags = flags;
  s.compileOptions.parsedXlaFlags.reset(); // entry 4 only: made-up names
  auto r = computeKey(s);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->flags.size(), 110000u);
  size_t kept = 0;
  for (const auto &f : r->flags)
    kept += f.included;
  EXPECT_EQ(kept, 100000u);
  // Two DEBUG passes of flag lines plus 16 digest lines.
  EXPECT_EQ(r->trace.size(), 2 * 110000u + 16);
}

TEST(Extreme, DeviceAssignmentOf4096Devices) {
  std::vector<std::vector<int64_t>> da(64, std::vector<int64_t>(64));
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c)
      da[r][c] = 4095 - (r * 64 + c);
  Scenario s = baseScenario();
  s.compileOptions.edits.deviceAssignment = da;
  s.platform = "gpu";
  auto gpu = computeKey(s);
  ASSERT_TRUE(gpu) << gpu.error().str();
  bool renumbered = false;
  for (const auto &c : gpu->compileOptions.changes)
    renumbered = renumbered || c.code == CacheKeyEdit::Code::Renumbered;
  EXPECT_TRUE(renumbered);
  s.platform = "cpu";
  auto cpu = computeKey(s);
  ASSERT_TRUE(cpu);
  EXPECT_NE(gpu->entries[4].bytes, cpu->entries[4].bytes);
}

TEST(Extreme, TwoHundredMegabytesOfEntryOneBytes) {
  Scenario s = baseScenario();
  s.module.entry1 = Bytes(200u << 20, '\x5a');
  auto r = computeKey(s);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->entries[0].bytes.size(), 200u << 20);
  Json j = resultToJson(*r);
  EXPECT_EQ(j["entries"][0]["bytes_len"].get<size_t>(), 200u << 20);
  EXPECT_LT(j["entries"][0]["preview_hex"].get<std::string>().size(), 200u);
}

TEST(Extreme, PermalinkOverTheCapIsRefused) {
  std::string big = "{\"schema\":1,\"custom_hook\":\"" +
                    std::string(kPermalinkMaxJsonBytes, 'x') + "\"}";
  auto r = decodePermalink(encodePermalink(big));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cap"), std::string::npos);
}

TEST(Extreme, DeeplyNestedJsonIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  EXPECT_FALSE(parseJsonText(deep));
  std::string valid = "{\"schema\":1,\"notes\":" + std::string(100000, '[') +
                      std::string(100000, ']') + "}";
  auto doc = parseJsonText(valid);
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().message.find("nested deeper than 64"), std::string::npos);
}
