//===- LogReader.h - A whole JAX log, one program at a time -----*- C++ -*-===//
//
// Reads what a run of JAX logs about its persistent compilation cache and
// keeps, per compiled program, a summary: the 16 digest lines of its key
// (`_log_cache_key_hash` in jax/_src/cache_key.py), its kept and excluded
// flags, the compile options JAX logged for it, whether the cache hit or
// missed (`log_persistent_cache_hit` / `_miss` in jax/_src/compiler.py), and
// whether the entry was then written and, if not, why (`_cache_write` in
// compiler.py, `put_executable_and_time` in compilation_cache.py). Run-wide
// facts are kept too: the cache directory, the XLA autotuning and kernel
// cache paths JAX put into DebugOptions, a disabled cache. The cache's own
// lines are read as well: lookups made before the cache was initialised
// ("get_executable_and_time: cache is disabled/not initialized",
// compilation_cache.py), unreadable entries ("Error reading persistent
// compilation cache entry", compiler.py), lru_cache.py's hit, miss,
// eviction ("Evicting cache entry …: file size …, target cache size …") and
// "exceeds the maximum cache size" lines, "Unsupported runtime", PGLE and
// verification-cache lines, and pxla.py's "Compiling … with global shapes
// and types" line (the argument shapes and dtypes of the next key). jax
// 0.4.30 logs no miss line: a miss is read from its lru_cache.py miss, its
// "took at least" line or its INFO "Writing … with key …." line.
//
// The messages are recognised by their own words, whatever the handler put
// before them (LogPrefix.h); every format of jax 0.4.30 – 0.12.0.1 is read.
// Lines that are not JAX's cache messages are skipped. The reader is fed in
// chunks and keeps only summaries, so memory grows with the number of
// programs, not with the size of the log. Lines longer than 1 MiB are cut.
// Whole lines are read where they lie in the chunk: a digest line with the
// prefix of the digest line before it (most of a log's cache lines) by a
// shortcut that reads it exactly as the general reader would, and a line
// with none of the messages' words is only counted.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_LOGREADER_H
#define CACHEKEY_LOGREADER_H

#include "cachekey/Key.h"

#include <array>
#include <cstdint>
#include <deque>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cachekey {

/// What the persistent-cache lookup of a program found.
enum class Lookup : uint8_t { Unknown, Hit, Miss };

/// What became of a missed program's cache entry.
enum class WriteState : uint8_t {
  /// Nothing logged (the program hit, or its logger was not at DEBUG).
  Unknown,
  /// The compile time passed the minimum ("took at least"): JAX went on to
  /// write, but the line that confirms it was not logged.
  Attempted,
  /// "Writing … to persistent compilation cache".
  Written,
  /// One of the "Not writing persistent cache entry" lines.
  NotWritten,
  /// "Error writing persistent compilation cache entry" (a warning).
  Failed,
};

/// Why an entry was not written, one per message JAX has for it.
enum class NotWrittenReason : uint8_t {
  None,
  CompileTime,   // took < jax_persistent_cache_min_compile_time_secs
  HostCallbacks, // uses host callbacks (jax ≤ 0.10.2)
  NotProcessZero, // only process 0 writes
  EntrySize,     // smaller than jax_persistent_cache_min_entry_size_bytes
  CacheDisabled, // the cache is disabled or not initialised
  /// Larger than jax_compilation_cache_max_size: the LRU cache refuses it
  /// ("Cache value for key … exceeds the maximum cache size", lru_cache.py).
  TooLarge,
};

/// The write outcome of one program, with the numbers its line gave, as
/// LoggedProgram::write() assembles it (a program keeps it more compactly).
struct WriteOutcome {
  WriteState state = WriteState::Unknown;
  NotWrittenReason reason = NotWrittenReason::None;
  /// The failed write names an entry's `-atime` file (lru_cache.py's
  /// eviction pass stats it; jax#39880: missing, it fails every capped
  /// write before jax 0.11.2).
  bool atimeError = false;
  /// The failed write ran out of space (OSError ENOSPC: "[Errno 28] No
  /// space left on device").
  bool noSpace = false;
  /// Index into LogSummary::texts of the warning text of a failed write, or
  /// -1.
  int error = -1;
  /// Seconds, from "took < %.2f seconds to compile (%.2fs)" or "took at
  /// least …"; negative when not logged.
  double compileSeconds = -1, minCompileSeconds = -1;
  /// Bytes, from "since its size (%d bytes) is less than threshold (%d
  /// bytes)"; negative when not logged.
  long long entryBytes = -1, minEntryBytes = -1;
  /// Bytes, from "exceeds the maximum cache size of %d bytes"; negative
  /// when not logged.
  long long maxCacheBytes = -1;
  size_t line = 0; // 1-based line of the message; 0 when not known
};

