//===- PosixCacheDir.h - A JAX cache directory read from disk ---*- C++ -*-===//
//
// The CLI's lister of a cache directory: POSIX system calls, on every core.
// The engine's cache-folder library (cachekey/CacheDir.h) knows no file
// system: it reads entries through ByteSource and merges what a lister
// gives it, as the page's folder picker (scanListedFiles) and this do. As
// zstd keeps its file I/O in programs/, out of lib/.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_TOOLS_POSIXCACHEDIR_H
#define CACHEKEY_TOOLS_POSIXCACHEDIR_H

#include "cachekey/CacheDir.h"

#include <string>

namespace cachekey {

/// Lists and reads `dir` (never writes; opens with O_NOFOLLOW, and
/// O_NOATIME when allowed; symlinks are reported, not followed; a file that
/// cannot be read gets `readError` and the scan goes on). Each entry's
/// first 64 KiB are read in one pread; the names are examined on one
/// thread per core (at most 8). Error (code Io, path = dir) only when `dir`
/// itself cannot be opened or is not a directory.
Expected<CacheScan> scanCacheDir(const std::string &dir,
                                 const EntryLimits &limits = {});

} // namespace cachekey

#endif // CACHEKEY_TOOLS_POSIXCACHEDIR_H
