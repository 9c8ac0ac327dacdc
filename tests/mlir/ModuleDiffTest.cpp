// The structural module diff (engine/mlir/lib/ModuleDiff.cpp) and its JAX
// findings (engine/lib/explain/ModuleDiff.cpp).
//
// Two kinds of expectation, both the change the test (or the capture) made:
//  - hand-mutated modules: one attribute, one constant, one op, one argument
//    attribute, one location changed in MLIR text → exactly that change;
//  - real captures (tests/capture/module_diff/<jax>/<class>/{a,b}.json,
//    made by tests/capture/module_diff/make_pairs.sh and assemble.py with
//    real JAX, each pair differing in one thing, see program.py) → the
//    finding code of that one thing.
#include "../engine/TestUtil.h"
#include "cachekey/Diff.h"
#include "cachekey/ModuleDiff.h"
#include "cachekey/Wording.h"
#include "cachekey/mlir/Canonicalize.h"
#include "cachekey/mlir/ModuleDiff.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace cachekey {
namespace {

using K = ModuleChange::Kind;
using C = ModuleFinding::Code;

/// A small module in generic form, with `constant`, `precision` and an
/// optional extra op and argument attribute spliced in.
std::string module(const std::string &constant = "1.000000e+00",
                   const std::string &precision = "DEFAULT",
                   const std::string &extraOp = "",
                   const std::string &argAttr = "",
                   const std::string &target = "my_kernel",
                   const std::string &moduleAttrs = "",
                   const std::string &loc = "") {
  return "module attributes {mhlo.num_partitions = 1 : i32" + moduleAttrs +
         "} {\n"
         "  func.func public @main(%arg0: tensor<4x4xf32>" + argAttr +
         ") -> tensor<4x4xf32> {\n"
         "    %0 = \"stablehlo.constant\"() {value = dense<" + constant +
         "> : tensor<f32>} : () -> tensor<f32>\n"
         "    %1 = \"stablehlo.broadcast_in_dim\"(%0) {broadcast_dimensions = "
         "array<i64>} : (tensor<f32>) -> tensor<4x4xf32>\n"
         "    %2 = \"stablehlo.multiply\"(%arg0, %1) : (tensor<4x4xf32>, "
         "tensor<4x4xf32>) -> tensor<4x4xf32>\n" + extraOp +
         "    %3 = \"stablehlo.dot_general\"(%2, %2) {dot_dimension_numbers = "
         "#stablehlo<dot lhs_contracting_dimensions = [1], "
         "rhs_contracting_dimensions = [0]>, precision_config = "
         "[#stablehlo<precision " + precision + ">, #stablehlo<precision " +
         precision + ">]} : (tensor<4x4xf32>, tensor<4x4xf32>) -> "
         "tensor<4x4xf32>\n"
         "    %4 = \"stablehlo.custom_call\"(%3) {call_target_name = \"" +
         target + "\", backend_config = \"\"} : (tensor<4x4xf32>) -> "
         "tensor<4x4xf32>" + loc + "\n"
         "    return %4 : tensor<4x4xf32>\n"
         "  }\n"
         "}\n";
}

ModuleDiff mustDiff(const std::string &a, const std::string &b) {
  auto d = diffModules(a, b);
  EXPECT_TRUE(d) << (d ? "" : d.error().str());
  return d ? *d : ModuleDiff{};
}

std::vector<C> codes(const ModuleDiff &d) {
  std::vector<C> out;
  for (auto &f : d.findings)
    out.push_back(f.code);
  return out;
}

std::vector<K> kinds(const ModuleDiff &d) {
  std::vector<K> out;
  for (auto &c : d.changes)
    out.push_back(c.kind);
  return out;
}

TEST(ModuleDiff, SameModuleHasNoChange) {
  ModuleDiff d = mustDiff(module(), module());
  EXPECT_TRUE(d.same);
  EXPECT_TRUE(d.changes.empty());
  EXPECT_TRUE(d.findings.empty());
  EXPECT_EQ(d.opsBefore, 6u); // the ops written in module(): 5 + return
}

TEST(ModuleDiff, OneConstantChanged) {
  ModuleDiff d = mustDiff(module("1.000000e+00"), module("2.000000e+00"));
  ASSERT_EQ(kinds(d), std::vector<K>{K::ConstantChanged});
  EXPECT_EQ(d.changes[0].op, "stablehlo.constant");
  EXPECT_EQ(d.changes[0].func, "main");
  EXPECT_NE(d.changes[0].before.find("1.000000e+00"), std::string::npos);
  EXPECT_NE(d.changes[0].after.find("2.000000e+00"), std::string::npos);
  EXPECT_EQ(codes(d), std::vector<C>{C::BakedConstant});
  EXPECT_NE(moduleFindingAdvice(d.findings[0]).find("traced argument"),
            std::string::npos);
}

TEST(ModuleDiff, OneAttributeChangedByName) {
  ModuleDiff d = mustDiff(module(), module("1.000000e+00", "HIGHEST"));
  ASSERT_EQ(kinds(d), std::vector<K>{K::AttributeChanged});
  EXPECT_EQ(d.changes[0].attr, "precision_config");
  EXPECT_EQ(d.changes[0].op, "stablehlo.dot_general");
  EXPECT_NE(d.changes[0].after.find("HIGHEST"), std::string::npos);
  EXPECT_EQ(codes(d), std::vector<C>{C::MatmulPrecision});
  EXPECT_NE(moduleFindingText(d.findings[0]).find("jax_default_matmul_precision"),
            std::string::npos);
}

TEST(ModuleDiff, OneUnusedOpAdded) {
  std::string extra = "    %9 = \"stablehlo.sort\"(%2) : (tensor<4x4xf32>) -> "
                      "tensor<4x4xf32>\n";
  ModuleDiff d = mustDiff(module(), module("1.000000e+00", "DEFAULT", extra));
  ASSERT_EQ(kinds(d), std::vector<K>{K::OpAdded});
  EXPECT_EQ(d.changes[0].op, "stablehlo.sort");
  EXPECT_EQ(codes(d), std::vector<C>{C::Structural});
  EXPECT_NE(moduleFindingText(d.findings[0]).find("1 operation added: stablehlo.sort"),
            std::string::npos);
  EXPECT_EQ(d.opsAfter, d.opsBefore + 1);
}

TEST(ModuleDiff, OneOpRemovedIsTheMirror) {
  std::string extra = "    %9 = \"stablehlo.sort\"(%2) : (tensor<4x4xf32>) -> "
                      "tensor<4x4xf32>\n";
  ModuleDiff d = mustDiff(module("1.000000e+00", "DEFAULT", extra), module());
  ASSERT_EQ(kinds(d), std::vector<K>{K::OpRemoved});
  EXPECT_EQ(d.changes[0].op, "stablehlo.sort");
}

TEST(ModuleDiff, RewiredOperandsAreNamed) {
  // dot_general(%2, %2) → dot_general(%arg0, %2): same ops, same types.
  std::string a = module();
  std::string b = a;
  b.replace(b.find("(%2, %2)"), 8, "(%arg0, %2)");
  ModuleDiff d = mustDiff(a, b);
  ASSERT_EQ(kinds(d), std::vector<K>{K::OperandsChanged});
  EXPECT_EQ(d.changes[0].op, "stablehlo.dot_general");
}

TEST(ModuleDiff, DonationIsAnArgumentAttribute) {
  ModuleDiff d = mustDiff(
      module(), module("1.000000e+00", "DEFAULT", "",
                       " {tf.aliasing_output = 0 : i32}"));
  ASSERT_EQ(kinds(d), std::vector<K>{K::ArgAttribute});
  EXPECT_EQ(d.changes[0].attr, "tf.aliasing_output");
  EXPECT_EQ(d.changes[0].index, 0);
  EXPECT_EQ(d.changes[0].before, "");
  EXPECT_EQ(codes(d), std::vector<C>{C::Donation});
  EXPECT_NE(moduleFindingAdvice(d.findings[0]).find("donate_argnums"),
            std::string::npos);
}

TEST(ModuleDiff, CustomCallTargetIsACustomCall) {
  // The target is part of the alignment key, so a renamed target is one op
  // removed and one added, both custom_calls.
  ModuleDiff d = mustDiff(
      module(), module("1.000000e+00", "DEFAULT", "", "", "other_kernel"));
  EXPECT_EQ(codes(d), std::vector<C>{C::CustomCall});
  ASSERT_EQ(kinds(d), (std::vector<K>{K::OpRemoved, K::OpAdded}));
  EXPECT_EQ(d.changes[0].target, "my_kernel");
  EXPECT_EQ(d.changes[1].target, "other_kernel");
}

TEST(ModuleDiff, BackendConfigIsACustomCall) {
  std::string a = module(), b = a;
  b.replace(b.find("backend_config = \"\""), 19, "backend_config = \"x\"");
  ModuleDiff d = mustDiff(a, b);
  ASSERT_EQ(kinds(d), std::vector<K>{K::CustomCallConfig});
  EXPECT_EQ(d.changes[0].target, "my_kernel");
  EXPECT_EQ(codes(d), std::vector<C>{C::CustomCall});
}

TEST(ModuleDiff, NumPartitionsIsSharding) {
  std::string a = module(), b = a;
  b.replace(b.find("mhlo.num_partitions = 1"), 23, "mhlo.num_partitions = 4");
  ModuleDiff d = mustDiff(a, b);
  ASSERT_EQ(kinds(d), std::vector<K>{K::ModuleAttribute});
  EXPECT_EQ(d.changes[0].attr, "mhlo.num_partitions");
  EXPECT_EQ(codes(d), std::vector<C>{C::Sharding});
}

TEST(ModuleDiff, OnlyLocationsIsMetadataInKey) {
  ModuleDiff d = mustDiff(
      module("1.000000e+00", "DEFAULT", "", "", "my_kernel", "",
             " loc(\"f.py\":10:3)"),
      module("1.000000e+00", "DEFAULT", "", "", "my_kernel", "",
             " loc(\"f.py\":11:3)"));
  ASSERT_EQ(kinds(d), std::vector<K>{K::Locations});
  EXPECT_EQ(d.changes[0].count, 1u);
  EXPECT_EQ(codes(d), std::vector<C>{C::MetadataInKey});
}

TEST(ModuleDiff, TextPositionsAreNotLocations) {
  // The same module one line lower in the text: the parser's own positions
  // move, no location was written.
  ModuleDiff d = mustDiff(module(), "\n" + module());
  EXPECT_TRUE(d.same) << moduleDiffToJson(d).dump();
}

TEST(ModuleDiff, ArgumentTypeWidened) {
  std::string a = "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
                  "  return %arg0 : tensor<2xf32>\n}\n";
  std::string b = "func.func @main(%arg0: tensor<2xf64>) -> tensor<2xf32> {\n"
                  "  %0 = \"stablehlo.convert\"(%arg0) : (tensor<2xf64>) -> "
                  "tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
  ModuleDiff d = mustDiff(a, b);
  ASSERT_FALSE(d.findings.empty());
  EXPECT_EQ(d.findings[0].code, C::ArgumentTypes);
  EXPECT_TRUE(d.findings[0].x64);
  EXPECT_EQ(d.findings[0].changes[0].before, "tensor<2xf32>");
  EXPECT_EQ(d.findings[0].changes[0].after, "tensor<2xf64>");
}

TEST(ModuleDiff, OpsThatOnlyTookTheNewTypesAreCountedNotListed) {
  // The same two operations on another shape: the function's added and
  // removed operations are the same kinds, so they only took the new types.
  auto fn = [](const std::string &t) {
    return "func.func @main(%arg0: " + t + ") -> " + t + " {\n"
           "  %0 = \"stablehlo.tanh\"(%arg0) : (" + t + ") -> " + t + "\n"
           "  %1 = \"stablehlo.add\"(%0, %arg0) : (" + t + ", " + t + ") -> " +
           t + "\n  return %1 : " + t + "\n}\n";
  };
  ModuleDiff d = mustDiff(fn("tensor<4x4xf32>"), fn("tensor<8x4xf32>"));
  ASSERT_EQ(codes(d), std::vector<C>{C::ArgumentTypes});
  EXPECT_FALSE(d.findings[0].x64);
  EXPECT_EQ(d.findings[0].total, 1u); // argument 0 of @main only
  EXPECT_GT(d.findings[0].retyped, 0u);
  // An operation of another kind on top is structure, not a retyping.
  std::string b = fn("tensor<8x4xf32>");
  b.insert(b.find("  return"), "  %9 = \"stablehlo.sort\"(%1) : "
                               "(tensor<8x4xf32>) -> tensor<8x4xf32>\n");
  EXPECT_EQ(codes(mustDiff(fn("tensor<4x4xf32>"), b)),
            (std::vector<C>{C::ArgumentTypes, C::Structural}));
}

/// @main calling @`helper`, which calls @inner: both private.
std::string withHelper(const std::string &helper, const std::string &op) {
  return "func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
         "  %0 = func.call @" + helper + "(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n"
         "  return %0 : tensor<4xf32>\n}\n"
         "func.func private @" + helper + "(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
         "  %0 = func.call @inner(%arg0) : (tensor<4xf32>) -> tensor<4xf32>\n"
         "  return %0 : tensor<4xf32>\n}\n"
         "func.func private @inner(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
         "  %0 = \"" + op + "\"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
         "  return %0 : tensor<4xf32>\n}\n";
}

TEST(ModuleDiff, CodeOnlyRandomHelpersCallIsRandomBits) {
  // @inner is called only from jax.random's @_uniform: its change is the
  // random-bit code's.
  EXPECT_EQ(codes(mustDiff(withHelper("_uniform", "stablehlo.add"),
                           withHelper("_uniform", "stablehlo.xor"))),
            std::vector<C>{C::RandomBits});
  // The same change under a user's function is structure.
  EXPECT_EQ(codes(mustDiff(withHelper("my_layer", "stablehlo.add"),
                           withHelper("my_layer", "stablehlo.xor"))),
            std::vector<C>{C::Structural});
}

TEST(ModuleDiff, OptimizationBarrierIsTheCheckpointPolicy) {
  std::string a = module();
  std::string b = a;
  b.insert(b.find("    %3 = "),
           "    %9 = \"stablehlo.optimization_barrier\"(%2) : "
           "(tensor<4x4xf32>) -> tensor<4x4xf32>\n"
           "    %10 = \"stablehlo.tanh\"(%9) : (tensor<4x4xf32>) -> "
           "tensor<4x4xf32>\n");
  ModuleDiff d = mustDiff(a, b);
  ASSERT_EQ(codes(d), std::vector<C>{C::Checkpoint});
  EXPECT_EQ(d.findings[0].total, 2u); // the barrier and the recomputed tanh
}

TEST(ModuleDiff, UnreadableModuleIsNamed) {
  auto d = diffModules(module(), "func.func @main(");
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message.rfind("module B: ", 0), 0u) << d.error().message;
}

