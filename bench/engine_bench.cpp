//===- engine_bench.cpp - Native engine benchmarks ------------------------===//
//
// Prints JSON lines, one per measurement:
//  * recompute: the key (entries 1–8, and the trace) for a scenario whose
//    entry-1 bytes are 10 KB, median over many runs, in microseconds;
//  * sha256: the native SHA-256 (OpenSSL) over a 64 MiB file against
//    `sha256sum` on the same file, timed in the same run; the file is kept
//    for bench/run, which times Python's hashlib on it too.
//
//===----------------------------------------------------------------------===//
#include "cachekey/Key.h"
#include "cachekey/Sha256.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

using namespace cachekey;
using Clock = std::chrono::steady_clock;

static double since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::ifstream in(std::string(CACHEKEY_SOURCE_DIR) + "/fixtures/add_1x1.json");
  std::stringstream ss;
  ss << in.rdbuf();
  auto doc = parseJsonText(ss.str());
  if (!doc) {
    std::fprintf(stderr, "%s\n", doc.error().str().c_str());
    return 2;
  }
  auto scenario = readScenario(*doc, nullptr);
  if (!scenario) {
    std::fprintf(stderr, "%s\n", scenario.error().str().c_str());
    return 2;
  }
  std::mt19937 rng(1);
  Bytes tenKb(10 * 1024, '\0');
  for (auto &c : tenKb)
    c = static_cast<char>(rng());
  scenario->module.entry1 = tenKb;

  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    scenario->flags.xlaFlags = "--xla_gpu_autotune_level=" + std::to_string(i % 5);
    auto t0 = Clock::now();
    auto r = computeKey(*scenario);
    times.push_back(since(t0));
    if (!r)
      return 2;
  }
  std::sort(times.begin(), times.end());
  std::printf("{\"bench\":\"native_recompute_key_10kb\",\"median_us\":%.2f,"
              "\"p90_us\":%.2f,\"runs\":%d}\n",
              times[times.size() / 2], times[times.size() * 9 / 10], runs);

  // SHA-256 throughput against sha256sum on the same 64 MiB file.
  const size_t size = 64u << 20;
  std::string path = "/tmp/cachekey-bench-64mib.bin";
  {
    Bytes block(1 << 20, '\0');
    for (auto &c : block)
      c = static_cast<char>(rng());
    std::ofstream out(path, std::ios::binary);
    for (size_t i = 0; i < size / block.size(); ++i)
      out.write(block.data(), static_cast<std::streamsize>(block.size()));
  }
  double best = 1e30, bestTool = 1e30;
  Digest digest{};
  for (int rep = 0; rep < 5; ++rep) {
    std::ifstream f(path, std::ios::binary);
    Bytes data((std::istreambuf_iterator<char>(f)), {});
    auto t0 = Clock::now();
    Sha256 h;
    h.update(data);
    digest = h.runningDigest();
    best = std::min(best, since(t0));
    auto t1 = Clock::now();
    int rc = std::system(("sha256sum " + path + " > /dev/null").c_str());
    bestTool = std::min(bestTool, since(t1));
    if (rc != 0)
      return 2;
  }
  // The file stays for bench/run, which times Python's hashlib (OpenSSL) on
  // the same bytes in the same run and checks the digest, then removes it.
  std::printf("{\"bench\":\"sha256_64mib\",\"ours_mb_s\":%.1f,"
              "\"sha256sum_mb_s\":%.1f,\"ratio_time_ours_over_sha256sum\":%.3f,"
              "\"file\":\"%s\",\"digest\":\"%s\"}\n",
              size / best, size / bestTool, best / bestTool, path.c_str(),
              toHex(digest).c_str());
  return 0;
}
