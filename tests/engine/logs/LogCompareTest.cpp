// engine/lib/logs/LogCompare.cpp: the orchestration; and LogCompareJson.cpp.
#include "LogTestUtil.h"

#include <sstream>

using namespace cachekey;
using namespace cachekey::test;

TEST(LogCompare, TheFirstDifferingPairIsExplained) {
  auto c = compareCase("23-one-program-changed", "run1.log", "run2.log");
  ASSERT_GE(c.explained, 0);
  EXPECT_EQ(c.pairs[c.explained].label, "jit_step");
  EXPECT_EQ(c.comparison.cause, 1);
  EXPECT_TRUE(c.keysDiffer());
}

TEST(LogCompare, EqualKeysExplainTheFirstPairInBothRuns) {
  auto c = compareCase("01-equal-keys-never-written", "run1.log", "run2.log");
  EXPECT_FALSE(c.keysDiffer());
  ASSERT_GE(c.explained, 0);
  EXPECT_EQ(c.comparison.cause, 0);
  EXPECT_TRUE(c.findings.empty());
}

TEST(LogCompare, ALogWithoutKeysIsAnErrorNamingIt) {
  auto c = compareLogs("nothing here\n", "nor here\n", "a.log", "b.log");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().path, "a.log");
}

TEST(LogCompareJson, StreamedIsTheWholeDocument) {
  auto c = compareCase("26-two-processes-one-log", "run1.log", "run2.log");
  std::ostringstream os;
  writeLogComparisonJson(os, c);
  EXPECT_EQ(os.str(), logComparisonToJson(c).dump(2, ' ', false,
                                                  Json::error_handler_t::replace));
  Json j = logComparisonToJson(c);
  EXPECT_EQ(j["paired_by"], "process and name");
}
