//===- LogLines.h - The lines JAX logs about its cache ----------*- C++ -*-===//
//
// Private to engine/lib/logs. The message texts are JAX's format strings
// (jax/_src/cache_key.py, compiler.py, compilation_cache.py, lru_cache.py,
// interpreters/pxla.py; jax 0.4.30 – 0.12.0.1), cut where a value is
// substituted; LogReader.cpp keeps the state and LogReaderLine.cpp reads
// one line with them. The helpers read the values JAX substitutes.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_LIB_LOGS_LOGLINES_H
#define CACHEKEY_LIB_LOGS_LOGLINES_H

#include "cachekey/KnownDigests.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cachekey::logs::lines {

// jax._src.cache_key
inline constexpr char kOwn[] = "get_cache_key hash of serialized ";
inline constexpr char kRunning[] = "get_cache_key hash after serializing ";
inline constexpr char kIncluding[] = "Including XLA flag in cache key: ";
inline constexpr char kNotIncluding[] = "Not including XLA flag in cache key: ";
inline constexpr char kFallback[] = "get (_hash_accelerator_config): unable to hash "
                         "accelerator config, falling back to hashing devices";
// jax._src.compiler
inline constexpr char kMiss[] = "PERSISTENT COMPILATION CACHE MISS for '";
inline constexpr char kHit[] = "Persistent compilation cache hit for '";
inline constexpr char kNotWritingFor[] = "Not writing persistent cache entry for '";
inline constexpr char kBecauseTook[] = "' because it took < ";
inline constexpr char kBecauseCallbacks[] = "' because it uses host callbacks";
inline constexpr char kNotProcessZero[] =
    "Not writing persistent cache entry since process_id != 0";
inline constexpr char kTookAtLeast[] = "' took at least ";
inline constexpr char kEnablingAutotune[] = "Enabling XLA autotuning cache at '";
inline constexpr char kEnablingKernel[] = "Enabling XLA kernel cache at '";
inline constexpr char kCompileOptions[] = "get_compile_options: num_replicas=";
inline constexpr char kAutoFdo[] = "get_compile_options XLA-AutoFDO profile: ";
inline constexpr char kProfileVersion[] = "profile version ";
inline constexpr char kKeyError[] =
    "compile_or_get_cached: unable to generate cache key, skipping the cache: ";
inline constexpr char kWriteError[] = "Error writing persistent compilation cache entry for '";
// jax._src.compilation_cache
inline constexpr char kInitialized[] = "Initialized persistent compilation cache at ";
inline constexpr char kDisabled[] = "_initialize_cache: cache is disabled!";
inline constexpr char kInitFailed[] = "_initialize_cache: cache initialization failed!";
inline constexpr char kWriting[] = "Writing ";
inline constexpr char kWritingKey[] = " to persistent compilation cache with key ";
inline constexpr char kNotWritingKey[] = "Not writing persistent cache entry with key ";
inline constexpr char kNotWritingKeyOld[] = "Not writing cache entry with key "; // 0.4.30
inline constexpr char kSinceSize[] = " since its size (";
inline constexpr char kSinceDisabled[] = " since cache is disabled/not initialized";
inline constexpr char kLookupNoCache[] =
    "get_executable_and_time: cache is disabled/not initialized";
inline constexpr char kPutNoCache[] = // 0.4.30
    "put_executable_and_time: cache is disabled/not initialized";
inline constexpr char kUnsupported[] = "_get_cache: Unsupported runtime: ";
inline constexpr char kInconsistency[] = "Persistent compilation cache inconsistency for key";
// jax._src.compiler, reads and PGLE
inline constexpr char kReadError[] = "Error reading persistent compilation cache entry for '";
inline constexpr char kNeedsFilelock[] = "install the `filelock` package";
// XLA's error when a compile-only client (a deviceless TPU topology from
// libtpu, the CUDA plugin's compile-only client) is asked to load an
// executable: PjRtCompiler has no client, so DeserializeLoadedExecutable
// fails (seen in the read warning with jax 0.10.2 and 0.12.0.1).
inline constexpr char kCompileOnlyRead[] = "PjRtCompiler must be constructed with a Client";
inline constexpr char kPgleMiss[] = "PERSISTENT CACHE MISS for PGLE-optimized ";
inline constexpr char kPgleLoaded[] = " loaded from compilation cache";
// jax._src.lru_cache
inline constexpr char kLruMiss[] = "Cache miss for key: ";
inline constexpr char kLruHit[] = "Cache hit for key: ";
inline constexpr char kEvicting[] = "Evicting cache entry ";
inline constexpr char kEvictingOld[] = "Evicting cache file "; // 0.4.30
inline constexpr char kFileSize[] = ": file size ";
inline constexpr char kTarget[] = "target cache size ";
inline constexpr char kTooLargeStart[] = "Cache value for key ";
inline constexpr char kTooLargeSize[] = " of size ";
inline constexpr char kTooLargeMax[] = " exceeds the maximum cache size of ";
// jax._src.interpreters.pxla
inline constexpr char kShapes[] = " with global shapes and types ";
inline constexpr char kArgMapping[] = ". Argument mapping: ";

