// engine/lib/logs/LogEvidence.cpp: why a pair's key moved, as facts.
#include "LogTestUtil.h"
#include "cachekey/Wording.h"

#include <fstream>
#include <tuple>

using namespace cachekey;
using namespace cachekey::test;
using C = EntryChange::Code;
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

TEST(LogEvidence, TheSameReleasesTheOtherWayAreADowngrade) {
  // Case 09's runs given in the other order: the second run has jaxlib
  // 0.10.2, the first 0.12.0.1 (tests/cases/09-jax-upgrade/README.md).
  auto c = compareCase("09-jax-upgrade", "after_upgrade.log", "before_upgrade.log");
  ASSERT_GE(c.explained, 0);
  const KeyMove &m = c.moveOf(c.pairs[c.explained]);
  EXPECT_EQ(m.code, M::JaxlibDowngrade);
  EXPECT_EQ(m.before, "0.12.0.1");
  EXPECT_EQ(m.after, "0.10.2");
  EXPECT_EQ(logs::keyMoveText(m), "the jaxlib downgrade 0.12.0.1 \u2192 0.10.2");
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
  EXPECT_EQ(c.findings[0].code, C::LoggedDeviceCount);
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

namespace {

/// The last program block of `text`: from its last `get_compile_options`
/// line to the end.
std::string lastBlock(const std::string &text) {
  size_t at = text.rfind("get_compile_options: num");
  at = at == std::string::npos ? 0 : text.rfind('\n', at);
  return text.substr(at == std::string::npos ? 0 : at + 1);
}

/// Each pair's move and cause must be what explainPair gives for that pair
/// on its own (compareLogSummaries explains pairs alike in what explainPair
/// reads once, in parallel; an every-program move is set for all after).
void expectEachPairAsExplainedAlone(const LogComparison &c, const std::string &what) {
  size_t checked = 0;
  for (const ProgramPair &p : c.pairs) {
    if (p.a < 0 || p.b < 0)
      continue;
    const LoggedProgram &pa = c.logs[0].programs[p.a], &pb = c.logs[1].programs[p.b];
    if (!pa.complete() || !pb.complete() || c.moveOf(p).code == M::EveryProgram)
      continue;
    logs::PairExplanation alone = logs::explainPair(c.logs[0], c.logs[1], pa, pb);
    EXPECT_EQ(c.moveOf(p), alone.move) << what << ": " << c.labelOf(p);
    if (p.keys == ProgramPair::Keys::Differ) {
      EXPECT_EQ(p.cause, alone.comparison.cause) << what << ": " << c.labelOf(p);
    }
    ++checked;
  }
  EXPECT_GT(checked, 0u) << what;
}

} // namespace

TEST(LogEvidence, PairsAlikeAreExplainedOnceAndJaxsOwnNamesStillApart) {
  // Case 23: jit_step's program changed between the runs (the last block
  // of each log). Copies of that block under another user name and under one
  // of JAX's own names have the same digests, flags and options as
  // jit_step: the user's copy moved as jit_step did, JAX's own (a primitive,
  // a private helper) are said to be JAX's own (the name is the one thing
  // explainPair reads that differs).
  const std::string dir = sourcePath("tests/cases/23-one-program-changed/");
  std::string a = readText(dir + "run1.log"), b = readText(dir + "run2.log");
  auto renamed = [](std::string block, const std::string &name) {
    for (size_t at; (at = block.find("jit_step")) != std::string::npos;)
      block.replace(at, 8, name);
    return block;
  };
  std::string blockA = lastBlock(a), blockB = lastBlock(b);
  ASSERT_NE(blockA.find("'jit_step'"), std::string::npos);
  ASSERT_NE(blockB.find("'jit_step'"), std::string::npos);
  for (const char *name : {"jit_user_copy", "jit_iota", "jit__linspace"}) {
    a += renamed(blockA, name);
    b += renamed(blockB, name);
  }
  auto c = compareLogs(a, b, "run1.log", "run2.log");
  ASSERT_TRUE(c) << c.error().str();
  const ProgramPair *step = pairLabelled(*c, "jit_step");
  const ProgramPair *copy = pairLabelled(*c, "jit_user_copy");
  const ProgramPair *iota = pairLabelled(*c, "jit_iota");
  const ProgramPair *helper = pairLabelled(*c, "jit__linspace");
  ASSERT_TRUE(step && copy && iota && helper);
  EXPECT_EQ(c->moveOf(*step).code, M::ProgramChanged);
  EXPECT_EQ(c->moveOf(*copy).code, M::ProgramChanged);
  EXPECT_EQ(c->moveOf(*iota).code, M::JaxOwnProgram);
  EXPECT_EQ(c->moveOf(*helper).code, M::JaxOwnProgram);
  for (const ProgramPair *p : {step, copy, iota, helper})
    EXPECT_EQ(p->cause, 1) << c->labelOf(*p);
  expectEachPairAsExplainedAlone(*c, "case 23 with copies");
}

TEST(LogEvidence, EveryCasePairIsExplainedAsItWouldBeAlone) {
  // Real logs of many kinds (upgrades, flags, devices, two processes,
  // shapes), and a wave boundary: 9,000 copies of one case's programs.
  for (auto [dir, x, y] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"09-jax-upgrade", "before_upgrade.log", "after_upgrade.log"},
           {"21-device-count", "run1_311.log", "run2_311.log"},
           {"23-one-program-changed", "run1.log", "run2.log"},
           {"26-two-processes-one-log", "run1.log", "run2.log"},
           {"28-upgrade-and-flag", "run1.log", "run2.log"},
           {"30-shapes-other-order", "train-first.log", "eval-first.log"},
           {"34-x64-from-environment", "workstation-a.log", "workstation-b.log"}}) {
    std::string pa = sourcePath("tests/cases/" + dir + "/" + x),
                pb = sourcePath("tests/cases/" + dir + "/" + y);
    if (!std::ifstream(pa) || !std::ifstream(pb)) {
      ADD_FAILURE() << "missing " << pa << " or " << pb;
      continue;
    }
    auto c = compareLogs(readText(pa), readText(pb), x, y);
    ASSERT_TRUE(c) << dir << ": " << c.error().str();
    expectEachPairAsExplainedAlone(*c, dir);
  }
  std::string a = readText(sourcePath("tests/cases/09-jax-upgrade/before_upgrade.log"));
  std::string b = readText(sourcePath("tests/cases/09-jax-upgrade/after_upgrade.log"));
  std::string manyA, manyB;
  for (int i = 0; i < 3000; ++i)
    manyA += a, manyB += b;
  auto c = compareLogs(manyA, manyB, "A", "B");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_GT(c->pairs.size(), 8192u); // more than one wave of pairs
  expectEachPairAsExplainedAlone(*c, "09 repeated");
}

