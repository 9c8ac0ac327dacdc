//===- LogCompare.h - Why the second run missed the cache -------*- C++ -*-===//
//
// Compares two runs' logs (LogReader.h) the way a JAX user needs it: a
// program of the second run whose key the first run computed is that
// program (any name, any order); the others are paired by name (the key's
// readable prefix, e.g. `jit_train_step`), then by argument shapes, then by
// order within a name; a program with new shapes, and programs found in one
// run only, are named. When every differing program moved the same way the
// cause is said once (jax_enable_x64 from the dtypes of the shapes lines,
// one setting that moved JAX's own programs too). For every pair the keys are compared and, where they
// differ, the moved entries are grouped into one root cause (RootCause.h)
// with what the logs can tell about it: the jaxlib version and the short
// entries read back from their digests (KnownDigests.h), the flags from the
// flag lines, the cache paths JAX wrote into DebugOptions, the devices.
// Outcomes are explained too: which programs hit, missed, were written or
// never written and why (compile time under
// `jax_persistent_cache_min_compile_time_secs`, host callbacks, no cache yet,
// too large, a write error quoted whole), or written and not found (evicted,
// damaged, another or a relative directory), so that a miss with an equal
// key gets its real reason. Each run gets its stats (RunStats). The result ends with one
// summary line for the second run. A program whose keys are equal is never
// blamed.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_LOGCOMPARE_H
#define CACHEKEY_LOGCOMPARE_H

#include "cachekey/Diff.h"
#include "cachekey/LogReader.h"
#include "cachekey/English.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace cachekey {

/// How the programs of the two runs were paired.
enum class PairedBy : uint8_t {
#define PAIRED_BY(Name, code, words) Name,
#include "cachekey/PairedBy.def"
};

/// The words (PairedBy.def): "order", "name", "process and name".
const char *pairedByName(PairedBy pairedBy);

/// The snake_case code, for JSON: "order", "name", "process_and_name".
const char *pairedByCode(PairedBy pairedBy);

/// How one pair was made.
enum class PairMatch : uint8_t {
  None,   // a program of one run only
  Key,    // the second run's key is one the first run computed
  Shapes, // the same name and the same argument shapes and types
  Name,   // the same name, in order (the shapes not logged or dtypes only)
  Order,  // in order (the logs name no programs)
};

/// Why a pair's key moved, in the fewest facts that tell pairs apart: two
/// pairs with equal KeyMoves "differ for the same reason". Its words are
/// `keyMoveText`.
struct KeyMove {
  enum class Code : uint8_t {
    None,                  // nothing known (keys equal, or not explained)
    Inconsistent,          // every own digest equal, yet the keys differ
    TraceMissing,          // `both`: neither run logged the trace, else one
    ProgramChanged,        // entry 1
    ArgTypes,              // entry 1: the argument dtypes `before` → `after`
                           // (the "Compiling … shapes and types" lines)
    EnableX64,             // entry 1: every dtype widened 32 → 64 bits
                           // (or every one narrowed), `before` → `after`:
                           // jax_enable_x64
    ArgShardings,          // entry 1: the same argument shapes and types,
                           // the argument mapping (shardings) `before` →
                           // `after`
    JaxOwnProgram,         // entry 1 of one of JAX's own programs
                           // (jit_broadcast_in_dim, …): not the user's code
    EveryProgram,          // entry 1 of every paired program, with the same
                           // argument shapes and types, in two or more
                           // programs (JAX's own among them when `both`):
                           // one global setting
    JaxlibUpgrade,         // entry 2, `before` → `after` (releases)
    JaxlibDowngrade,       // entry 2, `before` → `after`, an older release
    JaxlibChanged,         // entry 2, a version that is not a release
    BackendChanged,        // entry 3
    FlagsNotLogged,        // entry 4, no "Including XLA flag" lines
    Flags,                 // entry 4, `flag` is the first kept-flag change
    CacheDirMoved,         // entry 5, the autotune cache path moved
    KernelCacheChanged,    // entry 5, the XLA kernel cache setting changed
    CompileOptionsChanged, // entry 5, otherwise
    DevicesChanged,        // entry 6
    Compression,           // entry 7, decoded `before` → `after`
    CustomHook,            // entry 8, decoded `before` → `after`
    GlobalSetting,         // entry `after` (2…8) of every paired program,
                           // `before` of them, nothing in the logs naming
                           // why: one setting outside the programs (where
                           // entry 1 moved too, the same setting moved it)
    StaticOrConstant,      // entry 1 of a program compiled `before` times
                           // in one run with the same argument shapes and
                           // types, each time with another key: a static
                           // argument or a captured Python constant
    ProfileVersion,        // entry 5: compile_options.profile_version
                           // `before` → `after` (jax_xla_profile_version)
    PgleSetting,           // entry 5: run `after` (a log's name) compiled
                           // under PGLE, the other not: jax_enable_pgle
    XlaCachesSetting,      // entry 5: one run compiled with the persistent
                           // cache on but without the XLA autotuning cache
                           // path in DebugOptions (`before` / `after` the
                           // paths, "" on that run):
                           // jax_persistent_cache_enable_xla_caches
  };
  Code code = Code::None;
  bool both = false;
  std::string before, after;
  FlagChange flag;

