// Reading scenarios (engine/lib/ScenarioReader.cpp, ScenarioSchema.cpp) and
// resolving "base" (ScenarioBase.cpp), without computing keys.
//
// Expected values come from the documents the tests build: a bad member is
// reported with the code docs/scenario.md gives for its kind of problem and
// the JSON path of the member the test broke; a value read is the value the
// document holds.
#include "TestUtil.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {

/// add_1x1 resolved (no base left), then edited by `edit`.
Json resolvedAdd(const std::function<void(Json &)> &edit = {}) {
  auto doc = resolveBase(patched("add_1x1", Json::object()), fixtureResolver());
  EXPECT_TRUE(doc) << doc.error().str();
  Json j = doc ? *doc : Json::object();
  if (edit)
    edit(j);
  return j;
}

/// An in-memory set of fixtures, for base chains the repository has not.
FixtureResolver resolverOf(std::map<std::string, Json> docs) {
  return [docs](const std::string &id) -> Expected<Json> {
    auto it = docs.find(id);
    if (it == docs.end())
      return Error{"", "unknown fixture " + id, ErrorCode::UnknownFixture};
    return it->second;
  };
}

} // namespace

TEST(Scenario, ReadsTheMembersOfACapturedFixture) {
  Json doc = loadJson("fixtures/sharded_4dev.json");
  auto s = scenarioFromJson(doc);
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->profile, Profile::V0_10_2);
  EXPECT_EQ(s->jaxlibVersion, doc["jaxlib_version"].get<std::string>());
  EXPECT_EQ(s->platform, doc["backend"]["platform"].get<std::string>());
  EXPECT_EQ(s->platformVersion,
            doc["backend"]["platform_version"].get<std::string>());
  EXPECT_EQ(s->module.symName, doc["module"]["sym_name"].get<std::string>());
  EXPECT_EQ(toHex(*s->module.entry1),
            toHex(*base64Decode(doc["module"]["entry1_b64"].get<std::string>())));
  EXPECT_EQ(s->flags.xlaFlags, doc["flags"]["XLA_FLAGS"].get<std::string>());
  EXPECT_EQ(s->compileOptions.proto,
            *base64Decode(doc["compile_options"]["proto_b64"].get<std::string>()));
  const auto *topo = std::get_if<CpuTopology>(&s->accelerator);
  ASSERT_NE(topo, nullptr);
  EXPECT_EQ(topo->devices.size(),
            doc["accelerator"]["cpu_topology"]["devices"].size());
  EXPECT_EQ(topo->cpu,
            doc["accelerator"]["cpu_topology"]["target_machine"]["cpu"].get<std::string>());
  EXPECT_EQ(s->compression.name, doc["compression"].get<std::string>());
}

TEST(Scenario, AbsentMembersTakeTheDocumentedDefaults) {
  // docs/scenario.md: profile "main" (the newest), compression "zstandard",
  // runtime_type "pjrt_ifrt", custom_hook "", no flags.
  Json j = resolvedAdd([](Json &d) {
    for (const char *k : {"profile", "compression", "custom_hook", "flags"})
      d.erase(k);
  });
  auto s = scenarioFromJson(j);
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->profile, kNewestProfile);
  EXPECT_EQ(s->compression.name, "zstandard");
  EXPECT_FALSE(s->compression.python);
  EXPECT_EQ(s->runtimeType, "pjrt_ifrt");
  EXPECT_EQ(s->customHook, "");
  EXPECT_FALSE(s->flags.xlaFlags);
  EXPECT_TRUE(s->flags.argv.empty());
}

TEST(Scenario, EitherCallbackSpellingIsRead) {
  struct Case {
    Json module;
    IgnoreCallbacks callbacks;
    bool customPartitioning;
  };
  const Case cases[] = {
      {{{"ignore_callbacks", "NO"}}, IgnoreCallbacks::No, false},
      {{{"ignore_callbacks", "ALL"}}, IgnoreCallbacks::All, true},
      {{{"ignore_callbacks", "CUSTOM_PARTITIONING"}},
       IgnoreCallbacks::CustomPartitioning, true},
      {{{"ignore_custom_partitioning", true}},
       IgnoreCallbacks::CustomPartitioning, true},
      {{{"ignore_custom_partitioning", false}}, IgnoreCallbacks::No, false},
      {{{"ignore_callbacks", "ALL"}, {"ignore_custom_partitioning", true}},
       IgnoreCallbacks::All, true},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.module.dump());
    Json j = resolvedAdd([&](Json &d) {
      d["module"].erase("ignore_callbacks");
      d["module"].update(c.module);
    });
    auto s = scenarioFromJson(j);
    ASSERT_TRUE(s) << s.error().str();
    EXPECT_EQ(s->module.ignoreCallbacks, c.callbacks);
    EXPECT_EQ(s->module.ignoreCustomPartitioning, c.customPartitioning);
  }
}

