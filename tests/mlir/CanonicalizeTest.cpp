// Entry 1 computed live: canonicalize() on real jaxlib module text.
#include "MlirTestUtil.h"

#include "cachekey/Computation.h"
#include "cachekey/mlir/Canonicalize.h"

#include <regex>

using namespace cachekey;
using namespace cachekey::test;

namespace {

Expected<ComputationEntry> run(const std::string &text,
                               Profile profile = Profile::V0_11_2,
                               bool includeMetadata = false) {
  ModuleSpec m;
  m.text = text;
  m.includeMetadata = includeMetadata;
  return canonicalize(m, profile);
}

Bytes mustRun(const std::string &text, Profile profile = Profile::V0_11_2,
              bool includeMetadata = false) {
  auto e = run(text, profile, includeMetadata);
  if (!e) {
    ADD_FAILURE() << e.error().str();
    return {};
  }
  return e->bytes;
}

} // namespace

TEST(Canonicalize, LinesFixturesAgreeWithoutMetadata) {
  // Same function at two source lines: strip-debuginfo must erase the
  // difference (JAX's own keys for these two fixtures are equal).
  for (Profile p : {Profile::V0_11_2, Profile::V0_10_2}) {
    Bytes a = mustRun(fixtureModule("lines_a_nometa"), p);
    Bytes b = mustRun(fixtureModule("lines_b_nometa"), p);
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, b) << profileName(p);
  }
}

TEST(Canonicalize, LinesFixturesDifferWithMetadata) {
  std::string a = fixtureModule("lines_a_nometa");
  std::string b = fixtureModule("lines_b_nometa");
  ASSERT_NE(a, b);
  EXPECT_NE(mustRun(a, Profile::V0_11_2, true), mustRun(b, Profile::V0_11_2, true));
  EXPECT_NE(mustRun(a, Profile::V0_10_2, true),
            mustRun(b, Profile::V0_10_2, true));
}

TEST(Canonicalize, MetadataKeepsLocationsAndCanonicalDropsThem) {
  std::string a = fixtureModule("lines_a_nometa");
  ReadBack meta(mustRun(a, Profile::V0_11_2, true));
  ReadBack canon(mustRun(a, Profile::V0_11_2, false));
  ASSERT_TRUE(meta.module && canon.module);
  EXPECT_NE(meta.printed().find("capture.py"), std::string::npos);
  EXPECT_EQ(canon.printed().find("capture.py"), std::string::npos);
  EXPECT_EQ(canon.printed().find("loc(\"x\")"), std::string::npos);
}

TEST(Canonicalize, LocationOnlyEditsNeverChangeEntry1) {
  // Rewrites that touch nothing but locations: file names, line and column
  // numbers, name locations, and dropping a range's end.
  std::string base = fixtureModule("lines_a_nometa");
  Bytes reference = mustRun(base);
  std::vector<std::string> variants = {
      std::regex_replace(base, std::regex("/work/main/tools/capture\\.py"),
                         "/elsewhere/checkout/capture.py"),
      std::regex_replace(base, std::regex("\":([0-9]+):([0-9]+)"),
                         "\":9$1:1$2"),
      std::regex_replace(base, std::regex("loc\\(\"x\"\\)"), "loc(\"renamed\")"),
      std::regex_replace(base, std::regex(" to :[0-9]+"), ""),
      std::regex_replace(base, std::regex("jit\\(same_body\\)/"), "jit(other)/"),
  };
  for (size_t i = 0; i < variants.size(); ++i) {
    ASSERT_NE(variants[i], base) << "variant " << i << " edits nothing";
    EXPECT_EQ(mustRun(variants[i]), reference) << "variant " << i;
    EXPECT_EQ(mustRun(variants[i], Profile::V0_10_2),
              mustRun(base, Profile::V0_10_2))
        << "variant " << i;
  }
}

