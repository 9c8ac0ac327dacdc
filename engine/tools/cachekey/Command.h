//===- Command.h - The CLI's commands, one file each ------------*- C++ -*-===//
//
// `cachekey COMMAND …` is a table of commands (cachekey.cpp's kCommands), in
// the way zstd's programs/ sit over lib/: each command is one *Command.cpp
// that reads its files (FileInput.h), asks the engine, and prints the
// engine's text or JSON. The options are read once, here, for every
// command; a command says which of them it takes, and the others are
// refused by name.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_TOOLS_COMMAND_H
#define CACHEKEY_TOOLS_COMMAND_H

#include "cachekey/Json.h"
#include "cachekey/Support.h"

#include <optional>
#include <string>
#include <vector>

namespace cachekey::cli {

/// Prints the usage text on standard error; returns exit status 2.
int usage();

/// How the CLI reports an error: on standard error, and with --json also
/// as errorToJson on standard output.
struct Report {
  /// --json was given anywhere on the command line.
  bool json = false;

  /// Prints `e` ("cachekey: <path>: <message>"); exit status 2.
  int fail(const Error &e) const;

  /// Bad usage: the message (also as JSON with code "usage" under --json),
  /// then the usage text; exit status 2.
  int usageError(const std::string &message) const;
};

/// The options every command but cache-dir shares, read once
/// (cachekey.cpp), and the files named.
struct CommandLine {
  std::vector<std::string> files;
  bool trace = false, json = false, includeMetadata = false, ignoreCp = false;
  bool usedFixtures = false, usedProfile = false;
  /// --fixtures DIR, else CACHEKEY_FIXTURES, else the build's default.
  std::string fixtures;
  /// --profile RELEASE (canonicalize); "main" by default.
  std::string profile = "main";
  /// --cache DIR (compare-logs).
  std::optional<std::string> cacheDir;
  Report report;
};

/// The options a command takes, as bits; any other one given is refused.
enum Takes : unsigned {
  TakesTrace = 1u << 0,        // --trace
  TakesJson = 1u << 1,         // --json
  TakesFixtures = 1u << 2,     // --fixtures DIR
  TakesCache = 1u << 3,        // --cache DIR
  TakesProfile = 1u << 4,      // --profile RELEASE
  TakesCanonicalize = 1u << 5, // --include-metadata, --ignore-custom-partitioning
};

/// `cachekey explain S.json [--trace | --json] [--fixtures DIR]`: exit 0, or
/// 1 when a captured file's key is not the one the engine computes.
int runExplain(const CommandLine &cl);

/// `cachekey diff A.json B.json [--json]` or `diff DIR_A DIR_B [--json]`
/// (two captures): exit 0 equal keys, 1 a key moved.
int runDiff(const CommandLine &cl);

/// `cachekey batch`: one scenario per standard-input line, one JSON result
/// (or {"error"}) per output line, in order.
int runBatch(const CommandLine &cl);

/// `cachekey compare-logs A.log B.log [C.log …] [--json] [--cache DIR]`:
/// two logs or N, one path (exit 1 when some program's key differs).
int runCompareLogs(const CommandLine &cl);

/// `cachekey canonicalize FILE [--profile RELEASE] [--include-metadata]
/// [--ignore-custom-partitioning]`: entry 1's bytes on standard output.
int runCanonicalize(const CommandLine &cl);

/// `cachekey profiles [--json]`: the jax releases the engine reproduces.
int runProfiles(const CommandLine &cl);

} // namespace cachekey::cli

#endif // CACHEKEY_TOOLS_COMMAND_H
