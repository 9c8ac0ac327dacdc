//===- Profile.h - Which release's cache_key.py to reproduce ----*- C++ -*-===//
//
// `jax/_src/cache_key.py` changed many times between jax 0.4.30 and 0.12.0.1.
// A profile is one distinct behaviour of that file (together with the parts of
// `compilation_cache.py` that choose entry 7): releases whose files differ
// only in comments, formatting or branches that no installable jaxlib takes
// share a profile. Profiles are named by their newest release, exactly as pip
// spells it; `main` is an alias of the newest verified one.
//
// Everything in the engine that depends on the release reads it from the
// `ProfileSpec` here: which entries exist, what entry 3 and entry 6 feed, the
// exclusion list, the zeroed DebugOptions fields, the callback and Mosaic
// rewrites of entry 1, the compression rule and the fallback log line. The
// page and the tools ask the engine for these facts (`describeProfile`); they
// do not keep copies.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_PROFILE_H
#define CACHEKEY_PROFILE_H

#include "cachekey/Support.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cachekey {

/// The profiles, oldest first. Each enumerator is named by the newest
/// release the profile covers.
enum class Profile : uint8_t {
  V0_4_33,   // 0.4.30 – 0.4.33
  V0_4_35,   // 0.4.34 – 0.4.35
  V0_5_3,    // 0.4.36 – 0.5.3
  V0_6_0,    // 0.6.0
  V0_6_2,    // 0.6.1 – 0.6.2
  V0_7_0,    // 0.7.0
  V0_7_2,    // 0.7.1 – 0.7.2
  V0_8_1,    // 0.8.0 – 0.8.1
  V0_9_2,    // 0.8.2 – 0.9.2
  V0_10_2,   // 0.10.0 – 0.10.2
  V0_11_0,   // 0.11.0
  V0_11_2,   // 0.11.1 – 0.11.2
  V0_12_0_1, // 0.12.0 – 0.12.0.1
};

/// The newest verified profile; what `main` (and a scenario without a
/// profile) means.
constexpr Profile kNewestProfile = Profile::V0_12_0_1;

/// The alias of kNewestProfile (parseProfile), and the profile a scenario
/// that names none is read with (ScenarioReader.cpp; profilesToJson's
/// "default").
constexpr const char *kMainAlias = "main";

/// The eight ingredients in JAX's order. The engine numbers entries by this
/// order in every profile (entry 4 is always the XLA flags), so that the
/// same number means the same ingredient across releases; releases before
/// 0.6.0 do not hash entry 3.
enum class EntryKind : uint8_t {
  Computation = 1,
  JaxlibVersion,
  BackendVersion,
  XlaFlags,
  CompileOptions,
  AcceleratorConfig,
  Compression,
  CustomHook,
};

/// Number of entry kinds, and their exact names as JAX logs them, indexed
/// by `EntryKind` - 1.
constexpr int kNumEntries = 8;
extern const std::array<const char *, kNumEntries> kEntryNames;

/// How a profile removes callback pointers from entry 1 before serialising.
enum class CallbackRule : uint8_t {
  /// No rewrite at all (0.4.30 – 0.4.33).
  None,
  /// The `jax_remove_custom_partitioning_ptr_from_cache_key` config, read
  /// inside cache_key: `CustomSPMDPartitioning` calls get
  /// `backend_config = "REMOVED"` (0.4.34 – 0.4.35).
  CustomPartitioningConfig,
  /// `get(..., ignore_callbacks=IgnoreCallbacks.{NO,ALL,CUSTOM_PARTITIONING})`;
  /// ALL also rewrites targets ending in "callback" (0.4.36 – 0.10.2).
  IgnoreCallbacksEnum,
  /// `get(..., ignore_custom_partitioning: bool)` (0.11.0 and later).
  IgnoreCustomPartitioningBool,
};

/// The Mosaic (Pallas TPU) kernel step of entry 1 (`_strip_mosaic_debug_info`).
enum class MosaicRule : uint8_t {
  /// No step: kernel bodies are hashed as lowered (before 0.11.0).
  None,
  /// `bc.get("custom_call_config", {}).get("body")`; a falsy body leaves the
  /// op alone; otherwise the body is parsed, stripped and re-encoded
  /// (0.11.0 – 0.11.2).
  SkipMissingBody,
  /// `bc["custom_call_config"]` (KeyError when missing); a
  /// `debug_locations` member is deleted and the JSON re-dumped compactly,
  /// leaving the body alone; otherwise `["body"]` (KeyError when missing) is
  /// parsed, stripped and re-encoded, an empty body included (0.12.0 and
  /// later).
  DeleteDebugLocations,
};