TEST(Canonicalize, PrettyAndGenericFormsOfPlainModules) {
  // A module with only builtin/func ops reads in either form, with the same
  // canonical bytes. (stablehlo ops need the generic form: the dialect is not
  // registered here.)
  std::string pretty =
      "module @jit_f {\n"
      "  func.func public @main(%arg0: i32 loc(\"a.py\":1:2)) -> i32 {\n"
      "    return %arg0 : i32 loc(\"a.py\":2:3)\n"
      "  } loc(\"a.py\":3:4)\n"
      "} loc(\"a.py\":4:5)\n";
  std::string generic =
      "\"builtin.module\"() <{sym_name = \"jit_f\"}> ({\n"
      "  \"func.func\"() <{function_type = (i32) -> i32, sym_name = \"main\", "
      "sym_visibility = \"public\"}> ({\n"
      "  ^bb0(%arg0: i32 loc(\"b.py\":7:7)):\n"
      "    \"func.return\"(%arg0) : (i32) -> () loc(\"b.py\":8:8)\n"
      "  }) : () -> () loc(\"b.py\":9:9)\n"
      "}) : () -> ()\n";
  EXPECT_EQ(mustRun(pretty), mustRun(generic));
  auto e = run(pretty);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->symName, "jit_f");
  EXPECT_TRUE(e->live);
  EXPECT_EQ(e->producer, "MLIR" LLVM_VERSION_STRING);
  EXPECT_EQ(e->bytes.compare(0, 4, "ML\xEFR"), 0);
}

TEST(Canonicalize, BytecodeInputGivesTheSameBytes) {
  std::string text = fixtureModule("lines_b_nometa");
  Bytes withLocations = mustRun(text, Profile::V0_11_2, /*includeMetadata=*/true);
  ASSERT_EQ(withLocations.compare(0, 4, "ML\xEFR"), 0);
  EXPECT_EQ(mustRun(withLocations), mustRun(text));
  EXPECT_EQ(mustRun(withLocations, Profile::V0_11_2, true), withLocations);
}

TEST(Canonicalize, CustomPartitioningRemovedOnlyWhenAsked) {
  for (const char *id : {"custom_partitioning_on", "custom_partitioning_off"}) {
    std::string text = fixtureModule(id);
    ASSERT_NE(text.find("CustomSPMDPartitioning"), std::string::npos);
    for (bool includeMetadata : {false, true}) {
      ModuleSpec m;
      m.text = text;
      m.includeMetadata = includeMetadata;

      m.ignoreCustomPartitioning = false;
      auto off = canonicalize(m, Profile::V0_11_2);
      ASSERT_TRUE(off) << off.error().str();
      ReadBack offBack(off->bytes);
      ASSERT_EQ(offBack.backendConfigs().size(), 1u);
      EXPECT_NE(offBack.backendConfigs()[0], "REMOVED");
      EXPECT_FALSE(offBack.backendConfigs()[0].empty());

      m.ignoreCustomPartitioning = true;
      auto on = canonicalize(m, Profile::V0_11_2);
      ASSERT_TRUE(on) << on.error().str();
      EXPECT_EQ(ReadBack(on->bytes).backendConfigs(),
                std::vector<std::string>{"REMOVED"});

      // 0.10.2 spells the option IgnoreCallbacks.
      m.ignoreCustomPartitioning = false;
      for (auto mode : {IgnoreCallbacks::CustomPartitioning,
                        IgnoreCallbacks::All}) {
        m.ignoreCallbacks = mode;
        auto old = canonicalize(m, Profile::V0_10_2);
        ASSERT_TRUE(old) << old.error().str();
        EXPECT_EQ(old->bytes, on->bytes);
      }
      m.ignoreCallbacks = IgnoreCallbacks::No;
      auto oldOff = canonicalize(m, Profile::V0_10_2);
      ASSERT_TRUE(oldOff);
      EXPECT_EQ(oldOff->bytes, off->bytes);
    }
  }
}

TEST(Canonicalize, OnlyZeroTenTwoAllRewritesHostCallbacks) {
  std::string text = customCallModule("xla_python_cpu_callback", "140650980882704");
  std::string other = customCallModule("callback_not_at_end", "keep me");
  ModuleSpec m;
  m.text = text;
  auto configs = [&](Profile p) {
    auto e = canonicalize(m, p);
    EXPECT_TRUE(e) << (e ? "" : e.error().str());
    return e ? ReadBack(e->bytes).backendConfigs() : std::vector<std::string>{};
  };
  using V = std::vector<std::string>;
  m.ignoreCallbacks = IgnoreCallbacks::All;
  EXPECT_EQ(configs(Profile::V0_10_2), V{"REMOVED"});
  m.ignoreCallbacks = IgnoreCallbacks::CustomPartitioning;
  EXPECT_EQ(configs(Profile::V0_10_2), V{"140650980882704"});
  m.ignoreCallbacks = IgnoreCallbacks::No;
  EXPECT_EQ(configs(Profile::V0_10_2), V{"140650980882704"});
  // main has no ALL: its one option only covers custom partitioning.
  m.ignoreCustomPartitioning = true;
  EXPECT_EQ(configs(Profile::V0_11_2), V{"140650980882704"});

  m = ModuleSpec();
  m.text = other;
  m.ignoreCallbacks = IgnoreCallbacks::All;
  EXPECT_EQ(configs(Profile::V0_10_2), V{"keep me"});
}

