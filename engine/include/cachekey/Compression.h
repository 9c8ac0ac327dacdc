//===- Compression.h - Entry 7: the compression name ------------*- C++ -*-===//
//
// Entry 7 hashes the name of the algorithm the persistent cache compresses
// with, as `jax/_src/compilation_cache.py` chooses it and passes it to
// `cache_key.get` (`compression_algorithm`): "zstandard" when the
// `zstandard` package imports, otherwise "zlib". From jax 0.7.1 on, Python
// 3.14's standard-library `compression.zstd` is tried first; when it imports,
// JAX compresses with it but the name it passes is still "zlib". Which rule a
// release follows is `ProfileSpec::compression` (Profile.h).
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_COMPRESSION_H
#define CACHEKEY_COMPRESSION_H

#include "cachekey/Profile.h"
#include "cachekey/Scenario.h"

#include <string>

namespace cachekey {

/// The name entry 7 hashes for `spec` under `profile`. A scenario that gives
/// the name gets it back unchanged (any string: `cache_key.get` hashes what
/// it is given). For a runtime (`spec.python` set): "zlib" when
/// `writesStdlibZstd` holds or the zstandard package is not installed,
/// otherwise "zstandard".
std::string compressionName(const CompressionSpec &spec, Profile profile);

/// True when, for a runtime, JAX writes the payload with the standard
/// library's zstd while the key says "zlib": Python 3.14 and later under a
/// profile whose rule is CompressionRule::StdlibZstdFirst (jax 0.7.1 on),
/// whether or not the zstandard package is installed. False for a name.
bool writesStdlibZstd(const CompressionSpec &spec, Profile profile);

} // namespace cachekey

#endif // CACHEKEY_COMPRESSION_H
