//===- CacheDirCommand.h - `cachekey cache-dir` -----------------*- C++ -*-===//
#ifndef CACHEKEY_TOOLS_CACHEDIRCOMMAND_H
#define CACHEKEY_TOOLS_CACHEDIRCOMMAND_H

#include <string>
#include <vector>

namespace cachekey::cli {

/// `cachekey cache-dir DIR [--json] [--max-size BYTES] [--release X.Y.Z]
/// [--whole]`: `args` are the arguments after the command. Reads DIR
/// read-only (CacheDir.h) and prints the report (text, or JSON with
/// --json). --max-size lists what JAX's eviction would remove to bring the
/// directory to BYTES (for the next put of S bytes under cap C, BYTES = C − S);
/// --release picks that release's eviction rule (default: from the layout);
/// --whole decompresses every entry entirely (streamed) instead of its head.
/// Exit status: 0 no problem, 1 problems found, 2 bad usage or DIR unreadable
/// (errors as in cachekey.cpp: stderr, and {"error": …} with --json).
int runCacheDir(const std::vector<std::string> &args);

} // namespace cachekey::cli

#endif // CACHEKEY_TOOLS_CACHEDIRCOMMAND_H
