//===- Sha256OpenSsl.cpp - Running SHA-256 over OpenSSL (native) ----------===//
//
// The native build's SHA-256: OpenSSL's libcrypto through EVP, which uses the
// CPU's SHA extensions where it has them (the library Python's `hashlib`
// uses). The running digest copies the context (EVP_MD_CTX_copy_ex) and
// finishes the copy, leaving the original open.
//
//===----------------------------------------------------------------------===//
#include "cachekey/Sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace cachekey {

namespace {
/// OpenSSL failing to set up or run SHA-256 means the library is unusable
/// (out of memory, a broken provider); the engine cannot continue.
void check(int ok) {
  if (ok != 1)
    std::abort();
}
} // namespace

struct Sha256::Impl {
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  Impl() {
    if (!ctx)
      std::abort();
    check(EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr));
  }
  ~Impl() { EVP_MD_CTX_free(ctx); }
};

Sha256::Sha256() : impl(std::make_unique<Impl>()) {}
Sha256::~Sha256() = default;

Sha256::Sha256(const Sha256 &other) : impl(std::make_unique<Impl>()) {
  check(EVP_MD_CTX_copy_ex(impl->ctx, other.impl->ctx));
}

Sha256 &Sha256::operator=(const Sha256 &other) {
  if (this != &other)
    check(EVP_MD_CTX_copy_ex(impl->ctx, other.impl->ctx));
  return *this;
}

void Sha256::update(const void *data, size_t size) {
  check(EVP_DigestUpdate(impl->ctx, data, size));
}

Digest Sha256::runningDigest() const {
  EVP_MD_CTX *copy = EVP_MD_CTX_new();
  if (!copy)
    std::abort();
  check(EVP_MD_CTX_copy_ex(copy, impl->ctx));
  Digest out;
  unsigned int n = 0;
  check(EVP_DigestFinal_ex(copy, out.data(), &n));
  EVP_MD_CTX_free(copy);
  return out;
}

Digest Sha256::of(const Bytes &bytes) {
  Digest out;
  unsigned int n = 0;
  check(EVP_Digest(bytes.data(), bytes.size(), out.data(), &n, EVP_sha256(),
                   nullptr));
  return out;
}

} // namespace cachekey