// Case 33's second run, moved to another directory (the one change made
// here): its misses are that directory's, whatever run 1's LRU evicted.
TEST(LogEvidence, AnotherDirectoryComesBeforeAnEviction) {
  std::string a = readText(sourcePath("tests/cases/33-size-cap-eviction/run1.log"));
  std::string b = readText(sourcePath("tests/cases/33-size-cap-eviction/run2.log"));
  const std::string init = "Initialized persistent compilation cache at /scratch/jax-cache/case-06";
  size_t at = b.find(init);
  ASSERT_NE(at, std::string::npos);
  b.replace(at, init.size(), "Initialized persistent compilation cache at /scratch/jax-cache/elsewhere");
  auto same = compareLogs(a, readText(sourcePath("tests/cases/33-size-cap-eviction/run2.log")));
  auto moved = compareLogs(a, b);
  ASSERT_TRUE(same && moved);
  const ProgramPair *p = pairLabelled(*same, "jit_stage");
  const ProgramPair *q = pairLabelled(*moved, "jit_stage");
  ASSERT_TRUE(p && q && p->miss && q->miss);
  EXPECT_EQ(*p->miss, MissReason::Evicted); // the case's README
  EXPECT_EQ(*q->miss, MissReason::OtherDir);
}

// Case 41 (real runs, its README): both runs set the relative path 'cache'
// from different working directories, and run A's size cap evicted some of
// its entries. Its never-evicted entries were missed too, so every miss is
// the relative path's, the evicted ones included.
TEST(LogEvidence, ARelativeDirectoryExplainsTheEvictedEntriesToo) {
  auto c = compareCase("41-relative-cache-dir-evicted", "rel_a.log", "rel_b.log");
  size_t misses = 0;
  for (const auto &p : c.pairs)
    if (p.miss) {
      ++misses;
      EXPECT_EQ(*p.miss, MissReason::RelativeDir) << c.labelOf(p);
    }
  EXPECT_EQ(misses, 9u);
  EXPECT_FALSE(c.logs[0].evicted.empty());
}

