//===- LogReadWording.cpp - The words of what a log could not give -------===//
//
// The only place that words a read log's notes (LogReadNote, LogReader.h)
// and the error for a log without one complete key (noKeyError).
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include "cachekey/English.h"

#include <string>

namespace cachekey {

namespace {

/// Bytes of a log as a message shows them: printable ASCII as it is, a
/// line break, tab or carriage return as \n, \t or \r, any other control
/// byte as \xNN (a raw CR would move the terminal's cursor).
std::string shownBytes(std::string_view bytes) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n' || c == '\t' || c == '\r')
      out += c == '\n' ? "\\n" : c == '\t' ? "\\t" : "\\r";
    else if (c < 0x20 || c == 0x7f)
      out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    else
      out += ch;
  }
  return out;
}

} // namespace

std::string logReadNoteText(const LogReadNote &n) {
  using C = LogReadNote::Code;
  const std::string at = "line " + std::to_string(n.line) + ": ";
  switch (n.code) {
  case C::DigestNotSha256:
    return at + "the " + (n.fresh ? "own digest of " : "running digest after ") +
           (n.entry >= 1 && n.entry <= kNumEntries ? kEntryNames[n.entry - 1] : "?") +
           " is not a whole SHA-256 (" +
           (n.badChar ? "character " + std::to_string(n.badChar) + " ('" +
                            shownBytes(std::string(1, n.badByte)) +
                            "') is not a lowercase hex digit"
                      : std::to_string(n.hexDigits) + " hex digits instead of 64") +
           ": \"" + shownBytes(n.shown) + "\"); " +
           (n.cut ? "the log is cut in the middle of it" : "the line looks cut or altered") +
           "; the rest of that key is skipped";
  case C::UnknownEntry:
    return at + "unknown entry name after \"get_cache_key hash\"";
  case C::ReadErrorLine:
    return at + "an \"Error reading persistent compilation cache entry\" line "
                "without the module name and error";
  case C::LruKey:
    return at + "the key of an lru_cache line is not \"<name>-<64 hex digits>\": " +
           n.shown;
  case C::EvictingLine:
    return at + "an \"Evicting cache entry\" line without a whole key and file size";
  case C::NotWritingReason:
    return at + "a \"Not writing persistent cache entry\" line with a reason this "
                "reader does not know";
  case C::DigestsMissing:
    return at + "digest lines are missing before this one";
  case C::KeyStops: {
    using W = LogReadNote::Why;
    const char *why = n.why == W::NewKeyStarts      ? "a new key starts before it ends"
                      : n.why == W::LinesRepeat     ? "its lines repeat"
                      : n.why == W::LineCut         ? "one of its lines is cut"
                      : n.why == W::MissingInMiddle ? "lines are missing in the middle"
                      : n.why == W::LogEnds         ? "the log ends there"
                                                    : "it stops";
    return "the key starting at line " + std::to_string(n.line) +
           " is incomplete: it stops after " + std::to_string(n.digests) +
           " of its 16 digest lines: " + why;
  }
  case C::StartsMidKey:
    return at + "the log starts in the middle of a key (no \"computation\" line "
                "before it)";
  }
  return at + "unreadable";
}

const char *logReadNoteCode(LogReadNote::Code code) {
  using C = LogReadNote::Code;
  switch (code) {
  case C::DigestNotSha256: return "digest_not_sha256";
  case C::UnknownEntry: return "unknown_entry";
  case C::ReadErrorLine: return "read_error_line";
  case C::LruKey: return "lru_key";
  case C::EvictingLine: return "evicting_line";
  case C::NotWritingReason: return "not_writing_reason";
  case C::DigestsMissing: return "digests_missing";
  case C::KeyStops: return "key_stops";
  case C::StartsMidKey: return "starts_mid_key";
  }
  return "unknown";
}

namespace logs {

namespace {

const char *noKeySubject(NoKeyReason reason) {
  switch (reason) {
  case NoKeyReason::Gzip: return "gzip_log";
  case NoKeyReason::Utf16: return "utf16_log";
  case NoKeyReason::Binary: return "binary_file";
  case NoKeyReason::CompiledWithoutCache: return "compiled_without_cache";
  case NoKeyReason::KeysInterleaved: return "keys_interleaved";
  case NoKeyReason::Unknown: break;
  }
  return "";
}

/// The words of the error for a log without one complete key.
std::string noKeyMessage(const LogSummary &log, NoKeyReason reason) {
  // Silence: an empty file is most often stderr that was not kept (JAX logs
  // through Python's logging, to stderr), not a run without compilations.
  if (log.lines == 0)
    return "the log is empty (not one line). JAX writes its cache lines to "
           "stderr through Python's logging: keep stderr (2>&1 or a "
           "logging.FileHandler), call logging.basicConfig() and set "
           "jax._src.cache_key and jax._src.compiler to DEBUG "
           "(JAX_DEBUG_LOG_MODULES alone prints nothing)";
  if (reason == NoKeyReason::Gzip)
    return "this is a gzip file, not a log's text: give it uncompressed "
           "(zcat FILE | cachekey compare-logs - OTHER, or gunzip it first)";
  if (reason == NoKeyReason::Utf16)
    return "this is UTF-16 text (as PowerShell's 2> writes it), not UTF-8: "
           "convert it first (iconv -f UTF-16 -t UTF-8, or in PowerShell "
           "Get-Content FILE | Set-Content -Encoding utf8 NEW)";
  if (reason == NoKeyReason::Binary)
    return "this is a binary file, not a log's text (NUL bytes among its "
           "first 64, not as UTF-16 places them): give the file JAX's "
           "stderr was written to";
  if (reason == NoKeyReason::CompiledWithoutCache)
    return "it compiled " + plural(log.compileOptionsLines, "program", "programs") +
           " (jax._src.compiler logged each at DEBUG) and looked none up in "
           "the persistent cache: the cache was off in this run "
           "(jax_enable_compilation_cache=False or "
           "JAX_ENABLE_COMPILATION_CACHE=false; set it True), or "
           "jax._src.cache_key and the cache's hit and miss lines were "
           "logged above DEBUG";
  std::string msg =
      log.programs.empty() && log.problems.empty()
          ? "no cache-key lines found. Enable them with "
            "logging.getLogger(\"jax._src.cache_key\").setLevel(logging.DEBUG) "
            "(and jax._src.compiler for the hits and misses) and give the "
            "whole log"
          : "no complete key: " +
                (!log.incomplete.empty() ? logReadNoteText(log.incomplete.front())
                 : !log.problems.empty()
                     ? logReadNoteText(log.problems.front())
                     : std::string("its keys' digest lines were not all "
                                   "read (every program lacks some of its 16 "
                                   "get_cache_key lines and no hit or miss "
                                   "line names its key)"));
  if (!log.problems.empty() && !log.incomplete.empty())
    msg += " (" + logReadNoteText(log.problems.front()) + ")";
  if (reason == NoKeyReason::KeysInterleaved)
    msg += ". New keys began before others ended, again and again: programs "
           "compiled at once by several threads, their lines interleaved; put "
           "the thread in the log format (%(thread)d) so that each thread's "
           "lines are read as one key";
  return msg;
}

} // namespace

Error noKeyError(const LogSummary &log) {
  const NoKeyReason reason = noKeyReason(log);
  return Error{log.name, noKeyMessage(log, reason), ErrorCode::Invalid, "",
               noKeySubject(reason)};
}

} // namespace logs
} // namespace cachekey