  bool operator==(const KeyMove &o) const {
    return std::tie(code, both, before, after, flag) ==
           std::tie(o.code, o.both, o.before, o.after, o.flag);
  }
  bool operator!=(const KeyMove &o) const { return !(*this == o); }
  bool operator<(const KeyMove &o) const {
    return std::tie(code, both, before, after, flag) <
           std::tie(o.code, o.both, o.before, o.after, o.flag);
  }
};

/// Why the second run missed a program whose key is the first run's: a
/// kind that groups programs in the summary.
enum class MissReason : uint8_t {
  NotWritten,
  WriteFailed,
  OtherDir,
  Gone,
  /// The second run looked it up before its cache was initialised
  /// ("get_executable_and_time: cache is disabled/not initialized"): a
  /// program compiled before jax_compilation_cache_dir was set.
  NoCacheYet,
  /// The second run found the entry but could not read it ("Error reading
  /// persistent compilation cache entry"): a damaged file, which JAX never
  /// replaces (LRUCache.put keeps an existing file).
  Damaged,
  /// The second run found the entry and its compile-only client could not
  /// load it (a deviceless, ahead-of-time compile: "PjRtCompiler must be
  /// constructed with a Client to call DeserializeLoadedExecutable"). No
  /// compile-only client can load an entry, so such compiles never hit; the
  /// file is not damaged.
  CompileOnlyClient,
  /// The second run found the entry and compiled anyway, with no read error:
  /// lru_cache.py logged "Cache hit for key" right before the compiler's
  /// miss (LoggedProgram::foundThenMissed). jax_compilation_cache_check_contents
  /// makes every process recompile each key once to check its entry.
  CheckContents,
  /// A size cap is set but this JAX cannot honour it: the first lookup
  /// raised "Please install the `filelock` package to set
  /// `jax_compilation_cache_max_size`" (lru_cache.py), and the cache never
  /// opened for the run's later programs either.
  NoFilelock,
  /// The LRU evicted it ("Evicting cache entry" in either log):
  /// jax_compilation_cache_max_size is below what the runs write.
  Evicted,
  /// The first run's entry was larger than jax_compilation_cache_max_size.
  TooLarge,
  /// Both runs name the same relative cache path: it depends on the
  /// working directory.
  RelativeDir,
  /// The second run's runtime never uses the persistent cache
  /// ("_get_cache: Unsupported runtime").
  UnsupportedRuntime,
  /// Only "took at least … to compile" was logged, and nothing shows a cache
  /// directory: with jax_compilation_cache_dir unset nothing is written.
  MaybeNoCache,
  /// As Gone, but the second run read other entries the first run wrote in
  /// that same folder (it hit one of the first run's keys there): the
  /// folder is shared, and this entry was removed after it was written
  /// (between the runs, or during the second: a cleanup, by hand).
  Removed,
  /// The first run stopped while it compiled the program: its log ends
  /// after that miss with nothing about its write, where other programs'
  /// writes are logged (LogSummary::endsCompilingAt): killed, crashed, or
  /// its log cut, before it wrote the entry.
  FirstRunStopped,
  Unknown
};

