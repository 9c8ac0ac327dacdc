//===- Permalink.h - Scenarios in a URL fragment ----------------*- C++ -*-===//
//
// A permalink carries a scenario as its JSON text, zstd-compressed and
// base64url-encoded (RFC 4648 §5, no padding), after the prefix "s1=" in the
// URL fragment. Decoding treats the fragment as hostile: the alphabet, the
// zstd frame and the decompressed size (capped) are all checked, and every
// failure is an Error that says which layer is wrong.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_PERMALINK_H
#define CACHEKEY_PERMALINK_H

#include "cachekey/Support.h"

#include <string>

namespace cachekey {

/// The fragment prefix naming this encoding (version 1).
constexpr const char *kPermalinkPrefix = "s1=";

/// Largest decompressed scenario a permalink may carry, in bytes.
constexpr size_t kPermalinkMaxJsonBytes = 256 * 1024;

/// Longest fragment the page will produce, in characters.
constexpr size_t kPermalinkMaxChars = 8000;

/// "s1=" + base64url(zstd(json, level 19)). `json` should be compact JSON.
std::string encodePermalink(const std::string &json);

/// Decodes a fragment (with or without a leading '#'). Errors name the layer:
/// "permalink: not a cachekey link", "…: invalid base64url character 'x' at
/// offset 12", "…: not a zstd frame", "…: decompresses to more than 262144
/// bytes", "…: truncated zstd data".
Expected<std::string> decodePermalink(const std::string &fragment,
                                      size_t maxJsonBytes = kPermalinkMaxJsonBytes);

/// base64url without padding (RFC 4648 §5).
std::string base64UrlEncode(const Bytes &bytes);

/// Strict base64url decode (no padding, no whitespace).
Expected<Bytes> base64UrlDecode(const std::string &text);

} // namespace cachekey

#endif // CACHEKEY_PERMALINK_H
