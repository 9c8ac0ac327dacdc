//===- Support.h - Errors as values -----------------------------*- C++ -*-===//
//
// The engine never throws across its public boundary. Every fallible function
// returns `Expected<T>`: either a value or an `Error` with a code (what kind of
// problem), a path (where: a JSON path such as `$.compile_options.proto_b64`,
// or a byte offset inside a decoded blob), an optional source (which input:
// "a", "b", "permalink", a file name) and a message (what is wrong, in plain
// words). The CLI's `--json`, the wasm API and the page carry the same
// fields; callers branch on the code, never on the message.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_SUPPORT_H
#define CACHEKEY_SUPPORT_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cachekey {

/// A byte string. Entries, digests and protobuf payloads are all raw bytes.
using Bytes = std::string;

/// What kind of problem an Error reports. Stable: the names (errorCodeName)
/// are part of the CLI's and the wasm API's JSON.
enum class ErrorCode : uint8_t {
  Invalid,        ///< "invalid": a value is wrong (the default)
  Syntax,         ///< "syntax": text does not parse (JSON, base64, MLIR)
  Type,           ///< "type": a JSON value of the wrong type
  Missing,        ///< "missing": a required member is absent
  UnknownKey,     ///< "unknown_key": a member the schema does not define
  UnknownFixture, ///< "unknown_fixture": `base` names an unknown fixture (subject: its id)
  UnknownProfile, ///< "unknown_profile": not a reproduced jax release
  UnknownFlag,    ///< "unknown_flag": XLA registers no such flag (subject: the flag)
  Unsupported,    ///< "unsupported": valid, but not something this engine does
  MalformedProto, ///< "malformed_proto": protobuf wire bytes do not parse
  NoMlir,         ///< "no_mlir": needs the live MLIR canonicaliser, absent here
  JaxRaises,      ///< "jax_raises": real JAX raises here, so it computes no key
  TooLarge,       ///< "too_large": over a size or count limit
  Io,             ///< "io": a file could not be read
  Usage,          ///< "usage": the CLI was called with the wrong arguments
  Internal,       ///< "internal": a fault of the engine or of its host (a wasm trap, a worker that died), not of the input
};

/// The stable snake_case name of `code`, e.g. "unknown_fixture".
const char *errorCodeName(ErrorCode code);

/// A failure, reported as data.
///
/// `path` locates the problem in the caller's input: a JSON path in the
/// scenario (`$.flags.argv[2]`), optionally followed by a location inside a
/// decoded value (`… at byte 17`). `message` says what is wrong in plain words.
/// `code` says what kind of problem it is; `source` which of several inputs
/// (empty for the only one); `subject` the name the problem is about, where
/// there is one (the fixture id of an unknown fixture).
struct Error {
  std::string path;
  std::string message;
  ErrorCode code = ErrorCode::Invalid;
  std::string source;
  std::string subject;
  /// The error this one reports from further out (within()): `path` is then
  /// where the caller was (a file, a directory, a capture's member) and
  /// `message` is empty; the code and subject are the cause's.
  std::shared_ptr<const Error> cause;

  Error() = default;
  Error(std::string path, std::string message,
        ErrorCode code = ErrorCode::Invalid, std::string source = "",
        std::string subject = "")
      : path(std::move(path)), message(std::move(message)), code(code),
        source(std::move(source)), subject(std::move(subject)) {}

  /// "<source>: <path>: <message>", leaving out what is empty; with a cause,
  /// "<source>: <path>: " then the cause's own str().
  std::string str() const {
    std::string where = source;
    if (!path.empty())
      where += (where.empty() ? "" : ": ") + path;
    const std::string what = cause ? cause->str() : message;
    return where.empty() ? what : where + ": " + what;
  }

  /// What the error says, without source and path: the message, or the
  /// cause's str() for an error made by within().
  std::string text() const { return cause ? cause->str() : message; }

  /// The same error, said to come from input `name` ("a", "b", a file).
  Error from(std::string name) && {
    source = std::move(name);
    return std::move(*this);
  }

  /// The same error seen from where the caller was, e.g. a capture directory
  /// or a `.file` member: this one becomes the cause, and its code and
  /// subject stay (callers branch on them). str() reads "<where>: " then
  /// this error's str().
  Error within(std::string where) && {
    Error outer(std::move(where), "", code, "", subject);
    outer.cause = std::make_shared<const Error>(std::move(*this));
    return outer;
  }

  /// The same error with `what` said before its message ("CompileOptionsProto:
  /// malformed protobuf …"), keeping path, code, source and subject.
  Error about(const std::string &what) && {
    message = what + ": " + message;
    return std::move(*this);
  }
};

/// Success, or the Error that prevented it: what a fallible step with no
/// value returns. True on success, like Expected.
class [[nodiscard]] Status {
public:
  Status() = default; ///< success
  Status(Error error) : failure(std::move(error)) {}

  explicit operator bool() const { return !failure; }
  const Error &error() const { return *failure; }
  /// Moves the error out, giving it `defaultPath` when it has none.
  Error takeError(const std::string &defaultPath = "") {
    Error e = std::move(*failure);
    if (e.path.empty() && !e.cause)
      e.path = defaultPath;
    return e;
  }

private:
  std::optional<Error> failure;
};

/// Returns the Error of a failed Status or Expected from the enclosing
/// function (which returns Status or Expected<T>).
#define CACHEKEY_TRY(expr)                                                     \
  if (auto cachekey_status_ = (expr); !cachekey_status_)                       \
    return cachekey_status_.takeError();

/// A value of type T, or the Error that prevented computing it.
template <typename T> class Expected {
public:
  /// The value, copied or moved in once (a large T, such as a
  /// LogComparison, is not moved twice through a parameter).
  Expected(const T &value) : storage(value) {}
  Expected(T &&value) : storage(std::move(value)) {}
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
    if (e.path.empty() && !e.cause)
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
/// whitespace). The Error (code Syntax, empty path) names the first
/// offending character's offset, or the length that is not a multiple of 4;
/// it starts "invalid <encoding>" (a caller that mapped base64url onto the
/// standard alphabet says "base64url").
Expected<Bytes> base64Decode(const std::string &text,
                             const std::string &encoding = "base64");

} // namespace cachekey

#endif // CACHEKEY_SUPPORT_H
