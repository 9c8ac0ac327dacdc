// Which JAX options move which entries (engine/lib/profile/JaxConfigTable.cpp).
//
// Expected values, none taken from the reader's output:
// - the shape of each table: the eight entry names of each release's
//   jax/_src/cache_key.py (read upstream), the six probe kinds of
//   tools/jax_config/probe.py, 64-hex digests;
// - digests recomputed here with SHA-256 from what cache_key.py hashes for
//   entries 2, 7 and 8 (the jaxlib version string, "zlib": the venvs have
//   no zstandard module, the empty custom hook), which shows the table's digests are the per-entry ones;
// - facts from JAX's documented behaviour: jax_use_shardy_partitioner is a
//   field of the CompileOptionsProto's ExecutableBuildOptions (entry 5 of
//   every program) and changes how shardings are lowered (entry 1 of the
//   sharded program only); jax_enable_compilation_cache=False makes JAX
//   compute no key; the PRNG implementation reaches only programs that
//   draw random bits; no option can move entries 2, 3, 4, 7 or 8, whose
//   inputs (jaxlib's version, the platform_version, XLA_FLAGS, the
//   compression name, custom_hook()) no option sets;
// - for the error paths and the query, tables this test writes.
#include "TestUtil.h"

#include "cachekey/JaxConfigTable.h"
#include "cachekey/Sha256.h"

#include <functional>

using namespace cachekey;
using namespace cachekey::test;

