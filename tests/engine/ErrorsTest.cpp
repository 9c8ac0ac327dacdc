// Bad input is an Error naming the JSON path and the problem; nothing throws.
#include "TestUtil.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {
Error errorOf(const std::string &text) {
  auto doc = parseJsonText(text);
  if (!doc)
    return doc.error();
  auto r = compute(*doc);
  EXPECT_FALSE(r) << "expected an error for " << text;
  return r ? Error{} : r.error();
}

Error patchError(Json patch) {
  patch["schema"] = 1;
  patch["base"] = "add_1x1";
  return errorOf(patch.dump());
}

void expectError(const Error &e, const std::string &path,
                 const std::string &fragment) {
  EXPECT_EQ(e.path, path) << e.str();
  EXPECT_NE(e.message.find(fragment), std::string::npos) << e.str();
}
} // namespace

TEST(Errors, MalformedJsonGivesLineAndColumn) {
  Error e = errorOf("{\"schema\": 1,\n \"profile\": }");
  EXPECT_EQ(e.path, "$");
  EXPECT_NE(e.message.find("line 2"), std::string::npos) << e.str();
}

TEST(Errors, SchemaAndProfile) {
  expectError(errorOf("{}"), "$.schema", "missing");
  expectError(errorOf("{\"schema\": 2}"), "$.schema", "unsupported");
  expectError(patchError({{"profile", "0.9"}}), "$.profile", "unknown profile");
  expectError(errorOf("[1,2]"), "$", "expected a JSON object");
}

TEST(Errors, WrongTypesNameTheirPath) {
  expectError(patchError({{"jaxlib_version", 10}}), "$.jaxlib_version",
              "expected a string, got integer");
  expectError(patchError({{"flags", {{"argv", {"--a", 3}}}}}), "$.flags.argv[1]",
              "expected a string");
  expectError(patchError({{"compile_options", {{"edits", {{"num_replicas", "2"}}}}}}),
              "$.compile_options.edits.num_replicas", "expected an integer");
  expectError(patchError({{"backend", {{"platfrom", "cpu"}}}}),
              "$.backend.platfrom", "unknown key");
  expectError(patchError({{"compile_options", {{"edits", {{"device_assignment", {{0, 1}, {2}}}}}}}}),
              "$.compile_options.edits.device_assignment[1]", "columns");
  expectError(patchError({{"compile_options", {{"edits", {{"debug_options", {{"xla_no_such_flag", 1}}}}}}}}),
              "$.compile_options.edits.debug_options.xla_no_such_flag",
              "unknown DebugOptions field");
  expectError(patchError({{"compile_options", {{"edits", {{"debug_options", {{"xla_dump_to", 1}}}}}}}}),
              "$.compile_options.edits.debug_options.xla_dump_to", "is a string");
}

TEST(Errors, CompressionRuntimeNeedsAPythonVersion) {
  expectError(patchError({{"compression", {{"python", "3.9999999999999999999"}}}}),
              "$.compression.python", "expected a Python version");
}

TEST(Errors, BadBase64NamesTheOffset) {
  expectError(patchError({{"compile_options", {{"proto_b64", "AAA*"}}}}),
              "$.compile_options.proto_b64", "character '*' at offset 3");
  expectError(patchError({{"module", {{"entry1_b64", "AAA"}}}}),
              "$.module.entry1_b64", "multiple of 4");
}

TEST(Errors, MalformedProtobufNamesTheMessage) {
  // 0x1a = field 3, length-delimited, declaring 100 bytes that are not there.
  expectError(patchError({{"compile_options", {{"proto_b64", "GmQ="}}}}),
              "$.compile_options.proto_b64", "CompileOptionsProto: malformed protobuf");
}

TEST(Errors, AcceleratorForms) {
  expectError(patchError(Json::parse(R"({"accelerator": {"cpu_topology": null,
      "fingerprint": {"value": "xyz", "provenance": "p"}}})")),
              "$.accelerator.fingerprint.value", "16 lowercase hex");
  expectError(patchError(Json::parse(R"({"accelerator": {"device_kinds": ["a"],
      "fingerprint": {"value": "0000000000000000", "provenance": "p"}}})")),
              "$.accelerator", "exactly one of");
}

TEST(Errors, ModuleTextWithoutMlirSaysSo) {
  if (hasCanonicalizer())
    GTEST_SKIP() << "this build has MLIR";
  expectError(patchError({{"module", {{"entry1_b64", nullptr}, {"text", "module {}"}}}}),
              "$.module.text", "this build has no MLIR");
}

TEST(Errors, EveryErrorCarriesACodeAndTheJsonSaysIt) {
  struct Case { const char *doc; ErrorCode code; const char *path; };
  const Case cases[] = {
      {R"({"schema":1,"base":"add_1x1","jaxlib_version":5})", ErrorCode::Type, "$.jaxlib_version"},
      {R"({"schema":1,"base":"add_1x1","jaxlib":"x"})", ErrorCode::UnknownKey, "$.jaxlib"},
      {R"({"schema":2})", ErrorCode::Unsupported, "$.schema"},
      {R"({"schema":1,"base":"no_such_fixture"})", ErrorCode::UnknownFixture, "$.base"},
      {R"({"schema":1,"base":"add_1x1","profile":"0.3"})", ErrorCode::UnknownProfile, "$.profile"},
      {R"({"schema":1,"base":"add_1x1","compile_options":{"proto_b64":"GmQ="}})", ErrorCode::MalformedProto, "$.compile_options.proto_b64"},
      {R"({"schema":1,"module":{}})", ErrorCode::Missing, "$.module"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.doc);
    Error e = errorOf(c.doc);
    EXPECT_EQ(errorCodeName(e.code), std::string(errorCodeName(c.code)));
    EXPECT_EQ(e.path, c.path);
    Json j = errorToJson(e)["error"];
    EXPECT_EQ(j["code"], errorCodeName(c.code));
    EXPECT_EQ(j["path"], c.path);
    EXPECT_EQ(j["message"], e.message);
  }
  Error unknown = errorOf(R"({"schema":1,"base":"no_such_fixture"})");
  EXPECT_EQ(unknown.subject, "no_such_fixture");
  EXPECT_EQ(errorToJson(unknown)["error"]["subject"], "no_such_fixture");
}

TEST(Errors, BaseMustResolve) {
  expectError(errorOf("{\"schema\":1,\"base\":\"no_such_fixture\"}"), "$.base",
              "unknown fixture");
  expectError(errorOf("{\"schema\":1,\"base\":7}"), "$.base", "fixture id");
}