TEST(ModuleDiff, JsonCarriesCodesAndText) {
  ModuleDiff d = mustDiff(module(), module("3.000000e+00"));
  Json j = moduleDiffToJson(d);
  EXPECT_EQ(j["findings"][0]["code"], "baked_constant");
  EXPECT_EQ(j["findings"][0]["changes"][0]["code"], "constant_changed");
  EXPECT_EQ(j["findings"][0]["text"], moduleFindingText(d.findings[0]));
}

// --- Real captures -----------------------------------------------------

struct CaptureCase {
  const char *cls;
  C expected;
};

const CaptureCase kCaptureCases[] = {
    {"precision", C::MatmulPrecision}, {"constant", C::BakedConstant},
    {"donate", C::Donation},           {"callback", C::CustomCall},
    {"static", C::BakedConstant},      {"locations", C::MetadataInKey},
    {"x64", C::ArgumentTypes},         {"shape", C::ArgumentTypes},
    {"random", C::RandomBits},         {"remat", C::Checkpoint},
    {"devices", C::Sharding},
};

/// The module JAX lowered for the captured call, in generic form (see
/// tests/capture/module_diff/assemble.py: jaxlib's entry-1 bytecode comes
/// from a newer MLIR than 19, which cannot read it).
std::string moduleOf(const Json &scenario) {
  return scenario["module"]["text"].get<std::string>();
}