// jax_enable_x64 turned off in the second run narrows every dtype: the same
// setting (case 34's logs in the other order, the change made here).
TEST(LogEvidence, X64TurnedOffIsX64Too) {
  auto c = compareCase("34-x64-from-environment", "workstation-b.log", "workstation-a.log");
  ASSERT_GE(c.explained, 0);
  const KeyMove &m = c.moveOf(c.pairs[c.explained]);
  EXPECT_EQ(m.code, M::EnableX64);
  EXPECT_EQ(m.before.find("float64"), 0u) << m.before;
}
// tests/cases/42 (real jax 0.10.2 runs): jax_persistent_cache_enable_xla_caches
// = 'none' in the second run, same cache directory: both programs' entry 5
// moved for that setting, not for another directory.
TEST(LogEvidence, XlaCachesNoneIsTheSettingNotAnotherDirectory) {
  auto c = compareCase("42-xla-caches-none-and-cache-off", "plain.log", "none.log");
  EXPECT_EQ(c.comparison.cause, 5);
  ASSERT_EQ(c.pairs.size(), 2u);
  for (const ProgramPair &p : c.pairs) {
    EXPECT_EQ(p.keys, ProgramPair::Keys::Differ);
    EXPECT_EQ(c.moveOf(p).code, M::XlaCachesSetting);
    EXPECT_EQ(c.moveOf(p).after, "none.log");
  }
  ASSERT_FALSE(c.findings.empty());
  EXPECT_EQ(c.findings[0].code, C::XlaCachesOneSide);
  EXPECT_EQ(c.findings[0].entry, 5);
  EXPECT_EQ(c.findings[0].subject, "none.log");
  ASSERT_EQ(c.advice.size(), 1u);
  EXPECT_EQ(c.advice[0].code, LogAdvice::Code::SameXlaCaches);
  EXPECT_EQ(c.advice[0].value, "none.log");
}

// The same case: jax_enable_compilation_cache=False. Two compiles and not
// one cache line: the comparison is refused, with a subject that says why.
TEST(LogEvidence, ARunWithTheCacheOffIsNamedAsSuch) {
  auto c = compareLogs(readText(sourcePath("tests/cases/42-xla-caches-none-and-cache-off/plain.log")),
                       readText(sourcePath("tests/cases/42-xla-caches-none-and-cache-off/off.log")),
                       "plain.log", "off.log");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().path, "off.log");
  EXPECT_EQ(c.error().subject, "compiled_without_cache");
  EXPECT_NE(c.error().message.find("compiled 2 programs"), std::string::npos);
}

// A user's private function, lambda or __call__ is named like JAX's private
// helpers (a leading underscore: jit__update, jit__lambda, jit___call), as
// real runs of 2026-12-04 showed; only JAX's own helper names are JAX's.
TEST(LogEvidence, AUsersPrivateFunctionIsNotJaxsOwn) {
  for (const char *own : {"jit__linspace", "jit__threefry_seed", "jit__reduce_sum",
                          "jit__uniform", "jit_broadcast_in_dim"})
    EXPECT_TRUE(logs::isJaxOwnProgram(own)) << own;
  for (const char *user : {"jit__lambda", "jit__update", "jit___call", "jit__train_step",
                           "jit_step"})
    EXPECT_FALSE(logs::isJaxOwnProgram(user)) << user;
}

// The programs real JAX compiled by itself when its functions ran outside
// jit (fixtures/jax_own_programs/<release>.json, tools/jax_own_programs.py:
// jnp's jit_multiply, jit_true_divide, jit_matmul, … that a user's x * 2.0
// compiles, missing from the hand-made lists before) are all JAX's own.
TEST(LogEvidence, EveryProgramJaxCompiledEagerlyIsJaxsOwn) {
  for (const char *release : {"0.4.30", "0.10.2", "0.12.0.1"}) {
    std::ifstream in(sourcePath(std::string("fixtures/jax_own_programs/") + release + ".json"));
    Json j = Json::parse(in);
    ASSERT_EQ(j["jax"], release);
    ASSERT_GT(j["names"].size(), 200u) << release;
    for (auto &[name, from] : j["names"].items())
      EXPECT_TRUE(logs::isJaxOwnProgram(name)) << release << ": " << name << " (" << from << ")";
  }
  for (const char *own : {"jit_multiply", "jit_subtract", "jit_true_divide", "jit_negative",
                          "jit_matmul", "jit_maximum", "jit_greater", "jit_abs", "jit_clip"})
    EXPECT_TRUE(logs::isJaxOwnProgram(own)) << own;
}

