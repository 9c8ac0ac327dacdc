//===- Profile.h - Which cache_key.py to reproduce --------------*- C++ -*-===//
//
// Two versions of `jax/_src/cache_key.py` are reproduced: jax main (August
// 2026) and the 0.10.2 release, the one the tests check against real JAX.
// Everything that differs between them is looked up here.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_PROFILE_H
#define CACHEKEY_PROFILE_H

#include "cachekey/Support.h"

#include <string>
#include <vector>

namespace cachekey {

enum class Profile { Main, V0_10_2 };

/// "main" or "0.10.2".
const char *profileName(Profile profile);

/// Parses a profile name; the Error lists the accepted names.
Expected<Profile> parseProfile(const std::string &name);

/// The exclusion list (`xla_flags_to_exclude_from_cache_key`) in upstream
/// order: 26 names on main, the first 24 of them on 0.10.2. Names keep their
/// leading dashes and are compared exactly against a flag's name.
const std::vector<std::string> &excludedFlagNames(Profile profile);

/// How a zeroed `DebugOptions` field is written back.
enum class ZeroKind { Varint, String };

/// One `DebugOptions` field that the cache-key edit sets to false, 0 or "".
struct ZeroedField {
  const char *name;
  uint32_t number;
  ZeroKind kind;
};

/// The `DebugOptions` fields zeroed before entry 5 is serialised, in upstream
/// assignment order: 20 on main, 19 on 0.10.2 (which lacks
/// `xla_gpu_per_fusion_autotune_cache_dir`, field 310).
const std::vector<ZeroedField> &zeroedDebugFields(Profile profile);

/// Whether the profile strips Mosaic (Pallas TPU) kernel locations in
/// entry 1 (main only).
inline bool stripsMosaicKernels(Profile profile) {
  return profile == Profile::Main;
}

} // namespace cachekey

#endif // CACHEKEY_PROFILE_H
