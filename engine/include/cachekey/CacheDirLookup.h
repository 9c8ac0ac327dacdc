//===- CacheDirLookup.h - A run's missed keys, looked up in a cache dir -*- C++ -*-===//
//
// `cachekey compare-logs A B … --cache DIR`: for each program the last run
// missed, whether its entry is in DIR and in what state, so that a miss can
// be told apart: never written (absent), written and left damaged (JAX keeps
// a damaged file: every run misses it), written after the lookup (present),
// or looked for in another directory than DIR.
//
// The names mirror jax/_src/lru_cache.py: `put` writes `<key>-cache` (jax
// 0.4.31 and later; 0.4.30 names the file by the key alone) and, with a cap,
// `<key>-atime`; eviction unlinks both. A key is `<module>-<64 hex>`
// (jax/_src/cache_key.py `get`); a log line may give the 64 hex only.
//
// Facts only (codes and fields); the words are CacheDirWording.cpp's.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_CACHEDIRLOOKUP_H
#define CACHEKEY_CACHEDIRLOOKUP_H

#include "cachekey/CacheDir.h"

#include <ostream>
#include <string>
#include <vector>

namespace cachekey {

struct LogSummary;

/// What the run's log said about writing a key, after its miss.
enum class LoggedWrite : uint8_t {
  Unknown,    ///< nothing logged
  Written,    ///< "Writing … to persistent compilation cache"
  NotWritten, ///< one of the "Not writing persistent cache entry" lines
  Failed,     ///< "Error writing persistent compilation cache entry"
};

/// One key to look for.
struct LookupKey {
  std::string label;  ///< how the reader calls the program ("jit_f", "jit_f (2nd)")
  /// "<module>-<64 hex>" as logged; "" when only the digest is known.
  std::string key;
  std::string digest; ///< the 64 lowercase hex of the key
  LoggedWrite write = LoggedWrite::Unknown;
  /// The run warned "Error reading persistent compilation cache entry" for it.
  bool readErrorLogged = false;
  /// That read error was the compile-only client's (a deviceless compile
  /// cannot load any entry; LoggedProgram::compileOnlyRead).
  bool compileOnlyRead = false;
};

/// The programs `log` looked up and missed (LoggedProgram::lookup == Miss)
/// whose key or final digest it logged, in log order; `withoutKey` counts
/// the missed programs whose key it did not log.
std::vector<LookupKey> missedKeys(const LogSummary &log, size_t &withoutKey);

/// What DIR holds under one key.
enum class LookupCode : uint8_t {
  Present,    ///< the entry is there and its head reads (file, size, compile_seconds, last_access_ns)
  Damaged,    ///< the entry is there and does not read (file, status, detail)
  Unreadable, ///< the entry is there and could not be opened or read (file, detail)
  Symlink,    ///< a symbolic link stands where the entry would be (file): not followed
  AtimeOnly,  ///< no entry, but its -atime is there (file): removed, not by JAX's eviction
  TempOnly,   ///< no entry, but a `_temp_<key>` write that never finished (file)
  Absent,     ///< nothing under the key (other_entries: the module's entries in DIR)
};
const char *lookupCodeName(LookupCode c); ///< "present", "damaged", …

/// The finding about one key.
struct KeyLookup {
  LookupCode code = LookupCode::Absent;
  LookupKey key;
  std::string file;                 ///< the file found (empty for Absent)
  EntryStatus status = EntryStatus::Ok; ///< Damaged
  std::string detail;               ///< Damaged / Unreadable: the reader's message
  uint64_t size = 0;                ///< bytes on disk
  uint32_t compileSeconds = 0;      ///< Present: the entry's recorded compile seconds
  int64_t lastAccessNs = 0;         ///< Present: -atime when there, else mtime
  /// Absent: the entries in DIR of the same module under other keys (its
  /// key moved), and their number.
  size_t otherEntries = 0;
};

/// Whether the directory the run logged is DIR.
enum class DirMatch : uint8_t {
  Same,      ///< one logged "Initialized persistent compilation cache at" path is DIR
  Other,     ///< the run logged other directories only
  NotLogged, ///< the log does not say which directory the run used
};
const char *dirMatchName(DirMatch m); ///< "same", "other", "not_logged"

/// The findings for one run and one directory.
struct CacheLookup {
  std::string dir;                     ///< DIR as given
  std::string run;                     ///< the log's name
  std::vector<std::string> loggedDirs; ///< the run's "Initialized … at" paths
  DirMatch dirMatch = DirMatch::NotLogged;
  size_t missedWithoutKey = 0;         ///< misses whose key is not logged
  std::vector<KeyLookup> keys;         ///< one per missed key, in log order
};

/// Whether `loggedDirs` names `dir`: the same directory by device and inode
/// (stat, following links, as JAX opens it), else by equal text; a path
/// that cannot be stat-ed is compared as text.
DirMatch matchLoggedDir(const std::string &dir, const std::vector<std::string> &loggedDirs);

/// Looks every key up in `report` (a file named `<key>-cache` or `<key>`,
/// its -atime, `_temp_<key>`, a symbolic link of those names; keys given by
/// digest only match any module). Never fails.
CacheLookup lookupKeys(const CacheReport &report, const std::vector<LookupKey> &keys);

/// missedKeys of `log` looked up in `report`, with the run's directories
/// matched against report.dir.
CacheLookup lookupMissedKeys(const CacheReport &report, const LogSummary &log);

/// The English of one key's finding, and of the directory line
/// (CacheDirWording.cpp).
std::string keyLookupText(const KeyLookup &k, const CacheLookup &l);
std::string cacheLookupDirText(const CacheLookup &l);

/// {"dir", "run", "logged_dirs", "dir_match": {code, text}, "missed_without_key",
/// "keys": [{code, label, key, digest, logged_write, read_error_logged,
/// file?, size?, status?, detail?, compile_seconds?, last_access_ns?,
/// other_entries?, text}]}.
Json cacheLookupToJson(const CacheLookup &l);

/// "Cache directory: DIR …" then one line per key.
void writeCacheLookup(std::ostream &out, const CacheLookup &l);

} // namespace cachekey

#endif // CACHEKEY_CACHEDIRLOOKUP_H
