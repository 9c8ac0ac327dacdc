// Real logs the diagnosis oracle made (tools/diag-oracle, issue 34), kept in
// tests/logs/diag_oracle/<kind>-<release>/ with JAX's own counts of each run
// (facts-<log>.json: jax.monitoring's compile_requests_use_cache and
// cache_hits events). Every expected value comes from the change the kind
// made (tests/diag_oracle/catalogue.py, its "why") or from those counts.
#include "LogTestUtil.h"

#include <gtest/gtest.h>

namespace cachekey::test {
namespace {

std::string oracleDir(const std::string &kind) { return "tests/logs/diag_oracle/" + kind + "/"; }

LogSummary oracleLog(const std::string &kind, const std::string &log) {
  return readLog(readText(sourcePath(oracleDir(kind) + log)), log);
}

LogComparison compareOracle(const std::string &kind) {
  auto c = compareLogSummaries(oracleLog(kind, "a.log"), oracleLog(kind, "b.log"));
  EXPECT_TRUE(c) << (c ? "" : c.error().str());
  return c ? std::move(*c) : LogComparison{};
}

/// JAX's count of `what` ("compile_requests_use_cache", "cache_hits") in
/// the run that wrote `log`.
long jaxCount(const std::string &kind, const std::string &log, const char *what) {
  Json facts = loadJson(oracleDir(kind) + "facts-" + log.substr(0, log.find('.')) + ".json");
  return facts[what].get<long>();
}

std::vector<LogAdvice::Code> codes(const std::vector<LogAdvice> &advice) {
  std::vector<LogAdvice::Code> out;
  for (const auto &a : advice)
    out.push_back(a.code);
  return out;
}

TEST(DiagOracleLogs, TwoHandlersPrintingEveryRecordCountEachProgramOnce) {
  // JAX_LOGGING_LEVEL=DEBUG puts JAX's handler on the "jax" logger and
  // logging.basicConfig a root handler: every record is printed twice, in
  // two formats. JAX looked each program up once.
  const std::string kind = "logging-jax-logging-level-and-basic-config-0.12.0.1";
  LogComparison c = compareOracle(kind);
  EXPECT_EQ(long(c.logs[0].programs.size()), jaxCount(kind, "a.log", "compile_requests_use_cache"));
  EXPECT_EQ(long(c.logs[1].programs.size()), jaxCount(kind, "b.log", "compile_requests_use_cache"));
  EXPECT_EQ(long(runStats(c.logs[1]).hits), jaxCount(kind, "b.log", "cache_hits"));
  EXPECT_GT(c.logs[0].duplicateLines, 0u);
  EXPECT_EQ(codes(c.advice), std::vector<LogAdvice::Code>{LogAdvice::Code::NothingToDo});
}

TEST(DiagOracleLogs, TwoHandlersOfOneFormatCountEachProgramOnce) {
  // tests/logs/doubled_records (real runs, its README): JAX_LOGGING_LEVEL
  // and JAX_DEBUG_LOG_MODULES both put a handler of one format on the "jax"
  // logger, so every record is printed twice, byte for byte. Run b changed
  // the constant f closes over: JAX logged one miss (jit_f) and four hits.
  auto read = [](const char *f) {
    return readLog(readText(sourcePath(std::string("tests/logs/doubled_records/") + f)), f);
  };
  auto c = compareLogSummaries(read("a.log"), read("b.log"));
  ASSERT_TRUE(c) << c.error().str();
  const LogVerdict &v = c->verdict;
  EXPECT_EQ(v.programs, 5u);
  EXPECT_EQ(v.hits, 4u);
  EXPECT_EQ(v.missed, 1u);
  ASSERT_EQ(v.named.size(), 1u);
  EXPECT_EQ(c->labelOf(c->pairs[v.named[0]]), "jit_f");
  ASSERT_GE(v.oneMove, 0);
  EXPECT_EQ(c->moves[v.oneMove].code, KeyMove::Code::ProgramChanged);
  EXPECT_GT(c->logs[1].duplicateLines, 0u);
  // Entry 4's flag lines, which JAX itself logs twice, are still read.
  for (const auto &p : c->pairs)
    EXPECT_TRUE(c->logs[1].programs[p.b].complete()) << c->labelOf(p);
  // The same in chunks of any size (lines split across chunks take the
  // reader's other path).
  std::string text = readText(sourcePath("tests/logs/doubled_records/b.log"));
  for (size_t chunk : {size_t(1), size_t(7), size_t(4096)}) {
    LogReader r("b.log");
    for (size_t at = 0; at < text.size(); at += chunk)
      r.feed(std::string_view(text).substr(at, chunk));
    LogSummary s = r.finish();
    EXPECT_EQ(s.comparable().size(), 5u) << chunk;
    EXPECT_EQ(runStats(s).hits, 4u) << chunk;
    EXPECT_EQ(s.duplicateLines, c->logs[1].duplicateLines) << chunk;
  }
}

TEST(DiagOracleLogs, ShardyOffIsOneGlobalSettingNotTwoCauses) {
  // Run B sets jax_use_shardy_partitioner=False: entry 5 of every program
  // and entry 1 of the sharded one move, for one reason.
  LogComparison c = compareOracle("settings-shardy-off-0.12.0.1");
  ASSERT_EQ(c.pairs.size(), 2u);
  for (const auto &p : c.pairs) {
    EXPECT_EQ(p.keys, ProgramPair::Keys::Differ);
    EXPECT_EQ(c.moveOf(p).code, KeyMove::Code::GlobalSetting);
    EXPECT_EQ(p.cause, 5);
  }
  ASSERT_EQ(c.advice.size(), 1u);
  EXPECT_EQ(c.advice[0].code, LogAdvice::Code::SameGlobalSettings);
  EXPECT_EQ(c.advice[0].entry, 5);
  EXPECT_EQ(logComparisonToJson(c)["pairs"][0]["findings"]["move"]["code"], "global_setting");
}

TEST(DiagOracleLogs, DeviceCountMovesTheShardedProgramForTheSameCause) {
  // 2 then 4 CPU devices: entry 6 of every program moves, and the sharded
  // program's entry 1 with it.
  LogComparison c = compareOracle("settings-device-count-0.12.0.1");
  ASSERT_EQ(c.pairs.size(), 2u);
  for (const auto &p : c.pairs) {
    EXPECT_EQ(p.cause, 6);
    EXPECT_EQ(c.moveOf(p).code, KeyMove::Code::DevicesChanged);
  }
  ASSERT_EQ(c.advice.size(), 1u);
  EXPECT_EQ(c.advice[0].code, LogAdvice::Code::KeyMoved);
  EXPECT_EQ(c.advice[0].entry, 6);
}

TEST(DiagOracleLogs, StaticArgumentValuesAreNamedAsSuch) {
  // A jit with static_argnums called with k = 1, 2, 3 in run A and 4, 5, 6
  // in run B: one program per value, all with the same argument shapes.
  LogComparison c = compareOracle("program-static-argument-0.10.2");
  ASSERT_EQ(c.pairs.size(), 3u);
  for (const auto &p : c.pairs)
    EXPECT_EQ(c.moveOf(p).code, KeyMove::Code::StaticOrConstant);
  EXPECT_EQ(codes(c.advice), std::vector<LogAdvice::Code>{LogAdvice::Code::StaticOrConstant});
  EXPECT_EQ(c.advice[0].programs.size(), 3u);
}

TEST(DiagOracleLogs, HostCallbacksAreNeverWrittenWhateverTheKey) {
  // jax 0.4.30 never writes a program with host callbacks, and puts the
  // callback's address into it, so its key moves in every process.
  LogComparison c = compareOracle("program-host-callbacks-0.4.30");
  EXPECT_EQ(codes(c.advice), std::vector<LogAdvice::Code>{LogAdvice::Code::HostCallbacks});
}

TEST(DiagOracleLogs, AQuietLogAmongThreeIsLeftOutNotFatal) {
  // The third run logged at WARNING only: no cache line at all. The other
  // two are still compared, and the quiet one is named.
  const std::string kind = "processes-three-logs-one-quiet-0.10.2";
  std::vector<LogSummary> logs;
  for (const char *n : {"a.log", "b.log", "c.log"})
    logs.push_back(oracleLog(kind, n));
  auto m = compareManyLogSummaries(std::move(logs));
  ASSERT_TRUE(m) << m.error().str();
  bool named = false;
  for (const auto &a : m->advice)
    named = named || (a.code == LogAdvice::Code::LogOutcomes && a.value == "c.log");
  EXPECT_TRUE(named);
  for (const auto &p : m->programs)
    EXPECT_TRUE(p.absent.empty()) << p.label; // unknown in c.log, not absent
  // The quiet log given first: the same comparison, the first log that can
  // be compared ordering the programs, the quiet one still named.
  std::vector<LogSummary> quietFirst;
  for (const char *n : {"c.log", "a.log", "b.log"})
    quietFirst.push_back(oracleLog(kind, n));
  auto q = compareManyLogSummaries(std::move(quietFirst));
  ASSERT_TRUE(q) << q.error().str();
  EXPECT_EQ(q->logs[0].name, "a.log");
  EXPECT_EQ(q->programs.size(), m->programs.size());
  bool namedFirst = false;
  for (const auto &a : q->advice)
    namedFirst = namedFirst || (a.code == LogAdvice::Code::LogOutcomes && a.value == "c.log");
  EXPECT_TRUE(namedFirst);
  // Two quiet logs of three: nothing left to compare, an error naming one.
  std::vector<LogSummary> two;
  for (const char *n : {"a.log", "c.log", "c.log"})
    two.push_back(oracleLog(kind, n));
  EXPECT_FALSE(compareManyLogSummaries(std::move(two)));
}

TEST(DiagOracleLogs, NamelessProcessIdLineBelongsToItsOwnProcess) {
  // A real 2-process jax.distributed run, both processes' stderr in one
  // log with "[rankN]: " prefixes, lines interleaved as they came. Only
  // process 0 writes; process 1 logs "Not writing persistent cache entry
  // since process_id != 0", a line that names no program.
  const std::string kind = "processes-two-processes-rank-prefixes-0.12.0.1";
  LogSummary a = oracleLog(kind, "a.log");
  ASSERT_EQ(long(a.programs.size()), jaxCount(kind, "a.log", "compile_requests_use_cache"));
  size_t notZero = 0, written = 0;
  for (const auto &p : a.programs) {
    const std::string &tag = a.streams[p.stream];
    if (tag.find("rank1") != std::string::npos) {
      EXPECT_EQ(p.writeState, WriteState::NotWritten) << tag << " " << p.name;
      EXPECT_EQ(p.writeReason, NotWrittenReason::NotProcessZero) << tag << " " << p.name;
      ++notZero;
    } else {
      EXPECT_EQ(p.writeState, WriteState::Written) << tag << " " << p.name;
      ++written;
    }
  }
  EXPECT_EQ(notZero, 2u);
  EXPECT_EQ(written, 2u);
}

} // namespace
} // namespace cachekey::test
