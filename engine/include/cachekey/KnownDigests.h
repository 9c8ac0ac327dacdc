//===- KnownDigests.h - Reading short entries back from their digest -*- C++ -*-===//
//
// Entries 2, 3, 4, 7 and 8 hash short strings: the jaxlib version, the
// platform and its version, the kept flags, the compression name and the
// custom hook. A DEBUG log shows only each entry's own digest, but the
// strings JAX can feed there are few, so a digest can be read back by
// hashing every candidate. The candidates live in engine/data/known_strings.json
// (with where each list came from); the engine hashes them with its own
// SHA-256 the first time a digest is decoded.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_KNOWNDIGESTS_H
#define CACHEKEY_KNOWNDIGESTS_H

#include "cachekey/Sha256.h"

#include <optional>
#include <string>
#include <string_view>

namespace cachekey {

/// What an entry's own digest stands for.
struct DecodedDigest {
  /// The string(s) fed, as the reader should see them: "0.10.2" for entry 2,
  /// "cpu / cpu" for entry 3, "" for an empty entry.
  std::string value;
  /// A phrase for sentences: "jaxlib 0.10.2", "platform cpu, platform_version
  /// cpu", "no flags", "zstandard", "the default hook (\"\")".
  std::string text;
};

/// Decodes the own digest of entry `entry` (1…8) when it is the SHA-256 of a
/// known string for that entry (engine/data/known_strings.json). Entries 1, 5
/// and 6 hash large or binary values and never decode. std::nullopt when the
/// digest is not in the table (a development build, another platform).
std::optional<DecodedDigest> decodeEntryDigest(int entry, const Digest &digest);

/// Parses 64 lowercase hex digits into a digest; std::nullopt otherwise.
std::optional<Digest> digestFromHex(std::string_view hex);

} // namespace cachekey

#endif // CACHEKEY_KNOWNDIGESTS_H