/// Why a missed program was not cached in a run, for the run summary.
enum class NotCached : uint8_t {
  CompileTime,   // under jax_persistent_cache_min_compile_time_secs
  EntrySize,     // under jax_persistent_cache_min_entry_size_bytes
  HostCallbacks, // uses host callbacks (jax ≤ 0.10.2)
  NotProcessZero,
  NoCache,       // looked up or written with no cache initialised
  TooLarge,      // over jax_compilation_cache_max_size
  WriteFailed,   // "Error writing persistent compilation cache entry"
  ReadFailed,    // found, but "Error reading …": missed although present
  CompileOnly,   // found, but a compile-only client cannot load entries
  Unknown,       // a miss whose write is not logged
};

/// A run at a glance, as `sccache --show-stats` gives one.
struct RunStats {
  size_t programs = 0, hits = 0, misses = 0, noOutcome = 0, written = 0;
  /// Seconds spent compiling the misses, from their logged compile times
  /// ("took at least … (%.2fs)" / "took < … (%.2fs)"); `timedMisses` of
  /// the misses logged one.
  double missCompileSeconds = 0;
  size_t timedMisses = 0;
  /// The "Evicting cache entry" lines.
  size_t evictions = 0;
  /// Each reason a miss was not cached, with its count, in NotCached order.
  std::vector<std::pair<NotCached, size_t>> notCached;
};

/// The stats of one read log.
RunStats runStats(const LogSummary &log);

/// One program of the second run paired with one of the first, or a
/// program found in one run only.
///
/// A pair holds indices and facts only (24 bytes: a log of 220,000
/// programs makes as many pairs); its module name and the label the reader
/// sees are the programs' (pairName, pairLabel, LogComparison::nameOf and
/// labelOf).
struct ProgramPair {
  /// 1-based position among the programs paired under this name.
  int ordinal = 1;
  /// Indices into the two logs' programs; -1 when absent from that log.
  int a = -1, b = -1;
  /// How it was paired.
  PairMatch match = PairMatch::None;
  enum class Keys : uint8_t { Equal, Differ, Unknown };
  Keys keys = Keys::Unknown;
  /// The root cause's entry (1…8) when the keys differ and both traces are
  /// complete; 0 otherwise.
  uint8_t cause = 0;
  /// Only in the second run (a < 0), yet with a key the first run computed
  /// too: another of its programs was paired with that one (the same
  /// program compiled again, or under another function).
  bool keyOfFirst = false;
  /// Only in the second run, and an earlier program of that log wrote its
  /// key (the log holds more than one run: a later one read that entry).
  bool keyWrittenBefore = false;
  /// Only in the second run, with a key of its own, and the first run
  /// compiled a program of this name with these very argument shapes and
  /// types (its shapes line's text): the same call lowered to another
  /// module (a new static argument value, a changed captured constant, or a
  /// setting in effect around the call, such as a matmul-precision context).
  bool shapesInFirst = false;
  /// Why the second run missed although the keys are equal.
  std::optional<MissReason> miss;
  /// Why the key moved: an index into LogComparison::moves (0: KeyMove{},
  /// Code::None, when the keys are equal or unknown). Pairs that moved the
  /// same way share one index.
  uint32_t move = 0;
};

/// The module name of `pair`, paired between the logs `first` and `second`
/// by `by`: its second-run program's name (its first-run program's when it
/// is of the first run only), or "" when the logs are paired by order. A
/// view of that program's name, valid while the logs live.
std::string_view pairName(const LogSummary &first, const LogSummary &second,
                          PairedBy by, const ProgramPair &pair);
/// How the reader should call `pair`: "jit_f", "jit_f (2nd)" (its ordinal
/// under that name), "key 4" (logs paired by order), with " [<process>]"
/// when paired by process and name (LogWording.cpp).
std::string pairLabel(const LogSummary &first, const LogSummary &second,
                      PairedBy by, const ProgramPair &pair);

/// The words of a pair, made when they are shown (LogWording.cpp): each
/// run's outcome ("missed, never written: compiled in 0.01 s, under
/// jax_persistent_cache_min_compile_time_secs (1.00 s)") and the verdict,
/// one sentence on the keys and why the second run hit or missed.
struct LogComparison;
std::string pairOutcomeText(const LogComparison &comparison,
                            const ProgramPair &pair, int side);
