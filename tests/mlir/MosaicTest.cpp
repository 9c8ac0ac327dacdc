// The Mosaic (Pallas TPU) kernel strip of jax main, and its absence on 0.10.2.
#include "MlirTestUtil.h"

#include "cachekey/mlir/Canonicalize.h"
#include "cachekey/mlir/MosaicKernels.h"
#include "cachekey/mlir/PyBase64.h"
#include "cachekey/mlir/PyJson.h"
#include "cachekey/mlir/RangeLocations.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {

/// A small kernel module whose locations name `dir`; everything else fixed.
std::string kernelText(const std::string &dir, int line) {
  std::string f = "\"" + dir + "/kernels/add_one.py\":";
  return "module @add_one_kernel {\n"
         "  func.func @main(%arg0: i32 loc(" + f + std::to_string(line) +
         ":5), %arg1: i32 loc(" + f + std::to_string(line) + ":9)) -> i32 {\n"
         "    \"arith.addi\"(%arg0, %arg1) : (i32, i32) -> i32 loc(" + f +
         std::to_string(line + 1) + ":12)\n"
         "    return %arg0 : i32 loc(" + f + std::to_string(line + 2) + ":5)\n"
         "  } loc(" + f + std::to_string(line - 1) + ":1)\n"
         "} loc(" + f + "1:1)\n";
}

std::string backendConfig(const std::string &bodyB64) {
  return "{\"custom_call_config\": {\"body\": \"" + bodyB64 +
         "\", \"serialization_format\": 1, \"needs_layout_passes\": true}, "
         "\"name\": \"add_one_\\u00fc\", \"cost\": {\"flops\": 2.50, "
         "\"bytes\": 1E20}, \"implicit_dim\": null}";
}

std::string tpuModule(const std::string &config) {
  return customCallModule("tpu_custom_call", config);
}

Expected<ComputationEntry> run(const std::string &text, Profile p) {
  ModuleSpec m;
  m.text = text;
  return canonicalize(m, p);
}

std::string onlyConfig(const Expected<ComputationEntry> &e) {
  if (!e) {
    ADD_FAILURE() << e.error().str();
    return "";
  }
  auto configs = ReadBack(e->bytes).backendConfigs();
  EXPECT_EQ(configs.size(), 1u);
  return configs.empty() ? "" : configs[0];
}

/// The body that `config` (as rewritten, compact JSON) carries.
std::string bodyOf(const std::string &config) {
  const std::string key = "\"body\":\"";
  size_t at = config.find(key);
  if (at == std::string::npos)
    return "";
  at += key.size();
  return config.substr(at, config.find('"', at) - at);
}

} // namespace

TEST(Mosaic, KernelsDifferingOnlyInLocationsAgreeOnMain) {
  std::string a = tpuModule(backendConfig(base64Encode(kernelText("/home/alice/src", 10))));
  std::string b = tpuModule(backendConfig(base64Encode(kernelText("/tmp/ci/checkout", 70))));
  auto mainA = run(a, Profile::V0_11_2), mainB = run(b, Profile::V0_11_2);
  ASSERT_TRUE(mainA) << mainA.error().str();
  ASSERT_TRUE(mainB) << mainB.error().str();
  EXPECT_EQ(mainA->bytes, mainB->bytes);

  auto oldA = run(a, Profile::V0_10_2), oldB = run(b, Profile::V0_10_2);
  ASSERT_TRUE(oldA && oldB);
  EXPECT_NE(oldA->bytes, oldB->bytes); // 0.10.2 has no Mosaic strip
  EXPECT_NE(oldA->bytes, mainA->bytes);
}

