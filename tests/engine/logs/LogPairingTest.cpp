// engine/lib/logs/LogPairing.cpp: how the programs of two runs are paired.
#include "LogTestUtil.h"

using namespace cachekey;
using namespace cachekey::test;

TEST(LogPairing, ByNameThenOrder) {
  auto c = compareCase("23-one-program-changed", "run1.log", "run2.log");
  EXPECT_EQ(c.pairedBy, PairedBy::Name);
  const ProgramPair *step = pairLabelled(c, "jit_step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->name, "jit_step");
  EXPECT_EQ(step->ordinal, 1);
  EXPECT_GE(step->a, 0);
  EXPECT_GE(step->b, 0);
}

TEST(LogPairing, ByProcessAndNameWhenBothLogsInterleaveTheSameProcesses) {
  auto c = compareCase("26-two-processes-one-log", "run1.log", "run2.log");
  EXPECT_EQ(c.pairedBy, PairedBy::ProcessAndName);
  EXPECT_NE(pairLabelled(c, "jit_step [rank0]"), nullptr);
  EXPECT_NE(pairLabelled(c, "jit_step [rank1]"), nullptr);
}

TEST(LogPairing, InOrderWhenTheLogsNameNoPrograms) {
  auto c = compareCase("10-unnamed-programs", "runA_add.log", "runB_mul.log");
  EXPECT_EQ(c.pairedBy, PairedBy::Order);
  ASSERT_FALSE(c.pairs.empty());
  EXPECT_EQ(c.pairs[0].name, "");
  EXPECT_EQ(c.pairs[0].label, "key 1");
}

TEST(LogPairing, NamesOfThePairings) {
  EXPECT_STREQ(pairedByName(PairedBy::Order), "order");
  EXPECT_STREQ(pairedByName(PairedBy::Name), "name");
  EXPECT_STREQ(pairedByName(PairedBy::ProcessAndName), "process and name");
}

TEST(LogPairing, LabelsCountWithinAName) {
  ProgramPair p;
  p.name = "jit_f";
  p.ordinal = 2;
  EXPECT_EQ(logs::pairLabel(p, "", false), "jit_f (2nd)");
  p.ordinal = 13;
  EXPECT_EQ(logs::pairLabel(p, "rank1", true), "jit_f (13th) [rank1]");
  p.name = "";
  p.ordinal = 4;
  EXPECT_EQ(logs::pairLabel(p, "", false), "key 4");
}
