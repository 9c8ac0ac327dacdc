// engine/lib/logs/LogPairing.cpp: how the programs of two runs are paired.
#include "LogTestUtil.h"

using namespace cachekey;
using namespace cachekey::test;

TEST(LogPairing, ByNameThenOrder) {
  auto c = compareCase("23-one-program-changed", "run1.log", "run2.log");
  EXPECT_EQ(c.pairedBy, PairedBy::Name);
  const ProgramPair *step = pairLabelled(c, "jit_step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(c.nameOf(*step), "jit_step");
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
  EXPECT_EQ(c.nameOf(c.pairs[0]), "");
  EXPECT_EQ(c.labelOf(c.pairs[0]), "key 1");
}

TEST(LogPairing, NamesOfThePairings) {
  EXPECT_STREQ(pairedByName(PairedBy::Order), "order");
  EXPECT_STREQ(pairedByName(PairedBy::Name), "name");
  EXPECT_STREQ(pairedByName(PairedBy::ProcessAndName), "process and name");
}

TEST(LogPairing, LabelsCountWithinAName) {
  EXPECT_EQ(logs::labelText("jit_f", 2, "", false), "jit_f (2nd)");
  EXPECT_EQ(logs::labelText("jit_f", 13, "rank1", true), "jit_f (13th) [rank1]");
  EXPECT_EQ(logs::labelText("", 4, "", false), "key 4");
}