std::string pairVerdictText(const LogComparison &comparison,
                            const ProgramPair &pair);

/// What to do about the second run's misses, one item per kind of miss, in
/// the order the summary names them. Its words are `logAdviceText`.
struct LogAdvice {
  enum class Code : uint8_t {
    NothingToDo,          // every program of the second run hit
    SharedKeys,           // N runs: every program has one key in every run
    NewPrograms,          // programs new in the second run: compiles expected
    NewShapes,            // a program the first run had, with other argument
                          // shapes: `value` the second run's shapes line
    LogOutcomes,          // no hit or miss lines: log DEBUG to see outcomes
    LogKeys,              // keys that cannot be compared: log the DEBUG trace
    KeyMoved,             // a key moved: `entry`'s advice (Diff.h Advice)
    SameX64,              // jax_enable_x64 differs between the runs
    JaxOwnProgram,        // one of JAX's own small programs moved
    SameGlobalSettings,   // every program moved: one global setting
    SameCacheDirInKey,    // entry 5: the autotune path under the cache dir
    LowerMinCompileTime,  // `amount`: the fastest such compile, seconds
    LowerMinEntrySize,    // `amount`: the smallest such entry, bytes
    HostCallbacks,        // never cached by this release
    NotProcessZero,       // only process 0 writes
    ConfigureCacheEarly,  // compiled before the cache was configured
    FixWriteError,        // `value`: the error, quoted
    MissingAtime,         // `value`: the error (jax#39880)
    FreeDiskSpace,        // `value`: the error (ENOSPC: the disk is full)
    DeleteDamaged,        // entries found but unreadable
    CompileOnlyCannotLoad, // a compile-only (deviceless) client cannot load
                           // entries: nothing to delete, no hit to expect
    TurnOffCheckContents, // found, then compiled to check the entry:
                          // jax_compilation_cache_check_contents
    InstallFilelock,      // a size cap without the filelock package
    RaiseMaxSize,         // evicted: `limit` the Evicting line's target
                          // cache size (lru_cache.py: the cap less the
                          // entry being written), bytes
    EntryOverMaxSize,     // `amount` the entry's size, `limit` the cap, bytes
    AbsoluteCacheDir,     // `value`: the relative path
    SameCacheDir,         // `value`: "A-dir → B-dir"
    KeepCacheDir,         // the entries were removed between the runs
    UnsupportedRuntime,   // this runtime never uses the persistent cache
    SetCacheDir,          // no cache directory in the logs
    LogWrites,            // a miss whose write is not logged
    StaticOrConstant,     // entry 1 of a program compiled several times in
                          // one run with the same shapes: a static argument
                          // or a captured constant changes its program
    SeparateThreads,      // as LogKeys, where the keys are cut because
                          // a new key began before the last one ended, in
                          // one stream, again and again: threads compiling
                          // at once, their lines interleaved
    SamePgle,             // entry 5: `value` the log whose run used PGLE
    SameProfileVersion,   // entry 5: `value` "before → after" profile versions
    SameShardings,        // entry 1: `value` "before → after" argument mappings
    RenamedFunction,      // a program only in the second run that is one of
                          // the first run's under a new name
                          // (LogComparison::renames): `value` its old name
    SameXlaCaches,        // entry 5: `value` the log whose run enabled no
                          // XLA autotuning cache under the cache directory
    OrderOfLogs,          // the second log looks like the earlier run: every
                          // program it missed with a key the first log had,
                          // the first log hit, and the second wrote it; it
                          // hit nothing (after KeepCacheDir)
                          // (jax_persistent_cache_enable_xla_caches)
    LogCut,               // the second log ends inside a key: `value` the
                          // log, `amount` the line where that key starts
                          // (LogSummary::endsInsideKeyAt); in place of
                          // NothingToDo when nothing else missed
    RunStopped,           // MissReason::FirstRunStopped: `value` the first
                          // log, `amount` the line of the miss it ends after
  };
  Code code = Code::NothingToDo;
  /// What it is about, in order, each once: indices into
  /// LogComparison::pairs (two logs) or ManyLogComparison::programs (more);
  /// empty when it is about the whole run. Their labels are made when the
  /// advice is shown (logAdviceText, the JSON "programs").
  std::vector<uint32_t> programs;
  /// KeyMoved: the root cause's entry (1…8).
  int entry = 0;
  /// A quoted error or a path (see the codes); "" when none.
  std::string value;
  /// Seconds or bytes as the code says; negative when not logged.
  double amount = -1, limit = -1;
  /// KeepCacheDir: both runs log jax._src.lru_cache at DEBUG, and neither
  /// shows the LRU evicting (an eviction then came from elsewhere).
  bool evictionsLogged = false;
  /// SameGlobalSettings: the jax options that the measured table of
  /// `settingsRelease` (fixtures/jax_config/<release>.json, JaxConfigTable.h)
  /// says move exactly this entry (entry 1 alone; or `entry` and perhaps
  /// entry 1), by name; empty when the logs' release has no table.
  std::vector<std::string> settings;
  std::string settingsRelease;
};

