// Real logs the diagnosis oracle made (tools/diag-oracle, issue 34), kept in
// tests/logs/diag_oracle/<kind>-<release>/ with JAX's own counts of each run
// (facts-<log>.json: jax.monitoring's compile_requests_use_cache and
// cache_hits events). Every expected value comes from the change the kind
// made (tests/diag_oracle/catalogue.py, its "why") or from those counts.
#include "LogTestUtil.h"
#include "cachekey/KnownDigests.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

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
  // The measured table of the logs' release (JAX's own version, as the run
  // recorded it) names the option the kind changed among those that move
  // entry 5 (and entry 1 at most).
  const std::string kind = "settings-shardy-off-0.12.0.1";
  EXPECT_EQ(c.advice[0].settingsRelease,
            loadJson(oracleDir(kind) + "facts-b.json")["jax"].get<std::string>());
  EXPECT_NE(std::find(c.advice[0].settings.begin(), c.advice[0].settings.end(),
                      "jax_use_shardy_partitioner"),
            c.advice[0].settings.end());
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

TEST(DiagOracleLogs, DoubledLinesOfTwoInterleavedProcessesCountEachProgramOnce) {
  // jax 0.6.2 prints every record twice (JAX's handler and basicConfig's),
  // and two processes share the log ([rank0]: / [rank1]:). In
  // interleaved.log (interleave.py) the ranks alternate line by line, so
  // the other process's line falls between the copies of nearly every
  // record; both logs must still count each process's programs once.
  const std::string kind = "processes-two-processes-rank-prefixes-0.6.2";
  Json r0 = loadJson(oracleDir(kind) + "facts-a-rank0.json");
  Json r1 = loadJson(oracleDir(kind) + "facts-a-rank1.json");
  const size_t programs = r0["compile_requests_use_cache"].get<size_t>() +
                          r1["compile_requests_use_cache"].get<size_t>();
  LogSummary plain = oracleLog(kind, "a.log");
  LogSummary interleaved = oracleLog(kind, "interleaved.log");
  EXPECT_EQ(plain.programs.size(), programs);
  EXPECT_EQ(interleaved.programs.size(), programs);
  EXPECT_EQ(interleaved.duplicateLines, plain.duplicateLines);
  EXPECT_EQ(interleaved.lines, plain.lines);
  auto c = compareLogSummaries(std::move(plain), std::move(interleaved));
  ASSERT_TRUE(c) << c.error().str();
  for (const ProgramPair &p : c->pairs)
    EXPECT_EQ(p.keys, ProgramPair::Keys::Equal) << c->labelOf(p);
}

// Deviceless (ahead-of-time) compiles, made by tools/diag-oracle on 2026-12-04
// in the TPU venvs (jax 0.10.2 with libtpu 0.0.42.1, 0.12.0.1 with libtpu
// 0.0.50.1) and the GPU venv (jax 0.12.0.1 with jax-cuda12-plugin 0.12.0.1)
// of tests/oracle/venvs.py. Run b of cache-deviceless-* logged, for each
// program, JAX's own warning "Error reading persistent compilation cache
// entry for 'jit_…': JaxRuntimeError: INVALID_ARGUMENT: PjRtCompiler must
// be constructed with a Client to call DeserializeLoadedExecutable." (the
// compile-only client cannot load what it wrote), then a miss and a write.

