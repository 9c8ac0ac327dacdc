//===- Trace.h - JAX's DEBUG trace: writing and reading ---------*- C++ -*-===//
//
// Mirrors `_log_cache_key_hash` in jax/_src/cache_key.py. With the
// `jax._src.cache_key` logger at DEBUG, JAX logs after each entry the entry's
// own digest ("get_cache_key hash of serialized <name>: <hex>") and the
// running digest ("get_cache_key hash after serializing <name>: <hex>"). The
// entry-4 step runs twice under DEBUG, so its per-flag lines appear twice.
//
// The reader finds those messages inside pasted logs whatever prefix the
// user's handler added, and compares two logs entry by entry.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_TRACE_H
#define CACHEKEY_TRACE_H

#include "cachekey/Diff.h"
#include "cachekey/Key.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace cachekey {

/// The messages JAX logs for `result`, in order, without any handler prefix.
std::vector<std::string> traceLines(const KeyResult &result,
                                    const Scenario &scenario);

/// One key computation found in a log.
struct ParsedKey {
  std::array<std::optional<std::string>, kNumEntries> digest;  // own
  std::array<std::optional<std::string>, kNumEntries> running; // cumulative
  /// Flag lines in order: (included, flag). Under DEBUG each appears twice.
  std::vector<std::pair<bool, std::string>> flagLines;
  size_t firstLine = 0; // 1-based line of the first message
  std::optional<std::string> moduleName, key; // from a hit/miss line
};

/// Everything the reader found in one log.
struct ParsedLog {
  std::vector<ParsedKey> keys;
  /// Problems a reader must fix or know, each naming a line.
  std::vector<std::string> problems;
};

/// Reads a pasted log. Lines may carry any prefix (`DEBUG:jax._src.cache_key:`,
/// absl timestamps, …); Windows line ends are accepted. A new key starts at
/// each "computation" line.
ParsedLog parseLog(const std::string &text);

/// The flag lines of one pass: the first half when every flag appears twice,
/// as it does under DEBUG.
std::vector<std::pair<bool, std::string>> singlePassFlags(const ParsedKey &key);

/// Compares two logs. A log may hold several key computations (one per
/// compiled program); they are paired in order and the first pair whose
/// digests differ is explained. Missing lines (a truncated log) are Errors
/// naming the log (`nameA` / `nameB`) and the entry.
Expected<Comparison> compareLogs(const std::string &logA,
                                 const std::string &logB,
                                 const std::string &nameA = "log A",
                                 const std::string &nameB = "log B");

} // namespace cachekey

#endif // CACHEKEY_TRACE_H
