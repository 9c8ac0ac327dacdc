// Behaviours that JAX's own tests/cache_key_test.py asserts, ported to the
// engine. They compare keys with each other; no digest here is pasted from
// the engine's output.
#include "TestUtil.h"

#include "cachekey/Diff.h"
#include "cachekey/Wording.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {
std::string keyOf(const Json &doc) { return mustCompute(doc).key; }

const char *kSha256OfNothing =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

Json withPlatform(const std::string &platform, Json da) {
  return patched("add_1x1",
                 {{"backend", {{"platform", platform},
                               {"platform_version", "PJRT C API\ncuda 12080"}}},
                  {"compile_options", {{"edits", {{"device_assignment", da}}}}}});
}
} // namespace

TEST(Behaviour, SameInputsGiveTheSameKey) {
  EXPECT_EQ(keyOf(patched("add_1x1", Json::object())),
            keyOf(patched("add_1x1", Json::object())));
}

TEST(Behaviour, DifferentComputationsGiveDifferentKeys) {
  KeyResult a = mustCompute(patched("add_1x1", Json::object()));
  KeyResult b = mustCompute(patched("mul_2x2", Json::object()));
  EXPECT_NE(a.key, b.key);
  EXPECT_EQ(compareResults(a, b).cause, 1);
}

TEST(Behaviour, CustomHookChangesTheKey) {
  KeyResult a = mustCompute(patched("add_1x1", Json::object()));
  KeyResult b = mustCompute(patched("add_1x1", {{"custom_hook", "my_hook"}}));
  EXPECT_NE(a.key, b.key);
  Comparison c = compareResults(a, b);
  EXPECT_EQ(c.cause, 8);
  EXPECT_TRUE(c.consequences.empty());
}

TEST(Behaviour, DumpFieldsLeaveEntryFiveUnchanged) {
  for (const char *profile : {"0.10.2", "main"}) {
    SCOPED_TRACE(profile);
    Json dumps = Json::object();
    for (const auto &z : zeroedDebugFields(
             *parseProfile(profile))) {
      if (!findDebugOption(z.name))
        continue; // main-only field unknown to the 0.10.2 table
      const FieldKind kind = findDebugOption(z.name)->kind;
      dumps[z.name] = kind == FieldKind::String ? Json("/tmp/somewhere")
                      : kind == FieldKind::Bool ? Json(true)
                                                : Json(3);
    }
    ASSERT_GE(dumps.size(), 19u);
    Json profilePatch = {{"profile", profile}};
    KeyResult a = mustCompute(patched("add_1x1", profilePatch));
    Json withDumps = profilePatch;
    withDumps["compile_options"] = {{"edits", {{"debug_options", dumps}}}};
    KeyResult b = mustCompute(patched("add_1x1", withDumps));
    EXPECT_EQ(toHex(a.entries[4].digest), toHex(b.entries[4].digest));
    EXPECT_EQ(a.key, b.key);
  }
}