/// snake_case name of `code`, for JSON ("lower_min_compile_time", …).
const char *logAdviceName(LogAdvice::Code code);

/// The words of one piece of advice (LogAdviceWording.cpp), after the
/// first labels of what it is about ("jit_f, jit_g and 3 more: …"):
/// `labels` holds at most the first NameSample::kKept of them and their
/// count.
std::string logAdviceText(const LogAdvice &advice, const NameSample &labels);

/// The answer to "why did the second run recompile?", as facts: how many
/// of its programs missed the persistent cache, which, and whether one way
/// of moving explains every miss whose key moved. Made by logVerdict from a
/// finished comparison (LogVerdict.cpp); worded by logVerdictText
/// (LogSummaryWording.cpp). The page shows it first, above the pairing.
struct LogVerdict {
  enum class Code : uint8_t {
    AllHit,     // every program of the second run that logged an outcome hit
    Missed,     // `missed` of `programs` missed
    NoOutcomes, // no hit or miss lines: `pairedMoved` of `paired` keys moved
  };
  Code code = Code::AllHit;
  /// The second run's programs, and of them those that logged a hit or a
  /// miss.
  size_t programs = 0, hits = 0, missed = 0;
  /// The misses by kind: the key moved since the first run, new in this run,
  /// the same key as in the first run (not found, evicted, not written), or
  /// keys that cannot be compared.
  size_t moved = 0, fresh = 0, sameKey = 0, unknown = 0;
  /// Of `fresh`: programs whose name the first run compiled with other
  /// argument shapes (a new shape of the same function, not a new
  /// function; not a renamed one, nor one with the very same shapes).
  size_t freshShapes = 0;
  /// Programs in both runs, and those whose keys differ (for NoOutcomes).
  size_t paired = 0, pairedMoved = 0;
  /// The first NameSample::kKept pairs it names (indices into
  /// LogComparison::pairs): the misses, or the moved pairs for NoOutcomes.
  std::vector<uint32_t> named;
  /// The move every moved miss shares (index into LogComparison::moves),
  /// or -1 when they moved in several ways or none moved.
  int oneMove = -1;
  /// Why every same-key miss missed, when they share one reason.
  std::optional<MissReason> sameKeyReason;
  /// Seconds the misses spent compiling, summed over `timedMisses` of them
  /// (from the logged compile times).
  double compileSeconds = 0;
  size_t timedMisses = 0;
  /// The line where the key the second log ends in starts
  /// (LogSummary::endsInsideKeyAt), or 0: the log was cut, or its run
  /// stopped, while that program was compiled, so its outcome is not known.
  size_t cutAt = 0;
  /// The pair (index into LogComparison::pairs) of the second run's miss
  /// it was compiling when its log ended (LogSummary::endsCompilingAt:
  /// killed, crashed, or cut), or -1: counted in `missed`, never compiled
  /// to the end nor written.
  int stopped = -1;
};