/// What few programs have, or many programs share, kept once per distinct
/// value (LogSummary::keepExtras) and pointed to by each program: the
/// numbers of its write line (a run's settings, its small programs'
/// compile times, an entry's size) and the indices into LogSummary::texts
/// of its rarer texts (-1: none). Doubles are compared bit for bit (0.0
/// and -0.0 are written differently, so they are two values here).
struct ProgramExtras {
  /// The hit/miss line's key when it is not "<name>-<64 hex of keyDigest>"
  /// (LogSummary::keyOf).
  int keyText = -1;
  /// The entry-6 fallback message.
  int fallback = -1;
  /// The error part of the "Error reading persistent compilation cache
  /// entry for '<name>': <error>" warning logged before its lookup
  /// (compiler.py `_cache_read`: a damaged or unreadable entry).
  int readError = -1;
  /// The read error is XLA's compile-only client's ("PjRtCompiler must be
  /// constructed with a Client to call DeserializeLoadedExecutable"): a
  /// deviceless (ahead-of-time) compile cannot load any entry; the file is
  /// not damaged.
  bool compileOnlyRead = false;
  /// WriteOutcome::error.
  int writeError = -1;
  double compileSeconds = -1, minCompileSeconds = -1;
  long long entryBytes = -1, minEntryBytes = -1, maxCacheBytes = -1;
  /// compile_options.profile_version as compiler.py's get_compile_options
  /// logged it before the key ("… XLA-AutoFDO profile: using … profile
  /// version N"), when not -1 (no XLA-AutoFDO profile, the default on every
  /// platform without one); -1 when the line says -1 or was not logged
  /// (LogSummary::autoFdoLines tells which).
  long long profileVersion = -1;
  /// Index into LogSummary::texts of the argument mapping its "Compiling …
  /// with global shapes and types (…). Argument mapping: (…)" line gave
  /// (pxla.py: each argument's sharding, UnspecifiedValue where none was
  /// given), without the final full stop; -1 when not logged.
  int argMapping = -1;
  /// WriteOutcome::noSpace.
  bool noSpace = false;
  bool operator==(const ProgramExtras &o) const;
  /// Every field at its "none" value: the extras of most programs.
  static const ProgramExtras &none();
};

/// A module name kept by LogSummary::keepName, used as a string_view: one
/// pointer where a string_view takes two words. Its length is stored just
/// before its bytes: one byte below 255; else the byte 255, then 4 bytes
/// in host order. Valid while that summary lives.
class KeptName {
public:
  KeptName() = default;
  std::string_view view() const {
    if (!at)
      return {};
    auto n = static_cast<unsigned char>(*at);
    if (n < 255)
      return {at + 1, n};
    uint32_t big;
    std::memcpy(&big, at + 1, sizeof big);
    return {at + 1 + sizeof big, big};
  }
  operator std::string_view() const { return view(); }
  size_t size() const { return view().size(); }
  bool empty() const { return at == nullptr; }
  const char *data() const { return view().data(); }
  friend bool operator==(KeptName a, std::string_view b) { return a.view() == b; }
  friend bool operator!=(KeptName a, std::string_view b) { return a.view() != b; }
  friend bool operator==(KeptName a, KeptName b) { return a.view() == b.view(); }
  friend bool operator!=(KeptName a, KeptName b) { return a.view() != b.view(); }
  friend bool operator<(KeptName a, KeptName b) { return a.view() < b.view(); }
  friend std::ostream &operator<<(std::ostream &os, KeptName n) { return os << n.view(); }

private:
  friend struct LogSummary;
  explicit KeptName(const char *at) : at(at) {}
  const char *at = nullptr; // the length, then the bytes; null: ""
};

/// The 16 digest lines of one key as logged: the own and the running digest
/// of entry i + 1 (`_log_cache_key_hash`, jax/_src/cache_key.py); absent
/// where not logged. A log that compiles the same key many times keeps one.
struct KeyTrace {
  std::array<std::optional<Digest>, kNumEntries> own, running;
  /// How many of the 16 lines were read, and whether they make a whole key
  /// (all 16, or the 14 of a release without entry 3): worked out once,
  /// when the reader keeps the trace; not part of its value.
  int8_t lineCount = 0;
  bool whole = false;
  bool operator==(const KeyTrace &o) const {
    return own == o.own && running == o.running;
  }
  /// The trace of a program whose digest lines were not logged.
  static const KeyTrace &none();
};

