//===- Support.h - Errors as values -----------------------------*- C++ -*-===//
//
// The engine never throws across its public boundary. Every fallible function
// returns `Expected<T>`: either a value or an `Error` that names where the
// problem is (a JSON path such as `$.compile_options.proto_b64`, or a byte
// offset inside a decoded blob) and what is wrong with it.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_SUPPORT_H
#define CACHEKEY_SUPPORT_H

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cachekey {

/// A byte string. Entries, digests and protobuf payloads are all raw bytes.
using Bytes = std::string;

/// A failure, reported as data.
///
/// `path` locates the problem in the caller's input: a JSON path in the
/// scenario (`$.flags.argv[2]`), optionally followed by a location inside a
/// decoded value (`… at byte 17`). `message` says what is wrong in plain words.
struct Error {
  std::string path;
  std::string message;

  /// "<path>: <message>", or just the message when there is no path.
  std::string str() const {
    return path.empty() ? message : path + ": " + message;
  }
};

/// A value of type T, or the Error that prevented computing it.
template <typename T> class Expected {
public:
  Expected(T value) : storage(std::move(value)) {}
  Expected(Error error) : storage(std::move(error)) {}

  explicit operator bool() const { return storage.index() == 0; }
  T &operator*() { return std::get<0>(storage); }
  const T &operator*() const { return std::get<0>(storage); }
  T *operator->() { return &std::get<0>(storage); }
  const T *operator->() const { return &std::get<0>(storage); }
  const Error &error() const { return std::get<1>(storage); }
  /// Moves the error out, prefixing its path when the callee had none.
  Error takeError(const std::string &defaultPath = "") {
    Error e = std::get<1>(std::move(storage));
    if (e.path.empty())
      e.path = defaultPath;
    return e;
  }

private:
  std::variant<T, Error> storage;
};

/// Lowercase hexadecimal of `bytes`, two digits per byte, in byte order.
std::string toHex(const Bytes &bytes);

/// At most `maxBytes` of `bytes` as hex; "…" is appended when truncated.
std::string hexPreview(const Bytes &bytes, size_t maxBytes = 32);

/// Standard base64 (RFC 4648 §4, padded) of `bytes`.
std::string base64Encode(const Bytes &bytes);

/// Strict standard base64 decode (RFC 4648 §4, padding required, no
/// whitespace). The Error names the first offending character's offset.
Expected<Bytes> base64Decode(const std::string &text);

} // namespace cachekey

#endif // CACHEKEY_SUPPORT_H
