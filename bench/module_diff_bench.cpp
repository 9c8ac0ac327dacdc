//===- module_diff_bench.cpp - Structural module diff timing --------------===//
//
// Budget (issue 35): the structural diff of two ~5 MB modules in under 1 s
// natively. The modules are made from the largest captured real module
// (fixtures/large_mlp.json, `capture.module_generic`, jaxlib's text with
// locations, 2 MB): its @main is cloned COPIES times under new names and the
// whole printed as text (~2 MB per function); the second module is the same
// with one attribute (`bench.mutated`) set on the middle operation of the
// middle copy. Prints one JSON line: the sizes, the medians over RUNS of
// diffModules (parse both + diff, ms), of parsing alone, and the diff's findings, which must be
// exactly one structural finding naming that attribute (exit 1 otherwise).
//
// Usage: module_diff_bench [RUNS] [COPIES] [FIXTURE.json]
//        module_diff_bench --write DIR [COPIES] [FIXTURE.json]
//          writes the two modules to DIR/a.mlir and DIR/b.mlir and exits
//        module_diff_bench --files A B [RUNS]
//          times diffModules on two module files; prints {"ms": [...],
//          "findings": [...]} (bench/wasm_module_diff.mjs runs this beside
//          the wasm engine's diffModules on the same files)
//
//===----------------------------------------------------------------------===//
#include "cachekey/Json.h"
#include "cachekey/mlir/ModuleDiff.h"
#include "cachekey/mlir/ModuleIO.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

using namespace cachekey;

static std::string print(mlir::ModuleOp m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m->print(os, mlir::OpPrintingFlags().enableDebugInfo());
  os.flush();
  return s;
}

static std::string readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Runs diffModules(a, b) `runs` times, each timed alone (milliseconds
/// appended to `ms`); `last` is the last diff. False (the error printed)
/// when the modules do not diff.
static bool timeDiffs(const std::string &a, const std::string &b, int runs,
                      std::vector<double> &ms, ModuleDiff &last) {
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    auto d = diffModules(a, b);
    auto t1 = std::chrono::steady_clock::now();
    if (!d) {
      std::fprintf(stderr, "%s\n", d.error().str().c_str());
      return false;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    last = std::move(*d);
  }
  return true;
}

/// --files A B [RUNS]: diffModules on two files, each run timed alone.
static int timeFiles(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: module_diff_bench --files A B [RUNS]\n");
    return 2;
  }
  std::string a = readFile(argv[2]), b = readFile(argv[3]);
  int runs = argc > 4 ? std::atoi(argv[4]) : 1;
  std::vector<double> ms;
  ModuleDiff last;
  if (!timeDiffs(a, b, runs, ms, last))
    return 2;
  std::printf("%s\n", Json{{"ms", ms}, {"findings", moduleDiffToJson(last)["findings"]}}.dump().c_str());
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && std::string(argv[1]) == "--files")
    return timeFiles(argc, argv);
  const char *writeDir = nullptr;
  if (argc > 2 && std::string(argv[1]) == "--write") {
    writeDir = argv[2];
    // Then [COPIES] [FIXTURE] sit where the timing form has them.
    argv += 1, argc -= 1;
    argv[1] = const_cast<char *>("1");
  }
  int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  int copies = argc > 2 ? std::atoi(argv[2]) : 2;
  std::string fixture = argc > 3 ? argv[3]
                                 : std::string(CACHEKEY_SOURCE_DIR) +
                                       "/fixtures/large_mlp.json";
  auto parsedDoc = parseJsonText(readFile(fixture.c_str()), fixture);
  if (!parsedDoc) {
    std::fprintf(stderr, "%s\n", parsedDoc.error().str().c_str());
    return 2;
  }
  Json doc = std::move(*parsedDoc);
  std::string text = doc["capture"]["module_generic"].get<std::string>();

  auto context = makeMlirContext();
  auto parsed = parseMlirModule(*context, text);
  if (!parsed) {
    std::fprintf(stderr, "%s\n", parsed.error().str().c_str());
    return 2;
  }
  mlir::ModuleOp m = **parsed;
  mlir::func::FuncOp main;
  for (auto f : m.getOps<mlir::func::FuncOp>())
    if (f.getSymName() == "main")
      main = f;
  if (!main) {
    std::fprintf(stderr, "no @main in %s\n", fixture.c_str());
    return 2;
  }
  std::vector<mlir::func::FuncOp> clones;
  for (int i = 0; i < copies; ++i) {
    auto c = main.clone();
    c.setSymName("main_copy_" + std::to_string(i));
    c.setPrivate();
    m.getBody()->push_back(c);
    clones.push_back(c);
  }
  std::string a = print(m);
  mlir::func::FuncOp middle = clones.empty() ? main : clones[clones.size() / 2];
  std::vector<mlir::Operation *> ops;
  middle->walk([&](mlir::Operation *op) {
    if (op != middle.getOperation())
      ops.push_back(op);
  });
  ops[ops.size() / 2]->setAttr("bench.mutated", mlir::UnitAttr::get(context.get()));
  std::string b = print(m);
  if (writeDir) {
    std::ofstream(std::string(writeDir) + "/a.mlir", std::ios::binary) << a;
    std::ofstream(std::string(writeDir) + "/b.mlir", std::ios::binary) << b;
    std::printf("%s\n", Json{{"bytes_a", a.size()}, {"bytes_b", b.size()}}.dump().c_str());
    return 0;
  }

  std::vector<double> ms;
  ModuleDiff last;
  if (!timeDiffs(a, b, runs, ms, last))
    return 2;
  std::sort(ms.begin(), ms.end());
  // Parsing alone (both modules, one fresh context), for the share of it.
  std::vector<double> parseMs;
  for (int r = 0; r < runs; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    auto ctx = makeMlirContext();
    auto pa = parseMlirModule(*ctx, a);
    auto pb = parseMlirModule(*ctx, b);
    auto t1 = std::chrono::steady_clock::now();
    if (!pa || !pb)
      return 2;
    parseMs.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(parseMs.begin(), parseMs.end());
  bool ok = last.findings.size() == 1 &&
            last.findings[0].code == ModuleFinding::Code::Structural &&
            last.changes.size() == 1 && last.changes[0].attr == "bench.mutated";
  Json out{{"bench", "module_diff"},
           {"bytes_a", a.size()},
           {"bytes_b", b.size()},
           {"ops_a", last.opsBefore},
           {"runs", runs},
           {"median_ms", ms[ms.size() / 2]},
           {"min_ms", ms.front()},
           {"parse_median_ms", parseMs[parseMs.size() / 2]},
           {"budget_ms", 1000},
           {"findings_as_expected", ok},
           {"findings", moduleDiffToJson(last)["findings"]}};
  std::printf("%s\n", out.dump().c_str());
  return ok ? 0 : 1;
}