/// One key computation (one compiled program) found in a log.
///
/// A log of 220,000 programs keeps as many, so a program is 64 bytes on
/// 64-bit hosts: its name is a view of the summary's own copy (KeptName),
/// its first line and one-bit facts share one word (bit-fields; a line
/// number has 48 bits), its lookup and write lines are kept as distances
/// from its first line, and what few programs have or many share (the
/// write line's numbers, rare texts) is one pointer to the summary's
/// ProgramExtras. The write outcome is assembled by write(); the reader
/// sets these through LogSummary::setWrite and LogSummary::editExtras.
struct LoggedProgram {
  LoggedProgram()
      : firstLine(0), lookup(Lookup::Unknown), startsMidKey(false), lookupNoCache(false),
        lookupInferred(false), foundThenMissed(false), pgleProbe(false), pgle(false),
        atimeError(false),
        writeState(WriteState::Unknown),
        writeReason(NotWrittenReason::None) {}
  /// The module name, from the hit/miss line ("" when not logged).
  KeptName name;
  /// The entries' own and running digests, as logged: shared by every
  /// program of the log with the same ones (LogSummary::traces). Being
  /// read, a key's lines are the reader's; the program gets them when its
  /// key ends.
  const KeyTrace *trace = &KeyTrace::none();
  const KeyTrace &digests() const { return *trace; }
  /// The key's digest from the hit/miss line (LogSummary::keyDigests), or
  /// null when the line gave none.
  const Digest *keyDigest = nullptr;
  /// Its write numbers and rare texts (LogSummary::extras; shared).
  const ProgramExtras *extras = &ProgramExtras::none();
  /// 1-based line of the first message of its key.
  uint64_t firstLine : 48;
  Lookup lookup : 2;
  /// The log started in the middle of this key.
  bool startsMidKey : 1;
  /// Its lookup logged "get_executable_and_time: cache is disabled/not
  /// initialized" (compilation_cache.py): no cache was open yet.
  bool lookupNoCache : 1;
  /// The lookup was not logged by compiler.py but read from another line:
  /// jax 0.4.30 logs no miss line (a "Writing …"/"Not writing …" line or
  /// lru_cache.py's "Cache miss for key" shows it).
  bool lookupInferred : 1;
  /// A miss whose lookup lru_cache.py logged as found ("Cache hit for key"
  /// with this key, right before the compiler's miss line): the file was
  /// there and read, yet JAX compiled. With no read error logged, that is
  /// jax_compilation_cache_check_contents (compilation_cache.py's
  /// VerificationCache returns nothing the first time a process sees a key,
  /// to check the entry against a fresh compile).
  bool foundThenMissed : 1;
  /// The key of the PGLE-optimized entry that compiler.py's
  /// _resolve_compilation_strategy computes and probes before the program's
  /// own key (jax_enable_pgle, jax_compilation_cache_expect_pgle): a key
  /// with no lookup of its own, followed in its stream by one that differs
  /// in entry 5 alone (its compile options carry an FDO profile). Not a
  /// program: comparable() leaves it out.
  bool pgleProbe : 1;
  /// Compiled under PGLE: a PGLE probe key came with it (its compile
  /// options are PGLE's first pass, or carry the profile), so its entry 5
  /// is not that of a run without PGLE.
  bool pgle : 1;
  /// WriteOutcome::atimeError, state and reason (see write()).
  bool atimeError : 1;
  WriteState writeState : 3;
  NotWrittenReason writeReason : 3;

private:
  /// lookupLine() and the write's line, as 1 + their distance from
  /// firstLine; 0: not known.
  uint32_t lookupAfter = 0, writeAfter = 0;
  friend struct LogSummary;
  static uint32_t after(uint64_t first, size_t line) {
    return line < first || line - first >= UINT32_MAX ? 0
                                                       : static_cast<uint32_t>(line - first + 1);
  }

public:
  /// Index into LogSummary::streams: which process or thread logged it.
  int stream = 0;
  /// Index into LogSummary::flagSets (one pass of the flag lines), or -1.
  int flags = -1;
  /// Index into LogSummary::texts of the `get_compile_options:` message
  /// logged before the key (num_replicas, num_partitions, device
  /// assignment), or -1.
  int compileOptions = -1;
  /// Index into LogSummary::texts of the argument shapes and types of its
  /// `Compiling <fun> with global shapes and types (…)` line (pxla.py), the
  /// parenthesised tuple as logged, or -1.
  int shapes = -1;