inline constexpr size_t kMaxLine = size_t(1) << 20;
inline constexpr size_t kMaxProblems = 20;
inline constexpr size_t kMaxPaths = 16;
inline constexpr size_t kMaxText = 4096;

template <size_t N> constexpr size_t len(const char (&)[N]) { return N - 1; }

/// Slot of a digest line in a key: own then running, entry by entry.
inline int slotOf(int entry, bool own) { return 2 * entry + (own ? 0 : 1); }

/// Whether byte `c`, right after a digest or a quoted key, ends it: a blank
/// or ASCII punctuation (a handler's " file:line", "|", a JSON string's or
/// logfmt's closing '"'). A letter, a digit, a control byte or a byte of a
/// multibyte character does not: the value is then taken as cut or altered.
inline bool endsValue(char c) {
  const auto b = static_cast<unsigned char>(c);
  return b == ' ' || b == '\t' || (b < 0x80 && std::ispunct(b));
}

/// Strips a Python repr's quotes: 'x' or "x" → x. Text after the closing
/// quote and a byte that ends a value (endsValue) is not the value's:
/// a handler that prints more after the message (rich's RichHandler puts
/// " lru_cache.py:103" at the right edge), a format with
/// " [%(filename)s:%(lineno)d]" or "|…" after it, a JSON formatter closing
/// the message's string ('"' and the other members), logfmt's quoted msg.
inline std::string unquote(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '.' || s.back() == '\r'))
    s.pop_back();
  if (s.size() >= 2 && (s[0] == '\'' || s[0] == '"')) {
    if (s.back() == s[0])
      return s.substr(1, s.size() - 2);
    size_t close = s.find(s[0], 1);
    if (close != std::string::npos && close + 1 < s.size() &&
        endsValue(s[close + 1]))
      return s.substr(1, close - 1);
  }
  return s;
}

/// The 64-hex digest at the end of a key "<name>-<hex>".
inline std::optional<Digest> keyDigest(const std::string &key) {
  if (key.size() < 65 || key[key.size() - 65] != '-')
    return std::nullopt;
  return digestFromHex(key.substr(key.size() - 64));
}

/// Parses a decimal number at the start of `s` (strtod: locale-free for
/// the digits and '.' JAX prints).
inline double number(const std::string &s) {
  return std::strtod(s.c_str(), nullptr);
}

inline void addDistinct(std::vector<std::string> &list, std::string value) {
  if (list.size() < kMaxPaths &&
      std::find(list.begin(), list.end(), value) == list.end())
    list.push_back(std::move(value));
}

/// Walks `text`, a Python repr as JAX logs it (pxla.py's argument mapping),
/// and calls `visit(i, depth)` for each byte outside quoted strings, with
/// the depth of brackets ((), [], {}) around it: a closing bracket at the
/// depth it closes to. Stops where `visit` returns false.
template <class Visit> void walkRepr(std::string_view text, const Visit &visit) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quote) {
      quote = ch == quote ? 0 : quote;
      continue;
    }
    if (ch == '\'' || ch == '"') {
      quote = ch;
      continue;
    }
    if (ch == ')' || ch == ']' || ch == '}')
      --depth;
    if (!visit(i, depth))
      return;
    if (ch == '(' || ch == '[' || ch == '{')
      ++depth;
  }
}

/// The parenthesised tuple `text` starts with, to its matching ')', without
/// what a handler prints after the message (a JSON formatter's closing quote
/// and members, a right-edge path); "" when `text` does not start with one
/// whole tuple.
inline std::string balancedTuple(std::string_view text) {
  if (text.empty() || text.front() != '(')
    return {};
  size_t end = 0;
  walkRepr(text, [&](size_t i, int depth) {
    if (i > 0 && depth == 0) {
      end = text[i] == ')' ? i + 1 : 0;
      return false;
    }
    return true;
  });
  return std::string(text.substr(0, end));
}