/// What entry 6 feeds when the runtime describes a topology.
enum class AcceleratorRule : uint8_t {
  /// `topology.serialize()`: the serialized topology proto (before 0.10.0).
  Serialize,
  /// `topology.fingerprint()` as 8 bytes, big-endian (0.10.0 and later).
  Fingerprint,
};

/// What entry 6 feeds when getting the topology raises.
enum class FallbackRule : uint8_t {
  /// each `device_kind`, then platform, platform_version and runtime_type,
  /// each through hash-string (before 0.6.0, which has no entry 3).
  DeviceKindsAndBackend,
  /// each `device_kind` through hash-string (0.6.0 and later).
  DeviceKinds,
};

/// How `compilation_cache.py` chooses the compression name fed to entry 7.
enum class CompressionRule : uint8_t {
  /// "zstandard" when `import zstandard` works, else "zlib" (before 0.7.1;
  /// releases of that range have no jaxlib for Python 3.14).
  ZstandardImport,
  /// As above, but on Python 3.14 and later the standard library's
  /// `compression.zstd` is imported first and the key says "zlib".
  StdlibZstdFirst,
};

/// How a `DebugOptions` field is written back when zeroed.
enum class ZeroKind : uint8_t { Varint, String };

/// One `DebugOptions` field that the cache-key edit sets to false, 0 or "".
struct ZeroedField {
  const char *name;
  uint32_t number;
  ZeroKind kind;
};

/// Everything that differs between releases, for one profile.
struct ProfileSpec {
  Profile profile;
  /// The newest release covered, as pip spells it, e.g. "0.12.0.1".
  const char *id;
  /// Every release covered, oldest first, as pip spells them.
  std::vector<const char *> releases;
  /// Entry 3 exists (0.6.0 and later).
  bool hasBackendVersion;
  /// Entry 3 (or, without entry 3, the fallback) also feeds
  /// `backend.runtime_type` (before 0.8.2).
  bool hashesRuntimeType;
  AcceleratorRule accelerator;
  FallbackRule fallback;
  CallbackRule callbacks;
  MosaicRule mosaic;
  CompressionRule compression;
  /// `env_option_overrides` named like an excluded flag are dropped from
  /// entry 5 (0.4.36 and later).
  bool filtersEnvOverrides;
  /// A zeroed DebugOptions field is still written (explicit presence, the
  /// DebugOptions of jaxlib 0.7.0 and later); before, proto3 leaves a zero
  /// out.
  bool explicitZeroes;
  /// `xla_flags_to_exclude_from_cache_key`, in upstream order.
  std::vector<std::string> excludedFlags;
  /// The zeroed `DebugOptions` fields, in upstream assignment order.
  std::vector<ZeroedField> zeroedFields;
  /// The exception class JAX names in the fallback INFO line by default,
  /// e.g. "<class 'jax.errors.JaxRuntimeError'>".
  const char *fallbackErrorType;
  /// What changed against the previous (older) profile, in plain words.
  const char *changes;
  /// How this profile was checked against real JAX.
  const char *verified;
};

/// Every profile, oldest first.
const std::vector<ProfileSpec> &allProfiles();

/// The spec of `profile`.
const ProfileSpec &profileSpec(Profile profile);

/// The profile's id: its newest release, e.g. "0.10.2".
const char *profileName(Profile profile);

/// Resolves a profile id, any release a profile covers (as pip spells it,
/// e.g. "0.9.0.1") or "main" (the newest profile). The Error lists what is
/// accepted.
Expected<Profile> parseProfile(const std::string &name);

/// The exclusion list of `profile`; names keep their leading dashes and are
/// compared exactly against a flag's name.
inline const std::vector<std::string> &excludedFlagNames(Profile profile) {
  return profileSpec(profile).excludedFlags;
}

/// The `DebugOptions` fields `profile` zeroes before entry 5 is serialised.
inline const std::vector<ZeroedField> &zeroedDebugFields(Profile profile) {
  return profileSpec(profile).zeroedFields;
}

/// Whether `profile` hashes entry `kind` at all.
inline bool hashesEntry(Profile profile, EntryKind kind) {
  return kind != EntryKind::BackendVersion ||
         profileSpec(profile).hasBackendVersion;
}

/// Whether the profile strips Mosaic (Pallas TPU) kernels in entry 1.
inline bool stripsMosaicKernels(Profile profile) {
  return profileSpec(profile).mosaic != MosaicRule::None;
}

} // namespace cachekey

#endif // CACHEKEY_PROFILE_H