  /// 1-based line of its hit/miss line (or of the line its lookup was read
  /// from); 0 when not logged (or, in a log of more than 4 billion lines,
  /// logged more than 4 billion lines after its first line).
  size_t lookupLine() const {
    return lookupAfter ? static_cast<size_t>(firstLine + lookupAfter - 1) : 0;
  }
  void setLookupLine(size_t line) { lookupAfter = after(firstLine, line); }
  /// What became of its cache entry, with the numbers its lines gave.
  WriteOutcome write() const;
  /// ProgramExtras::keyText, fallback and readError.
  int keyText() const { return extras->keyText; }
  int fallback() const { return extras->fallback; }
  int readError() const { return extras->readError; }
  bool compileOnlyRead() const { return extras->compileOnlyRead; }

  /// Whether all 16 digest lines were read.
  bool complete() const;
  /// The key's final digest: the running digest after entry 8, or the one
  /// in the hit/miss line.
  std::optional<Digest> finalDigest() const;
  /// How many of the 16 digest lines were read.
  int digestLines() const;
};

/// One "Evicting cache entry '<key>': file size %d bytes, target cache size
/// %d bytes" line of lru_cache.py (jax 0.4.30: "Evicting cache file
/// <key>-cache: …"): the LRU removed that entry to stay under
/// jax_compilation_cache_max_size.
struct Eviction {
  long long bytes = -1, targetBytes = -1;
  size_t line = 0; // 1-based
};

/// Everything kept from one log.
/// A line the reader could not use, or a key it could not finish, as facts
/// (worded by logReadNoteText, LogSummaryWording.cpp). `line` is the
/// 1-based line the note is about.
struct LogReadNote {
  enum class Code : uint8_t {
    // Lines that look like JAX's but cannot be read (LogSummary::problems):
    DigestNotSha256,  // `entry`'s own (`fresh`) or running digest is not 64
                      // lowercase hex digits: `badChar` (1-based, 0: the
                      // length `hexDigits` is wrong), `shown` (its start),
                      // `cut` (the log ends in it)
    UnknownEntry,     // "get_cache_key hash" before an unknown entry name
    ReadErrorLine,    // "Error reading …" without the module name and error
    LruKey,           // an lru_cache line's key is not "<name>-<64 hex>":
                      // `shown` (its first 100 bytes)
    EvictingLine,     // "Evicting cache entry" without a whole key and size
    NotWritingReason, // "Not writing persistent cache entry" with a reason
                      // this reader does not know
    DigestsMissing,   // digest lines are missing before this one
    // Keys left out (LogSummary::incomplete):
    KeyStops,         // the key starting at `line` stops after `digests` of
                      // its 16 digest lines, because `why`
    StartsMidKey,     // the log starts in the middle of a key
  };
  /// Why a key stopped (KeyStops).
  enum class Why : uint8_t { None, NewKeyStarts, LinesRepeat, LineCut, MissingInMiddle, LogEnds };
  Code code = Code::DigestsMissing;
  Why why = Why::None;
  size_t line = 0;
  int entry = 0;         // 1…8 (DigestNotSha256)
  bool fresh = false;    // own digest (true) or running (DigestNotSha256)
  bool cut = false;      // the log ends in the line (DigestNotSha256)
  int digests = 0;       // digest lines read (KeyStops)
  size_t badChar = 0;    // DigestNotSha256: 1-based position, 0: none
  char badByte = 0;      // DigestNotSha256: the character at `badChar`
  size_t hexDigits = 0;  // DigestNotSha256
  std::string shown;     // DigestNotSha256, LruKey
};

/// The note in words, starting "line N: " or "the key starting at line N",
/// e.g. "line 3: the log starts in the middle of a key (no \"computation\"
/// line before it)".
std::string logReadNoteText(const LogReadNote &note);

/// The stable snake_case name of a note's code ("digest_not_sha256", …).
const char *logReadNoteCode(LogReadNote::Code code);