/// The items of a logged Python tuple "(a, b(c, d), 'e, f')": split at the
/// commas outside brackets and quotes, each without its blanks; {} when the
/// text is not one parenthesised tuple.
inline std::vector<std::string> tupleItems(std::string_view t) {
  if (t.size() < 2 || t.front() != '(' || t.back() != ')')
    return {};
  t = t.substr(1, t.size() - 2);
  std::vector<std::string> out;
  size_t start = 0;
  auto push = [&](size_t end) {
    std::string_view item = t.substr(start, end - start);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    if (!item.empty())
      out.emplace_back(item);
  };
  walkRepr(t, [&](size_t i, int depth) {
    if (depth == 0 && t[i] == ',') {
      push(i);
      start = i + 1;
    }
    return true;
  });
  push(t.size());
  return out;
}

/// A logged Python list "[a, b]" in the form of the tuple "(a, b)" ("[a]":
/// "(a,)", "[]": "()"), as later releases log the same value; any other
/// text as it is. jax 0.4.30's pxla logged the argument shapes as a list,
/// later releases as a tuple: read one way, the same shapes compare equal
/// across releases.
inline std::string listAsTuple(std::string text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    return text;
  std::vector<std::string> items =
      tupleItems("(" + text.substr(1, text.size() - 2) + ")");
  std::string out = "(";
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + items[i];
  return out + (items.size() == 1 ? ",)" : ")");
}

/// Where `needle` first occurs in `line` (npos if nowhere), found by its
/// byte `needle[at]` (a rare one: memchr skips to each, and only there is
/// the rest compared). The same answer as line.find(needle).
inline size_t findBy(std::string_view line, std::string_view needle, size_t at) {
  const char *begin = line.data(), *end = begin + line.size();
  const char *from = begin + at;
  const size_t after = needle.size() - at; // bytes from needle[at] on
  while (from < end) {
    const void *hit = std::memchr(from, needle[at], static_cast<size_t>(end - from));
    if (!hit)
      return std::string_view::npos;
    const char *h = static_cast<const char *>(hit);
    if (static_cast<size_t>(end - h) < after)
      return std::string_view::npos;
    if (std::memcmp(h - at, needle.data(), needle.size()) == 0)
      return static_cast<size_t>(h - at - begin);
    from = h + 1;
  }
  return std::string_view::npos;
}

/// Whether `needle` occurs in `line`, found by its byte `needle[at]`
/// (findBy).
inline bool containsBy(std::string_view line, std::string_view needle, size_t at) {
  return findBy(line, needle, at) != std::string_view::npos;
}

/// How often a byte comes in the lines of a log, roughly (0 rarest): the
/// space, then lowercase letters by their English frequency, digits and the
/// punctuation of log prefixes and paths, the capitals of log levels; other
/// capitals and punctuation are rare.
constexpr int commonness(char c) {
  constexpr std::string_view lower = "etaoinsrhldcumfpgwybvkxjqz";
  if (c == ' ')
    return 100;
  if (c >= 'a' && c <= 'z')
    return 90 - 3 * static_cast<int>(lower.find(c));
  if (c >= '0' && c <= '9')
    return 60;
  if (std::string_view("_.:/-=").find(c) != std::string_view::npos)
    return 50;
  if (std::string_view("DEBUGINFOWARN").find(c) != std::string_view::npos)
    return 40;
  if (c >= 'A' && c <= 'Z')
    return 10;
  return 20;
}

/// The index of `needle`'s rarest byte by commonness (the first of equals):
/// the byte findBy looks for.
constexpr size_t rarestByte(std::string_view needle) {
  size_t best = 0;
  for (size_t i = 1; i < needle.size(); ++i)
    if (commonness(needle[i]) < commonness(needle[best]))
      best = i;
  return best;
}

/// line.find(Message) for one of the messages above, by its rarest byte
/// (chosen when compiled): most lines are about the cache, and each check
/// of LogReader::readLine that a line fails costs one memchr for a byte the
/// line mostly lacks, not one compare per occurrence of the message's first
/// byte.
template <const auto &Message> size_t findMessage(std::string_view line) {
  constexpr std::string_view text(Message, sizeof(Message) - 1);
  constexpr size_t at = rarestByte(text);
  return findBy(line, text, at);
}

/// Whether a line can be one of the messages read here: every one of them
/// has "ache"/"ACHE" (cache), "ompil" (compile, Compiling, compilation) or
/// "falling back". Most lines of a real log have none.
inline bool mayMatter(std::string_view line) {
  return containsBy(line, "ache", 1) ||         // 'c'
         containsBy(line, "ompil", 2) ||        // 'p'
         containsBy(line, "ACHE", 2) ||         // 'H'
         containsBy(line, "falling back", 11);  // 'k'
}

} // namespace cachekey::logs::lines

#endif // CACHEKEY_LIB_LOGS_LOGLINES_H
