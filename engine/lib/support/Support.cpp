//===- Support.cpp - Hex and base64 helpers -------------------------------===//
#include "cachekey/Support.h"

#include <mbedtls/base64.h>

namespace cachekey {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Invalid: return "invalid";
  case ErrorCode::Syntax: return "syntax";
  case ErrorCode::Type: return "type";
  case ErrorCode::Missing: return "missing";
  case ErrorCode::UnknownKey: return "unknown_key";
  case ErrorCode::UnknownFixture: return "unknown_fixture";
  case ErrorCode::UnknownProfile: return "unknown_profile";
  case ErrorCode::UnknownFlag: return "unknown_flag";
  case ErrorCode::Unsupported: return "unsupported";
  case ErrorCode::MalformedProto: return "malformed_proto";
  case ErrorCode::NoMlir: return "no_mlir";
  case ErrorCode::JaxRaises: return "jax_raises";
  case ErrorCode::TooLarge: return "too_large";
  case ErrorCode::Io: return "io";
  case ErrorCode::Usage: return "usage";
  case ErrorCode::Internal: return "internal";
  }
  return "invalid";
}

std::string toHex(const Bytes &bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

std::string hexPreview(const Bytes &bytes, size_t maxBytes) {
  if (bytes.size() <= maxBytes)
    return toHex(bytes);
  return toHex(bytes.substr(0, maxBytes)) + "\u2026";
}

std::string base64Encode(const Bytes &bytes) {
  size_t needed = 0;
  mbedtls_base64_encode(nullptr, 0, &needed,
                        reinterpret_cast<const unsigned char *>(bytes.data()),
                        bytes.size());
  std::string out(needed, '\0');
  size_t written = 0;
  mbedtls_base64_encode(reinterpret_cast<unsigned char *>(out.data()),
                        out.size(), &written,
                        reinterpret_cast<const unsigned char *>(bytes.data()),
                        bytes.size());
  out.resize(written);
  return out;
}

static bool isBase64Char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '+' || c == '/';
}

Expected<Bytes> base64Decode(const std::string &text, const std::string &encoding) {
  const std::string invalid = "invalid " + encoding;
  // mbed TLS reports *that* the input is bad, not where; find the place first
  // so the message can point at it. It also tolerates line breaks, which a
  // JSON value has no reason to carry, so those are rejected here too.
  size_t pad = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '=') {
      ++pad;
      continue;
    }
    if (pad > 0)
      return Error{"", invalid + ": data after '=' padding at offset " +
                           std::to_string(i),
                   ErrorCode::Syntax};
    if (!isBase64Char(c))
      return Error{"", invalid + ": character " +
                           (c >= 0x20 && c < 0x7f ? "'" + std::string(1, c) + "'"
                                                  : "0x" + toHex(Bytes(1, c))) +
                           " at offset " + std::to_string(i),
                   ErrorCode::Syntax};
  }
  if (text.size() % 4 != 0 || pad > 2)
    return Error{"", invalid + ": length " + std::to_string(text.size()) +
                         " is not a multiple of 4 (missing or extra '=' padding)",
                 ErrorCode::Syntax};
  // The size is known from the validated text, so mbed TLS runs once.
  Bytes out(text.size() / 4 * 3 - pad, '\0');
  size_t written = 0;
  int rc = mbedtls_base64_decode(
      reinterpret_cast<unsigned char *>(out.data()), out.size(), &written,
      reinterpret_cast<const unsigned char *>(text.data()), text.size());
  if (rc != 0)
    return Error{"", invalid, ErrorCode::Syntax};
  out.resize(written);
  return out;
}

} // namespace cachekey