/// Every pair of `kind`: the same key, missed because the second run's
/// compile-only client could not load the entry; JAX's own counts agree.
void expectCompileOnlyMisses(const std::string &kind) {
  SCOPED_TRACE(kind);
  LogComparison c = compareOracle(kind);
  ASSERT_EQ(c.pairs.size(), 2u); // jit_step and jit_mlp, in both runs
  for (int side : {0, 1}) {
    const char *log = side ? "b.log" : "a.log";
    EXPECT_EQ(long(c.logs[side].programs.size()), jaxCount(kind, log, "compile_requests_use_cache"));
    EXPECT_EQ(long(runStats(c.logs[side]).hits), jaxCount(kind, log, "cache_hits"));
  }
  for (const auto &p : c.pairs) {
    EXPECT_EQ(p.keys, ProgramPair::Keys::Equal) << c.labelOf(p);
    ASSERT_TRUE(p.miss) << c.labelOf(p);
    EXPECT_EQ(*p.miss, MissReason::CompileOnlyClient) << c.labelOf(p);
    EXPECT_TRUE(c.logs[1].programs[p.b].compileOnlyRead()) << c.labelOf(p);
    EXPECT_FALSE(c.logs[0].programs[p.a].compileOnlyRead()) << c.labelOf(p);
  }
  auto advice = codes(c.advice);
  EXPECT_NE(std::find(advice.begin(), advice.end(), LogAdvice::Code::CompileOnlyCannotLoad),
            advice.end());
  for (auto never : {LogAdvice::Code::DeleteDamaged, LogAdvice::Code::NothingToDo})
    EXPECT_EQ(std::find(advice.begin(), advice.end(), never), advice.end());
  RunStats b = runStats(c.logs[1]);
  ASSERT_EQ(b.notCached.size(), 1u);
  EXPECT_EQ(b.notCached[0].first, NotCached::CompileOnly);
  EXPECT_EQ(b.notCached[0].second, 2u);
}

TEST(DiagOracleLogs, DevicelessTpuReadFailureIsTheCompileOnlyClientNotDamage) {
  expectCompileOnlyMisses("cache-deviceless-tpu-0.10.2");
  expectCompileOnlyMisses("cache-deviceless-tpu-0.12.0.1");
}

TEST(DiagOracleLogs, DevicelessGpuReadFailureIsTheCompileOnlyClientNotDamage) {
  expectCompileOnlyMisses("cache-deviceless-gpu-0.12.0.1");
}

TEST(DiagOracleLogs, DamagedEntryIsStillDamaged) {
  // Another read error than the compile-only client's is still damage: a
  // line of the same shape, with the error a cut file gives (made here).
  std::string log = readText(sourcePath(oracleDir("cache-deviceless-tpu-0.10.2") + "b.log"));
  const std::string compileOnly =
      "INVALID_ARGUMENT: PjRtCompiler must be constructed with a Client to call "
      "DeserializeLoadedExecutable.";
  for (size_t at; (at = log.find(compileOnly)) != std::string::npos;)
    log.replace(at, compileOnly.size(), "ZstdError: could not determine content size in frame header");
  auto c = compareLogSummaries(oracleLog("cache-deviceless-tpu-0.10.2", "a.log"),
                               readLog(log, "b.log"));
  ASSERT_TRUE(c) << c.error().str();
  for (const auto &p : c->pairs) {
    ASSERT_TRUE(p.miss);
    EXPECT_EQ(*p.miss, MissReason::Damaged);
  }
  auto advice = codes(c->advice);
  EXPECT_NE(std::find(advice.begin(), advice.end(), LogAdvice::Code::DeleteDamaged), advice.end());
}

TEST(DiagOracleLogs, DevicelessTopologyChangeMovesEntry6) {
  // v5e:2x2 in run a, v5e:2x4 in run b, single-device programs: entry 6
  // hashes the slice's topology fingerprint (fixtures/tpu_topologies.json:
  // e047cc4c4c95e560 and d3d3ba1b6b343291), nothing else moves.
  const std::string kind = "cache-deviceless-tpu-topology-0.10.2";
  LogComparison c = compareOracle(kind);
  Json topologies = loadJson("fixtures/tpu_topologies.json");
  std::map<std::string, std::string> fingerprint;
  for (const auto &t : topologies["topologies"])
    fingerprint[t["id"].get<std::string>()] = t["fingerprint"]["value"].get<std::string>();
  auto entry6 = [&](const std::string &id) {
    Bytes be;
    for (size_t i = 0; i < 16; i += 2)
      be.push_back(char(std::stoi(fingerprint.at(id).substr(i, 2), nullptr, 16)));
    return Sha256::of(be);
  };
  ASSERT_EQ(c.pairs.size(), 2u);
  for (const auto &p : c.pairs) {
    EXPECT_EQ(p.keys, ProgramPair::Keys::Differ) << c.labelOf(p);
    EXPECT_EQ(p.cause, 6) << c.labelOf(p);
    EXPECT_EQ(c.logs[0].programs[p.a].digests().own[5], entry6("v5e:2x2")) << c.labelOf(p);
    EXPECT_EQ(c.logs[1].programs[p.b].digests().own[5], entry6("v5e:2x4")) << c.labelOf(p);
  }
}

