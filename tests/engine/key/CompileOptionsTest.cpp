// Entry 5 against real JAX: tests/vectors/entries.json holds, for protos built
// with the real `compiler.get_compile_options`, the exact bytes
// `_hash_serialized_compile_options` fed on cpu, gpu and tpu.
#include "TestUtil.h"

#include <algorithm>

#include "cachekey/CompileOptions.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {
Bytes b64(const Json &j) { return *base64Decode(j.get<std::string>()); }

Json vectorsNamed(const std::string &name, const std::string &platform) {
  Json v = loadJson("tests/vectors/entries.json");
  for (const auto &c : v["compile_options"])
    if (c["name"] == name && c["platform"] == platform)
      return c;
  ADD_FAILURE() << "no vector " << name << "/" << platform;
  return Json();
}

Bytes debugOptionsOf(const Bytes &compileOptions) {
  auto co = WireMessage::parse(compileOptions);
  auto ebo = WireMessage::parse(co->last(field::kExecutableBuildOptions)->payload);
  return ebo->last(field::kDebugOptions)->payload;
}
} // namespace

TEST(CompileOptions, CacheKeyEditsMatchRealJaxByteForByte) {
  Json v = loadJson("tests/vectors/entries.json");
  ASSERT_GE(v["compile_options"].size(), 20u);
  for (const auto &c : v["compile_options"]) {
    SCOPED_TRACE(c["name"].get<std::string>() + " on " +
                 c["platform"].get<std::string>());
    auto r = applyCacheKeyEdits(b64(c["proto_b64"]), Profile::V0_10_2,
                                c["platform"].get<std::string>());
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_EQ(toHex(b64(c["fed_b64"])), toHex(r->output));
  }
}

TEST(CompileOptions, ZeroedFieldsStayOnTheWireAndOthersAreUntouched) {
  Json c = vectorsNamed("dumps_set", "cpu");
  Bytes in = b64(c["proto_b64"]);
  auto r = applyCacheKeyEdits(in, Profile::V0_10_2, "cpu");
  ASSERT_TRUE(r);
  auto before = WireMessage::parse(debugOptionsOf(in));
  auto after = WireMessage::parse(debugOptionsOf(r->output));
  ASSERT_TRUE(before && after);
  std::set<uint32_t> zeroed;
  for (const auto &z : zeroedDebugFields(Profile::V0_10_2)) {
    zeroed.insert(z.number);
    const WireField *f = after->last(z.number);
    ASSERT_NE(f, nullptr) << z.name << " must stay present";
    if (z.kind == ZeroKind::String)
      EXPECT_TRUE(f->type == WireType::Len && f->payload.empty()) << z.name;
    else
      EXPECT_TRUE(f->type == WireType::Varint && f->varint == 0) << z.name;
  }
  std::vector<WireField> keptBefore, keptAfter;
  for (const auto &f : before->fields)
    if (!zeroed.count(f.number))
      keptBefore.push_back(f);
  for (const auto &f : after->fields)
    if (!zeroed.count(f.number))
      keptAfter.push_back(f);
  EXPECT_TRUE(keptBefore == keptAfter);
  for (size_t i = 1; i < after->fields.size(); ++i)
    EXPECT_LE(after->fields[i - 1].number, after->fields[i].number);
}

TEST(CompileOptions, MainProfileAlsoZeroesPerFusionAutotuneCacheDir) {
  Bytes base = b64(vectorsNamed("default_1x1", "cpu")["proto_b64"]);
  CompileOptionsEdits e;
  e.debugOptions = {{"xla_gpu_per_fusion_autotune_cache_dir", "/cache"}};
  auto in = applyStructuredEdits(base, e);
  ASSERT_TRUE(in) << in.error().str();
  auto main = applyCacheKeyEdits(*in, Profile::V0_11_2, "cpu");
  auto old = applyCacheKeyEdits(*in, Profile::V0_10_2, "cpu");
  ASSERT_TRUE(main && old);
  EXPECT_EQ(zeroedDebugFields(Profile::V0_11_2).size(), 20u);
  EXPECT_EQ(zeroedDebugFields(Profile::V0_10_2).size(), 19u);
  auto dm = WireMessage::parse(debugOptionsOf(main->output));
  auto d0 = WireMessage::parse(debugOptionsOf(old->output));
  ASSERT_NE(dm->last(310), nullptr);
  EXPECT_EQ(dm->last(310)->payload, "");
  ASSERT_NE(d0->last(310), nullptr);
  EXPECT_EQ(d0->last(310)->payload, "/cache");
}