struct LogSummary {
  LogSummary() = default;
  /// Programs point into the summary's own tables: it moves, never copies.
  LogSummary(LogSummary &&) = default;
  LogSummary &operator=(LogSummary &&) = default;
  LogSummary(const LogSummary &) = delete;
  LogSummary &operator=(const LogSummary &) = delete;

  /// The log's name as the reader should see it (a file name, "log A").
  std::string name;
  /// Where it was read from, as an identity that two readings of one file
  /// share (the CLI sets the file's device and inode); empty when not
  /// known (standard input, text in memory). Two logs with one source are
  /// one file given twice.
  std::string source;
  size_t lines = 0;
  /// A deque, not a vector: growing it never copies the programs read so
  /// far, so a log of many programs needs no second copy while it grows.
  std::deque<LoggedProgram> programs;
  /// Distinct flag lists, each one pass of the flag lines in log order.
  std::vector<std::vector<LoggedFlag>> flagSets;
  /// Distinct texts referred to by programs (compile options, fallbacks).
  std::vector<std::string> texts;
  /// A copy of `name` that lives as long as the summary (moves included),
  /// for LoggedProgram::name. Names are kept one after another in blocks of
  /// 64 KiB, not as a string each; a name equal to one kept recently is
  /// that one's view.
  KeptName keepName(std::string_view name);
  /// The program's write outcome becomes `w` (its numbers are kept in
  /// `extras`, its line as a distance from the program's first line).
  void setWrite(LoggedProgram &program, const WriteOutcome &w);
  /// Changes the program's extras by `edit(ProgramExtras &)`.
  template <class Edit> void editExtras(LoggedProgram &program, Edit edit) {
    ProgramExtras e = *program.extras;
    edit(e);
    program.extras = keepExtras(e);
  }
  /// The kept copy of `e` (one per distinct value; a deque, so moving the
  /// summary keeps the addresses).
  const ProgramExtras *keepExtras(const ProgramExtras &e);
  std::deque<ProgramExtras> extras;
  /// Distinct digest traces and key digests the programs point to (a
  /// deque: growing or moving it keeps the addresses).
  std::deque<KeyTrace> traces;
  std::deque<Digest> keyDigests;
  /// "<name>-<64 hex>" of a program as its hit/miss line gave it ("" when
  /// the line gave no key).
  std::string keyOf(const LoggedProgram &program) const;
  /// The warning text of a program's failed write ("" when none).
  const std::string &writeError(const LoggedProgram &program) const;
  /// Stream tags in order of first use; [0] is "" (LogPrefix.h).
  std::vector<std::string> streams{""};
  /// "Initialized persistent compilation cache at …", distinct, in order.
  std::vector<std::string> cacheDirs;
  /// Each such line: its line (1-based) and its directory (an index into
  /// cacheDirs), in log order. A run that switches directories
  /// (compilation_cache.reset_cache(), then another
  /// jax_compilation_cache_dir) logs more than one.
  std::vector<std::pair<size_t, uint32_t>> cacheDirLines;
  /// "Enabling XLA autotuning cache at '…'" / "… kernel cache …".
  std::vector<std::string> autotuneCaches, kernelCaches;
  /// "_initialize_cache: cache is disabled!" / "… initialization failed!".
  bool cacheDisabled = false, cacheInitFailed = false;
  /// compiler.py's "get_compile_options: num_replicas=…" lines: one per
  /// compile, logged whether or not the persistent cache is used.
  size_t compileOptionsLines = 0;
  /// compiler.py's "get_compile_options XLA-AutoFDO profile: …" lines: when
  /// there are any, a program without a profile version had -1.
  size_t autoFdoLines = 0;
  /// lru_cache.py's "Cache miss for key" / "Cache hit for key" lines: with
  /// any, jax._src.lru_cache was at DEBUG, so the LRU's evictions in this run
  /// are logged too ("Evicting cache entry").
  size_t lruLookupLines = 0;
  /// Line of the first "Initialized persistent compilation cache at …"
  /// (1-based; 0 when not logged).
  size_t cacheInitLine = 0;
  /// The entries the LRU evicted, by key digest (the first eviction of
  /// each), and how many eviction lines there were.
  std::map<Digest, Eviction> evicted;
  size_t evictionLines = 0;
  /// "_get_cache: Unsupported runtime: <runtime>" (compilation_cache.py):
  /// this runtime never uses the persistent cache.
  std::string unsupportedRuntime;
  /// A read error asked for the filelock package ("Please install the
  /// `filelock` package to set `jax_compilation_cache_max_size`",
  /// lru_cache.py): a size cap is set and the cache cannot open.
  bool needsFilelock = false;
  /// PGLE lines of compiler.py: "PGLE-optimized <m> loaded from compilation
  /// cache" and "PERSISTENT CACHE MISS for PGLE-optimized <m> …".
  size_t pgleLoaded = 0, pgleMisses = 0;
  /// Keys left out as PGLE probes (LoggedProgram::pgleProbe).
  size_t pgleProbes = 0;
  /// "Persistent compilation cache inconsistency for key …": the
  /// verification cache (jax_compilation_cache_check_contents) found an
  /// entry whose contents differ from a fresh compile.
  size_t verificationErrors = 0;
  /// "compile_or_get_cached: unable to generate cache key …": programs that
  /// skipped the cache, and the first message.
  size_t keyErrors = 0;
  std::string firstKeyError;
  /// Keys whose digest lines stop early (KeyStops, StartsMidKey).
  std::vector<LogReadNote> incomplete;
  /// Lines that look like JAX's but could not be read; at most 20 are kept,
  /// `problemCount` counts them all.
  std::vector<LogReadNote> problems;
  size_t problemCount = 0;
  /// Lines longer than the 1 MiB the reader keeps.
  size_t longLines = 0;
  /// Lines that repeat the line before them as another handler printed it
  /// (LogReader::duplicateOfPrevious), read once.
  size_t duplicateLines = 0;
  /// The input did not end with a line break (often a cut log).
  bool endsMidLine = false;
  /// What the first bytes say the input is, when it is not text a log
  /// reader can read: a gzip file (1f 8b), UTF-16 text (a byte-order mark
  /// FF FE / FE FF, or NUL bytes among the first 64 as UTF-16 places them,
  /// as PowerShell's `2>` writes it), or another binary file (NUL bytes
  /// elsewhere: an executable, an archive, a core dump).
  enum class Encoding : uint8_t { Text, Gzip, Utf16, Binary };
  Encoding encoding = Encoding::Text;
  /// What a log's first bytes (its first chunk, any length) say it is,
  /// from its first 64 bytes at most (LogEncoding.cpp).
  static Encoding encodingOf(std::string_view firstBytes);

