// engine/lib/logs/LogWording.cpp: the words of the log comparison, from
// facts.
#include "LogTestUtil.h"

#include "cachekey/Wording.h"

using namespace cachekey;
using namespace cachekey::test;
using M = KeyMove::Code;

TEST(LogWording, KeyMoves) {
  EXPECT_EQ(logs::keyMoveText({}), "");
  EXPECT_EQ(logs::keyMoveText({M::JaxlibUpgrade, false, "0.4.30", "0.4.31", {}}),
            "the jaxlib upgrade 0.4.30 \u2192 0.4.31");
  KeyMove trace;
  trace.code = M::TraceMissing;
  trace.both = true;
  EXPECT_EQ(logs::keyMoveText(trace), "the keys differ (neither run logged the trace)");
  trace.both = false;
  EXPECT_EQ(logs::keyMoveText(trace), "the keys differ (the trace of one run was not logged)");
  EXPECT_EQ(logs::keyMoveText({M::Flags, false, "", "",
                               {FlagChange::Kind::Replaced, "--a=1", "--a=0"}}),
            "flag --a=1 replaced --a=0");
}

TEST(LogWording, FindingsAreWordedByEntryChangeText) {
  // A log's values are already as Python prints them: they are not quoted
  // again, unlike a computed key's CustomHook.
  EntryChange f;
  f.code = EntryChange::Code::LoggedCustomHook;
  f.entry = 8;
  f.before = "''";
  f.after = "'x'";
  EXPECT_EQ(entryChangeText(f), "custom_hook '' \u2192 'x'");
  f.code = EntryChange::Code::CustomHook;
  f.before = "";
  f.after = "x";
  EXPECT_EQ(entryChangeText(f), "custom_hook '' \u2192 'x'");
  f.code = EntryChange::Code::ExcludedFlagHashed;
  f.subject = "xla_dump_to";
  EXPECT_EQ(entryChangeText(f).rfind("--xla_dump_to is excluded from entry 4", 0), 0u);
}

TEST(LogWording, FindingsKeepTheLogsJsonCodesAndMembers) {
  // The codes and members `compare-logs --json` wrote for the logs'
  // findings before they were EntryChanges (LogFactsJson.cpp's
  // logFindingJson, in member order): the document does not change.
  using C = EntryChange::Code;
  EntryChange f;
  f.entry = 6;
  f.code = C::LoggedDeviceCount;
  f.before = "unset";
  f.after = "--xla_force_host_platform_device_count=4";
  Json j = entryChangeToJson(f, "t");
  EXPECT_EQ(j, Json({{"code", "device_count"}, {"entry", 6}, {"before", "unset"},
                     {"after", "--xla_force_host_platform_device_count=4"},
                     {"text", "t"}}));
  f = EntryChange{};
  f.entry = 1;
  f.code = C::EveryProgram;
  f.sizeAfter = 12;
  f.jaxOwn = true;
  EXPECT_EQ(entryChangeToJson(f, "t"),
            Json({{"code", "every_program"}, {"entry", 1}, {"programs", 12},
                  {"jax_own", true}, {"text", "t"}}));
  f = EntryChange{};
  f.entry = 5;
  f.code = C::CompileOptionsUnknown;
  f.hashesAutotune = true;
  EXPECT_EQ(entryChangeToJson(f, "t"),
            Json({{"code", "compile_options_unknown"}, {"entry", 5},
                  {"autotune_path_hashed", true}, {"text", "t"}}));
  f = EntryChange{};
  f.entry = 6;
  f.code = C::DeviceKindFallback;
  f.subject = "both";
  f.after = "no topology";
  EXPECT_EQ(entryChangeToJson(f, "t"),
            Json({{"code", "device_kind_fallback"}, {"entry", 6}, {"in", "both"},
                  {"message", "no topology"}, {"text", "t"}}));
  f.code = C::LoggedCompression;
  f.entry = 7;
  EXPECT_EQ(entryChangeToJson(f, "t")["code"], "compression");
  f.code = C::LoggedCustomHook;
  EXPECT_EQ(entryChangeToJson(f, "t")["code"], "custom_hook");
}

TEST(LogWording, DigestsAndPaths) {
  EXPECT_EQ(logs::digestText(7, std::nullopt), "(not logged)");
  EXPECT_EQ(logs::firstPathText({}), "unset");
  EXPECT_EQ(logs::firstPathText({"/tmp/a", "/tmp/b"}), "'/tmp/a'");
}

TEST(LogWording, AVerdictForEachKindOfPair) {
  auto c = compareCase("01-equal-keys-never-written", "run1.log", "run2.log");
  const ProgramPair *f = pairLabelled(c, "jit_f");
  ASSERT_NE(f, nullptr);
  // The main clause names the first log: "run1.log never wrote it: …".
  EXPECT_EQ(pairVerdictText(c, *f).rfind("same key, yet run2.log missed: run1.log never wrote it: ", 0), 0u)
      << pairVerdictText(c, *f);
  auto d = compareCase("23-one-program-changed", "run1.log", "run2.log");
  const ProgramPair *step = pairLabelled(d, "jit_step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(pairVerdictText(d, *step), "its key moved: the program changed");
}

TEST(LogWording, TheTextTheCliPrints) {
  auto c = compareCase("23-one-program-changed", "run1.log", "run2.log");
  std::string text = formatLogComparison(c);
  // The verdict first, then the pairing sentence and the programs.
  EXPECT_EQ(text.rfind("Verdict: " + logVerdictText(c) + "\n" + logs::comparisonSentence(c) +
                           "\nPrograms (paired by key and name):\n", 0),
            0u)
      << text;
  EXPECT_EQ(text.rfind("Verdict: run2.log: 1 of 3 programs missed the cache", 0), 0u) << text;
  EXPECT_NE(text.find("\nSummary: " + logs::runSummary(c) + "\n"), std::string::npos);
}

TEST(LogWording, AHitRateThatIsNotAllOrNothingNeverReadsAs100Or0Percent) {
  // helper-20's run: 299 hits of 300 programs read "100% hit rate" beside
  // "1 miss". Expected texts are the quotients by hand: 299/300 = 99.67%,
  // 1/300 = 0.33%, 2999/3000 = 99.97%, 1/3000 = 0.03%, 1/3 = 33.3%.
  EXPECT_EQ(percentText(299, 300), "99.7%");
  EXPECT_EQ(percentText(1, 300), "0.3%");
  EXPECT_EQ(percentText(2999, 3000), ">99.9%");
  EXPECT_EQ(percentText(1, 3000), "<0.1%");
  EXPECT_EQ(percentText(1, 3), "33%");
  EXPECT_EQ(percentText(99, 100), "99%");
  EXPECT_EQ(percentText(300, 300), "100%");
  EXPECT_EQ(percentText(0, 300), "0%");
  LogSummary log;
  log.name = "b.log";
  RunStats st;
  st.programs = 300;
  st.hits = 299;
  st.misses = 1;
  EXPECT_NE(logs::runStatsText(log, st).find("(99.7% hit rate)"), std::string::npos) << logs::runStatsText(log, st);
}