TEST(CompileOptions, OverrideNamesAreComparedWithoutStrippingTheirDashes) {
  Json c = vectorsNamed("overrides", "cpu");
  auto r = applyCacheKeyEdits(b64(c["proto_b64"]), Profile::V0_10_2, "cpu");
  ASSERT_TRUE(r);
  std::vector<std::string> dropped;
  for (const auto &ch : r->changes)
    if (ch.code == CacheKeyEdit::Code::Dropped)
      dropped.push_back(ch.name);
  EXPECT_NE(std::find(dropped.begin(), dropped.end(), "xla_dump_to"), dropped.end());
  EXPECT_EQ(std::find(dropped.begin(), dropped.end(), "--xla_dump_to"), dropped.end());
}

// The edits are facts; cacheKeyEditText alone words them.
TEST(CompileOptions, CacheKeyEditsAreFactsWordedOnce) {
  CacheKeyEdit zeroed;
  zeroed.code = CacheKeyEdit::Code::Zeroed;
  zeroed.name = "xla_dump_to";
  zeroed.number = 109;
  zeroed.before = "\"/tmp/d\"";
  zeroed.after = "\"\"";
  EXPECT_EQ(cacheKeyEditText(zeroed), "DebugOptions.xla_dump_to (field 109) \"/tmp/d\" → \"\"");
  zeroed.zero = CacheKeyEdit::Zero::NotWritten;
  EXPECT_EQ(cacheKeyEditText(zeroed),
            "DebugOptions.xla_dump_to (field 109) \"/tmp/d\" → \"\" (a zero is not "
            "written: proto3 implicit presence in this jaxlib)");
  CacheKeyEdit dropped;
  dropped.code = CacheKeyEdit::Code::Dropped;
  dropped.name = "xla_dump_to";
  EXPECT_EQ(cacheKeyEditText(dropped),
            "env_option_overrides[\"xla_dump_to\"] dropped (on the exclusion list)");
  EXPECT_STREQ(cacheKeyEditCode(CacheKeyEdit::Code::Renumbered), "renumbered");
}

// Structured edits must produce the same bytes the real Python API produced.
TEST(CompileOptions, StructuredEditsMatchTheRealApi) {
  Bytes base = b64(vectorsNamed("default_1x1", "cpu")["proto_b64"]);
  struct Case {
    const char *name;
    CompileOptionsEdits edits;
  };
  std::vector<Case> cases(4);
  cases[0].name = "da_2x3";
  cases[0].edits.numReplicas = 2;
  cases[0].edits.numPartitions = 3;
  cases[0].edits.deviceAssignment =
      std::vector<std::vector<int64_t>>{{5, 4, 3}, {2, 1, 0}};
  cases[1].name = "fdo";
  cases[1].edits.fdoProfile = Bytes("\x00profile\xff", 9);
  cases[2].name = "overrides";
  cases[2].edits.envOptionOverrides =
      std::vector<std::pair<std::string, OverrideValue>>{
          {"xla_dump_to", std::string("/x")},
          {"--xla_dump_to", std::string("/y")},
          {"xla_gpu_autotune_level", int64_t(3)},
          {"xla_some_bool", true},
          {"xla_f", 0.5},
          {"xla_tpu_compiler_variant", std::string("v")}};
  cases[3].name = "dumps_set";
  cases[3].edits.debugOptions = {{"xla_dump_to", "/tmp/dump"},
                                 {"xla_dump_hlo_as_text", true},
                                 {"xla_dump_hlo_module_re", "jit_.*"},
                                 {"xla_dump_max_hlo_modules", 7},
                                 {"xla_force_host_platform_device_count", 8},
                                 {"xla_gpu_cuda_data_dir", "/usr/local/cuda-12"}};
  for (const auto &c : cases) {
    SCOPED_TRACE(c.name);
    auto edited = applyStructuredEdits(base, c.edits);
    ASSERT_TRUE(edited) << edited.error().str();
    EXPECT_EQ(toHex(b64(vectorsNamed(c.name, "cpu")["proto_b64"])),
              toHex(*edited));
  }
}