namespace {

// Releases with a table; kReleases have shardy on by default (0.10.2+).
const char *kAllReleases[] = {"0.6.2", "0.10.2", "0.12.0.1"};
const char *kReleases[] = {"0.10.2", "0.12.0.1"};

std::string sha256Hex(const std::string &s) {
  Sha256 h;
  h.update(s.data(), s.size());
  return toHex(h.runningDigest());
}

bool isHex64(const std::string &s) {
  return s.size() == 64 &&
         s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

const std::vector<ProbeKind> kUnsharded = {ProbeKind::Elementwise, ProbeKind::Dot,
                                           ProbeKind::Random, ProbeKind::Donation,
                                           ProbeKind::FloatConstant};

bool contains(const std::vector<const JaxOption *> &v, const std::string &name) {
  return std::any_of(v.begin(), v.end(), [&](const JaxOption *o) { return o->name == name; });
}

TEST(JaxConfigTable, EveryReleaseHasACompiledInTable) {
  std::vector<std::string> want(std::begin(kAllReleases), std::end(kAllReleases));
  EXPECT_EQ(jaxConfigTableVersions(), want);
  EXPECT_EQ(jaxConfigTable("0.9.2"), nullptr);
}

/// The entry names of `release`'s jax/_src/cache_key.py get(), in hashing
/// order: 0.4.30 hashes no backend version (seven entries).
std::vector<std::string> entryNames(const std::string &release) {
  std::vector<std::string> names = {
      "computation", "jax_lib version", "backend version", "XLA flags",
      "compile_options", "accelerator_config", "compression", "custom_hook"};
  if (release == "0.4.30")
    names.erase(names.begin() + 2);
  return names;
}

size_t indexOf(const std::vector<std::string> &names, const std::string &name) {
  return static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

TEST(JaxConfigTable, ShapeMatchesCacheKeyPyAndTheProbeSet) {
  for (const std::string &release : jaxConfigTableVersions()) {
    SCOPED_TRACE(release);
    const JaxConfigTable *t = jaxConfigTable(release);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->jax, release);
    EXPECT_EQ(t->jaxlib, release);
    const std::vector<std::string> names = entryNames(release);
    EXPECT_EQ(t->entries, names);
    EXPECT_EQ(t->programs.size(), allProbeKinds().size());
    for (ProbeKind k : allProbeKinds()) {
      SCOPED_TRACE(probeKindCode(k));
      ASSERT_EQ(t->programs.count(k), 1u);
      const ProbeBaseline &b = t->programs.at(k);
      ASSERT_EQ(b.digests.size(), names.size());
      for (const auto &d : b.digests)
        EXPECT_TRUE(isHex64(d)) << d;
      // Entries jax_lib version, compression and custom_hook recomputed
      // from what cache_key.py hashes. The release venvs hold no
      // `zstandard` module, so compilation_cache.py compresses with zlib
      // and passes "zlib".
      EXPECT_EQ(b.digests[indexOf(names, "jax_lib version")], sha256Hex(t->jaxlib));
      EXPECT_EQ(b.digests[indexOf(names, "compression")], sha256Hex("zlib"));
      EXPECT_EQ(b.digests[indexOf(names, "custom_hook")], sha256Hex(""));
      // The final key is "<module name>-<64 hex>", the module jit_<kind>
      // (0.4.30's compiler logs no key on a miss).
      if (release != "0.4.30") {
        EXPECT_EQ(b.key.rfind(std::string("jit_") + probeKindCode(k) + "-", 0), 0u) << b.key;
      }
    }
    size_t measured = 0;
    for (const auto &[name, o] : t->options) {
      SCOPED_TRACE(name);
      if (o.status != JaxOption::Status::Measured) {
        EXPECT_FALSE(o.reason.empty());
        continue;
      }
      ++measured;
      EXPECT_FALSE(o.valueJson.empty());
      EXPECT_NE(o.valueJson, o.defaultJson);
      EXPECT_EQ(o.programs.size(), allProbeKinds().size());
      for (const auto &[kind, e] : o.programs)
        for (int n : e.moved) {
          ASSERT_EQ(e.after.count(n), 1u);
          EXPECT_TRUE(isHex64(e.after.at(n)));
          // A moved entry's digest differs from the baseline's.
          EXPECT_NE(e.after.at(n), t->programs.at(kind).digests[n - 1]);
        }
    }
    EXPECT_GT(measured, 60u);
  }
}

TEST(JaxConfigTable, ShardyMovesCompileOptionsEverywhereAndTheShardedProgram) {
  for (const char *release : kReleases) {
    SCOPED_TRACE(release);
    const JaxConfigTable *t = jaxConfigTable(release);
    ASSERT_NE(t, nullptr);
    const JaxOption &o = t->options.at("jax_use_shardy_partitioner");
    ASSERT_EQ(o.status, JaxOption::Status::Measured);
    for (ProbeKind k : kUnsharded)
      EXPECT_EQ(o.programs.at(k).moved, (EntrySet{5})) << probeKindCode(k);
    EXPECT_EQ(o.programs.at(ProbeKind::Sharded).moved, (EntrySet{1, 5}));
    std::map<ProbeKind, EntrySet> seen;
    for (ProbeKind k : kUnsharded)
      seen[k] = {5};
    seen[ProbeKind::Sharded] = {1, 5};
    EXPECT_TRUE(contains(settingsMovingExactly(*t, seen), "jax_use_shardy_partitioner"));
    // Exactly: entry 5 alone in the sharded program is not what it does.
    EXPECT_FALSE(contains(settingsMovingExactly(*t, {5}, allProbeKinds()),
                          "jax_use_shardy_partitioner"));
  }
}

TEST(JaxConfigTable, DisablingTheCacheComputesNoKey) {
  for (const std::string &release : jaxConfigTableVersions()) {
    SCOPED_TRACE(release);
    const JaxOption &o = jaxConfigTable(release)->options.at("jax_enable_compilation_cache");
    ASSERT_EQ(o.status, JaxOption::Status::Measured);
    EXPECT_EQ(o.valueJson, "false");
    for (const auto &[k, e] : o.programs)
      EXPECT_EQ(e.outcome, ProbeEffect::Outcome::NoKey) << probeKindCode(k);
  }
}

TEST(JaxConfigTable, PrngImplementationMovesOnlyTheRandomProgram) {
  for (const std::string &release : jaxConfigTableVersions()) {
    SCOPED_TRACE(release);
    const JaxConfigTable *t = jaxConfigTable(release);
    const JaxOption &o = t->options.at("jax_default_prng_impl");
    ASSERT_EQ(o.status, JaxOption::Status::Measured);
    EXPECT_EQ(o.programs.at(ProbeKind::Random).moved, (EntrySet{1}));
    for (ProbeKind k : {ProbeKind::Elementwise, ProbeKind::Dot, ProbeKind::Sharded,
                        ProbeKind::Donation, ProbeKind::FloatConstant})
      EXPECT_TRUE(o.programs.at(k).moved.empty()) << probeKindCode(k);
    std::map<ProbeKind, EntrySet> seen = {{ProbeKind::Random, {1}}, {ProbeKind::Dot, {}}};
    EXPECT_TRUE(contains(settingsMovingExactly(*t, seen), "jax_default_prng_impl"));
  }
}

TEST(JaxConfigTable, X64MovesTheProgramOnlyWhereA64BitTypeAppears) {
  // The probes' arrays are float32 and their Python scalars weakly typed,
  // so x64 leaves their lowering alone (JAX's type promotion rules); the
  // random probe's PRNGKey(seed) splits a 64-bit seed under x64.
  for (const std::string &release : jaxConfigTableVersions()) {
    SCOPED_TRACE(release);
    const JaxOption &o = jaxConfigTable(release)->options.at("jax_enable_x64");
    ASSERT_EQ(o.status, JaxOption::Status::Measured);
    EXPECT_EQ(o.programs.at(ProbeKind::Random).moved, (EntrySet{1}));
    EXPECT_TRUE(o.programs.at(ProbeKind::Elementwise).moved.empty());
    EXPECT_TRUE(o.programs.at(ProbeKind::Dot).moved.empty());
  }
}

TEST(JaxConfigTable, NoOptionMovesTheEntriesNoOptionFeeds) {
  for (const std::string &release : jaxConfigTableVersions()) {
    SCOPED_TRACE(release);
    for (const auto &[name, o] : jaxConfigTable(release)->options)
      for (int n : o.moves())
        EXPECT_TRUE(n == 1 || n == 5 || n == 6) << name << " moves entry " << n;
  }
}

// A minimal valid table with two entries and two options, edited per case.
Json smallTable() {
  return Json::parse(R"({
    "jax": "9.9", "provenance": {"jaxlib": "9.9", "python": "3.12", "date": "d", "command": "c"},
    "entries": ["computation", "compile_options"],
    "programs": {"dot": {"description": "d", "key": "", "digests": ["a", "b"]},
                 "sharded": {"description": "s", "key": "", "digests": ["c", "d"]}},
    "options": {
      "opt_a": {"holder": "State", "type": "bool", "default": true, "value": false,
                "status": "measured",
                "programs": {"dot": {"outcome": "key", "moved": [2], "after": {"2": "x"}},
                             "sharded": {"outcome": "key", "moved": [1, 2]}}},
      "opt_b": {"holder": "State", "type": "bool", "default": false, "value": true,
                "status": "measured",
                "programs": {"dot": {"outcome": "key", "moved": [2]},
                             "sharded": {"outcome": "key", "moved": [2]}}},
      "opt_c": {"holder": "State", "type": "string", "default": "", "status": "skipped",
                "reason": "a string option"}}})");
}

TEST(JaxConfigTable, QueryMatchesExactlyPerKind) {
  auto t = readJaxConfigTable(dumpJson(smallTable()));
  ASSERT_TRUE(static_cast<bool>(t)) << t.error().str();
  auto names = [](const std::vector<const JaxOption *> &v) {
    std::vector<std::string> out;
    for (auto *o : v)
      out.push_back(o->name);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(names(settingsMovingExactly(*t, {{ProbeKind::Dot, {2}}, {ProbeKind::Sharded, {1, 2}}})),
            (V{"opt_a"}));
  EXPECT_EQ(names(settingsMovingExactly(*t, {2}, {ProbeKind::Dot, ProbeKind::Sharded})),
            (V{"opt_b"}));
  EXPECT_EQ(names(settingsMovingExactly(*t, {2}, {ProbeKind::Dot})), (V{"opt_a", "opt_b"}));
  // A kind the table did not measure matches nothing; nor does an empty query.
  EXPECT_TRUE(settingsMovingExactly(*t, {2}, {ProbeKind::Random}).empty());
  EXPECT_TRUE(settingsMovingExactly(*t, std::map<ProbeKind, EntrySet>{}).empty());
  EXPECT_EQ(t->options.at("opt_c").status, JaxOption::Status::Skipped);
  EXPECT_EQ(t->options.at("opt_a").programs.at(ProbeKind::Dot).after.at(2), "x");

  // A program compiled in another's place never matches, even for no move.
  Json j = smallTable();
  j["options"]["opt_b"]["programs"]["dot"] = {{"outcome", "other_program"},
                                              {"modules", {"jit_sin"}}};
  auto t2 = readJaxConfigTable(dumpJson(j));
  ASSERT_TRUE(static_cast<bool>(t2)) << t2.error().str();
  const ProbeEffect &e = t2->options.at("opt_b").programs.at(ProbeKind::Dot);
  EXPECT_EQ(e.outcome, ProbeEffect::Outcome::OtherProgram);
  EXPECT_EQ(e.modules, (V{"jit_sin"}));
  EXPECT_EQ(names(settingsMovingExactly(*t2, {2}, {ProbeKind::Dot})), (V{"opt_a"}));
  EXPECT_TRUE(settingsMovingExactly(*t2, EntrySet{}, {ProbeKind::Dot}).empty());
}

TEST(JaxConfigTable, BadTablesAreErrorsWithTheirPath) {
  struct Case {
    std::function<void(Json &)> edit;
    ErrorCode code;
    std::string path;
  };
  std::vector<Case> cases = {
      {[](Json &j) { j.erase("entries"); }, ErrorCode::Missing, "$.entries"},
      {[](Json &j) { j["jax"] = 7; }, ErrorCode::Type, "$.jax"},
      {[](Json &j) { j["programs"]["matmul"] = j["programs"]["dot"]; }, ErrorCode::Invalid,
       "$.programs.matmul"},
      {[](Json &j) { j["programs"]["dot"]["digests"] = Json::array({"a"}); }, ErrorCode::Type,
       "$.programs.dot.digests"},
      {[](Json &j) { j["options"]["opt_a"]["programs"]["dot"]["moved"][0] = "2"; },
       ErrorCode::Type, "$.options.opt_a.programs.dot.moved[0]"},
      {[](Json &j) { j["options"]["opt_a"]["programs"]["dot"]["moved"][0] = 3; },
       ErrorCode::Invalid, "$.options.opt_a.programs.dot.moved[0]"},
      {[](Json &j) { j["options"]["opt_a"]["programs"]["dot"]["outcome"] = "maybe"; },
       ErrorCode::Invalid, "$.options.opt_a.programs.dot.outcome"},
      {[](Json &j) { j["options"]["opt_a"]["programs"]["dot"]["after"] = {{"1", "y"}}; },
       ErrorCode::Invalid, "$.options.opt_a.programs.dot.after.1"},
      {[](Json &j) { j["options"]["opt_b"]["status"] = "done"; }, ErrorCode::Invalid,
       "$.options.opt_b.status"},
      {[](Json &j) { j["options"]["opt_c"].erase("reason"); }, ErrorCode::Missing,
       "$.options.opt_c.reason"},
      {[](Json &j) { j["options"]["opt_b"].erase("programs"); }, ErrorCode::Missing,
       "$.options.opt_b.programs"},
      {[](Json &j) { j["options"]["opt_b"]["programs"]["dot"] = {{"outcome", "other_program"}}; },
       ErrorCode::Missing, "$.options.opt_b.programs.dot.modules"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    Json j = smallTable();
    cases[i].edit(j);
    auto t = readJaxConfigTable(dumpJson(j));
    ASSERT_FALSE(static_cast<bool>(t));
    EXPECT_EQ(t.error().code, cases[i].code) << t.error().str();
    EXPECT_EQ(t.error().path, cases[i].path) << t.error().str();
    EXPECT_FALSE(t.error().message.empty());
  }
  auto bad = readJaxConfigTable("{\"jax\": ");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.error().code, ErrorCode::Syntax);
  EXPECT_EQ(bad.error().path, "$");
}

} // namespace