TEST(Scenario, EveryBadMemberIsNamedByCodeAndPath) {
  struct Case {
    const char *patch; // merged over add_1x1 (resolved)
    ErrorCode code;
    const char *path;
  };
  const Case cases[] = {
      {R"({"schema": 2})", ErrorCode::Unsupported, "$.schema"},
      {R"({"schema": "1"})", ErrorCode::Unsupported, "$.schema"},
      {R"({"schema": null})", ErrorCode::Missing, "$.schema"},
      {R"({"jaxlib": "x"})", ErrorCode::UnknownKey, "$.jaxlib"},
      {R"({"profile": "0.1"})", ErrorCode::UnknownProfile, "$.profile"},
      {R"({"profile": 10})", ErrorCode::Type, "$.profile"},
      {R"({"module": null})", ErrorCode::Missing, "$.module"},
      {R"({"module": []})", ErrorCode::Type, "$.module"},
      {R"({"module": {"text": "module {}"}})", ErrorCode::Invalid, "$.module"},
      {R"({"module": {"entry1_b64": null}})", ErrorCode::Missing, "$.module"},
      {R"({"module": {"sym_nam": "f"}})", ErrorCode::UnknownKey, "$.module.sym_nam"},
      {R"({"module": {"ignore_callbacks": "SOME"}})", ErrorCode::Invalid,
       "$.module.ignore_callbacks"},
      {R"({"module": {"ignore_callbacks": "NO", "ignore_custom_partitioning": true}})",
       ErrorCode::Invalid, "$.module.ignore_custom_partitioning"},
      {R"({"module": {"include_metadata": 1}})", ErrorCode::Type,
       "$.module.include_metadata"},
      {R"({"jaxlib_version": null})", ErrorCode::Missing, "$.jaxlib_version"},
      {R"({"backend": null})", ErrorCode::Missing, "$.backend"},
      {R"({"backend": {"platform": null}})", ErrorCode::Missing, "$.backend.platform"},
      {R"({"backend": {"runtime_type": 1}})", ErrorCode::Type, "$.backend.runtime_type"},
      {R"({"flags": {"argv": ["--a", 3]}})", ErrorCode::Type, "$.flags.argv[1]"},
      {R"({"flags": {"XLA_FLAGS": ["--a"]}})", ErrorCode::Type, "$.flags.XLA_FLAGS"},
      {R"({"flags": "--xla_a"})", ErrorCode::Type, "$.flags"},
      {R"({"compile_options": null})", ErrorCode::Missing, "$.compile_options"},
      {R"({"compile_options": {"proto_b64": "AAA*"}})", ErrorCode::Syntax,
       "$.compile_options.proto_b64"},
      {R"({"module": {"entry1_b64": "AAA"}})", ErrorCode::Syntax,
       "$.module.entry1_b64"},
      {R"({"compile_options": {"edits": {"num_partitions": -1}}})", ErrorCode::Invalid,
       "$.compile_options.edits.num_partitions"},
      {R"({"compile_options": {"edits": {"num_replicas": 2147483648}}})",
       ErrorCode::Invalid, "$.compile_options.edits.num_replicas"},
      {R"({"compile_options": {"edits": {"device_assignment": []}}})",
       ErrorCode::Invalid, "$.compile_options.edits.device_assignment"},
      {R"({"compile_options": {"edits": {"device_assignment": [[0, 1], [2]]}}})",
       ErrorCode::Invalid, "$.compile_options.edits.device_assignment[1]"},
      {R"({"compile_options": {"edits": {"device_assignment": [[0, -1]]}}})",
       ErrorCode::Invalid, "$.compile_options.edits.device_assignment[0][1]"},
      {R"({"compile_options": {"edits": {"env_option_overrides": [["a"]]}}})",
       ErrorCode::Invalid, "$.compile_options.edits.env_option_overrides[0]"},
      {R"({"compile_options": {"edits": {"env_option_overrides": [["a", null]]}}})",
       ErrorCode::Type, "$.compile_options.edits.env_option_overrides[0][1]"},
      {R"({"compile_options": {"edits": {"debug_options": {"xla_dump_to": []}}}})",
       ErrorCode::Type, "$.compile_options.edits.debug_options.xla_dump_to"},
      {R"({"compile_options": {"edits": {"fdo_profile": ""}}})", ErrorCode::UnknownKey,
       "$.compile_options.edits.fdo_profile"},
      {R"({"accelerator": null})", ErrorCode::Missing, "$.accelerator"},
      {R"({"accelerator": {"device_kinds": ["a"]}})", ErrorCode::Invalid, "$.accelerator"},
      {R"({"accelerator": {"cpu_topology": null, "fingerprint":
           {"value": "0123456789ABCDEF", "provenance": "p"}}})",
       ErrorCode::Invalid, "$.accelerator.fingerprint.value"},
      {R"({"accelerator": {"cpu_topology": null, "fingerprint": {"value": "0123456789abcdef"}}})",
       ErrorCode::Missing, "$.accelerator.fingerprint.provenance"},
      {R"({"accelerator": {"error": "E"}})", ErrorCode::Invalid, "$.accelerator.error"},
      {R"({"accelerator": {"cpu_topology": {"devices": null}}})", ErrorCode::Invalid,
       "$.accelerator.cpu_topology.devices"},
      {R"({"accelerator": {"cpu_topology": {"machine_attributes": ["+a"]}}})",
       ErrorCode::Invalid, "$.accelerator.cpu_topology.machine_attributes"},
      {R"({"accelerator": {"cpu_topology": {"devices": [{"process_index": 2147483648}]}}})",
       ErrorCode::Invalid, "$.accelerator.cpu_topology.devices[0].process_index"},
      {R"({"accelerator": {"cpu_topology": null, "gpu_topology": {"num_devices_per_process": "4"}}})",
       ErrorCode::Type, "$.accelerator.gpu_topology.num_devices_per_process"},
      {R"({"compression": 5})", ErrorCode::Type, "$.compression"},
      {R"({"compression": {"python": "3"}})", ErrorCode::Invalid, "$.compression.python"},
      {R"({"compression": {"python": "3.13", "zstd": true}})", ErrorCode::UnknownKey,
       "$.compression.zstd"},
      {R"({"compression": {"zstandard_installed": true}})", ErrorCode::Missing,
       "$.compression.python"},
      {R"({"custom_hook": 1})", ErrorCode::Type, "$.custom_hook"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.patch);
    Json j = resolvedAdd([&](Json &d) { d.merge_patch(Json::parse(c.patch)); });
    auto s = scenarioFromJson(j);
    ASSERT_FALSE(s);
    EXPECT_EQ(errorCodeName(s.error().code), std::string(errorCodeName(c.code)))
        << s.error().str();
    EXPECT_EQ(s.error().path, c.path) << s.error().str();
  }
}

