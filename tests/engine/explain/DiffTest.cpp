// Field-level scenario diffs: one root cause however many entries it moves,
// entry 6 named field by field, every moved entry-5 field listed, inputs
// that are not hashed named, long values shortened (page findings F13, F14,
// F17 of the 2026-11-30 review).
#include "TestUtil.h"

#include "cachekey/Diff.h"
#include "cachekey/Wording.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {

Comparison diff(const Json &a, const Json &b) {
  return compareResults(mustCompute(a), mustCompute(b));
}

bool has(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

Json cpuTopology(int devices, const std::string &cpu) {
  Json d = Json::array();
  for (int i = 0; i < devices; ++i)
    d.push_back({{"process_index", 0}, {"local_hardware_id", i}});
  return {{"cpu_topology",
           {{"devices", d},
            {"target_machine",
             {{"triple", "x86_64-unknown-linux-gnu"}, {"cpu", cpu},
              {"features", "+avx,+avx2,-avx512f"}}}}}};
}

} // namespace

TEST(Diff, F13DeviceCountAndCpuModelAreNamedBeforeTheFingerprint) {
  Comparison c = diff(patched("add_1x1", {{"accelerator", cpuTopology(1, "znver3")}}),
                      patched("add_1x1", {{"accelerator", cpuTopology(4, "znver4")}}));
  EXPECT_EQ(c.cause, 6);
  ASSERT_EQ(comparisonDetailsText(c).size(), 3u);
  EXPECT_EQ(comparisonDetailsText(c)[0], "CPU model 'znver3' → 'znver4'");
  EXPECT_EQ(comparisonDetailsText(c)[1], "devices 1 → 4 (ids [0] → [0, 1, 2, 3])");
  EXPECT_EQ(comparisonDetailsText(c)[2].rfind("topology fingerprint ", 0), 0u);
  EXPECT_TRUE(has(comparisonSentence(c), "devices 1 → 4")) << comparisonSentence(c);
}

TEST(Diff, CpuTopologyFieldsAreFactsWithCodes) {
  // The one CPU routine of key and capture diffs (acceleratorChanges): the
  // model, the triple, the enabled ('+') features added and removed, the
  // device count with the ids, as codes and fields.
  using C = EntryChange::Code;
  auto entry = [](const CpuTopology &t) {
    AcceleratorEntry e;
    e.spec = t;
    return e;
  };
  auto codes = [](const std::vector<EntryChange> &changes) {
    std::vector<C> out;
    for (const auto &c : changes)
      out.push_back(c.code);
    return out;
  };
  CpuTopology a, b;
  a.devices.resize(1);
  b.devices.resize(4);
  for (int i = 0; i < 4; ++i)
    b.devices[i].localHardwareId = i;
  a.cpu = "skylake";
  b.cpu = "znver3";
  a.triple = b.triple = "x86_64-unknown-linux-gnu";
  a.features = "+avx,+sse4.2,-xop";
  b.features = "+avx,+avx2,-xop";
  auto ch = acceleratorChanges(entry(a), entry(b));
  ASSERT_EQ(codes(ch), (std::vector<C>{C::CpuModel, C::CpuFeaturesAdded,
                                       C::CpuFeaturesRemoved, C::DeviceCount}));
  EXPECT_EQ(ch[0].before, "skylake");
  EXPECT_EQ(ch[0].after, "znver3");
  EXPECT_EQ(ch[1].names, std::vector<std::string>{"avx2"});
  EXPECT_EQ(ch[2].names, std::vector<std::string>{"sse4.2"});
  EXPECT_EQ(ch[3].sizeBefore, 1u);
  EXPECT_EQ(ch[3].sizeAfter, 4u);
  EXPECT_EQ(ch[3].names, (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_TRUE(acceleratorChanges(entry(a), entry(a)).empty());
  // The same features in another order enable the same set.
  b = a;
  b.features = "+sse4.2,-xop,+avx";
  EXPECT_EQ(codes(acceleratorChanges(entry(a), entry(b))),
            std::vector<C>{C::CpuFeaturesRewritten});
  // Another device id, the same count; process 1's ids are "1:id".
  b = a;
  b.devices[0].processIndex = 1;
  b.devices[0].localHardwareId = 3;
  ch = acceleratorChanges(entry(a), entry(b));
  ASSERT_EQ(codes(ch), std::vector<C>{C::DeviceIds});
  EXPECT_EQ(ch[0].namesBefore, std::vector<std::string>{"0"});
  EXPECT_EQ(ch[0].names, std::vector<std::string>{"1:3"});
  b = a;
  b.triple = "aarch64-unknown-linux-gnu";
  ch = acceleratorChanges(entry(a), entry(b));
  ASSERT_EQ(codes(ch), std::vector<C>{C::TargetTriple});
  EXPECT_EQ(ch[0].after, "aarch64-unknown-linux-gnu");
}

TEST(Diff, GpuTopologyFieldsAreNamed) {
  // gpu_topology is accepted only where entry 6 hashes topology.serialize()
  // (before jax 0.10.0, here profile 0.9.2).
  auto gpu = [](int hosts, int devices) {
    return patched("add_1x1", {{"profile", "0.9.2"},
                               {"accelerator",
                                {{"cpu_topology", nullptr},
                                 {"gpu_topology",
                                  {{"platform_version", "NVIDIA H100 80GB HBM3"},
                                   {"num_partitions", 1},
                                   {"num_hosts_per_partition", hosts},
                                   {"num_devices_per_host", devices}}}}}});
  };
  Comparison c = diff(gpu(2, 1), gpu(4, 8));
  EXPECT_EQ(c.cause, 6);
  EXPECT_TRUE(has(comparisonSentence(c), "num_hosts_per_partition 2 → 4")) << comparisonSentence(c);
  EXPECT_TRUE(has(comparisonSentence(c), "num_devices_per_host 1 → 8")) << comparisonSentence(c);
}

TEST(Diff, F14LongValuesAreShortenedInSentencesAndDetails) {
  std::string hook(12000, 'h');
  Comparison c = diff(patched("add_1x1", Json::object()),
                      patched("add_1x1", {{"custom_hook", hook}}));
  EXPECT_EQ(c.cause, 8);
  EXPECT_LT(comparisonSentence(c).size(), 500u) << comparisonSentence(c).size();
  ASSERT_EQ(comparisonDetailsText(c).size(), 1u);
  EXPECT_TRUE(has(comparisonDetailsText(c)[0], "(12002 chars)")) << comparisonDetailsText(c)[0];
  EXPECT_LT(comparisonDetailsText(c)[0].size(), 200u);
  // A long flag too.
  Comparison f = diff(patched("add_1x1", Json::object()),
                      patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_gpu_x=" + hook}}},
                                          {"compile_options", {{"xla_flags", false}}}}));
  EXPECT_LT(comparisonSentence(f).size(), 600u);
}