// tests/cases/52: one jax option set in the second run (the change the case
// made) moved entry 5 of every program. The logs show the same cache
// directory and device assignment, so the finding does not ask about them,
// and both it and the advice name the option among those the release's
// measured table says move entry 5.
TEST(LogEvidence, AJaxOptionThatMovesEntry5IsNamed) {
  for (auto [a, b, option, release] :
       {std::tuple<const char *, const char *, const char *, const char *>{
            "a.log", "b.log", "jax_exec_time_optimization_effort", "0.10.2"},
        {"c.log", "d.log", "jax_disable_most_optimizations", "0.12.0.1"}}) {
    SCOPED_TRACE(release);
    LogComparison c = compareCase("52-jax-option-moves-compile-options", a, b);
    ASSERT_FALSE(c.findings.empty());
    const EntryChange &f = c.findings[0];
    EXPECT_EQ(f.code, C::CompileOptionsUnknown);
    EXPECT_TRUE(f.pathsLoggedSame);
    EXPECT_TRUE(f.optionsLoggedSame);
    EXPECT_EQ(f.subject, release);
    EXPECT_NE(std::find(f.names.begin(), f.names.end(), option), f.names.end());
    const std::string text = entryChangeText(f);
    EXPECT_EQ(text.find("did the runs use different jax_compilation_cache_dir"), std::string::npos);
    EXPECT_EQ(text.find("Enable DEBUG on jax._src.compiler"), std::string::npos);
    ASSERT_FALSE(c.advice.empty());
    EXPECT_EQ(c.advice[0].settingsRelease, release);
    EXPECT_NE(std::find(c.advice[0].settings.begin(), c.advice[0].settings.end(), option),
              c.advice[0].settings.end());
  }
}

// tests/cases/54: both runs log jax._src.lru_cache at DEBUG and neither shows
// an eviction; the entry was deleted between them (the change the case
// made). The advice says neither LRU evicted it, and does not ask for the
// logging the runs already had.
TEST(LogEvidence, KeepCacheDirKnowsTheLruWasLogged) {
  LogComparison c = compareCase("54-cache-emptied-lru-logged", "a.log", "b.log");
  auto it = std::find_if(c.advice.begin(), c.advice.end(), [](const LogAdvice &a) {
    return a.code == LogAdvice::Code::KeepCacheDir;
  });
  ASSERT_NE(it, c.advice.end());
  EXPECT_TRUE(it->evictionsLogged);
  const std::string text = c.adviceText(*it);
  EXPECT_EQ(text.find("log DEBUG for jax._src.lru_cache"), std::string::npos);
  EXPECT_NE(text.find("Neither run's LRU evicted them"), std::string::npos);
}

TEST(LogCacheDirs, OneFolderSpelledTwoWaysIsOneFolder) {
  // helper-20's run: '/w/cache' and '/w/cache/' were "different cache
  // directories". Expected from the rule (lexical: "//", "." and a trailing
  // '/' do not change a path; ".." and symbolic links are not resolved).
  using cachekey::logs::sameCachePath;
  using cachekey::logs::mayResolveTo;
  EXPECT_TRUE(sameCachePath("/w/cache", "/w/cache/"));
  EXPECT_TRUE(sameCachePath("/w//cache", "/w/./cache"));
  EXPECT_TRUE(sameCachePath("cache", "./cache/"));
  EXPECT_FALSE(sameCachePath("/w/cache", "/w/cache2"));
  EXPECT_FALSE(sameCachePath("/w/a/../cache", "/w/cache"));
  EXPECT_FALSE(sameCachePath("cache", "/w/cache"));
  EXPECT_TRUE(mayResolveTo("cache", "/w/cache"));
  EXPECT_TRUE(mayResolveTo("./x/cache/", "/w/x/cache"));
  EXPECT_FALSE(mayResolveTo("cache", "/w/mycache"));
  EXPECT_FALSE(mayResolveTo(".", "/w"));
}
