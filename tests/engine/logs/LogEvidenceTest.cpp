// engine/lib/logs/LogEvidence.cpp: why a pair's key moved, as facts.
#include "LogTestUtil.h"

using namespace cachekey;
using namespace cachekey::test;
using C = LogFinding::Code;
using M = KeyMove::Code;

TEST(LogEvidence, TheProgramChanged) {
  auto c = compareCase("23-one-program-changed", "run1.log", "run2.log");
  const ProgramPair *step = pairLabelled(c, "jit_step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->keys, ProgramPair::Keys::Differ);
  EXPECT_EQ(c.moveOf(*step).code, M::ProgramChanged);
  ASSERT_EQ(c.findings.size(), 1u);
  EXPECT_EQ(c.findings[0].code, C::ProgramChanged);
  EXPECT_EQ(c.findings[0].entry, 1);
  const ProgramPair *other = pairLabelled(c, "jit_broadcast_in_dim");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->keys, ProgramPair::Keys::Equal);
  EXPECT_EQ(c.moveOf(*other).code, M::None);
  EXPECT_FALSE(other->miss); // it hit
}

TEST(LogEvidence, AJaxlibUpgradeNamesBothReleases) {
  auto c = compareCase("09-jax-upgrade", "before_upgrade.log", "after_upgrade.log");
  ASSERT_GE(c.explained, 0);
  const KeyMove &m = c.moveOf(c.pairs[c.explained]);
  EXPECT_EQ(m.code, M::JaxlibUpgrade);
  EXPECT_FALSE(m.before.empty());
  EXPECT_FALSE(m.after.empty());
  EXPECT_NE(m.before, m.after);
  ASSERT_FALSE(c.findings.empty());
  EXPECT_EQ(c.findings[0].code, C::JaxlibVersions);
  EXPECT_EQ(c.findings[0].before, m.before);
  EXPECT_EQ(c.findings[0].after, m.after);
  EXPECT_EQ(c.comparison.cause, 2);
}

TEST(LogEvidence, TheCacheDirectoryInEntry5) {
  auto c = compareCase("02-cache-dir-in-entry-5", "run1.log", "run2.log");
  EXPECT_EQ(c.comparison.cause, 5);
  ASSERT_GE(c.explained, 0);
  EXPECT_EQ(c.moveOf(c.pairs[c.explained]).code, M::CacheDirMoved);
  ASSERT_FALSE(c.findings.empty());
  EXPECT_EQ(c.findings[0].code, C::CacheDirMoved);
  EXPECT_EQ(c.findings[0].entry, 5);
  EXPECT_NE(c.findings[0].before, c.findings[0].after);
}

TEST(LogEvidence, AnExcludedDeviceCountFlagMovesEntry6) {
  auto c = compareCase("21-device-count", "run1_311.log", "run2_311.log");
  EXPECT_EQ(c.comparison.cause, 6);
  ASSERT_FALSE(c.findings.empty());
  EXPECT_EQ(c.findings[0].code, C::DeviceCount);
  EXPECT_NE(c.findings[0].after.find("xla_force_host_platform_device_count"),
            std::string::npos);
}

TEST(LogEvidence, AnEqualKeyThatWasNeverWritten) {
  auto c = compareCase("01-equal-keys-never-written", "run1.log", "run2.log");
  const ProgramPair *f = pairLabelled(c, "jit_f");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->keys, ProgramPair::Keys::Equal);
  ASSERT_TRUE(f->miss);
  EXPECT_EQ(*f->miss, MissReason::NotWritten);
}

TEST(LogEvidence, KeyMovesAreComparedAsFacts) {
  KeyMove a{M::Flags, false, "", "", {FlagChange::Kind::Added, "--a=1", ""}};
  KeyMove b = a;
  EXPECT_EQ(a, b);
  b.flag.flag = "--a=2";
  EXPECT_NE(a, b);
  EXPECT_TRUE(a < b || b < a);
}