TEST(Mosaic, RewrittenConfigIsPythonJsonWithAStrippedKernel) {
  std::string text = kernelText("/home/alice/src", 10);
  auto e = run(tpuModule(backendConfig(base64Encode(text))), Profile::V0_11_2);
  std::string config = onlyConfig(e);
  // json.dumps(bc, separators=(",", ":")): compact, insertion order,
  // ensure_ascii, float repr; only the body changed.
  std::string body = bodyOf(config);
  EXPECT_EQ(config,
            "{\"custom_call_config\":{\"body\":\"" + body +
                "\",\"serialization_format\":1,\"needs_layout_passes\":true},"
                "\"name\":\"add_one_\\u00fc\",\"cost\":{\"flops\":2.5,"
                "\"bytes\":1e+20},\"implicit_dim\":null}");
  auto kernel = pyB64Decode(body);
  ASSERT_TRUE(kernel);
  EXPECT_EQ(kernel->compare(0, 4, "ML\xEFR"), 0) << "body is bytecode";
  EXPECT_EQ(base64Encode(*kernel), body) << "standard, padded base64";
  ReadBack back(*kernel);
  ASSERT_TRUE(back.module);
  std::string printed = back.printed();
  EXPECT_EQ(printed.find("add_one.py"), std::string::npos) << printed;
  EXPECT_NE(printed.find("arith.addi"), std::string::npos);
  EXPECT_NE(printed.find("add_one_kernel"), std::string::npos);
}

TEST(Mosaic, BytecodeKernelAndLaxBase64AreStrippedAlike) {
  std::string text = kernelText("/home/alice/src", 10);
  std::string viaText = onlyConfig(run(tpuModule(backendConfig(base64Encode(text))), Profile::V0_11_2));
  // The same kernel as bytecode (with its locations), and its base64 broken
  // into MIME-style lines with a stray character: b64decode skips both.
  ModuleSpec m;
  m.text = text;
  m.includeMetadata = true;
  auto bytecode = canonicalize(m, Profile::V0_10_2);
  ASSERT_TRUE(bytecode);
  ASSERT_NE(bytecode->bytes.find("add_one.py"), std::string::npos);
  std::string b64 = base64Encode(bytecode->bytes);
  std::string lax;
  for (size_t i = 0; i < b64.size(); ++i)
    lax += (i && i % 60 == 0 ? "\\n" : "") + std::string(1, b64[i]);
  lax = "!" + lax;
  std::string viaBytecode = onlyConfig(run(tpuModule(backendConfig(lax)), Profile::V0_11_2));
  EXPECT_EQ(bodyOf(viaBytecode), bodyOf(viaText));
}

TEST(Mosaic, UnparseableKernelLeavesTheOpAlone) {
  for (std::string kernel : {std::string("this is not MLIR"),
                             std::string("ML\xEFR\x03junk", 9),
                             std::string("module { %0 = }")}) {
    std::string config = backendConfig(base64Encode(kernel));
    auto e = run(tpuModule(config), Profile::V0_11_2);
    EXPECT_EQ(onlyConfig(e), config) << "not even re-serialised";
  }
}

TEST(Mosaic, MissingOrEmptyBodyLeavesTheOpAlone) {
  for (std::string config :
       {std::string("{\"custom_call_config\": {\"body\": \"\"}}"),
        std::string("{\"custom_call_config\": {\"body\": null}}"),
        std::string("{\"custom_call_config\": {\"body\": 0.0}}"),
        std::string("{\"custom_call_config\": {}}"),
        std::string("{\"other\": 1.50}"),
        std::string(" {} ")}) {
    EXPECT_EQ(onlyConfig(run(tpuModule(config), Profile::V0_11_2)), config);
  }
}

TEST(Mosaic, OtherTargetsAreNotRead) {
  std::string config = "not JSON at all";
  EXPECT_EQ(onlyConfig(run(customCallModule("tpu_custom_call_v2", config),
                           Profile::V0_11_2)),
            config);
}

TEST(Mosaic, MalformedJsonIsAnErrorNamingTheOp) {
  for (std::string config : {std::string("{\"custom_call_config\": "),
                             std::string("not JSON"), std::string("{'a': 1}")}) {
    auto e = run(tpuModule(config), Profile::V0_11_2);
    ASSERT_FALSE(e) << config;
    EXPECT_NE(e.error().message.find("stablehlo.custom_call"), std::string::npos)
        << e.error().message;
    EXPECT_NE(e.error().message.find("tpu_custom_call"), std::string::npos);
    EXPECT_NE(e.error().message.find("JSON"), std::string::npos);
    // 0.10.2 never reads it.
    EXPECT_TRUE(run(tpuModule(config), Profile::V0_10_2));
  }
}

