//===- Sha256.h - Running SHA-256 -------------------------------*- C++ -*-===//
//
// JAX feeds all eight entries into one `hashlib.sha256()` object and, when
// its logger is at DEBUG, reads `digest()` after every entry without ending
// the hash. This wrapper gives the same two operations, `update` and
// `runningDigest` (which copies the context and finishes the copy), over
// OpenSSL's libcrypto in the native build (Sha256OpenSsl.cpp: the CPU's SHA
// extensions, as Python's hashlib) and over mbed TLS in the wasm build
// (Sha256MbedTls.cpp: portable C).
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_SHA256_H
#define CACHEKEY_SHA256_H

#include "cachekey/Support.h"

#include <array>
#include <memory>

namespace cachekey {

/// A 32-byte SHA-256 digest, in the order the algorithm outputs it.
using Digest = std::array<uint8_t, 32>;

/// Lowercase hex of a digest (64 characters), as Python's `digest().hex()`.
inline std::string toHex(const Digest &digest) {
  return toHex(Bytes(reinterpret_cast<const char *>(digest.data()),
                     digest.size()));
}

/// An incremental SHA-256 (FIPS 180-4) that can report the digest of what it
/// has seen so far and keep going, like Python's `hashlib.sha256`.
class Sha256 {
public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256 &other);
  Sha256 &operator=(const Sha256 &other);

  /// Feeds `size` bytes at `data`.
  void update(const void *data, size_t size);
  void update(const Bytes &bytes) { update(bytes.data(), bytes.size()); }

  /// The digest of everything fed so far. The hash is not finalised: later
  /// `update` calls continue from the same state (Python `digest()`).
  Digest runningDigest() const;

  /// One-shot digest of `bytes`.
  static Digest of(const Bytes &bytes);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace cachekey

#endif // CACHEKEY_SHA256_H