/// A note on the logs compared, as a fact: what was cut or unreadable in one
/// log, or one file given more than once. `logNoteText` (LogSummaryWording)
/// makes its words from the logs it points into; its JSON code is code().
struct LogNote {
  enum class Kind : uint8_t {
    SameLog,             // `logs`: the comparison's logs that are one file
    IncompleteKey,       // logs[log].incomplete[item]: that program is left out
    UnreadableLine,      // logs[log].problems[item]
    MoreUnreadableLines, // logs[log].problemCount beyond the problems kept
    LongLines,           // logs[log].longLines
    KeyErrors,           // logs[log].keyErrors, with its firstKeyError
    UnsupportedRuntime,  // logs[log].unsupportedRuntime
    VerificationErrors,  // logs[log].verificationErrors
    Pgle,                // logs[log].pgleLoaded and pgleMisses
    PgleProbes,          // logs[log].pgleProbes: PGLE probe keys left out
    RelativeCacheDir,    // logs[log].cacheDirs[item] is a relative path
    CacheOff,            // logs[log].cacheDisabled or cacheInitFailed
  };
  Kind kind = Kind::SameLog;
  /// The log it is about (an index into the comparison's logs), -1 for SameLog.
  int log = -1;
  /// The fact within that log, for IncompleteKey, UnreadableLine and
  /// RelativeCacheDir.
  uint32_t item = 0;
  /// For SameLog: the indices of the logs given as one file, in order.
  std::vector<int> logs;
  /// Its public code ("notes" of the JSON, noteCodeName).
  NoteCode code() const;
};

/// The comparison of two logs. Facts only: its words (the explanation,
/// the summary line, each run's stats, the notes) are made where it is
/// written (writeLogComparison, logComparisonToJson), by LogSummaryWording.
struct LogComparison {
  LogSummary logs[2];
  PairedBy pairedBy = PairedBy::Order;
  /// Pairs in the second run's order, then programs of the first run only.
  std::vector<ProgramPair> pairs;
  /// The distinct ways keys moved, [0] being KeyMove{} (ProgramPair::move).
  std::vector<KeyMove> moves{KeyMove{}};
  /// The move of a pair.
  const KeyMove &moveOf(const ProgramPair &pair) const { return moves[pair.move]; }
  /// Programs of one run only that are probably one function under two
  /// names (LogCompare.cpp linkRenamedPrograms: the same argument shapes
  /// and types, the same entries 2…8, only entry 1, the module JAX names
  /// after the function, differs; one-to-one), as (the first run's pair,
  /// the second run's pair), indices into `pairs`, in pair order; few or
  /// none. Kept here, not in each ProgramPair, which stays 24 bytes.
  std::vector<std::pair<uint32_t, uint32_t>> renames;
  /// The first run's pair that `pair` (of the second run only) probably
  /// is under a new name, or -1 (a bisection of `renames`); renamedTo: the
  /// reverse (a scan of `renames`, for a pair of the first run only). `pair`
  /// must be an element of `pairs`.
  int renamedFrom(const ProgramPair &pair) const;
  int renamedTo(const ProgramPair &pair) const;
  /// The pair the explanation names: the first whose keys differ, else the
  /// first pair; -1 when there is none.
  int explained = -1;
  /// The explanation of that pair (cause 0 when its keys are equal).
  Comparison comparison;
  /// What the logs show about the cause entry and about each `alsoChanged`
  /// entry: the details of `comparison`, as EntryChanges of the log-only
  /// codes (EntryChanges.def; Flag for entry 4), worded by entryChangeText.
  std::vector<EntryChange> findings, otherFindings;
  /// What to do, one item per kind of miss (never empty once compared).
  std::vector<LogAdvice> advice;
  /// The answer in facts (logVerdict), worded by logVerdictText.
  LogVerdict verdict;
  /// Each run's stats (worded by runStatsText: "7 programs: 5 hits, 2 misses …").
  RunStats stats[2];
  /// What was cut or unreadable in either log, and one file given twice.
  std::vector<LogNote> notes;

  /// Whether some pair's keys differ.
  bool keysDiffer() const;
  /// pairName and pairLabel of one of `pairs`.
  std::string_view nameOf(const ProgramPair &pair) const {
    return pairName(logs[0], logs[1], pairedBy, pair);
  }
  std::string labelOf(const ProgramPair &pair) const {
    return pairLabel(logs[0], logs[1], pairedBy, pair);
  }
  /// The label of item `i` of a piece of advice (LogAdvice::programs): a
  /// pair's.
  std::string adviceLabel(uint32_t i) const { return labelOf(pairs[i]); }
  /// The words of one of `advice`, naming its pairs.
  std::string adviceText(const LogAdvice &advice) const;
};

