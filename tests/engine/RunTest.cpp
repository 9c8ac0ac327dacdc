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