TEST(Scenario, MlirBytecodeIsRefusedAsModuleText) {
  // MLIR bytecode starts with the magic 'M' 'L' 0xEF 'R' (MLIR's bytecode
  // format documentation). JSON text cannot carry the lone 0xEF byte, but a
  // document built in memory (the wasm API, a permalink) can.
  Json j = resolvedAdd([](Json &d) {
    d["module"].erase("entry1_b64");
    d["module"]["text"] = std::string("ML\xefR") + "rest";
  });
  auto s = scenarioFromJson(j);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::Unsupported);
  EXPECT_EQ(s.error().path, "$.module.text");
}

TEST(Scenario, NotAnObjectIsATypeErrorAtTheRoot) {
  for (const char *text : {"[]", "1", "\"s\"", "null"}) {
    SCOPED_TRACE(text);
    auto s = scenarioFromJson(Json::parse(text));
    ASSERT_FALSE(s);
    EXPECT_EQ(s.error().code, ErrorCode::Type);
    EXPECT_EQ(s.error().path, "$");
    auto r = resolveBase(Json::parse(text), fixtureResolver());
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::Type);
    EXPECT_EQ(r.error().path, "$");
  }
}

TEST(ScenarioBase, APatchReplacesUnionMembersAndDropsTheBasesAnnotations) {
  // add_1x1 has a cpu_topology, a compression name, entry1_b64 and sym_name,
  // and the annotations id, title, provenance, capture and expected.
  Json patch = Json::parse(R"({"schema": 1, "base": "add_1x1", "title": "mine",
      "accelerator": {"device_kinds": ["TPU v4"]},
      "compression": {"python": "3.13"},
      "module": {"text": "module {}"}})");
  auto r = resolveBase(patch, fixtureResolver());
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_FALSE(r->contains("base"));
  EXPECT_EQ((*r)["accelerator"], Json::parse(R"({"device_kinds": ["TPU v4"]})"));
  EXPECT_EQ((*r)["compression"], Json::parse(R"({"python": "3.13"})"));
  EXPECT_FALSE((*r)["module"].contains("entry1_b64"));
  EXPECT_FALSE((*r)["module"].contains("sym_name"));
  EXPECT_EQ((*r)["module"]["text"], "module {}");
  // Other module members merge as usual.
  Json base = loadJson("fixtures/add_1x1.json");
  EXPECT_EQ((*r)["module"]["include_metadata"], base["module"]["include_metadata"]);
  for (const char *k : {"id", "provenance", "capture", "expected"})
    EXPECT_FALSE(r->contains(k)) << k;
  EXPECT_EQ((*r)["title"], "mine");
  EXPECT_EQ((*r)["jaxlib_version"], base["jaxlib_version"]);
}

