// engine/lib/Run.cpp: the one text → key pipeline of the CLI and the binding.
#include "TestUtil.h"

#include "cachekey/Run.h"

using namespace cachekey;
using namespace cachekey::test;

TEST(Run, TheVersionIsCMakes) {
  EXPECT_EQ(std::string(engineVersion()), std::string("cachekey ") + CACHEKEY_PROJECT_VERSION);
}

TEST(Run, TextToKey) {
  auto r = computeFromText(R"({"schema": 1, "base": "add_1x1"})", fixtureResolver());
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->key, loadJson("fixtures/add_1x1.json")["expected"]["key"]);
}

TEST(Run, ErrorsKeepTheirPathAndCode) {
  auto bad = computeFromText("{", fixtureResolver());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::Syntax);
  EXPECT_EQ(bad.error().path, "$");
  auto wrong = computeFromText(R"({"schema": 1, "base": "add_1x1", "jaxlib_version": 5})",
                               fixtureResolver());
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().path, "$.jaxlib_version");
}

TEST(Run, JsonTextReplacesBytesThatAreNotUtf8) {
  Json j = {{"a", std::string("x\xff")}};
  EXPECT_EQ(dumpJson(j), "{\"a\":\"x\xef\xbf\xbd\"}");
  EXPECT_EQ(dumpJson(Json{{"a", 1}}, 2), "{\n  \"a\": 1\n}");
}

// The page's opened module files: entry 1's bytes beside the text. The
// fixture's own bytes (captured from jax) give the key real JAX computed; a
// "text" in the scenario gives way to them; other bytes give another key.
TEST(Run, ModuleBytesBesideTheTextReplaceTheModule) {
  Json fixture = loadJson("fixtures/add_1x1.json");
  Bytes bytes = *base64Decode(fixture["module"]["entry1_b64"].get<std::string>());
  auto r = computeFromText(R"({"schema": 1, "base": "add_1x1"})", fixtureResolver(), bytes);
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->key, fixture["expected"]["key"]);
  Json withText = {{"schema", 1}, {"base", "add_1x1"}, {"module", fixture["module"]}};
  withText["module"].erase("entry1_b64");
  withText["module"]["text"] = "module {}";
  auto t = computeFromText(withText.dump(), fixtureResolver(), bytes);
  ASSERT_TRUE(t) << t.error().str();
  EXPECT_EQ(t->key, fixture["expected"]["key"]);
  auto other = computeFromText(R"({"schema": 1, "base": "add_1x1"})",
                               fixtureResolver(), Bytes("other bytes"));
  ASSERT_TRUE(other) << other.error().str();
  EXPECT_NE(other->key, fixture["expected"]["key"]);
  auto bad = computeFromText(R"({"schema": 1, "base": "add_1x1", "jaxlib_version": 5})",
                             fixtureResolver(), bytes);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().path, "$.jaxlib_version");
}

TEST(Run, ErrorsAsJsonKeepTheirMembers) {
  Json j = errorToJson(Error{"$.a", "bad", ErrorCode::Missing, "b"});
  EXPECT_EQ(j["error"]["path"], "$.a");
  EXPECT_EQ(j["error"]["message"], "bad");
  EXPECT_EQ(j["error"]["source"], "b");
  EXPECT_FALSE(j["error"].contains("subject"));
}