TEST(DiagOracleLogs, DevicelessLibtpuUpgradeDecodesEntry3FromTheMeasuredTable) {
  // jax 0.10.2 + libtpu 0.0.42.1 in run a, jax 0.12.0.1 + libtpu 0.0.50.1
  // in run b, both on the deviceless v5e:2x2: entry 3 is platform "tpu" and
  // libtpu's platform_version, which fixtures/tpu_topologies.json measured
  // for each build; entry 2 the jaxlib version.
  const std::string kind = "cache-deviceless-tpu-upgrade-0.12.0.1";
  LogComparison c = compareOracle(kind);
  std::map<std::string, std::string> version; // libtpu build -> platform_version
  const Json table = loadJson("fixtures/tpu_topologies.json");
  for (const auto &t : table["topologies"])
    if (t["id"] == "v5e:2x2")
      for (const auto &v : t["platform_versions"])
        version[v["libtpu"].get<std::string>()] = v["value"].get<std::string>();
  ASSERT_EQ(c.pairs.size(), 2u);
  for (const auto &p : c.pairs) {
    SCOPED_TRACE(c.labelOf(p));
    EXPECT_EQ(p.cause, 2);
    const auto &da = c.logs[0].programs[p.a].digests(), &db = c.logs[1].programs[p.b].digests();
    ASSERT_TRUE(da.own[2] && db.own[2]);
    auto va = decodeEntryDigest(3, *da.own[2]), vb = decodeEntryDigest(3, *db.own[2]);
    ASSERT_TRUE(va && vb);
    EXPECT_EQ(va->value, "tpu / " + version.at("0.0.42.1"));
    EXPECT_EQ(vb->value, "tpu / " + version.at("0.0.50.1"));
    auto ja = decodeEntryDigest(2, *da.own[1]), jb = decodeEntryDigest(2, *db.own[1]);
    ASSERT_TRUE(ja && jb);
    EXPECT_EQ(ja->value, "0.10.2");
    EXPECT_EQ(jb->value, "0.12.0.1");
  }
}

TEST(DiagOracleLogs, DevicelessGpuEntry3DecodesToTheMeasuredTarget) {
  // The CUDA plugin's compile-only client for the embedded NVIDIA H100 80GB
  // HBM3 target config: platform "gpu", platform_version the device
  // description (fixtures/gpu_topologies.json).
  LogComparison c = compareOracle("cache-deviceless-gpu-0.12.0.1");
  std::string expected;
  const Json table = loadJson("fixtures/gpu_topologies.json");
  for (const auto &t : table["topologies"])
    if (t["id"] == "NVIDIA H100 80GB HBM3/1x1x1")
      expected = t["platform"].get<std::string>() + " / " + t["platform_version"].get<std::string>();
  ASSERT_EQ(expected, "gpu / NVIDIA H100 80GB HBM3");
  for (const auto &p : c.logs[1].programs) {
    ASSERT_TRUE(p.digests().own[2]);
    auto v = decodeEntryDigest(3, *p.digests().own[2]);
    ASSERT_TRUE(v);
    EXPECT_EQ(v->value, expected);
  }
}

TEST(DiagOracleLogs, InterleavedThreadsAreToldToLogTheThreadNotDebug) {
  // Six threads compiled at once with DEBUG on and no thread in the format:
  // their key lines interleave, so keys are cut. The advice is to put the
  // thread in the format (separate_threads), never to log DEBUG (log_keys),
  // and each log still counts the programs JAX counted.
  const std::string kind = "logging-threads-interleaved-0.10.2";
  LogComparison c = compareOracle(kind);
  Json j = logComparisonToJson(c);
  EXPECT_EQ(j["logs"][0]["stats"]["programs"].get<long>(),
            jaxCount(kind, "a.log", "compile_requests_use_cache"));
  EXPECT_EQ(j["logs"][1]["stats"]["programs"].get<long>(),
            jaxCount(kind, "b.log", "compile_requests_use_cache"));
  bool threads = false;
  for (const LogAdvice &a : c.advice) {
    EXPECT_NE(a.code, LogAdvice::Code::LogKeys);
    threads = threads || a.code == LogAdvice::Code::SeparateThreads;
  }
  EXPECT_TRUE(threads);
}

} // namespace
} // namespace cachekey::test
