//===- Trace.h - JAX's DEBUG trace ------------------------------*- C++ -*-===//
//
// Mirrors `_log_cache_key_hash` in jax/_src/cache_key.py. With the
// `jax._src.cache_key` logger at DEBUG, JAX logs after each entry the entry's
// own digest ("get_cache_key hash of serialized <name>: <hex>") and the
// running digest ("get_cache_key hash after serializing <name>: <hex>"). The
// entry-4 step runs twice under DEBUG, so its per-flag lines appear twice.
//
// Reading such logs back is LogReader.h; comparing two is LogCompare.h.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_TRACE_H
#define CACHEKEY_TRACE_H

#include <cstdint>
#include <string>
#include <vector>

namespace cachekey {

struct KeyResult; // Key.h, which holds the trace as TraceLines
struct Scenario;  // Scenario.h

/// The level of a `logger` call in jax/_src/cache_key.py: the per-entry
/// digest lines and the per-flag lines are `logger.debug`; the device-kind
/// fallback of `_hash_accelerator_config` is `logger.info`.
enum class TraceLevel : uint8_t { Debug, Info };

/// "debug" or "info", as Python's logging names the level (lower case).
const char *traceLevelName(TraceLevel level);

/// One message JAX logs while computing the key, without a handler prefix.
struct TraceLine {
  TraceLevel level = TraceLevel::Debug;
  std::string message;
};

/// The messages JAX logs for `result`, in order, without any handler
/// prefix, each with its level (TraceLevel: the fallback line is INFO, the
/// rest DEBUG, as in cache_key.py).
std::vector<TraceLine> traceLines(const KeyResult &result,
                                  const Scenario &scenario);

} // namespace cachekey

#endif // CACHEKEY_TRACE_H
