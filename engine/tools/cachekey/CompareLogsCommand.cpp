//===- CompareLogsCommand.cpp - `cachekey compare-logs` -------------------===//
//
// Two logs or N, one path: read every log in chunks (FileInput.h), compare
// (two: LogComparison; three or more: ManyLogComparison), look the last
// run's misses up in --cache DIR, then print the engine's text or JSON.
//
//===----------------------------------------------------------------------===//
#include "CacheDirCommand.h"
#include "Command.h"
#include "FileInput.h"

#include "cachekey/LogCompare.h"

#include <algorithm>
#include <iostream>
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace cachekey::cli {
namespace {

const LogSummary &lastLog(const LogComparison &c) { return c.logs[1]; }
const LogSummary &lastLog(const ManyLogComparison &c) { return c.logs.back(); }
void writeText(std::ostream &os, const LogComparison &c) { writeLogComparison(os, c); }
void writeText(std::ostream &os, const ManyLogComparison &c) { writeManyLogComparison(os, c); }

/// The exit status of a comparison that was made: 1 when a difference was
/// found, else 0. Two logs: some program's key differs, or the second run
/// missed a program (a new one, a renamed one, or one whose key the first
/// run had: evicted, never written, damaged); a second run that hit every
/// program it logged, with no key moved, is 0. N logs (peers: hosts, ranks,
/// days): some program's key differs between the runs.
int differenceStatus(const LogComparison &c) {
  return c.keysDiffer() || c.verdict.missed > 0 ? 1 : 0;
}
int differenceStatus(const ManyLogComparison &c) { return c.keysDiffer() ? 1 : 0; }

/// Prints comparison `c` (and the --cache look-up) as text or JSON; exits
/// with differenceStatus(c).
template <class Compared> int print(const CommandLine &cl, const Compared &c) {
  std::optional<CacheLookup> lookup;
  if (cl.cacheDir) {
    auto l = lookupMissesInDir(*cl.cacheDir, lastLog(c));
    if (!l)
      return cl.report.fail(l.error());
    lookup = std::move(*l);
  }
  if (cl.json) {
    Json trailing = Json::object();
    if (lookup)
      trailing["cache_dir"] = cacheLookupToJson(*lookup);
    writeLogComparisonJson(std::cout, c, trailing);
    std::cout << "\n";
  } else {
    writeText(std::cout, c);
    if (lookup)
      std::cout << "\n", writeCacheLookup(std::cout, *lookup);
  }
  return differenceStatus(c);
}

} // namespace

int runCompareLogs(const CommandLine &cl) {
  const auto &files = cl.files;
  if (files.size() < 2)
    return cl.report.usageError("compare-logs takes two or more log files");
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
    return cl.report.usageError("only one of the logs can be standard input");
  // Streamed: a log of any size is read in chunks, keeping only
  // per-program summaries.
  auto logs = readLogFiles(files);
  if (!logs)
    return cl.report.fail(logs.error());
  if (logs->size() == 2) {
    auto c = compareLogSummaries(std::move((*logs)[0]), std::move((*logs)[1]));
    if (!c)
      return cl.report.fail(c.error());
    return print(cl, *c);
  }
  // N logs (hosts, ranks, days): per program, which runs share a key.
  auto m = compareManyLogSummaries(std::move(*logs));
  if (!m)
    return cl.report.fail(m.error());
  return print(cl, *m);
}

} // namespace cachekey::cli