  /// The indices of programs with all 16 digest lines or a logged key.
  std::vector<int> comparable() const;

  /// The line where the key the log ends in starts (an `incomplete` note
  /// KeyStops because LogEnds), or 0 when the log does not end inside a
  /// key. A program only in the other log may be that key's: the log was
  /// cut (or the process stopped) while it was computed.
  size_t endsInsideKeyAt() const;
  /// The lookup line of the program the run was compiling when its log
  /// ended, or 0: the log's last program by lookup missed, its log has
  /// nothing after that miss about it (no compile time, no write), while
  /// writes are logged (another program's, or the "Initialized persistent
  /// compilation cache" line of the logger that logs them): the run stopped
  /// (killed, crashed, or the log was cut) before it could write that entry.
  size_t endsCompilingAt = 0;
  /// Whether `p` (a program of this log) is the one the run was compiling
  /// when its log ended: its lookup line is endsCompilingAt.
  bool endsCompiling(const LoggedProgram &p) const {
    return endsCompilingAt && p.lookupLine() == endsCompilingAt;
  }

private:
  /// keepName's blocks (each one allocation, never moved) and the room left
  /// in the last one.
  std::vector<std::unique_ptr<char[]>> nameBlocks;
  char *nameFree = nullptr;
  size_t nameRoom = 0;
  /// The names kept last, by a hash of their bytes (keepName).
  std::array<KeptName, 256> recentNames{};
  struct ExtrasHash {
    size_t operator()(const ProgramExtras *e) const;
  };
  struct ExtrasEq {
    bool operator()(const ProgramExtras *a, const ProgramExtras *b) const { return *a == *b; }
  };
  std::unordered_set<const ProgramExtras *, ExtrasHash, ExtrasEq> extrasSet;
};

/// LogSummary::endsCompilingAt of a log read whole: the lookup line of its
/// last program by lookup when that program missed and nothing of its write
/// follows, where writes are logged; else 0 (LogSummary.cpp).
size_t endsCompilingLine(const LogSummary &log);