TEST(Mosaic, WrongBase64PaddingIsAnError) {
  std::string b64 = base64Encode(kernelText("/x", 3));
  while (!b64.empty() && b64.back() == '=')
    b64.pop_back();
  if (b64.size() % 4 == 0) // make sure the padding is actually needed
    b64 += "QQ";
  auto e = run(tpuModule(backendConfig(b64)), Profile::V0_11_2);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("Incorrect padding"), std::string::npos)
      << e.error().message;
  EXPECT_NE(e.error().message.find("stablehlo.custom_call"), std::string::npos);
}

TEST(Mosaic, WrongShapesOfJsonAreErrors) {
  // Upstream: bc.get(...) / .get("body") on a non-dict, b64decode(non-str).
  for (std::string config :
       {std::string("[1, 2]"), std::string("{\"custom_call_config\": [1]}"),
        std::string("{\"custom_call_config\": null}"),
        std::string("{\"custom_call_config\": {\"body\": 5}}"),
        std::string("{\"custom_call_config\": {\"body\": \"TUxJ\\u00e9\"}}")}) {
    auto e = run(tpuModule(config), Profile::V0_11_2);
    EXPECT_FALSE(e) << config;
  }
}

TEST(Mosaic, RewriteBackendConfigUnit) {
  int calls = 0;
  KernelStripper fake = [&](const Bytes &kernel) -> Expected<std::optional<Bytes>> {
    ++calls;
    if (kernel == "MLIR")
      return std::optional<Bytes>(Bytes("\x01\x02\xff", 3));
    if (kernel == "fail")
      return Error{"", "strip failed"};
    return std::optional<Bytes>();
  };
  auto r = rewriteMosaicBackendConfig(
      "{\"b\": 1, \"custom_call_config\": {\"x\": [], \"body\": \"TUxJUg==\"},"
      " \"b\": 2, \"n\": NaN}",
      fake);
  ASSERT_TRUE(r);
  ASSERT_TRUE(*r);
  EXPECT_EQ(**r, "{\"b\":2,\"custom_call_config\":{\"x\":[],\"body\":\"AQL/\"},"
                 "\"n\":NaN}");
  auto untouched = rewriteMosaicBackendConfig(
      "{\"custom_call_config\": {\"body\": \"T3RoZXI=\"}}", fake);
  ASSERT_TRUE(untouched);
  EXPECT_FALSE(*untouched);
  auto failed = rewriteMosaicBackendConfig(
      "{\"custom_call_config\": {\"body\": \"ZmFpbA==\"}}", fake);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("strip failed"), std::string::npos);
  EXPECT_EQ(calls, 3);
}

TEST(Mosaic, RealPallasKernelIsBeyondMlir19) {
  // A tpu_custom_call as jaxlib 0.10.2 lowers it (tests/mlir/data). Its kernel
  // body is bytecode from jaxlib's MLIR 23, which MLIR 19 cannot read, so the
  // strip leaves the op alone here, where jax main (same MLIR on both sides)
  // would strip it. This pins that known limitation.
  std::string text = readText(sourcePath("tests/mlir/data/pallas_tpu_kernel.mlir"));
  ASSERT_FALSE(text.empty());
  ReadBack input(downgradeRangeLocations(text));
  ASSERT_TRUE(input.module);
  std::vector<std::string> before = input.backendConfigs();
  ASSERT_EQ(before.size(), 1u);
  auto config = pyJsonLoads(before[0]);
  ASSERT_TRUE(config);
  auto body = pyB64Decode(
      (*config)["custom_call_config"]["body"].get<std::string>());
  ASSERT_TRUE(body);
  EXPECT_EQ(body->compare(0, 4, "ML\xEFR"), 0);
  EXPECT_NE(body->find("MLIR23"), std::string::npos) << "producer of the body";

  auto onMain = run(text, Profile::V0_11_2);
  auto onOld = run(text, Profile::V0_10_2);
  ASSERT_TRUE(onMain) << onMain.error().str();
  ASSERT_TRUE(onOld) << onOld.error().str();
  EXPECT_EQ(onMain->bytes, onOld->bytes);
  EXPECT_EQ(ReadBack(onMain->bytes).backendConfigs(), before);
}