TEST(CompileOptions, DiffNamesTheDebugOptionsField) {
  Bytes base = b64(vectorsNamed("default_1x1", "cpu")["proto_b64"]);
  CompileOptionsEdits e;
  e.debugOptions = {{"xla_gpu_autotune_level", 1}};
  auto edited = applyStructuredEdits(base, e);
  ASSERT_TRUE(edited);
  auto lines = describeCompileOptionsDiff(base, *edited);
  ASSERT_EQ(lines.size(), 1u);
  const DebugOptionField *f = findDebugOption("xla_gpu_autotune_level");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(lines[0].find("DebugOptions.xla_gpu_autotune_level (field " +
                          std::to_string(f->number) + ")"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("→ 1"), std::string::npos) << lines[0];
}

TEST(CompileOptions, MalformedProtobufIsAnErrorWithOffset) {
  Bytes base = b64(vectorsNamed("default_1x1", "cpu")["proto_b64"]);
  auto r = applyCacheKeyEdits(base.substr(0, base.size() - 3), Profile::V0_11_2,
                              "cpu");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("at byte"), std::string::npos)
      << r.error().message;
  auto r2 = applyCacheKeyEdits(Bytes("\x0b\x01", 2), Profile::V0_11_2, "cpu");
  ASSERT_FALSE(r2);
  EXPECT_NE(r2.error().message.find("wire type 3"), std::string::npos)
      << r2.error().message;
}

// Found by fuzz_compile_options: DebugOptions fields out of number order made
// the edits depend on where the zeroed fields sat; applying them twice moved
// field 153. JAX's copy is re-serialized by protobuf (number order), so the
// engine now orders edited messages the same way, and the edits are
// idempotent.
TEST(CompileOptions, RegressionUnsortedFieldsEditIdempotently) {
  Bytes input = readText(sourcePath("tests/fuzz/regressions/compile_options_unsorted_debug_fields"));
  ASSERT_FALSE(input.empty());
  for (const char *platform : {"cpu", "gpu", "tpu"}) {
    auto once = applyCacheKeyEdits(input, Profile::V0_11_2, platform);
    ASSERT_TRUE(once) << once.error().str();
    auto twice = applyCacheKeyEdits(once->output, Profile::V0_11_2, platform);
    ASSERT_TRUE(twice);
    EXPECT_EQ(toHex(once->output), toHex(twice->output)) << platform;
  }
}

// A zero tag or a bad varint where a tag belongs is malformed, not the end.
TEST(CompileOptions, ZeroOrBadTagsAreMalformed) {
  for (const Bytes &bad : {Bytes("\x00", 1), Bytes("\xff"), Bytes("\xff\xff"),
                           Bytes("\x08\x01\xff")}) {
    auto r = applyCacheKeyEdits(bad, Profile::V0_11_2, "cpu");
    ASSERT_FALSE(r) << toHex(bad);
    EXPECT_NE(r.error().message.find("malformed protobuf"), std::string::npos);
  }
}

// Found by fuzz_compile_options: a DeviceAssignmentProto declaring billions
// of devices made the GPU renumbering allocate without bound.
TEST(CompileOptions, RegressionHugeDeviceAssignmentIsAnError) {
  Bytes input = readText(sourcePath("tests/fuzz/regressions/compile_options_huge_device_assignment"));
  ASSERT_FALSE(input.empty());
  auto r = applyCacheKeyEdits(input, Profile::V0_11_2, "gpu");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("DeviceAssignmentProto declares"),
            std::string::npos)
      << r.error().message;
  // cpu and tpu never renumber: the bytes pass through.
  EXPECT_TRUE(applyCacheKeyEdits(input, Profile::V0_11_2, "cpu"));
}
