//===- Compression.cpp - Entry 7: the compression name --------------------===//
#include "cachekey/Compression.h"

#include <cstdio>

namespace cachekey {

bool writesStdlibZstd(const CompressionSpec &spec, Profile profile) {
  if (!spec.python)
    return false;
  // The reader accepted only "<major>.<minor>" (ScenarioReader.cpp).
  int major = 0, minor = 0;
  std::sscanf(spec.python->c_str(), "%d.%d", &major, &minor);
  // From jax 0.7.1 the standard library's compression.zstd is imported first
  // (Python 3.14 and later), leaving `zstandard` as None: the key says "zlib".
  return profileSpec(profile).compression == CompressionRule::StdlibZstdFirst &&
         (major > 3 || (major == 3 && minor >= 14));
}

std::string compressionName(const CompressionSpec &spec, Profile profile) {
  if (!spec.python)
    return spec.name;
  return !writesStdlibZstd(spec, profile) && spec.zstandardInstalled
             ? "zstandard"
             : "zlib";
}

} // namespace cachekey
