//===- FileInput.h - What the CLI reads from files --------------*- C++ -*-===//
//
// The CLI's file input, as zstd's fileio.c is to zstdcli.c: a scenario or
// captured file, a log read in chunks, a fixture directory, a capture
// directory. The pipeline from text on is the engine's (cachekey/Run.h).
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_TOOLS_FILEINPUT_H
#define CACHEKEY_TOOLS_FILEINPUT_H

#include "cachekey/Capture.h"
#include "cachekey/Document.h"
#include "cachekey/Run.h"
#include "cachekey/Key.h"
#include "cachekey/LogReader.h"

#include <optional>
#include <string>

namespace cachekey::cli {

/// The whole of file `path` ("-": standard input). Errors (code Io, source
/// the path): a directory, an unreadable file; TooLarge past 1 GiB.
Expected<std::string> readFile(const std::string &path);

/// Whether `path` names a directory.
bool isDirectory(const std::string &path);

/// A log file (or standard input for "-") read in 1 MiB chunks, keeping
/// only the reader's per-program summaries.
Expected<LogSummary> readLogFile(const std::string &path);

/// Reads several log files as readLogFile does, one per core at a time,
/// and returns their summaries in the order given; the first failing file
/// in that order gives the Error.
Expected<std::vector<LogSummary>> readLogFiles(const std::vector<std::string> &paths);

/// Resolves a scenario's "base" to DIR/<id>.json, then DIR/tpu/, then
/// DIR/derived/. Errors: an id with other characters than letters, digits,
/// '_', '-', '.'; UnknownFixture naming the three files tried.
FixtureResolver resolverFor(const std::string &dir);

/// Reads the files of capture directory `dir` by the names its JSON gives
/// (no path separators, no leading dot).
CaptureFileReader captureReader(const std::string &dir);

/// A computed scenario file (Run.h's Computed).
using ComputedFile = Computed;

/// The key of scenario or captured file `path`. Errors come from `path`
/// (their source) or, for a capture, name the file in the directory.
Expected<ComputedFile> computeFromFile(const std::string &path,
                                       const FixtureResolver &resolver);

} // namespace cachekey::cli

#endif // CACHEKEY_TOOLS_FILEINPUT_H