/// Reads a log fed in chunks of any size (line breaks may fall anywhere;
/// "\r\n" and ANSI colours are accepted).
class LogReader {
public:
  explicit LogReader(std::string name = "log");
  /// Reads the complete lines in `chunk`; the rest waits for the next one.
  void feed(std::string_view chunk);
  /// Ends the input (a last line without a line break is read) and returns
  /// the summary. The reader must not be fed afterwards.
  LogSummary finish();

private:
  struct Stream {
    int pending = -1;       // program whose digest lines are being read
    int awaitingLookup = -1; // complete program before its hit/miss line
    int compileOptions = -1; // last get_compile_options text
    long long profileVersion = -1; // and its XLA-AutoFDO profile version
    int shapes = -1;         // last "Compiling … shapes and types" text
    int argMapping = -1;     // and its argument mapping
    bool broken = false;     // a digest line of the current key was cut
    bool noCacheLookup = false; // "get_executable_and_time: cache is disabled/…"

    std::vector<LoggedFlag> flags; // of `pending`
    KeyTrace digests;              // of `pending`, until its key ends
  };
  /// Gives the pending program of `s` its digest lines (one shared copy
  /// per distinct trace).
  void endTrace(Stream &s);
  const Digest *internKeyDigest(const Digest &d);
  struct TraceHash {
    size_t operator()(const KeyTrace *t) const;
  };
  struct TraceEq {
    bool operator()(const KeyTrace *a, const KeyTrace *b) const { return *a == *b; }
  };
  std::unordered_set<const KeyTrace *, TraceHash, TraceEq> traceSet;
  void readLine(std::string &line);
  /// A whole line that is one more digest line after the prefix of the
  /// last one ("DEBUG:jax._src.cache_key:" and the like), read straight
  /// from the chunk: the prefix, "get_cache_key hash of serialized " or
  /// "… after serializing ", an entry name, ": ", 64 lowercase hex digits,
  /// then only blanks (and a final '\r'). Returns false, having read
  /// nothing, for any other line: readLine reads it, and reads it the same.
  bool readDigestLine(std::string_view line);
  /// A digest line's digest, in stream `streamId`.
  void onDigestLine(int streamId, bool fresh, int entry, const Digest &d);
  /// The prefix of the last digest line readLine read, when it holds
  /// neither digest message itself (readDigestLine needs that), else "".
  std::string digestPrefix;
  void onDigest(int streamId, bool fresh, int entry, const Digest &d);
  void onLookup(int streamId, bool hit, const std::string &name,
                const std::string &key);
  void onWrite(int streamId, const std::string &name, const std::string &key,
               WriteOutcome outcome);
  int streamOf(std::string_view prefix);
  int tagStream(std::string_view prefix);
  /// The last prefixes seen and their streams (streamOf).
  std::array<std::pair<std::string, int>, 8> recentPrefixes{};
  size_t nextRecent = 0;
  int programAwaitingEntry(int streamId, int slot);
  void closePending(Stream &s, LogReadNote::Why why);
  /// Keeps `note` (about the line being read) among the problems.
  void problem(LogReadNote note);
  /// A note of `code` about the line being read.
  LogReadNote noteHere(LogReadNote::Code code) const;
  int intern(std::vector<std::string> &texts, std::string text);