/// The verdict of a finished two-log comparison (all but `verdict`).
LogVerdict logVerdict(const LogComparison &comparison);

/// The verdict in one or two sentences, e.g. "run2.log: 2 of 5 programs
/// missed the cache and compiled again (3.1 s): jit_a, jit_b. Their keys
/// moved the same way: flag --xla_a=1 added.".
std::string logVerdictText(const LogComparison &comparison);

/// The stable snake_case name of a verdict code ("all_hit", "missed",
/// "no_outcomes").
const char *logVerdictCode(LogVerdict::Code code);

/// A run whose key of one program is not the common one.
struct OddRun {
  int run = 0;              // index into ManyLogComparison::logs
  std::vector<int> entries; // 1-based entries whose own digests differ from
                            // the common key's program (empty: not logged)
  /// How its key moved from the common key's program, read from the two
  /// logs as for a pair of two (explainPair): the argument dtypes,
  /// jax_enable_x64, the jaxlib upgrade, the flag…; Code::None when either
  /// trace is incomplete. `cause` is the root-cause entry (0: none).
  KeyMove move;
  int cause = 0;
};

/// One program across N runs.
struct ProgramAcrossRuns {
  std::string name, label;
  /// Its index in each run's programs, -1 where the run lacks it.
  std::vector<int> program;
  /// The runs grouped by final key digest, in run order; `common` indexes
  /// the largest group (the first run's on a tie), -1 when no key is known.
  std::vector<std::vector<int>> groups;
  int common = -1;
  /// The runs outside the common group, and the runs that lack it.
  std::vector<OddRun> odd;
  std::vector<int> absent;
};

/// The answer first for N runs (the CLI's "Verdict:" line, the page's
/// verdict box, the JSON's "verdict"): of the programs with a key known in
/// some run, how many have one key in every run, and how many each run
/// holds apart as its odd ones out. Counts only; its words are
/// manyVerdictText's (LogSummaryWording.cpp).
struct ManyLogVerdict {
  enum class Code {
    OneKey,         ///< "one_key": every program one key, in every run
    OddRuns,        ///< "odd_runs": some run holds a program under another key
    NotInEveryRun,  ///< "not_in_every_run": no odd key, but some program is
                    ///< missing from some run
  };
  Code code = Code::OneKey;
  /// Programs whose key is known in some run (ProgramAcrossRuns::common ≥ 0).
  size_t programs = 0;
  /// Of those, the ones with one key in every run (none odd, none absent).
  size_t sameKey = 0;
  /// Per run, in run order, the programs it is an odd one out for (0: none).
  std::vector<size_t> oddPrograms;
};

/// The JSON code of a ManyLogVerdict ("one_key", "odd_runs",
/// "not_in_every_run").
const char *manyVerdictCode(ManyLogVerdict::Code code);

/// The comparison of N ≥ 2 logs (hosts, ranks, days): per program, which
/// runs share a key, which are the odd ones out and which entries differ.
struct ManyLogComparison {
  /// The answer first (computed last, from `programs`).
  ManyLogVerdict verdict;
  std::vector<LogSummary> logs;
  std::vector<ProgramAcrossRuns> programs;
  std::vector<RunStats> stats;
  /// Per run, the one cause of all its odd programs (LogMany.cpp: JAX's own
  /// programs aside when the others agree; jax_enable_x64 moves merged),
  /// or Code::None.
  std::vector<KeyMove> oddCause;
  /// Notes on the logs given (one file given twice).
  std::vector<LogNote> notes;
  /// What to do: per root-cause entry of the odd runs, or SharedKeys.
  std::vector<LogAdvice> advice;
  /// The label of item `i` of a piece of advice (LogAdvice::programs): a
  /// program's.
  std::string adviceLabel(uint32_t i) const { return programs[i].label; }
  /// The words of one of `advice`, naming its programs.
  std::string adviceText(const LogAdvice &advice) const;
  bool keysDiffer() const;
};

