// Entry 7's name (engine/lib/Compression.cpp).
//
// Expected names follow jax/_src/compilation_cache.py, which passes
// `"zstandard" if zstandard is not None else "zlib"` to cache_key.get:
//   - jax 0.4.36 (lines 24-28): `zstandard` is the package if it imports;
//   - jax 0.7.1 and 0.10.2 (lines 24-38): `from compression import zstd`
//     (Python 3.14's standard library) is tried first, and when it imports
//     `zstandard` is set to None, so the name is "zlib" whether or not the
//     package is installed; 0.7.0 has no such import.
// (Read from the installed wheels of those releases.)
#include "TestUtil.h"

#include "cachekey/Compression.h"

using namespace cachekey;

namespace {
CompressionSpec runtime(const char *python, bool zstandardInstalled) {
  CompressionSpec c;
  c.python = python;
  c.zstandardInstalled = zstandardInstalled;
  return c;
}
} // namespace

TEST(Compression, AGivenNameIsHashedAsGiven) {
  CompressionSpec c;
  for (const char *name : {"zstandard", "zlib", "lz4", ""}) {
    c.name = name;
    EXPECT_EQ(compressionName(c, Profile::V0_10_2), name);
    EXPECT_FALSE(writesStdlibZstd(c, Profile::V0_10_2));
  }
}

TEST(Compression, ARuntimeGivesTheNameCompilationCacheChooses) {
  struct Case {
    const char *release;
    const char *python;
    bool zstandardInstalled;
    const char *name;
    bool stdlibZstd;
  };
  const Case cases[] = {
      {"0.4.36", "3.11", true, "zstandard", false},
      {"0.4.36", "3.11", false, "zlib", false},
      // Before 0.7.1 nothing looks at compression.zstd, on any Python.
      {"0.7.0", "3.14", true, "zstandard", false},
      {"0.7.1", "3.13", true, "zstandard", false},
      {"0.7.1", "3.14", true, "zlib", true},
      {"0.10.2", "3.13", false, "zlib", false},
      {"0.10.2", "3.14", false, "zlib", true},
      {"0.10.2", "3.15", true, "zlib", true},
      {"0.10.2", "4.0", true, "zlib", true},
      {"0.12.0.1", "3.12", true, "zstandard", false},
      {"0.12.0.1", "3.14", true, "zlib", true},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.release) + " on Python " + c.python);
    auto profile = parseProfile(c.release);
    ASSERT_TRUE(profile);
    CompressionSpec spec = runtime(c.python, c.zstandardInstalled);
    EXPECT_EQ(compressionName(spec, *profile), c.name);
    EXPECT_EQ(writesStdlibZstd(spec, *profile), c.stdlibZstd);
  }
}
