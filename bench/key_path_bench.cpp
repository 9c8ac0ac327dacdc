//===- key_path_bench.cpp - The key path through the JSON API, natively ---===//
//
// The native anchor of bench/wasm_key_path.mjs: what the wasm binding
// `computeKey(text)` (wasm/KeyApi.cpp computeKeyJson) runs, called natively
// with the same scenario texts: computeFromText (Run.h: JSON parse, the
// "base" fixture resolved, base64 of entry 1 decoded, the key computed)
// then dumpJson(resultToJson(…)). So the ratio to wasm is of one C++ path
// compiled twice, not of two APIs.
//
// Usage: key_path_bench FIXTURE.json SCENARIOS.json RUNS
//   FIXTURE.json   registered as base "add_1x1" (fixtures/add_1x1.json)
//   SCENARIOS.json a JSON array of scenario texts (strings), used in turn
// Prints {"ms": [per-run milliseconds], "key": last key, "bytes": output
// size}. Exit 2 on any error.
//
//===----------------------------------------------------------------------===//
#include "cachekey/Json.h"
#include "cachekey/Key.h"
#include "cachekey/Run.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace cachekey;

static std::string readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: key_path_bench FIXTURE.json SCENARIOS.json RUNS\n");
    return 2;
  }
  auto fixture = parseJsonText(readFile(argv[1]), argv[1]);
  auto texts = parseJsonText(readFile(argv[2]), argv[2]);
  if (!fixture || !texts || !texts->is_array() || texts->empty()) {
    std::fprintf(stderr, "cannot read %s or %s\n", argv[1], argv[2]);
    return 2;
  }
  FixtureResolver resolve = [&](const std::string &id) -> Expected<Json> {
    if (id != "add_1x1")
      return Error{"", "unknown fixture \"" + id + "\""};
    return *fixture;
  };
  std::vector<std::string> scenarios;
  for (const auto &t : *texts)
    scenarios.push_back(t.get<std::string>());
  int runs = std::atoi(argv[3]);
  Json ms = Json::array();
  std::string out, key;
  for (int i = 0; i < runs; ++i) {
    const std::string &text = scenarios[i % scenarios.size()];
    auto t0 = std::chrono::steady_clock::now();
    auto r = computeFromText(text, resolve);
    if (!r) {
      std::fprintf(stderr, "%s\n", r.error().str().c_str());
      return 2;
    }
    out = dumpJson(resultToJson(*r));
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    key = r->key;
  }
  std::printf("%s\n", Json{{"ms", ms}, {"key", key}, {"bytes", out.size()}}.dump().c_str());
  return 0;
}
