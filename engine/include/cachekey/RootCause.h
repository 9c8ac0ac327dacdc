//===- RootCause.h - One change, however many entries it moves --*- C++ -*-===//
//
// Several entries' own digests can move for one reason. A new jaxlib
// (entry 2) also lowers the program, fills CompileOptionsProto and
// fingerprints the topology differently, so entries 1, 5 and 6 are expected
// to move with it. An XLA flag (entry 4) from XLA_FLAGS is also parsed by XLA
// into `DebugOptions`, which entry 5 hashes; `--xla_cpu_max_isa` also changes
// the CPU target that entry 6 fingerprints. This file groups the moved
// entries into independent changes, the root cause first, so that a reader is
// told "another ingredient moved too" only for a real second change.
//
// Measured with jax 0.10.2 on CPU (tests/cases): a jaxlib upgrade moves 1, 2,
// 5, 6; `--xla_cpu_max_isa=AVX2` moves 4, 5, 6 on a host with AVX-512 (LLVM
// znver4) and 4, 5 on one without (znver3, haswell: the ceiling turns no
// feature off, CpuMaxIsa.h); `--xla_dump_large_constants` moves 4 and 5.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_ROOTCAUSE_H
#define CACHEKEY_ROOTCAUSE_H

#include "cachekey/Key.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace cachekey {

/// What is known about the change besides which own digests moved.
struct ChangeEvidence {
  /// Names (no dashes, no value, e.g. "xla_cpu_max_isa") of kept flags that
  /// were added, removed or given another value.
  std::vector<std::string> keptFlags;
  /// Names of excluded flags (not hashed in entry 4) that differ.
  std::vector<std::string> excludedFlags;
  /// Names of `DebugOptions` fields whose value differs in entry 5's input,
  /// when known (scenarios); std::nullopt for logs, which hold digests only.
  std::optional<std::vector<std::string>> debugFields;
  /// The profile both sides follow, when known: decides whether a
  /// `DebugOptions` field is zeroed before entry 5 is hashed.
  std::optional<Profile> profile;
};

/// Why the linked entries of a CauseGroup moved with its first entry, as a
/// fact; the words are `causeLinkText` (Wording.h).
struct CauseLink {
  enum class Code : uint8_t {
    None,      // nothing is linked
    NewJaxlib, // entry 2: a new jaxlib also lowers the program (entry 1),
               // fills CompileOptionsProto (5) and fingerprints the devices (6)
    XlaFlags,  // entry 4: XLA also parses `debugFlags` into DebugOptions
               // fields entry 5 hashes, and/or `cpuFlags` change the CPU
               // target entry 6 fingerprints
  };
  Code code = Code::None;
  /// XlaFlags: the changed flags (bare names, e.g. "xla_a") that XLA parses
  /// into a DebugOptions field the profile does not zero (findDebugOption
  /// names the field); set when entry 5 is linked.
  std::vector<std::string> debugFlags;
  /// XlaFlags: the changed kept flags (bare names) that change the CPU
  /// target (flagChangesCpuTarget); set when entry 6 is linked.
  std::vector<std::string> cpuFlags;
};

/// One independent change: its first entry and the entries it moved too.
struct CauseGroup {
  int entry = 0;           // 1…8
  std::vector<int> linked; // other moved entries explained by this change,
                           // in the order they were linked
  /// Why the linked entries moved (Code::None when none are).
  CauseLink link;
};

/// Groups the entries whose own digest moved (`own[i]` for entry i + 1)
/// into independent changes. The jaxlib version, when it moved, comes first;
/// then the others in entry order. Every moved entry is in exactly one group.
std::vector<CauseGroup> groupMovedEntries(const std::array<bool, kNumEntries> &own,
                                          const ChangeEvidence &evidence);

/// Whether XLA parses flag `name` (no dashes) into a `DebugOptions` field
/// that `profile` does not zero, i.e. whether the flag reaches entry 5.
/// Without a profile, a field that any reproduced release zeroes does not
/// count.
bool flagReachesCompileOptions(const std::string &name,
                               const std::optional<Profile> &profile);

/// Whether flag `name` changes the CPU target (model or features) that the
/// CPU topology fingerprint of entry 6 covers.
bool flagChangesCpuTarget(const std::string &name);

/// The name of a flag without leading dashes and value: "--xla_a=1" → "xla_a".
std::string bareFlagName(const std::string &flag);

} // namespace cachekey

#endif // CACHEKEY_ROOTCAUSE_H
