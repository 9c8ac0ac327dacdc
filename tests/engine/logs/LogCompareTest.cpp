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

TEST(LogCompareJson, EveryDetailNoteAndPairCarriesItsCode) {
  // Every compare of every case: "findings" holds one {code, …, text}
  // beside each string of "details", "other_details", "unhashed", "notes".
  size_t compared = 0;
  for (const auto &dir : {"01-equal-keys-never-written", "02-cache-dir-in-entry-5",
                          "07-truncated-log", "09-jax-upgrade", "21-device-count",
                          "22-excluded-flag-reaches-entry-5", "26-two-processes-one-log"}) {
    Json e = loadJson(std::string("tests/cases/") + dir + "/expect.json");
    for (const auto &c : e["compare"]) {
      Json j = logComparisonToJson(
          compareCase(dir, c["a"].get<std::string>(), c["b"].get<std::string>()));
      for (const char *list : {"details", "other_details", "unhashed", "notes"}) {
        ASSERT_EQ(j["findings"][list].size(), j[list].size()) << dir << " " << list;
        for (size_t i = 0; i < j[list].size(); ++i) {
          EXPECT_TRUE(j["findings"][list][i]["code"].is_string());
          EXPECT_EQ(j["findings"][list][i]["text"], j[list][i]);
        }
      }
      for (const auto &p : j["pairs"]) {
        EXPECT_EQ(p["findings"]["verdict"]["text"], p["verdict"]);
        EXPECT_TRUE(p["findings"]["verdict"]["code"].is_string());
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, 7u);
}