std::vector<std::string> captureReleases() {
  std::vector<std::string> out;
  for (auto &e : std::filesystem::directory_iterator(
           test::sourcePath("tests/capture/module_diff")))
    if (e.is_directory())
      out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ModuleDiffCaptures, EachPairNamesTheOneChangeMade) {
  auto releases = captureReleases();
  ASSERT_FALSE(releases.empty());
  for (const auto &release : releases)
    for (const auto &c : kCaptureCases) {
      SCOPED_TRACE(release + "/" + c.cls);
      std::string dir = "tests/capture/module_diff/" + release + "/" + c.cls;
      Json a = test::loadJson(dir + "/a.json"), b = test::loadJson(dir + "/b.json");
      ASSERT_NE(a["expected"]["key"], b["expected"]["key"]) << "JAX's keys";
      ModuleDiff d = mustDiff(moduleOf(a), moduleOf(b));
      EXPECT_EQ(codes(d), std::vector<C>{c.expected});
      if (c.expected == C::ArgumentTypes && !d.findings.empty()) {
        // x64 widened every float; shape changed one dimension.
        EXPECT_EQ(d.findings[0].x64, std::string(c.cls) == "x64");
        EXPECT_GT(d.findings[0].retyped, 0u);
      }
    }
}

TEST(ModuleDiffCaptures, ShardyMovesTheCompileOptionsNotTheModule) {
  // program.py shardy: jax_use_shardy_partitioner False (a) / True (b) on
  // one device. Both releases lower the same module; the compile options
  // carry the partitioner (ExecutableBuildOptionsProto field 19).
  registerMlirCanonicalizer();
  registerMlirModuleDiffer();
  for (const auto &release : captureReleases()) {
    SCOPED_TRACE(release);
    std::string dir = "tests/capture/module_diff/" + release + "/shardy";
    Json a = test::loadJson(dir + "/a.json"), b = test::loadJson(dir + "/b.json");
    ASSERT_NE(a["expected"]["key"], b["expected"]["key"]) << "JAX's keys";
    EXPECT_TRUE(mustDiff(moduleOf(a), moduleOf(b)).same);
    Comparison cmp = compareResults(test::mustCompute(a), test::mustCompute(b));
    EXPECT_EQ(cmp.cause, 5);
    Json j = comparisonToJson(cmp);
    EXPECT_NE(j.dump().find("use_shardy_partitioner"), std::string::npos);
  }
  setModuleDiffer(nullptr);
}

