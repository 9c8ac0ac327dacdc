//===- Sha256MbedTls.cpp - Running SHA-256 over mbed TLS (wasm) ------------===//
//
// The WebAssembly build's SHA-256: mbed TLS, portable C. The native build
// uses OpenSSL's libcrypto instead (Sha256OpenSsl.cpp).
//
//===----------------------------------------------------------------------===//
#include "cachekey/Sha256.h"

#include <mbedtls/sha256.h>

namespace cachekey {

struct Sha256::Impl {
  mbedtls_sha256_context ctx;
  Impl() {
    mbedtls_sha256_init(&ctx);
    mbedtls_sha256_starts_ret(&ctx, /*is224=*/0);
  }
  ~Impl() { mbedtls_sha256_free(&ctx); }
};

Sha256::Sha256() : impl(std::make_unique<Impl>()) {}
Sha256::~Sha256() = default;

Sha256::Sha256(const Sha256 &other) : impl(std::make_unique<Impl>()) {
  mbedtls_sha256_clone(&impl->ctx, &other.impl->ctx);
}

Sha256 &Sha256::operator=(const Sha256 &other) {
  if (this != &other)
    mbedtls_sha256_clone(&impl->ctx, &other.impl->ctx);
  return *this;
}

void Sha256::update(const void *data, size_t size) {
  mbedtls_sha256_update_ret(&impl->ctx,
                            static_cast<const unsigned char *>(data), size);
}

Digest Sha256::runningDigest() const {
  mbedtls_sha256_context copy;
  mbedtls_sha256_init(&copy);
  mbedtls_sha256_clone(&copy, &impl->ctx);
  Digest out;
  mbedtls_sha256_finish_ret(&copy, out.data());
  mbedtls_sha256_free(&copy);
  return out;
}

Digest Sha256::of(const Bytes &bytes) {
  Sha256 h;
  h.update(bytes);
  return h.runningDigest();
}

} // namespace cachekey