// The flag tests below port upstream tests (tests/cache_key_test.py) that set
// XLA_FLAGS after XLA started, so XLA never parses them: the scenarios say so
// with compile_options.xla_flags false, and entry 4 alone moves.
TEST(Behaviour, AutotuneLevelZeroAndOneDiffer) {
  KeyResult a = mustCompute(
      patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_gpu_autotune_level=0"}}}, {"compile_options", {{"xla_flags", false}}}}));
  KeyResult b = mustCompute(
      patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_gpu_autotune_level=1"}}}, {"compile_options", {{"xla_flags", false}}}}));
  EXPECT_NE(a.key, b.key);
  Comparison c = compareResults(a, b);
  EXPECT_EQ(c.cause, 4);
  const auto details = comparisonDetailsText(c);
  ASSERT_EQ(details.size(), 1u);
  EXPECT_EQ(details[0], "flag --xla_gpu_autotune_level=1 replaced "
                        "--xla_gpu_autotune_level=0");
  EXPECT_EQ(c.consequences, (std::vector<int>{5, 6, 7, 8}));
}

TEST(Behaviour, AddingAnExcludedFlagChangesNothing) {
  EXPECT_EQ(keyOf(patched("add_1x1", Json::object())),
            keyOf(patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_dump_to=/tmp/x"}}}})));
  // On main, the two later names are excluded too; on 0.10.2 they are kept.
  Json later = {{"flags", {{"XLA_FLAGS", "--xla_tpu_compiler_variant=x"}}}, {"compile_options", {{"xla_flags", false}}}};
  Json laterMain = later;
  laterMain["profile"] = "main";
  EXPECT_EQ(keyOf(patched("add_1x1", {{"profile", "main"}})),
            keyOf(patched("add_1x1", laterMain)));
  EXPECT_NE(keyOf(patched("add_1x1", Json::object())),
            keyOf(patched("add_1x1", later)));
}

TEST(Behaviour, ArgvFlagEqualsXlaFlagsFlag) {
  EXPECT_EQ(
      keyOf(patched("add_1x1", {{"flags", {{"argv", {"prog", "--xla_gpu_autotune_level=2"}}}}})),
      keyOf(patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_gpu_autotune_level=2"}}}, {"compile_options", {{"xla_flags", false}}}})));
}

TEST(Behaviour, DifferentLibtpuInitArgsGiveDifferentKeys) {
  EXPECT_NE(
      keyOf(patched("add_1x1", {{"flags", {{"LIBTPU_INIT_ARGS", "--xla_tpu_a=1"}}}})),
      keyOf(patched("add_1x1", {{"flags", {{"LIBTPU_INIT_ARGS", "--xla_tpu_a=2"}}}})));
}

TEST(Behaviour, DeviceAssignmentIsIgnoredOnlyOnGpu) {
  EXPECT_EQ(keyOf(withPlatform("gpu", {{0}})), keyOf(withPlatform("gpu", {{1}})));
  EXPECT_NE(keyOf(withPlatform("cpu", {{0}})), keyOf(withPlatform("cpu", {{1}})));
  EXPECT_NE(keyOf(withPlatform("tpu", {{0}})), keyOf(withPlatform("tpu", {{1}})));
}

TEST(Behaviour, NoFlagsAndNoHookDigestNothing) {
  KeyResult r = mustCompute(patched("add_1x1", {{"flags", nullptr}, {"custom_hook", ""}}));
  EXPECT_EQ(toHex(r.entries[3].digest), kSha256OfNothing);
  EXPECT_EQ(toHex(r.entries[7].digest), kSha256OfNothing);
}

TEST(Behaviour, FlagOrderDoesNotMatterBecauseFlagsAreSorted) {
  EXPECT_EQ(keyOf(patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_b=1 --xla_a=2"}}}, {"compile_options", {{"xla_flags", false}}}})),
            keyOf(patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_a=2 --xla_b=1"}}}, {"compile_options", {{"xla_flags", false}}}})));
}

TEST(Behaviour, HashStringHasNoSeparator) {
  // ["ab", "c"] and ["a", "bc"] feed identical bytes.
  EXPECT_EQ(keyOf(patched("add_1x1", {{"backend", {{"platform", "ab"}, {"platform_version", "c"}}}})),
            keyOf(patched("add_1x1", {{"backend", {{"platform", "a"}, {"platform_version", "bc"}}}})));
}

TEST(Behaviour, PythonThreeFourteenSaysZlib) {
  KeyResult a = mustCompute(patched("add_1x1", {{"compression", {{"python", "3.14"}, {"zstandard_installed", true}}}}));
  KeyResult b = mustCompute(patched("add_1x1", {{"compression", {{"python", "3.13"}, {"zstandard_installed", false}}}}));
  KeyResult c = mustCompute(patched("add_1x1", {{"compression", {{"python", "3.13"}, {"zstandard_installed", true}}}}));
  EXPECT_EQ(a.compression, "zlib");
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(c.compression, "zstandard");
  EXPECT_NE(a.key, c.key);
  EXPECT_FALSE(a.notes.empty());
}

TEST(Behaviour, StandInFingerprintIsLabelled) {
  KeyResult r = mustCompute(patched("add_1x1", Json::parse(R"({"accelerator":
      {"fingerprint": {"value": "0123456789abcdef", "provenance": "test",
                       "stand_in": true}}})")));
  EXPECT_TRUE(r.accelerator.standIn);
  EXPECT_EQ(toHex(r.entries[5].bytes), "0123456789abcdef");
  bool labelled = false;
  for (const auto &n : r.notes)
    labelled = labelled || noteText(n).find("stand-in") != std::string::npos;
  EXPECT_TRUE(labelled);
}

TEST(Behaviour, DeviceKindFallbackFeedsEachKindAndLogsTwice) {
  KeyResult r = mustCompute(patched("add_1x1", Json::parse(R"({"accelerator":
      {"device_kinds": ["TPU v4", " TPU v4 "], "error": "UNIMPLEMENTED: x"}})")));
  EXPECT_EQ(r.entries[5].bytes, "TPU v4TPU v4");
  int infoLines = 0;
  for (const auto &l : r.trace)
    if (l.message.find("falling back to hashing devices UNIMPLEMENTED: x") !=
        std::string::npos) {
      ++infoLines;
      // cache_key.py logs the fallback with logger.info.
      EXPECT_EQ(l.level, TraceLevel::Info);
    } else {
      EXPECT_EQ(l.level, TraceLevel::Debug) << l.message;
    }
  EXPECT_EQ(infoLines, 2);
}

TEST(Behaviour, FlagLinesAppearTwiceBeforeTheEntryFourDigests) {
  KeyResult r = mustCompute(patched(
      "add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_b --xla_dump_to=x --xla_a"}}}, {"compile_options", {{"xla_flags", false}}}}));
  std::vector<std::string> expected = {
      "Including XLA flag in cache key: --xla_a",
      "Including XLA flag in cache key: --xla_b",
      "Not including XLA flag in cache key: --xla_dump_to=x"};
  std::vector<std::string> messages;
  for (const TraceLine &t : r.trace)
    messages.push_back(t.message);
  auto it = std::find(messages.begin(), messages.end(), expected[0]);
  ASSERT_NE(it, messages.end());
  std::vector<std::string> got(it, it + 8);
  EXPECT_EQ(std::vector<std::string>(got.begin(), got.begin() + 3), expected);
  EXPECT_EQ(std::vector<std::string>(got.begin() + 3, got.begin() + 6), expected);
  EXPECT_EQ(got[6].rfind("get_cache_key hash of serialized XLA flags: ", 0), 0u);
  EXPECT_EQ(got[7].rfind("get_cache_key hash after serializing XLA flags: ", 0), 0u);
}

// The JSON the page animates the flag filter from: one step per flag in
// sorted order, each with its position in collection order (the order the
// test wrote them in) and JAX's log line for it.
TEST(Behaviour, FlagStepsInTheJsonCarryCollectionOrderAndLogLine) {
  Json j = resultToJson(mustCompute(patched(
      "add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_b --xla_dump_to=x --xla_a"},
                             {"argv", {"--xla_0"}}}},
                  {"compile_options", {{"xla_flags", false}}}})));
  const Json &f = j["flags"];
  ASSERT_EQ(f.size(), 4u);
  std::vector<std::string> sorted = {"--xla_0", "--xla_a", "--xla_b", "--xla_dump_to=x"};
  std::vector<size_t> collected = {3, 2, 0, 1}; // XLA_FLAGS in order, then argv
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(f[i]["flag"], sorted[i]);
    EXPECT_EQ(f[i]["collected"], collected[i]) << sorted[i];
    EXPECT_EQ(f[i]["log_line"], (i == 3 ? "Not including" : "Including") +
                                    std::string(" XLA flag in cache key: ") + sorted[i]);
  }
}

TEST(Behaviour, OptionsOverCapturedBytesAreNamedWhenNothingMoves) {
  KeyResult a = mustCompute(patched("lines_a_nometa", Json::object()));
  KeyResult b = mustCompute(patched(
      "lines_a_nometa", {{"module", {{"include_metadata", true}}}}));
  Comparison c = compareResults(a, b);
  EXPECT_EQ(c.cause, 0);
  EXPECT_NE(comparisonSentence(c).find("captured from jaxlib"), std::string::npos)
      << comparisonSentence(c);
}
