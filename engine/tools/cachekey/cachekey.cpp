//===- cachekey.cpp - Command-line front end of the key engine ------------===//
//
//   cachekey explain S.json [--trace | --json] [--fixtures DIR]
//   cachekey diff A.json B.json [--json] [--fixtures DIR]
//   cachekey diff DIR_A DIR_B [--json]     (two captures, docs/capture.md)
//   cachekey batch [--fixtures DIR]        (JSON Lines in, JSON Lines out:
//                                           one result per input line)
//   cachekey compare-logs A.log B.log [C.log …] [--json] [--cache DIR]
//                                                (exit 1: some key differs;
//                                                --cache: the last run's
//                                                missed keys looked up in
//                                                DIR, CacheDirLookup.h)
//   cachekey canonicalize FILE [--profile RELEASE] [--include-metadata]
//                              [--ignore-custom-partitioning]
//   cachekey profiles [--json]
//   cachekey cache-dir DIR [--json] [--max-size BYTES] [--release X.Y.Z] [--whole]
//                              (CacheDirCommand.h; exit 1: problems found)
//
// Exit status: 0 success, 1 a difference was found (diff and compare-logs)
// or explain found that the engine's key is not the key a captured file
// says real JAX computed, 2 bad input or usage. Errors are printed as
// "cachekey: <path>: <message>"; with --json they are also written to
// stdout as {"error": {"code", "path", "message", …}}, bad usage with code
// "usage".
//
//===----------------------------------------------------------------------===//
#include "cachekey/Capture.h"
#include "cachekey/CaptureDiff.h"
#include "cachekey/Diff.h"
#include "cachekey/Key.h"
#include "cachekey/ProfileInfo.h"
#include "cachekey/Trace.h"
#include "cachekey/LogCompare.h"
#include "cachekey/Run.h"

#include "CacheDirCommand.h"
#include "FileInput.h"
#ifdef CACHEKEY_WITH_MLIR
#include "MlirPlugin.h"
#endif

#include <algorithm>
#include <cstdio>
#include <new>
#include <optional>
#include <sys/stat.h>
#ifdef CACHEKEY_FIXTURES_FROM_EXE
#include <limits.h>
#include <unistd.h>
#endif
#include <cstring>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <fstream>
#include <iostream>
#include <sstream>

using namespace cachekey;
using namespace cachekey::cli;

#ifndef CACHEKEY_DEFAULT_FIXTURES
#define CACHEKEY_DEFAULT_FIXTURES "fixtures"
#endif

namespace {

/// The fixtures directory a fixture id resolves against unless --fixtures or
/// CACHEKEY_FIXTURES says otherwise: the source tree's in a build of the
/// repository; in the pip wheel, CACHEKEY_FIXTURES_FROM_EXE relative to the
/// executable's directory (the wheel installs them beside its scripts dir).
std::string defaultFixtures() {
#ifdef CACHEKEY_FIXTURES_FROM_EXE
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    std::string exe(buf, static_cast<size_t>(n));
    return exe.substr(0, exe.rfind('/')) + "/" CACHEKEY_FIXTURES_FROM_EXE;
  }
#endif
  return CACHEKEY_DEFAULT_FIXTURES;
}

int usage() {
  std::cerr
      << "usage:\n"
         "  cachekey explain S.json [--trace | --json] [--fixtures DIR]\n"
         "  cachekey diff A.json B.json [--json] [--fixtures DIR]\n"
         "  cachekey diff DIR_A DIR_B [--json]   (two captured runs)\n"
         "  cachekey batch [--fixtures DIR]   (one scenario per stdin line; one "
         "JSON result per line)\n"
         "  cachekey compare-logs A.log B.log [C.log …] [--json] [--cache DIR]\n"
         "  cachekey canonicalize FILE [--profile RELEASE] "
         "[--include-metadata] [--ignore-custom-partitioning]\n"
         "  cachekey profiles [--json]   (the jax releases reproduced)\n"
         "  cachekey cache-dir DIR [--json] [--max-size BYTES] [--release X.Y.Z] "
         "[--whole]\n"
         "A scenario file of '-' reads standard input.\n";
  return 2;
}

/// How the CLI reports an error: on standard error, and with --json also
/// as errorToJson on standard output.
struct Report {
  /// --json was given anywhere on the command line.
  bool json = false;

  /// Prints `e`; exit status 2.
  int fail(const Error &e) const {
    if (json)
      std::cout << dumpJson(errorToJson(e), 2) << "\n";
    std::cerr << "cachekey: " << e.str() << "\n";
    return 2;
  }