TEST(ScenarioBase, ACallbackSpellingReplacesTheOther) {
  Json base = Json::parse(R"({"schema": 1, "module": {"sym_name": "f",
      "entry1_b64": "", "ignore_callbacks": "ALL"}})");
  auto r = resolveBase(Json::parse(R"({"schema": 1, "base": "b",
      "module": {"ignore_custom_partitioning": false}})"),
                       resolverOf({{"b", base}}));
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_FALSE((*r)["module"].contains("ignore_callbacks"));
  EXPECT_EQ((*r)["module"]["ignore_custom_partitioning"], false);
}

TEST(ScenarioBase, NullInAPatchDeletesThroughABaseChain) {
  // gpu_2proc (fixtures/derived) patches add_1x1, whose compression is
  // "zlib"; gpu_2proc itself does not set compression. Deleting it in a patch
  // over gpu_2proc must reach add_1x1's value and fall back to the default.
  ASSERT_EQ(loadJson("fixtures/add_1x1.json")["compression"], "zlib");
  ASSERT_FALSE(loadJson("fixtures/derived/gpu_2proc.json").contains("compression"));
  KeyResult kept = mustCompute(patched("gpu_2proc", Json::object()));
  KeyResult deleted = mustCompute(patched("gpu_2proc", {{"compression", nullptr}}));
  EXPECT_EQ(kept.compression, "zlib");
  EXPECT_EQ(deleted.compression, "zstandard");
}

TEST(ScenarioBase, EachLevelOfAChainIsAppliedInOrder) {
  Json bottom = {{"schema", 1}, {"custom_hook", "bottom"}, {"jaxlib_version", "1"}};
  Json middle = {{"schema", 1}, {"base", "bottom"}, {"custom_hook", "middle"}};
  auto r = resolveBase({{"schema", 1}, {"base", "middle"}, {"jaxlib_version", "3"}},
                       resolverOf({{"bottom", bottom}, {"middle", middle}}));
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ((*r)["custom_hook"], "middle");
  EXPECT_EQ((*r)["jaxlib_version"], "3");
}

TEST(ScenarioBase, BadBasesAreNamedAtDollarBase) {
  struct Case {
    Json doc;
    FixtureResolver resolver;
    ErrorCode code;
    const char *subject;
  };
  Json loop = {{"schema", 1}, {"base", "loop"}};
  const Case cases[] = {
      {{{"schema", 1}, {"base", 7}}, fixtureResolver(), ErrorCode::Type, ""},
      {{{"schema", 1}, {"base", "no_such"}}, fixtureResolver(),
       ErrorCode::UnknownFixture, "no_such"},
      {{{"schema", 1}, {"base", "add_1x1"}}, FixtureResolver{},
       ErrorCode::UnknownFixture, "add_1x1"},
      // A fixture naming itself: the chain stops at 8 levels.
      {{{"schema", 1}, {"base", "loop"}}, resolverOf({{"loop", loop}}),
       ErrorCode::TooLarge, ""},
      {{{"schema", 1}, {"base", "list"}},
       resolverOf({{"list", Json::array()}}), ErrorCode::Invalid, ""},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.doc.dump());
    auto r = resolveBase(c.doc, c.resolver);
    ASSERT_FALSE(r);
    EXPECT_EQ(errorCodeName(r.error().code), std::string(errorCodeName(c.code)))
        << r.error().str();
    EXPECT_EQ(r.error().path, "$.base");
    EXPECT_EQ(r.error().subject, c.subject);
  }
}

TEST(ScenarioBase, TheSchemaIsTheDocumentsOwn) {
  // The base says schema 1, but a patch without its own is refused.
  auto r = resolveBase({{"base", "add_1x1"}}, fixtureResolver());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Missing);
  EXPECT_EQ(r.error().path, "$.schema");
}