TEST(Canonicalize, NonStringCallTargetNameIsAnError) {
  // Upstream asserts that call_target_name is a StringAttr on every op that
  // has one, whenever callbacks are being removed.
  std::string text = customCallModule("x", "y");
  text = std::regex_replace(text, std::regex("call_target_name = \"x\""),
                            "call_target_name = 7 : i32");
  ModuleSpec m;
  m.text = text;
  auto plain = canonicalize(m, Profile::V0_10_2);
  EXPECT_TRUE(plain); // nothing is removed, nothing is checked
  m.ignoreCallbacks = IgnoreCallbacks::CustomPartitioning;
  auto e = canonicalize(m, Profile::V0_10_2);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("stablehlo.custom_call"), std::string::npos);
  EXPECT_NE(e.error().message.find("call_target_name"), std::string::npos);
}

TEST(Canonicalize, MalformedModuleIsAnErrorWithLineAndColumn) {
  // `%9` is used (line 3, column 14) but never defined.
  std::string bad = "module @m {\n  %0 = \"x.y\"() : () -> i32\n"
                    "  %1 = \"x.z\"(%9) : (i32) -> i32\n}\n";
  auto e = run(bad);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("3:14: use of undeclared SSA value"),
            std::string::npos)
      << e.error().message;
  // The next call works, and gives what it gave before the failure.
  std::string good = fixtureModule("lines_a_nometa");
  Bytes first = mustRun(good);
  for (int i = 0; i < 3; ++i) {
    ASSERT_FALSE(run(bad));
    EXPECT_EQ(mustRun(good), first);
  }
}

TEST(Canonicalize, OtherFailuresAreErrors) {
  EXPECT_FALSE(run(""));
  auto noName = run("module {\n}\n");
  ASSERT_FALSE(noName);
  EXPECT_NE(noName.error().message.find("sym_name"), std::string::npos);
  auto badBytecode = run(std::string("ML\xEFR\x02garbage", 12));
  ASSERT_FALSE(badBytecode);
  EXPECT_NE(badBytecode.error().message.find("bytecode"), std::string::npos);
  // The jaxlib-only pretty syntax of stablehlo is an error, not a crash.
  auto pretty = run(fixtureModule("lines_a_nometa", "module_pretty"));
  ASSERT_FALSE(pretty);
  EXPECT_NE(pretty.error().message.find("5:10: "), std::string::npos)
      << pretty.error().message;
  ModuleSpec none;
  EXPECT_FALSE(canonicalize(none, Profile::V0_11_2));
}

TEST(Canonicalize, RegisteredCanonicalizerServesComputationEntry) {
  registerMlirCanonicalizer();
  ASSERT_TRUE(hasCanonicalizer());
  ModuleSpec m;
  m.text = fixtureModule("lines_a_nometa");
  m.symName = "jit_same_body";
  auto e = computationEntry(m, Profile::V0_11_2);
  ASSERT_TRUE(e) << e.error().str();
  EXPECT_EQ(e->bytes, mustRun(*m.text));
  m.symName = "jit_other";
  auto mismatch = computationEntry(m, Profile::V0_11_2);
  ASSERT_FALSE(mismatch);
  EXPECT_EQ(mismatch.error().path, "$.module.sym_name");
  m.symName.clear();
  m.text = "not mlir";
  auto bad = computationEntry(m, Profile::V0_11_2);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().path, "$.module.text");
}

// Reported by a tester: 3,000 nested regions overflowed MLIR's recursive
// parser (a segfault). Deep nesting is now refused before parsing.
TEST(Canonicalize, DeeplyNestedRegionsAreAnErrorNotACrash) {
  const int n = 3000;
  std::string text = "\"builtin.module\"() <{sym_name = \"a\"}> ({";
  for (int i = 0; i < n; ++i)
    text += "\"test.op\"() ({";
  for (int i = 0; i < n; ++i)
    text += "}) : () -> ()";
  text += "}) : () -> ()";
  ModuleSpec m;
  m.text = text;
  auto r = canonicalize(m, Profile::V0_11_2);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nest more than"), std::string::npos)
      << r.error().message;
}