TEST(Diff, F17ZeroedDebugOptionIsNamedAsNotHashed) {
  Comparison c = diff(
      patched("add_1x1", Json::object()),
      patched("add_1x1", {{"compile_options",
                           {{"edits", {{"debug_options", {{"xla_dump_to", "/tmp/x"}}}}}}}}));
  EXPECT_EQ(c.cause, 0);
  EXPECT_TRUE(has(comparisonSentence(c), "Not hashed, so not a cause: DebugOptions.xla_dump_to"))
      << comparisonSentence(c);
  EXPECT_TRUE(has(comparisonSentence(c), "zeroed before entry 5 is hashed")) << comparisonSentence(c);
}

TEST(Diff, AFlagAndTheDebugOptionItSetsAreOneCause) {
  Comparison c = diff(
      patched("add_1x1", Json::object()),
      patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_cpu_enable_fast_math=true"}}},
                          {"compile_options",
                           {{"edits", {{"debug_options", {{"xla_cpu_enable_fast_math", true}}}}}}}}));
  EXPECT_EQ(c.cause, 4);
  EXPECT_EQ(c.withCause, std::vector<int>{5});
  EXPECT_TRUE(c.alsoChanged.empty());
  EXPECT_EQ(c.role(5), EntryRole::WithCause);
  EXPECT_FALSE(has(comparisonSentence(c), "Another ingredient")) << comparisonSentence(c);
  // The same DebugOptions field without the flag is a second change.
  Comparison two = diff(
      patched("add_1x1", Json::object()),
      patched("add_1x1", {{"flags", {{"XLA_FLAGS", "--xla_gpu_autotune_level=1"}}},
                          {"compile_options",
                           {{"xla_flags", false}, // XLA did not parse the flag
                            {"edits", {{"debug_options", {{"xla_cpu_enable_fast_math", true}}}}}}}}));
  EXPECT_EQ(two.cause, 4);
  EXPECT_EQ(two.alsoChanged, std::vector<int>{5});
  EXPECT_EQ(two.role(5), EntryRole::AlsoChanged);
  EXPECT_TRUE(has(comparisonSentence(two), "Another ingredient moved too: entry 5 (compile_options): "
                                "DebugOptions.xla_cpu_enable_fast_math"))
      << comparisonSentence(two);
}

TEST(Diff, AJaxlibChangeIsTheRootCauseOfTheModuleChange) {
  Comparison c = diff(patched("add_1x1", Json::object()),
                      patched("mul_2x2", {{"jaxlib_version", "0.12.0.1"}}));
  EXPECT_EQ(c.cause, 2);
  EXPECT_EQ(c.withCause, std::vector<int>{1});
  EXPECT_TRUE(has(comparisonSentence(c), "nothing to look for in the program")) << comparisonSentence(c);
  EXPECT_EQ(c.role(1), EntryRole::WithCause);
}

TEST(Diff, OneConsequenceIsSingular) {
  Comparison c = diff(patched("add_1x1", Json::object()),
                      patched("add_1x1", {{"compression", "zstandard"}}));
  EXPECT_EQ(c.cause, 7);
  EXPECT_TRUE(has(comparisonSentence(c), "Entry 8 differs only as a consequence: its own digest is "
                              "unchanged"))
      << comparisonSentence(c);
}