  /// Bad usage: the message (also as JSON with code "usage" under --json),
  /// then the usage text; exit status 2.
  int usageError(const std::string &message) const {
    fail(Error{"", message, ErrorCode::Usage});
    return usage();
  }
};

void printExplain(const KeyResult &r) {
  std::cout << "profile " << profileName(r.profile) << "\n\n";
  for (const auto &e : r.entries) {
    if (!e.hashed) {
      std::cout << e.index << ". " << e.name << "  (not hashed)\n"
                << "   " << e.summary << "\n";
      continue;
    }
    std::cout << e.index << ". " << e.name << "  (" << e.bytes.size()
              << " bytes)\n"
              << "   hashes:  " << e.summary << "\n"
              << "   fed:     "
              << (e.bytes.empty() ? "(nothing)" : hexPreview(e.bytes, 32))
              << "\n"
              << "   digest:  " << toHex(e.digest) << "\n"
              << "   running: " << toHex(e.running) << "\n";
    if (e.index == 4)
      for (const auto &f : r.flags)
        std::cout << "   " << (f.included ? "kept     " : "excluded ") << f.flag
                  << "  [" << flagSourceName(f.source) << "]\n";
    if (e.index == 5)
      for (const auto &c : r.compileOptions.changes)
        std::cout << "   edit:    " << cacheKeyEditText(c) << "\n";
    if (e.index == 6)
      std::cout << "   source:  " << r.accelerator.provenance
                << (r.accelerator.standIn ? "  [STAND-IN]" : "") << "\n";
  }
  std::cout << "\nkey: " << r.key
            << (r.computation.unreadableKernels
                    ? "  [NOT JAX'S KEY: a Mosaic kernel MLIR 19 cannot read; "
                      "see the note]"
                    : "")
            << "\n";
  for (const auto &n : r.notes)
    std::cout << "note: " << n << "\n";
}

} // namespace

int run(int argc, char **argv);

int main(int argc, char **argv) {
#ifdef CACHEKEY_WITH_MLIR
  // Module text is canonicalised live, by MLIR loaded on first use.
  registerLazyMlirCanonicalizer();
#endif
  // Inputs are bounded, but a scenario can still ask for more memory than
  // the machine has; say so instead of aborting.
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    std::cerr << "cachekey: out of memory\n";
    return 2;
  }
}

