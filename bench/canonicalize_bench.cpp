//===- canonicalize_bench.cpp - Live entry-1 canonicalisation timing ------===//
//
// Canonicalises the largest captured real module (fixtures/large_mlp.json,
// `capture.module_generic`: jaxlib's text with locations) and prints one JSON
// line of medians over N runs, in milliseconds:
//  * canonicalize_ms: what jaxlib's `_canonicalize_ir` does, on a module
//    already parsed — clone, builtin.module(strip-debuginfo), Mosaic strip
//    (main), write bytecode — the figure to set against jaxlib;
//  * parse_ms: parsing the text into a fresh context;
//  * end_to_end_ms: `canonicalize()` as the CLI calls it (context, parse and
//    the above).
//
// Usage: canonicalize_bench [RUNS] [FIXTURE.json]
//
//===----------------------------------------------------------------------===//
#include "cachekey/Scenario.h"
#include "cachekey/mlir/Canonicalize.h"
#include "cachekey/mlir/CloneModule.h"
#include "cachekey/mlir/ModuleIO.h"
#include "cachekey/mlir/MosaicKernels.h"
#include "cachekey/mlir/StripDebugInfo.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

using namespace cachekey;
using Clock = std::chrono::steady_clock;

static double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 21;
  std::string path = argc > 2 ? argv[2]
                              : std::string(CACHEKEY_SOURCE_DIR) +
                                    "/fixtures/large_mlp.json";
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  auto doc = parseJsonText(ss.str(), path);
  if (!doc) {
    std::fprintf(stderr, "%s\n", doc.error().str().c_str());
    return 2;
  }
  ModuleSpec spec;
  spec.text = (*doc)["capture"]["module_generic"].get<std::string>();

  std::vector<double> endToEnd, parse, canon;
  size_t bytes = 0;
  for (int i = 0; i < runs; ++i) {
    auto t0 = Clock::now();
    auto e = canonicalize(spec, kNewestProfile);
    endToEnd.push_back(msSince(t0));
    if (!e) {
      std::fprintf(stderr, "%s\n", e.error().str().c_str());
      return 2;
    }
    bytes = e->bytes.size();

    auto context = makeMlirContext();
    auto t1 = Clock::now();
    auto parsed = parseMlirModule(*context, *spec.text);
    parse.push_back(msSince(t1));
    if (!parsed)
      return 2;

    // The same steps as `_canonicalize_ir(m, IgnoreCallbacks.NO)`.
    auto t2 = Clock::now();
    mlir::OwningOpRef<mlir::ModuleOp> m = cloneModule(**parsed);
    if (!stripDebugInfo(*m) || !stripMosaicKernels(*m))
      return 2;
    Bytes out = writeMlirBytecode(*m);
    canon.push_back(msSince(t2));
    if (out != e->bytes) {
      std::fprintf(stderr, "phase-by-phase bytes differ from canonicalize()\n");
      return 2;
    }
  }
  std::printf("{\"bench\":\"native_canonicalize_large_mlp\",\"runs\":%d,"
              "\"text_bytes\":%zu,\"bytecode_bytes\":%zu,"
              "\"canonicalize_ms\":%.2f,\"parse_ms\":%.2f,"
              "\"end_to_end_ms\":%.2f}\n",
              runs, spec.text->size(), bytes, median(canon), median(parse),
              median(endToEnd));
  return 0;
}