// Issue 22, item 7: say why nothing moved. `_hash_string` in
// jax/_src/cache_key.py feeds `s.encode("utf-8").strip()`, so a platform,
// compression name or custom_hook value with whitespace around it feeds the
// same bytes as without: the comparison names the two inputs and the reason.
TEST(Diff, WhitespaceHashStringStripsIsNamedWhenNothingMoved) {
  Comparison c = diff(patched("add_1x1", Json::object()),
                      patched("add_1x1", {{"backend", {{"platform", " cpu "}}}}));
  EXPECT_EQ(c.cause, 0);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_EQ(c.changes[0].code, EntryChange::Code::StrippedEqual);
  EXPECT_EQ(c.changes[0].entry, 3);
  EXPECT_EQ(c.changes[0].subject, "platform");
  EXPECT_EQ(c.changes[0].before, "cpu");
  EXPECT_EQ(c.changes[0].after, " cpu ");
  EXPECT_TRUE(has(comparisonSentence(c), "hash-string strips ASCII whitespace")) << comparisonSentence(c);

  Comparison hook = diff(patched("add_1x1", Json::object()),
                         patched("add_1x1", {{"custom_hook", "\thook\n"}}));
  EXPECT_EQ(hook.cause, 8) << "a hook of \"hook\" moves entry 8 (the baseline's is \"\")";
  Comparison same = diff(patched("add_1x1", {{"custom_hook", "hook"}}),
                         patched("add_1x1", {{"custom_hook", "\thook\n"}}));
  EXPECT_EQ(same.cause, 0);
  ASSERT_EQ(same.changes.size(), 1u);
  EXPECT_EQ(same.changes[0].entry, 8);
  EXPECT_EQ(same.changes[0].after, "\thook\n");
}

// Issue 22, item 2: many moved fields of one entry are one clause in the
// sentence ("entry 5: 20 DebugOptions fields"), while the details keep one
// line per field. The five fields are the ones this test sets.
TEST(Diff, ManyMovedFieldsOfOneEntryAreOneClause) {
  Json edits = {{"xla_cpu_enable_fast_math", true},
                {"xla_backend_optimization_level", 1},
                {"xla_gpu_autotune_level", 1},
                {"xla_cpu_fast_math_honor_nans", false},
                {"xla_llvm_disable_expensive_passes", true}};
  Comparison c = diff(patched("add_1x1", Json::object()),
                      patched("add_1x1", {{"compile_options", {{"edits", {{"debug_options", edits}}}}}}));
  EXPECT_EQ(c.cause, 5);
  EXPECT_EQ(comparisonDetailsText(c).size(), 5u) << "one detail per field";
  EXPECT_TRUE(has(comparisonSentence(c), "The cause is entry 5 (compile_options): 5 DebugOptions fields ("))
      << comparisonSentence(c);
  EXPECT_TRUE(has(comparisonSentence(c), " and 2 more)")) << comparisonSentence(c);
  EXPECT_FALSE(has(comparisonSentence(c), "; and ")) << "no field list cut by count: " << comparisonSentence(c);
  // three fields stay listed one by one
  Json three = {{"xla_cpu_enable_fast_math", true},
                {"xla_backend_optimization_level", 1},
                {"xla_gpu_autotune_level", 1}};
  Comparison t = diff(patched("add_1x1", Json::object()),
                      patched("add_1x1", {{"compile_options", {{"edits", {{"debug_options", three}}}}}}));
  EXPECT_EQ(comparisonDetailsText(t).size(), 3u);
  EXPECT_FALSE(has(comparisonSentence(t), "DebugOptions fields (")) << comparisonSentence(t);
  EXPECT_TRUE(has(comparisonSentence(t), "DebugOptions.xla_gpu_autotune_level")) << comparisonSentence(t);
}

// Issue 22, item 2: every verdict ends with what to do, chosen from the
// root cause the test made move.
TEST(Diff, EveryVerdictHasWhatToDo) {
  struct Case { Json patch; Advice want; };
  std::vector<Case> cases = {
      {Json::object(), Advice::NothingToDo},
      {{{"flags", {{"XLA_FLAGS", "--xla_dump_to=/tmp/d"}}}}, Advice::OnlyUnhashed},
      {{{"jaxlib_version", "0.0.1"}}, Advice::JaxlibVersion},
      {{{"backend", {{"platform_version", "other"}}}}, Advice::Backend},
      {{{"flags", {{"XLA_FLAGS", "--xla_gpu_autotune_level=1"}}}}, Advice::Flags},
      {{{"custom_hook", "hook"}}, Advice::CustomHook},
  };
  for (const auto &k : cases) {
    Comparison c = diff(patched("add_1x1", Json::object()), patched("add_1x1", k.patch));
    EXPECT_EQ(c.advice, k.want) << k.patch.dump() << ": " << comparisonSentence(c);
    EXPECT_FALSE(comparisonAdviceText(c).empty()) << k.patch.dump();
    EXPECT_EQ(comparisonAdviceText(c), adviceText(k.want));
  }
}
