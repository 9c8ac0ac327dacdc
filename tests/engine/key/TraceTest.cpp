// Reading pasted logs: the real formatted DEBUG logs that tools/capture
// recorded from jax 0.10.2 are paired entry by entry (the case logs of
// tests/cases are CasesTest.cpp).
#include "TestUtil.h"

#include "cachekey/LogCompare.h"
#include "cachekey/Trace.h"
#include "logs/LogFacts.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {
std::string capturedLog(const std::string &id) {
  Json fx = loadJson("fixtures/" + id + ".json");
  std::string text;
  for (const auto &l : fx["capture"]["debug_log_formatted"])
    text += l.get<std::string>() + "\n";
  return text;
}
} // namespace

TEST(Trace, RealLogsOfDifferentProgramsBlameTheComputation) {
  auto c = compareLogs(capturedLog("add_1x1"), capturedLog("mul_2x2"));
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->comparison.cause, 1);
  EXPECT_EQ(c->comparison.consequences, (std::vector<int>{2, 3, 4, 5, 6, 7, 8}));
  EXPECT_NE(logs::comparisonSentence(*c).find("entry 1 (computation)"), std::string::npos);
}

TEST(Trace, MovedFunctionWithMetadataBlamesTheComputation) {
  auto same = compareLogs(capturedLog("lines_a_nometa"), capturedLog("lines_b_nometa"));
  ASSERT_TRUE(same);
  EXPECT_EQ(same->comparison.cause, 0);
  auto moved = compareLogs(capturedLog("lines_a_meta"), capturedLog("lines_b_meta"));
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->comparison.cause, 1);
}

TEST(Trace, AnyPrefixAndCrLfAreAccepted) {
  std::string log = capturedLog("add_1x1"), absl;
  size_t start = 0, n = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    absl += "I1129 14:50:00.123456 " + std::to_string(++n) + " cache_key.py:42] " +
            log.substr(start, end - start) + "\r\n";
    start = end + 1;
  }
  auto c = compareLogs(log, absl);
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->comparison.cause, 0);
}

TEST(Trace, EngineTraceAgainstRealLogNamesTheFlag) {
  KeyResult r = mustCompute(patched(
      "add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_gpu_autotune_level=1"}}}}));
  std::string ours;
  for (const auto &l : r.trace)
    ours += "DEBUG:jax._src.cache_key:" + l.message + "\n";
  auto c = compareLogs(capturedLog("add_1x1"), ours);
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->comparison.cause, 4);
  ASSERT_EQ(c->findings.size(), 1u);
  EXPECT_EQ(c->findings[0].code, EntryChange::Code::Flag);
  EXPECT_EQ(c->findings[0].flag.kind, FlagChange::Kind::Added);
  EXPECT_EQ(c->findings[0].flag.flag, "--xla_gpu_autotune_level=1");
}

TEST(Trace, TruncatedLogComparesWhatIsCompleteAndSaysWhatIsCut) {
  std::string log = capturedLog("add_1x1");
  std::string two = log + log;
  std::string cut = two.substr(0, two.rfind("hash of serialized compile_options"));
  auto c = compareLogs(two, cut, "a.log", "b.log");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->comparison.cause, 0);
  ASSERT_FALSE(c->notes.empty());
  EXPECT_NE(logs::logNoteText(c->notes[0], c->logs).find("b.log: the key starting at line"), std::string::npos)
      << logs::logNoteText(c->notes[0], c->logs);
  EXPECT_NE(logs::logNoteText(c->notes[0], c->logs).find("stops after 8 of its 16 digest lines"),
            std::string::npos)
      << logs::logNoteText(c->notes[0], c->logs);
  // A log whose only key is cut has nothing to compare.
  auto none = compareLogs(log, log.substr(0, log.find("hash of serialized compile_options")));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().path, "log B");
  EXPECT_NE(none.error().message.find("no complete key"), std::string::npos)
      << none.error().message;
}

TEST(Trace, GarbledDigestAndEmptyLogAreReported) {
  std::string log = capturedLog("add_1x1");
  size_t p = log.find("hash of serialized jax_lib version: ");
  std::string garbled = log;
  garbled[p + 40] = 'Z';
  auto c = compareLogs(log, garbled);
  ASSERT_FALSE(c);
  // The test put 'Z' at the digest's 5th character (the message is 36
  // characters long): the error names the line and that character.
  EXPECT_NE(c.error().message.find("line 3: the own digest of jax_lib version is not "
                                   "a whole SHA-256 (character 5 ('Z') is not a "
                                   "lowercase hex digit"),
            std::string::npos)
      << c.error().message;
  auto e = compareLogs(log, "just some text\nnothing here");
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("no cache-key lines"), std::string::npos);
}

TEST(Trace, SeveralKeysPerLogArePairedInOrder) {
  // A real run logs a key per compiled program; here the first program is
  // the same in both logs and the second differs.
  std::string a = capturedLog("add_1x1") + capturedLog("add_1x1");
  std::string b = capturedLog("add_1x1") + capturedLog("mul_2x2");
  auto c = compareLogs(a, b);
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->comparison.cause, 1);
  EXPECT_NE(logs::comparisonSentence(*c).find("Key 2 is the first pair"), std::string::npos)
      << logs::comparisonSentence(*c);
  auto same = compareLogs(a, a);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->comparison.cause, 0);
}
