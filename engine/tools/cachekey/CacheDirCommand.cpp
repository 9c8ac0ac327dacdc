//===- CacheDirCommand.cpp - `cachekey cache-dir` -------------------------===//
#include "CacheDirCommand.h"

#include "PosixCacheDir.h"

#include "cachekey/CacheDir.h"
#include "cachekey/Key.h"
#include "cachekey/Run.h"

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <malloc.h>

namespace cachekey::cli {

int runCacheDir(const std::vector<std::string> &args) {
  bool json = false;
  for (const auto &a : args)
    json = json || a == "--json";
  auto fail = [json](const Error &e) {
    if (json)
      std::cout << dumpJson(errorToJson(e), 2) << "\n";
    std::cerr << "cachekey: " << e.str() << "\n";
    return 2;
  };
  auto usage = [&fail](const std::string &m) {
    fail(Error{"", m, ErrorCode::Usage});
    std::cerr << "usage: cachekey cache-dir DIR [--json] [--max-size BYTES] "
                 "[--next-entry BYTES] [--release X.Y.Z] [--whole]\n";
    return 2;
  };
  std::vector<std::string> dirs;
  std::optional<int64_t> maxSize;
  std::optional<uint64_t> nextEntry;
  std::string release;
  EntryLimits limits;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--json")
      continue;
    if (a == "--whole") {
      limits.whole = true;
    } else if (a == "--max-size" || a == "--release" || a == "--next-entry") {
      if (i + 1 >= args.size())
        return usage(a + " needs a value");
      const std::string &v = args[++i];
      if (a == "--release") {
        if (v.empty())
          return usage("--release needs a jax release (X.Y.Z), not an empty value");
        release = v;
        continue;
      }
      if (a == "--next-entry") {
        // lru_cache.py put's len(value): a size in bytes (19 digits at
        // most: no overflow).
        if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
          return usage("--next-entry takes a number of bytes (the size of the entry "
                       "being written), not \"" + v + "\"");
        nextEntry = std::strtoull(v.c_str(), nullptr, 10);
        continue;
      }
      // As jax_compilation_cache_max_size (an int): -1 no cap, 0 or below
      // every write refused (lru_cache.py), otherwise the cap in bytes.
      std::string digits = v.size() > 1 && v[0] == '-' ? v.substr(1) : v;
      errno = 0;
      long long n = digits.empty() || digits.size() > 19 ||
                            digits.find_first_not_of("0123456789") != std::string::npos
                        ? 0
                        : std::strtoll(v.c_str(), nullptr, 10);
      if (digits.empty() || digits.size() > 19 ||
          digits.find_first_not_of("0123456789") != std::string::npos || errno == ERANGE)
        return usage("--max-size takes a number of bytes (-1: no cap, as "
                     "jax_compilation_cache_max_size), not \"" + v + "\"");
      maxSize = n;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage("unknown option " + a + " for cache-dir");
    } else {
      dirs.push_back(a);
    }
  }
  if (dirs.size() != 1)
    return usage("cache-dir takes one directory");
  if (nextEntry && !maxSize)
    return usage("--next-entry needs --max-size (the cap the entry is written under)");
  // The reader's 128 KiB read and decode buffers, made and freed once per
  // entry, go straight to mmap: glibc's moving threshold would otherwise put
  // them between the records that stay, and a 100,000-entry directory's heap
  // would keep every hole (bench/run: <= 64 MB).
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  auto scan = scanCacheDir(dirs[0], limits);
  if (!scan)
    return fail(scan.error());
  auto report = analyseCacheDir(std::move(*scan), release, maxSize, nextEntry.value_or(0));
  if (!report)
    return fail(report.error());
  report->wholeDecoded = limits.whole;
  if (json)
    writeCacheReportJson(std::cout, *report), std::cout << "\n";
  else
    writeCacheReport(std::cout, *report);
  bool problems = false;
  for (const CacheProblem &p : report->problems)
    problems = problems || (p.code != ProblemCode::SubCache && p.code != ProblemCode::OrphanAtime);
  return problems ? 1 : 0;
}

Expected<CacheLookup> lookupMissesInDir(const std::string &dir, const LogSummary &log) {
  mallopt(M_MMAP_THRESHOLD, 64 * 1024); // as in runCacheDir
  auto scan = scanCacheDir(dir);
  if (!scan)
    return scan.error();
  auto report = analyseCacheDir(std::move(*scan));
  if (!report)
    return report.error();
  return lookupMissedKeys(*report, log);
}

} // namespace cachekey::cli