TEST(ModuleDiffCaptures, CompareResultsLeadsWithTheFinding) {
  registerMlirCanonicalizer();
  registerMlirModuleDiffer();
  std::string dir = "tests/capture/module_diff/0.10.2/precision";
  KeyResult ra = test::mustCompute(test::loadJson(dir + "/a.json"));
  KeyResult rb = test::mustCompute(test::loadJson(dir + "/b.json"));
  Comparison cmp = compareResults(ra, rb);
  ASSERT_EQ(cmp.cause, 1);
  ASSERT_FALSE(cmp.changes.empty());
  EXPECT_EQ(cmp.changes[0].code, EntryChange::Code::ModuleFinding);
  ASSERT_TRUE(cmp.changes[0].module);
  EXPECT_EQ(cmp.changes[0].module->code, C::MatmulPrecision);
  EXPECT_EQ(comparisonDetailsText(cmp)[0], moduleFindingText(*cmp.changes[0].module));
  EXPECT_EQ(comparisonAdviceText(cmp), moduleFindingAdvice(*cmp.changes[0].module));
  Json j = comparisonToJson(cmp);
  EXPECT_EQ(j["findings"]["details"][0]["code"], "module_finding");
  EXPECT_EQ(j["findings"]["details"][0]["finding"]["code"], "matmul_precision");
  EXPECT_EQ(j["advice"]["module_finding"], "matmul_precision");
  setModuleDiffer(nullptr);
}

} // namespace
} // namespace cachekey
