// The values the page's pickers offer for entry 7 and entry 3
// (engine/lib/key/ScenarioChoices.cpp). Expected values:
// - the page's own options before they moved into the engine (web/data.mjs
//   COMPRESSION_CHOICES and PLATFORM_VERSIONS at 19bee46): the ids are the
//   option values tests/web/page.test.mjs selects by, the labels the words
//   the page showed, the values what the page put into the scenario;
// - for the name each compression feeds entry 7, jax/_src/compilation_cache.py
//   as tests/engine/key/CompressionTest.cpp reads it (jax 0.4.36: the
//   zstandard package if it imports; 0.10.2: Python 3.14's compression.zstd
//   first, and then the name is "zlib");
// - for the platform_version strings, engine/data/known_strings.json (what
//   the header says they are).
#include "TestUtil.h"

#include "cachekey/Key.h"
#include "cachekey/ScenarioChoices.h"

#include <map>
#include <string>
#include <utility>

using namespace cachekey;
using namespace cachekey::test;

TEST(ScenarioChoices, CompressionChoicesAreThePagesIdsValuesAndLabels) {
  Json want = Json::array({
      {{"id", "zlib"}, {"value", "zlib"}, {"text", "zlib (name given directly)"}},
      {{"id", "zstandard"}, {"value", "zstandard"}, {"text", "zstandard (name given directly)"}},
      {{"id", "py313-zstd"}, {"value", {{"python", "3.13"}, {"zstandard_installed", true}}},
       {"text", "Python 3.13, zstandard installed"}},
      {{"id", "py313-nozstd"}, {"value", {{"python", "3.13"}, {"zstandard_installed", false}}},
       {"text", "Python 3.13, zstandard not installed"}},
      {{"id", "py314-zstd"}, {"value", {{"python", "3.14"}, {"zstandard_installed", true}}},
       {"text", "Python 3.14, zstandard installed"}},
  });
  Json got = scenarioChoicesToJson()["compression"];
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE(want[i]["id"].get<std::string>());
    for (const char *member : {"id", "value", "text"})
      EXPECT_EQ(got[i][member], want[i][member]) << member;
    // The fields say what the value is: a name, or a runtime.
    const Json &v = want[i]["value"];
    if (v.is_string()) {
      EXPECT_EQ(got[i]["code"], "name");
      EXPECT_EQ(got[i]["name"], v);
    } else {
      EXPECT_EQ(got[i]["code"], "runtime");
      EXPECT_EQ(got[i]["python"], v["python"]);
      EXPECT_EQ(got[i]["zstandard_installed"], v["zstandard_installed"]);
    }
  }
}

// Each choice's value, read as a scenario's `compression`, feeds entry 7 the
// name compilation_cache.py passes: the three runtimes give the three
// outcomes (zstandard; zlib without the package; zlib with compression.zstd
// from jax 0.7.1 on, where 0.4.36 still says zstandard).
TEST(ScenarioChoices, EachCompressionFeedsTheNameCompilationCacheChooses) {
  const std::map<std::string, std::pair<std::string, std::string>> want = {
      // id: {name under jax 0.10.2, under jax 0.4.36}
      {"zlib", {"zlib", "zlib"}},
      {"zstandard", {"zstandard", "zstandard"}},
      {"py313-zstd", {"zstandard", "zstandard"}},
      {"py313-nozstd", {"zlib", "zlib"}},
      {"py314-zstd", {"zlib", "zstandard"}},
  };
  const Json choices = scenarioChoicesToJson()["compression"];
  ASSERT_EQ(choices.size(), want.size());
  for (const Json &c : choices) {
    std::string id = c["id"].get<std::string>();
    SCOPED_TRACE(id);
    ASSERT_EQ(want.count(id), 1u);
    KeyResult newer = mustCompute(patched("add_1x1", {{"profile", "0.10.2"}, {"compression", c["value"]}}));
    KeyResult older = mustCompute(patched("add_1x1", {{"profile", "0.4.36"}, {"compression", c["value"]}}));
    EXPECT_EQ(newer.compression, want.at(id).first);
    EXPECT_EQ(older.compression, want.at(id).second);
  }
}

TEST(ScenarioChoices, PlatformVersionsAreThePagesWithTheirKinds) {
  Json want = Json::array({
      {{"code", "cpu"}, {"platform_version", "cpu"}, {"text", "cpu"}},
      {{"code", "gpu"}, {"platform_version", "cuda 12080"}, {"text", "GPU: cuda 12080"}},
      {{"code", "gpu_plugin"}, {"platform_version", "PJRT C API\ncuda 12"},
       {"text", "GPU through the plugin: PJRT C API / cuda 12"}},
  });
  EXPECT_EQ(scenarioChoicesToJson()["platform_versions"], want);
}

// What ScenarioChoices.h says of each string, against known_strings.json:
// the CPU and GPU ones are the backends listed there (platform "cpu" and
// "gpu"), and the plugin's starts with the line every PJRT C API string
// listed there starts with (the TPU ones measured with libtpu).
TEST(ScenarioChoices, PlatformVersionsAreWhatKnownStringsSay) {
  const Json backends = loadJson("engine/data/known_strings.json")["backends"]["values"];
  const auto listed = [&](const std::string &platform, const std::string &version) {
    for (const Json &b : backends)
      if (b["platform"].get<std::string>() == platform && b["platform_version"].get<std::string>() == version)
        return true;
    return false;
  };
  std::string pjrtLine;
  for (const Json &b : backends) {
    std::string v = b["platform_version"].get<std::string>();
    if (v.rfind("PJRT C API\n", 0) == 0)
      pjrtLine = v.substr(0, v.find('\n') + 1);
  }
  ASSERT_EQ(pjrtLine, "PJRT C API\n");
  for (const PlatformVersionChoice &c : platformVersionChoices()) {
    SCOPED_TRACE(c.platformVersion);
    switch (c.kind) {
    case PlatformVersionKind::Cpu: EXPECT_TRUE(listed("cpu", c.platformVersion)); break;
    case PlatformVersionKind::Gpu: EXPECT_TRUE(listed("gpu", c.platformVersion)); break;
    case PlatformVersionKind::GpuPlugin:
      EXPECT_EQ(c.platformVersion.rfind(pjrtLine, 0), 0u);
      EXPECT_FALSE(listed("gpu", c.platformVersion)) << "not measured: the header says so";
      break;
    }
  }
}