int run(int argc, char **argv) {
  // The command is the first argument that is not an option, so options may
  // also come before it (`cachekey --json compare-logs A B`).
  std::vector<std::string> args(argv + 1, argv + argc);
  size_t at = 0;
  while (at < args.size() && args[at].size() > 1 && args[at][0] == '-') {
    if (args[at] == "--help" || args[at] == "-h") {
      usage();
      return 0;
    }
    at += (args[at] == "--fixtures" || args[at] == "--profile" || args[at] == "--cache") ? 2 : 1;
  }
  // --json anywhere asks for JSON errors, also for the usage errors found
  // while the options are read.
  Report report;
  for (const auto &a : args)
    report.json = report.json || a == "--json";
  auto fail = [&report](const Error &e) { return report.fail(e); };
  auto usageError = [&report](const std::string &m) { return report.usageError(m); };
  if (at >= args.size())
    return args.empty() ? usage() : usageError("no command");
  std::string cmd = args[at];
  if (cmd == "help") {
    usage();
    return 0;
  }
  args.erase(args.begin() + static_cast<std::ptrdiff_t>(at));
  if (cmd == "cache-dir")
    return runCacheDir(args);
  std::vector<std::string> files;
  bool trace = false, json = false, includeMetadata = false, ignoreCp = false;
  bool usedFixtures = false, usedProfile = false;
  std::string fixtures = defaultFixtures(), profile = "main";
  std::optional<std::string> cacheDir; // compare-logs --cache DIR
  if (const char *env = std::getenv("CACHEKEY_FIXTURES"))
    fixtures = env;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--trace")
      trace = true;
    else if (a == "--json")
      json = true;
    else if (a == "--include-metadata")
      includeMetadata = true;
    else if (a == "--ignore-custom-partitioning")
      ignoreCp = true;
    else if (a == "--fixtures" || a == "--profile" || a == "--cache") {
      if (i + 1 >= args.size())
        return usageError(a + " needs a value");
      if (a == "--cache") {
        cacheDir = args[++i];
      } else if (a == "--fixtures") {
        fixtures = args[++i];
        usedFixtures = true;
      } else {
        profile = args[++i];
        usedProfile = true;
      }
    }
    else if (a.size() > 1 && a[0] == '-' && a != "-")
      return usageError("unknown option " + a);
    else
      files.push_back(a);
  }
  const bool known = cmd == "explain" || cmd == "diff" || cmd == "batch" ||
                     cmd == "compare-logs" || cmd == "canonicalize" ||
                     cmd == "profiles";
  if (!known)
    return usageError("unknown command \"" + cmd + "\"");
  // Refuse options the command does not use, rather than ignore them.
  const bool scenarios = cmd == "explain" || cmd == "diff" || cmd == "batch";
  const std::pair<bool, const char *> refused[] = {
      {trace && cmd != "explain", "--trace"},
      {json && cmd != "explain" && cmd != "diff" && cmd != "compare-logs" &&
           cmd != "profiles",
       "--json"},
      {usedFixtures && !scenarios, "--fixtures"},
      {cacheDir && cmd != "compare-logs", "--cache"},
      {usedProfile && cmd != "canonicalize",
       "--profile (a scenario names its own profile)"},
      {(includeMetadata || ignoreCp) && cmd != "canonicalize",
       "--include-metadata / --ignore-custom-partitioning"},
  };
  for (const auto &[used, option] : refused)
    if (used)
      return usageError(std::string(option) + " does not apply to " + cmd);
  FixtureResolver resolver = resolverFor(fixtures);

  if (cmd == "profiles") {
    if (!files.empty())
      return usageError("profiles takes no file");
    if (json) {
      std::cout << dumpJson(profilesToJson(), 2) << "\n";
      return 0;
    }
    for (const ProfileSpec &p : allProfiles()) {
      std::cout << "profile " << p.id << (p.profile == kNewestProfile ? " (main)" : "")
                << "\n  releases: ";
      for (size_t i = 0; i < p.releases.size(); ++i)
        std::cout << (i ? ", " : "") << p.releases[i];
      std::cout << "\n  changes:  " << p.changes << "\n  verified: "
                << p.verified << "\n";
    }
    return 0;
  }
  if (cmd == "explain") {
    if (trace && json)
      return usageError("--trace and --json do not go together");
    if (files.size() != 1)
      return usageError("explain takes one scenario file ('-' for standard "
                        "input)");
    auto file = computeFromFile(files[0], resolver);
    if (!file)
      return fail(file.error());
    const KeyResult *r = &file->result;
    std::optional<CaptureCheck> check;
    if (file->captured)
      check = checkCapturedKey(*file->captured, *r);
    if (json) {
      Json j = resultToJson(*r);
      if (check)
        j["capture_check"] = captureCheckToJson(*check, *file->captured);
      std::cout << dumpJson(j, 2) << "\n";
    } else if (trace) {
      for (const auto &line : r->trace)
        std::cout << line.message << "\n";
    } else {
      printExplain(*r);
      if (check)
        std::cout << "check: " << check->sentence << "\n";
    }
    if (check && !check->matches)
      std::cerr << "cachekey: " << files[0] << ": " << check->sentence << "\n";
    return check && !check->matches ? 1 : 0;
  }
  if (cmd == "diff") {
    if (files.size() != 2 || isDirectory(files[0]) != isDirectory(files[1]))
      return usageError("diff takes two scenario files or two capture "
                        "directories");
    if (isDirectory(files[0])) {
      if (usedFixtures)
        return usageError("--fixtures does not apply to two capture "
                          "directories (captures have no base)");
      auto c = compareCaptures(captureReader(files[0]), captureReader(files[1]),
                               files[0], files[1]);
      if (!c)
        return fail(c.error());
      if (json)
        std::cout << dumpJson(captureComparisonToJson(*c), 2) << "\n";
      else
        std::cout << captureComparisonText(*c);
      return c->identical() ? 0 : 1;
    }
    auto fa = computeFromFile(files[0], resolver);
    if (!fa)
      return fail(fa.error());
    auto fb = computeFromFile(files[1], resolver);
    if (!fb)
      return fail(fb.error());
    const KeyResult *a = &fa->result, *b = &fb->result;
    Comparison c = compareResults(*a, *b);
    if (json) {
      Json j = comparisonToJson(c);
      j["key_a"] = a->key;
      j["key_b"] = b->key;
      std::cout << dumpJson(j, 2) << "\n";
    } else {
      std::cout << c.sentence << "\n";
      for (const auto &d : c.details)
        std::cout << "  - " << d << "\n";
      std::cout << "A: " << a->key << "\nB: " << b->key << "\n";
      if (!c.adviceText.empty())
        std::cout << "What to do: " << c.adviceText << "\n";
      for (const auto &n : c.notes)
        std::cout << "note: " << n << "\n";
    }
    return c.cause == 0 ? 0 : 1;
  }
  if (cmd == "batch") {
    // One output line per input line, in order, so that results pair with
    // scenarios by position: a blank line is an error line too. An error's
    // source is "line N" (1-based).
    std::string line;
    for (size_t n = 1; std::getline(std::cin, line); ++n) {
      const std::string where = "line " + std::to_string(n);
      Json out;
      if (line.find_first_not_of(" \t\r") == std::string::npos) {
        out = errorToJson(Error{"$",
                                "empty line (batch reads one scenario, a "
                                "JSON object, per line)",
                                ErrorCode::Syntax, where});
      } else if (auto r = computeFromText(line, resolver)) {
        out = resultToJson(*r, 16);
      } else {
        Error e = r.takeError();
        if (e.source.empty())
          e.source = where;
        out = errorToJson(e);
      }
      std::cout << dumpJson(out) << "\n";
    }
    return 0;
  }
  if (cmd == "compare-logs") {
    if (files.size() < 2)
      return usageError("compare-logs takes two or more log files");
#ifdef __GLIBC__
    // A comparison's large temporaries (read buffers, pairing's tables)
    // are freed long before its end; glibc raises its mmap threshold as
    // such blocks are freed and then keeps the later ones in its heap,
    // resident after their free. A fixed threshold (glibc's own initial
    // 128 KiB) gives them back: about 5 MB less peak RSS on two 1 GB logs
    // (bench/compare_logs_bench.py), at no cost in time there.
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    if (std::count(files.begin(), files.end(), std::string("-")) > 1)
      return usageError("only one of the logs can be standard input");
    if (files.size() > 2) {
      // N logs (hosts, ranks, days): per program, which runs share a key.
      auto many = readLogFiles(files);
      if (!many)
        return fail(many.error());
      auto m = compareManyLogSummaries(std::move(*many));
      if (!m)
        return fail(m.error());
      std::optional<CacheLookup> lookup;
      if (cacheDir) {
        auto l = lookupMissesInDir(*cacheDir, m->logs.back());
        if (!l)
          return fail(l.error());
        lookup = std::move(*l);
      }
      if (json) {
        Json j = manyLogComparisonToJson(*m);
        if (lookup)
          j["cache_dir"] = cacheLookupToJson(*lookup);
        std::cout << dumpJson(j) << "\n";
      } else {
        writeManyLogComparison(std::cout, *m);
        if (lookup)
          std::cout << "\n", writeCacheLookup(std::cout, *lookup);
      }
      return m->keysDiffer() ? 1 : 0;
    }
    // Streamed: a log of any size is read in chunks, keeping only
    // per-program summaries.
    auto logs = readLogFiles({files[0], files[1]});
    if (!logs)
      return fail(logs.error());
    auto c = compareLogSummaries(std::move((*logs)[0]), std::move((*logs)[1]));
    if (!c)
      return fail(c.error());
    std::optional<CacheLookup> lookup;
    if (cacheDir) {
      auto l = lookupMissesInDir(*cacheDir, c->logs[1]);
      if (!l)
        return fail(l.error());
      lookup = std::move(*l);
    }
    if (json) {
      Json trailing = Json::object();
      if (lookup)
        trailing["cache_dir"] = cacheLookupToJson(*lookup);
      writeLogComparisonJson(std::cout, *c, trailing);
      std::cout << "\n";
    } else {
      writeLogComparison(std::cout, *c);
      if (lookup)
        std::cout << "\n", writeCacheLookup(std::cout, *lookup);
    }
    return c->keysDiffer() ? 1 : 0;
  }
  if (cmd == "canonicalize") {
    if (files.size() != 1)
      return usageError("canonicalize takes one MLIR file (text or "
                        "bytecode; '-' for standard input)");
    auto p = parseProfile(profile);
    if (!p)
      return fail(p.takeError("--profile"));
    auto text = readFile(files[0]);
    if (!text)
      return fail(text.error());
    ModuleSpec m;
    m.text = *text;
    m.includeMetadata = includeMetadata;
    m.ignoreCustomPartitioning = ignoreCp;
    if (ignoreCp)
      m.ignoreCallbacks = IgnoreCallbacks::CustomPartitioning;
    auto e = computationEntry(m, *p);
    if (!e)
      return fail(e.takeError().from(files[0]));
    std::cout.write(e->bytes.data(), static_cast<std::streamsize>(e->bytes.size()));
    return 0;
  }
  return usage();
}