/// Compares N read logs, each paired with the first as compareLogSummaries
/// pairs two. An Error when fewer than two are given or one holds no key.
Expected<ManyLogComparison> compareManyLogSummaries(std::vector<LogSummary> logs);

/// {"logs": [{"name", "stats"}], "programs": [{"label", "name", "keys":
/// [64-hex | null per run], "groups": [[run, …]], "common", "odd": [{"run",
/// "entries"}], "absent", "text"}], "verdict": {"code", "programs",
/// "same_key", "odd": [{"run", "programs"}], "text"}, "what_to_do": [{"code",
/// "programs", "entry"?, "text"}], "findings": {"notes": [{"code", "text"}]}, "keys_differ"}; each odd run also has "cause" and "move" (as a pair's).
Json manyLogComparisonToJson(const ManyLogComparison &comparison);

/// Writes manyLogComparisonToJson(comparison) to `os` as the CLI prints it,
/// laid out as two logs are (writeLogComparisonJson: indent 2, each item of
/// "programs" one line), with the members of `trailing` (an object) last.
void writeLogComparisonJson(std::ostream &os, const ManyLogComparison &comparison,
                            const Json &trailing = Json::object());

/// The text the CLI prints for N logs: "Verdict: …" first, then one line
/// per program, "Run: …" per log and "What to do: …".
void writeManyLogComparison(std::ostream &os, const ManyLogComparison &comparison);

/// Compares two read logs, which it takes (moved into the comparison's
/// `logs`, without a move through parameters: each move of a LogSummary
/// allocates its empty containers anew). An Error (naming the log) when a
/// log holds no key and no hit/miss line at all.
Expected<LogComparison> compareLogSummaries(LogSummary &&first, LogSummary &&second);

/// Reads and compares two logs held in memory, named `nameA` and `nameB`.
Expected<LogComparison> compareLogs(std::string_view logA, std::string_view logB,
                                    const std::string &nameA = "log A",
                                    const std::string &nameB = "log B");

/// The comparison as JSON: the explained pair's Comparison fields
/// (comparisonToJson, with "sentence" the full explanation; "findings" the
/// EntryChanges and reading notes) plus "summary", "paired_by": {"code",
/// "text"}, "logs": [{"name", "lines", "programs", "hits", "misses",
/// "what_to_do": [{"code", "programs", "entry"?, "value"?, "amount"?,
/// "limit"?, "text"}] (LogAdvice, in order),
/// "jaxlib", "cache_dirs", "autotune_caches", "kernel_caches", "streams",
/// "incomplete", "problems", …}], "pairs": [{"label", "name", "ordinal",
/// "in", "keys", "matched_by", "shapes_a"?, "shapes_b"?, "cause", "key_a",
/// "key_b", "findings": {"verdict", "move", "miss", "outcome_a",
/// "outcome_b"}, each {"code", …fields, "text"} or null}] (last) and "explained": {"index", "label", "a": {"own",
/// "running"}, "b": …, "decoded": [{"entry", "a", "b"}]} (64-hex digests;
/// null when not logged).
Json logComparisonToJson(const LogComparison &comparison);

/// Writes logComparisonToJson(comparison) to `os` as the CLI prints it
/// (invalid UTF-8 replaced), without building it: "pairs" (one per program,
/// 220,000 for a 1 GB log) is written one pair at a time, so memory stays
/// bounded. With `indent` 2 (the CLI's), the text is dumpJson(document, 2)
/// except that each pair is one line, dumpJson(pair) at the array's
/// indentation: a program per line (a third fewer bytes than indenting its
/// members, and one `grep` finds a program's whole record). `indent` -1
/// writes one line, as dumpJson(document) does (the page's worker). The
/// members of `trailing` (an object) follow "pairs", in order, as if they
/// were the document's last members (the CLI's "cache_dir").
void writeLogComparisonJson(std::ostream &os, const LogComparison &comparison,
                            const Json &trailing = Json::object(), int indent = 2);

/// Writes the comparison as the CLI prints it: the sentence, one line per
/// program, then "Summary: …".
void writeLogComparison(std::ostream &os, const LogComparison &comparison);

/// writeLogComparison into a string.
std::string formatLogComparison(const LogComparison &comparison);

} // namespace cachekey

#endif // CACHEKEY_LOGCOMPARE_H