  LogSummary summary;
  std::vector<Stream> streams{Stream{}};
  std::string partial;
  /// The last line that may matter (duplicateOfPrevious), empty after a line
  /// that does not.
  std::string previousLine;
  /// True when `line` is the previous line's record printed again by
  /// another handler (JAX_LOGGING_LEVEL's handler on the "jax" logger and
  /// a root handler of logging.basicConfig both print each record, in two
  /// formats): the same message after a different prefix that tags the
  /// same process (LogPrefix.h streamTag); in a log of several streams, the
  /// line before it of its own stream (lastOfStream).
  bool duplicateOfPrevious(std::string_view line);
  /// `line` (not a copy) becomes the line before the next, and the last of
  /// its stream in a log of several.
  void remember(std::string_view line);
  /// The line before was matched by its copy: neither it nor the copy is
  /// compared again.
  void consumePrevious();
  /// A digest line came twice in a row, byte for byte: every record of this
  /// log is printed twice (two handlers of one format), so each identical
  /// second copy is dropped.
  bool doubledRecords = false;
  /// In a log of several streams (launcher prefixes), the last line that
  /// may matter of each, by handlerFreeTag (a few: the oldest goes first).
  static constexpr size_t kStreamsRemembered = 16;
  std::vector<std::pair<std::string, std::string>> lastOfStream;
  /// The launcher tag of `line` as two handlers' formats share it: the
  /// streamTag of what comes before JAX's logger name, letters, digits and
  /// brackets only ("[rank1]", "0", "" without a prefix).
  /// Written into `handlerTag` (its buffer reused from line to line).
  const std::string &handlerFreeTag(std::string_view line);
  std::string handlerTag;
  /// Buffers for the stream tags compared line by line (streamTag's second
  /// form): most lines of a log make no string of their own.
  std::string tagScratch[2];
  void rememberOfStream(std::string_view line);
  /// The entry of lastOfStream for `tag`, or its end.
  std::vector<std::pair<std::string, std::string>>::iterator
  lastOfStreamTagged(const std::string &tag);
  bool streamsSeeded = false;
  /// After a line that does not matter: no line before the next (and,
  /// until a second stream is seen, the last one kept in beforeStreams).
  void forgetPrevious();
  /// Once a second stream is seen: its first lines' stream memory begins
  /// (seedStreams); then whether there is a line to compare with at all.
  bool mayBeCopy();
  void seedStreams();
  std::string beforeStreams;
  /// The line readLine is given was already compared with the one before
  /// (feed's whole-line path), which it now is itself.
  bool lineChecked = false;
  bool skippingLongLine = false;
  /// The first bytes were looked at (LogSummary::encoding).
  bool encodingChecked = false;
  /// How the log's lines end, known at its first line break: a log whose
  /// first '\r' is followed by another byte than '\n' ends its lines in CR
  /// alone (classic Mac OS text, or a terminal capture that kept the
  /// carriage returns), and each of its chunks is read with its '\r' bytes
  /// as line feeds (crChunk). LF and CRLF logs are read as they are.
  enum class LineEnds : uint8_t { Unknown, Lf, Cr };
  LineEnds lineEnds = LineEnds::Unknown;
  std::string crChunk;
  /// Sets lineEnds from `chunk` when its first line break says.
  void learnLineEnds(std::string_view chunk);
  /// Programs by final digest, for hit/miss and write lines.
  struct ProgramsWithDigest {
    std::vector<int> indices; // in log order
    /// indices[0, firstUnlooked) all have a hit/miss line already (a
    /// program's lookup is set once), so a log that compiles the same
    /// program thousands of times is still read in linear time.
    size_t firstUnlooked = 0;
  };
  /// A SHA-256 is uniformly distributed: its first 8 bytes are a hash.
  struct DigestHash {
    size_t operator()(const Digest &d) const {
      size_t h;
      std::memcpy(&h, d.data(), sizeof h);
      return h;
    }
  };
  std::unordered_map<Digest, ProgramsWithDigest, DigestHash> byDigest;
  /// LogSummary::keyDigests by value.
  std::unordered_map<Digest, const Digest *, DigestHash> keyDigestSet;
  /// The programs last given a name (by their hit/miss line or a write
  /// line), oldest first, at most kRecentNamed: a write line that names a
  /// program belongs to the latest of that name, in its stream if any.
  std::deque<int> recentNamed;
  static constexpr size_t kRecentNamed = 4096;
  void named(int index);
  /// The latest program named `name` in stream `streamId`, else in any
  /// stream; -1 when none is among the recent ones.
  int lastNamed(int streamId, const std::string &name) const;
  int lastMiss = -1;
  /// "Error reading persistent compilation cache entry" warnings (they have
  /// no stream) by module name, waiting for that program's lookup: the
  /// error's text and whether it is the compile-only client's.
  std::map<std::string, std::pair<int, bool>> readErrors;
  /// The key digest of the last "Cache hit for key" line of lru_cache.py
  /// not yet followed by a lookup line of compiler.py.
  std::optional<Digest> lastLruHit;
  /// The PGLE probe keys (LoggedProgram::pgleProbe) by final digest: a
  /// lookup of one makes it the program (the PGLE-optimized entry was
  /// found), and the key computed after it the unused one.
  std::map<Digest, int> pgleProbeKeys;
  /// Marks program `probe` as a PGLE probe (or, `probe` false, the program
  /// again) and keeps byDigest and pgleProbeKeys in step.
  void setPgleProbe(int index, bool probe);
  /// Adopts the program with final digest `d` that has no lookup yet as a
  /// miss (0.4.30 logs none), naming it `name`; its index or -1.
  int inferMiss(const Digest &d, const std::string &name);
};

/// Reads a whole log held in memory.
LogSummary readLog(std::string_view text, std::string name = "log");

} // namespace cachekey

#endif // CACHEKEY_LOGREADER_H
