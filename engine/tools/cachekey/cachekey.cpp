//===- cachekey.cpp - Command-line front end of the key engine ------------===//
//
//   cachekey explain S.json [--trace | --json] [--fixtures DIR]
//   cachekey diff A.json B.json [--json] [--fixtures DIR]
//   cachekey diff DIR_A DIR_B [--json]     (two captures, docs/capture.md)
//   cachekey batch [--fixtures DIR]        (JSON Lines in, JSON Lines out:
//                                           one result per input line)
//   cachekey compare-logs A.log B.log [C.log …] [--json] [--cache DIR]
//                                                (exit 1: some key differs,
//                                                or the second of two runs
//                                                missed a program;
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
// Each command is one *Command.cpp (Command.h): this file reads the options
// every command shares once, refuses those a command does not take, and
// dispatches through the table kCommands.
//
//===----------------------------------------------------------------------===//
#include "CacheDirCommand.h"
#include "Command.h"
#include "ShownText.h"
#ifdef CACHEKEY_WITH_MLIR
#include "MlirPlugin.h"
#endif

#include <cstdlib>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>
#ifdef CACHEKEY_FIXTURES_FROM_EXE
#include <limits.h>
#include <unistd.h>
#endif

using namespace cachekey;
using namespace cachekey::cli;

#ifndef CACHEKEY_DEFAULT_FIXTURES
#define CACHEKEY_DEFAULT_FIXTURES "fixtures"
#endif

namespace cachekey::cli {

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

int Report::fail(const Error &e) const {
  if (json)
    std::cout << dumpJson(errorToJson(e), 2) << "\n";
  std::cerr << "cachekey: " << e.str() << "\n";
  return 2;
}

int Report::usageError(const std::string &message) const {
  fail(Error{"", message, ErrorCode::Usage});
  return usage();
}

} // namespace cachekey::cli

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

/// One command of the table: its name, the shared options it takes, and
/// what runs it.
struct Command {
  const char *name;
  unsigned takes;
  int (*run)(const CommandLine &);
};

const Command kCommands[] = {
    {"explain", TakesTrace | TakesJson | TakesFixtures, runExplain},
    {"diff", TakesJson | TakesFixtures, runDiff},
    {"batch", TakesFixtures, runBatch},
    {"compare-logs", TakesJson | TakesCache, runCompareLogs},
    {"canonicalize", TakesProfile | TakesCanonicalize, runCanonicalize},
    {"profiles", TakesJson, runProfiles},
};

} // namespace

int run(int argc, char **argv);

int main(int argc, char **argv) {
#ifdef CACHEKEY_WITH_MLIR
  // Module text is canonicalised live, by MLIR loaded on first use.
  registerLazyMlirCanonicalizer();
#endif
  // Messages name the user's files and quote them: a control byte or a
  // byte that is not UTF-8 among them is shown as an escape (ShownText.h).
  ShownTextScope shownErrors(std::cerr);
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
  CommandLine cl;
  for (const auto &a : args)
    cl.report.json = cl.report.json || a == "--json";
  const Report &report = cl.report;
  if (at >= args.size())
    return args.empty() ? usage() : report.usageError("no command");
  std::string cmd = args[at];
  if (cmd == "help") {
    usage();
    return 0;
  }
  args.erase(args.begin() + static_cast<std::ptrdiff_t>(at));
  // Text reports quote program names and file names from the user's logs
  // and directories: shown as ShownText.h says. JSON (escaped by its
  // writer), canonicalize's bytecode and batch's JSON lines go out as made.
  std::optional<ShownTextScope> shown;
  if (!report.json && cmd != "canonicalize" && cmd != "batch")
    shown.emplace(std::cout);
  if (cmd == "cache-dir")
    return runCacheDir(args);
  cl.fixtures = defaultFixtures();
  if (const char *env = std::getenv("CACHEKEY_FIXTURES"))
    cl.fixtures = env;
  bool usedCache = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--trace")
      cl.trace = true;
    else if (a == "--json")
      cl.json = true;
    else if (a == "--include-metadata")
      cl.includeMetadata = true;
    else if (a == "--ignore-custom-partitioning")
      cl.ignoreCp = true;
    else if (a == "--fixtures" || a == "--profile" || a == "--cache") {
      if (i + 1 >= args.size())
        return report.usageError(a + " needs a value");
      if (a == "--cache") {
        cl.cacheDir = args[++i];
        usedCache = true;
      } else if (a == "--fixtures") {
        cl.fixtures = args[++i];
        cl.usedFixtures = true;
      } else {
        cl.profile = args[++i];
        cl.usedProfile = true;
      }
    }
    else if (a.size() > 1 && a[0] == '-' && a != "-")
      return report.usageError("unknown option " + a);
    else
      cl.files.push_back(a);
  }
  const Command *command = nullptr;
  for (const Command &c : kCommands)
    if (cmd == c.name)
      command = &c;
  if (!command)
    return report.usageError("unknown command \"" + cmd + "\"");
  // Refuse options the command does not use, rather than ignore them.
  const bool canonicalizeOptions = cl.includeMetadata || cl.ignoreCp;
  const std::pair<bool, std::pair<Takes, const char *>> refused[] = {
      {cl.trace, {TakesTrace, "--trace"}},
      {cl.json, {TakesJson, "--json"}},
      {cl.usedFixtures, {TakesFixtures, "--fixtures"}},
      {usedCache, {TakesCache, "--cache"}},
      {cl.usedProfile, {TakesProfile, "--profile (a scenario names its own profile)"}},
      {canonicalizeOptions, {TakesCanonicalize, "--include-metadata / --ignore-custom-partitioning"}},
  };
  for (const auto &[used, option] : refused)
    if (used && !(command->takes & option.first))
      return report.usageError(std::string(option.second) + " does not apply to " + cmd);
  return command->run(cl);
}
