//===- CacheDirCommand.h - `cachekey cache-dir` -----------------*- C++ -*-===//
#ifndef CACHEKEY_TOOLS_CACHEDIRCOMMAND_H
#define CACHEKEY_TOOLS_CACHEDIRCOMMAND_H

#include "cachekey/CacheDirLookup.h"
#include "cachekey/Support.h"

#include <string>
#include <vector>

namespace cachekey::cli {

/// `cachekey cache-dir DIR [--json] [--max-size BYTES] [--release X.Y.Z]
/// [--whole]`: `args` are the arguments after the command. Reads DIR
/// read-only (CacheDir.h) and prints the report (text, or JSON with
/// --json). --max-size lists what JAX's eviction would remove to bring the
/// directory to BYTES (for the next put of S bytes under cap C, BYTES = C − S;
/// -1 is JAX's "no cap", 0 or below JAX's "every write refused");
/// --release picks that release's eviction rule (default: from the layout);
/// --whole decompresses every entry entirely (streamed) instead of its head.
/// Exit status: 0 no problem, 1 problems found, 2 bad usage or DIR unreadable
/// (errors as in cachekey.cpp: stderr, and {"error": …} with --json).
int runCacheDir(const std::vector<std::string> &args);

/// `compare-logs … --cache DIR`: reads DIR (read-only, heads only) and looks
/// up the keys `log` (the last run) missed (CacheDirLookup.h). An Error (Io,
/// path = DIR) when DIR cannot be opened.
Expected<CacheLookup> lookupMissesInDir(const std::string &dir, const LogSummary &log);

} // namespace cachekey::cli

#endif // CACHEKEY_TOOLS_CACHEDIRCOMMAND_H
