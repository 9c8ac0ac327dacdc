//===- Flags.h - Entry 4: XLA flags -----------------------------*- C++ -*-===//
//
// Mirrors `_hash_xla_flags` in jax/_src/cache_key.py: flags are collected from
// XLA_FLAGS, LIBTPU_INIT_ARGS and argv, sorted by code point, split at the
// first `=`, and each one either excluded by name or fed through hash-string.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_FLAGS_H
#define CACHEKEY_FLAGS_H

#include "cachekey/Profile.h"
#include "cachekey/Scenario.h"

#include <string>
#include <vector>

namespace cachekey {

/// Where a collected flag came from.
enum class FlagSource { XlaFlags, LibtpuInitArgs, Argv };

/// "XLA_FLAGS", "LIBTPU_INIT_ARGS" or "argv".
const char *flagSourceName(FlagSource source);

/// One collected flag after sorting, with the decision JAX makes for it.
struct FlagStep {
  std::string flag;      // the whole flag as collected
  FlagSource source;     // where it was collected from
  std::string name;      // text before the first '=' (Python split("=")[0])
  bool included = false; // false: name is on the exclusion list
  Bytes hashed;          // bytes fed to the hash (hash-string), empty if excluded
  size_t collected = 0;  // position in collection order, before sorting
};

/// One flag as a trace shows it ("Including XLA flag" / "Not including
/// XLA flag"): whether entry 4 keeps (hashes) it, and the whole flag.
struct LoggedFlag {
  bool kept = false;
  std::string flag;

  bool operator==(const LoggedFlag &o) const {
    return kept == o.kept && flag == o.flag;
  }
  bool operator!=(const LoggedFlag &o) const { return !(*this == o); }
  /// Excluded before kept, then by the flag's bytes.
  bool operator<(const LoggedFlag &o) const {
    return kept != o.kept ? !kept : flag < o.flag;
  }
};

/// A result's flag steps as LoggedFlags, in the same (hashed) order.
std::vector<LoggedFlag> loggedFlags(const std::vector<FlagStep> &steps);

/// Collects flags in JAX's order (XLA_FLAGS split, LIBTPU_INIT_ARGS split,
/// then argv elements starting with `--xla` or an extra prefix, whole), sorts
/// them by code point (stable, so equal flags keep collection order) and
/// decides each against `profile`'s exclusion list.
std::vector<FlagStep> collectFlags(const FlagInputs &inputs, Profile profile);

/// The exact DEBUG message JAX logs for a step:
/// "Including XLA flag in cache key: <flag>" or
/// "Not including XLA flag in cache key: <flag>".
std::string flagLogLine(const FlagStep &step);

} // namespace cachekey

#endif // CACHEKEY_FLAGS_H
