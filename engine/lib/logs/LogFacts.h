//===- LogFacts.h - What two logs say, as facts ------------------*- C++ -*-===//
//
// Private to engine/lib/logs. The log comparison (LogCompare.h) works in
// four jobs, one file each:
//   - LogPairing.cpp pairs the programs of the two runs (by name, process
//     and name, or order);
//   - LogEvidence.cpp reads, for one pair, why its key moved (KeyMove, and
//     EntryChanges of the log-only codes) and why an equal key still missed
//     (MissReason);
//   - LogWording.cpp (each program and pair), LogSummaryWording.cpp (a
//     whole comparison and the CLI's text) and LogAdviceWording.cpp (what
//     to do) are the only files of the family that write English;
//   - LogAdvice.cpp chooses what to do (LogAdvice) from the same facts;
//   - LogCompareJson.cpp writes the JSON document.
// LogCompare.cpp orchestrates them. Every decision (grouping pairs by their
// reason, "the same reason") is made on these facts, never on words.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_LIB_LOGS_LOGFACTS_H
#define CACHEKEY_LIB_LOGS_LOGFACTS_H

#include "cachekey/DebugOptions.h"
#include "cachekey/LogCompare.h"

#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace cachekey::logs {

/// The option and flag names the log explanations refer to (the
/// DebugOptions fields, kAutotuneField and the like, are DebugOptions.h's).
inline constexpr char kMinCompileTime[] = "jax_persistent_cache_min_compile_time_secs";
inline constexpr char kMinEntrySize[] = "jax_persistent_cache_min_entry_size_bytes";
inline constexpr char kDeviceCountFlag[] = "xla_force_host_platform_device_count";

//===----------------------------------------------------------------------===//
// Pairing (LogPairing.cpp)
//===----------------------------------------------------------------------===//

/// The programs of both runs paired (ProgramPair::a/b, name, ordinal and
/// label set), in the second run's order, then the first run's programs
/// that have no partner; `pairedBy` says how.
std::vector<ProgramPair> pairPrograms(const LogSummary &first,
                                      const LogSummary &second,
                                      PairedBy &pairedBy);

/// The shapes text with every element type removed
/// ("(ShapedArray(float32[8,16]),)" → "(ShapedArray([8,16]),)"): two
/// programs whose skeletons are equal differ at most in their dtypes.
std::string shapeSkeleton(const std::string &shapes);

//===----------------------------------------------------------------------===//
// Evidence (LogEvidence.cpp)
//===----------------------------------------------------------------------===//

/// The facts of one explained pair.
struct PairExplanation {
  Comparison comparison;
  KeyMove move;
  /// What the logs show about the cause entry, then about each
  /// `alsoChanged` entry (findingsText words them).
  std::vector<EntryChange> findings, otherFindings;
};

/// All that explainPair reads of one pair's programs: their digest traces,
/// flag sets, compile options, fallback and shapes lines (indices into each
/// log's own tables), and the second program's name when it is one of
/// JAX's own. Two pairs of the same two logs with equal inputs have the
/// same explanation, so it is made once per kind.
struct PairInputs {
  const KeyTrace *trace[2];
  int flags[2], options[2], fallback[2], shapes[2];
  std::string_view ownName; // the second run's name if JAX's own, else ""
  bool operator==(const PairInputs &o) const;
};
struct PairInputsHash {
  size_t operator()(const PairInputs &k) const;
};
PairInputs pairInputs(const LoggedProgram &a, const LoggedProgram &b);

/// The jaxlib version the first program of `log` that logged entry 2
/// stands for (read back from its digest, KnownDigests.h).
std::optional<std::string> jaxlibOf(const LogSummary &log);

/// A pair whose traces are both complete, explained: the Comparison
/// (classified, its details and sentence written), its KeyMove and the
/// findings behind the details.
PairExplanation explainPair(const LogSummary &first, const LogSummary &second,
                            const LoggedProgram &a, const LoggedProgram &b);

/// Why the second run missed program `b`, whose key program `a` of the
/// first run had too: the second run's own lookup lines first (no cache yet,
/// a read error), then what became of the first run's entry (never written
/// and why, a failed write), then the cache directories (another directory
/// comes before an eviction in the first run's: the second run looked
/// elsewhere), then an eviction, then a relative directory.
///
/// `readsFirst`: the second run hit, in the directory it used for `b`, a
/// key the first run computed, so that directory reaches the first run's
/// entries: a relative spelling of it whose absolute one ends in it (e.g.
/// "cache" and "/work/cache") is then one folder, not another directory or
/// a relative path resolved elsewhere.
MissReason equalKeyMiss(const LogSummary &first, const LogSummary &second,
                        const LoggedProgram &a, const LoggedProgram &b,
                        bool readsFirst = false);

/// The index into log.cacheDirs of the cache directory in effect when
/// `program` was looked up: that of the last "Initialized persistent
/// compilation cache at" line before its lookup line (JAX logs it at the
/// first lookup after the cache is set, after the key's lines; the first
/// line of the program when it logged no lookup), or the first directory
/// when none precedes it; -1 when the log names none.
int cacheDirIndexOf(const LogSummary &log, const LoggedProgram &program);
/// For each of the second log's cache directories, whether the second run
/// hit in it a key the first run computed (a pair of `pairs` with equal
/// final digests, a hit in the second run): that directory reaches the
/// first run's entries, whatever its spelling (equalKeyMiss's readsFirst).
std::vector<char> dirsReadingFirst(const LogSummary &first, const LogSummary &second,
                                   const std::vector<ProgramPair> &pairs);

/// log.cacheDirs[cacheDirIndexOf(…)], or nullptr.
const std::string *cacheDirOf(const LogSummary &log, const LoggedProgram &program);

/// Whether two cache paths as logged spell one directory lexically: the
/// same after "//" becomes "/", "." segments go and a trailing '/' goes
/// ("/c/cache/" and "/c//cache" are "/c/cache"; ".." is kept, as a symbolic
/// link may stand before it). Symbolic links are not resolved.
bool sameCachePath(const std::string &a, const std::string &b);

/// Whether `rel` (a relative path) and `abs` (an absolute one) may name one
/// folder: `abs` ends in `rel`'s components (lexically, as sameCachePath
/// compares), so some working directory resolves the one to the other.
bool mayResolveTo(const std::string &rel, const std::string &abs);

/// Whether `name` is one of the programs JAX compiles itself when an
/// operation runs outside jit (jit_broadcast_in_dim,
/// jit_convert_element_type, private helpers named jit__…): its entry 1
/// moves with what the user's code passes to that operation (shapes,
/// dtypes, static arguments) or with a global setting, never with the
/// body of a function of the user's (LogProgramNames.cpp).
bool isJaxOwnProgram(std::string_view name);

/// The jax release of `log`'s programs: the jaxlib version entry 2 decodes
/// to (jax and jaxlib are released together), or "" when none decodes.
std::string releaseOf(const LogSummary &log);

/// The measured options of `release`'s table (fixtures/jax_config,
/// JaxConfigTable.h) that move entry `entry` and at most entry 1 with it in
/// the table's probe programs (JaxOption::moves; `entry` 1: entry 1 alone),
/// by name; empty when the release has no table.
std::vector<std::string> settingsMovingEntry(const std::string &release, int entry);

/// Whether `name` is JAX's eager program of an elementwise primitive
/// without parameters (jit_add, jit_mul, …): its module is its argument
/// shapes and types and nothing else (LogProgramNames.cpp).
bool isElementwisePrimitive(std::string_view name);

/// Whether two logs are one file given twice (the same non-empty
/// LogSummary::source).
bool sameLog(const LogSummary &a, const LogSummary &b);

/// Whether a logged cache path is relative (resolved against the working
/// directory): not absolute and not a URL.
bool isRelativeCachePath(const std::string &path);

//===----------------------------------------------------------------------===//
// Advice (LogAdvice.cpp)
//===----------------------------------------------------------------------===//

/// What to do about the second run's misses: one LogAdvice per kind, in the
/// order the kinds first appear among the second run's misses; NothingToDo
/// when it missed nothing, LogOutcomes when it logged no hit or miss.
std::vector<LogAdvice> adviseLogComparison(const LogComparison &r);

/// What to do about N runs: for the odd runs, the advice of the first
/// entry that differs (entry 2 first: a jaxlib change moves others too),
/// one item per entry with the programs; SharedKeys when none is odd.
std::vector<LogAdvice> adviseManyLogs(const ManyLogComparison &r);

//===----------------------------------------------------------------------===//
// Words (LogWording.cpp)
//===----------------------------------------------------------------------===//

/// "1.25 s": seconds with two decimals, as JAX's own lines print them.
std::string seconds(double s);

/// `s` with a capital first letter when it starts with "key " (a label
/// that opens a sentence); other labels (module names) are left alone.
std::string upperFirst(std::string s);

/// How a MissReason is said: after the programs' names, as a relative
/// clause ("…, which never wrote them: …"), or as a verdict's main clause
/// ("run1.log never wrote it: …").
enum class ClauseForm { Relative, Main };

/// The clause for programs of one MissReason; `inA`/`inB` are their
/// programs in the first and the second run.
std::string missClause(MissReason kind, ClauseForm form, const LogSummary &la,
                       const LogSummary &lb,
                       const std::vector<const LoggedProgram *> &inA,
                       const std::vector<const LoggedProgram *> &inB);

/// "jit_f", "jit_f (2nd)", "key 4", with the stream when pairs are made by
/// process and name ("jit_f [1]").
std::string labelText(std::string_view name, int ordinal, const std::string &stream,
                      bool byStream);

/// The note for one file given more than once (sameLog), named each time
/// it was given.
std::string sameLogText(const std::vector<std::string> &names);

/// A run's outcome for one program, e.g. "missed, never written: compiled
/// in 0.01 s, under jax_persistent_cache_min_compile_time_secs (1.00 s)".
std::string outcomeText(const LogSummary &log, const LoggedProgram &program);

/// The brief phrase of a KeyMove: "the program changed", "the jaxlib
/// upgrade 0.4.30 → 0.4.31", "" for None.
std::string keyMoveText(const KeyMove &move);

/// A short entry's digest for a person: the value it stands for
/// (KnownDigests.h), "unknown (digest 0123456789ab…)", or "(not logged)".
std::string digestText(int entry, const std::optional<Digest> &digest);

/// The first of a run's cache paths as Python prints it, or "unset".
std::string firstPathText(const std::vector<std::string> &paths);


/// The explanation sentence of the whole comparison.
std::string comparisonSentence(const LogComparison &r);

/// The detail lines of an explained pair: entryChangeText per finding; with
/// `other` (the findings of `alsoChanged` entries) each after its entry's
/// label, "entry 5 (compile_options): …".
std::vector<std::string> findingsText(const std::vector<EntryChange> &findings,
                                      bool other);

/// The sentence of an explained pair: comparisonSentence (Wording.h) over
/// `c` with `findings` and `otherFindings` as its details.
std::string pairSentence(const Comparison &c, const std::vector<EntryChange> &findings,
                         const std::vector<EntryChange> &otherFindings);

/// The notes on two logs (LogComparison::notes): one file given twice, then
/// per log what was cut or unreadable, in the order they are said.
std::vector<LogNote> readingNotes(const LogSummary &first, const LogSummary &second);

/// The words of `note`, about `logs` (the comparison's logs it indexes),
/// e.g. "b.log: 2 lines longer than 1 MiB, read in part".
std::string logNoteText(const LogNote &note, const LogSummary *logs);

/// The summary line for the second run.
std::string runSummary(const LogComparison &r);

/// A run's stats in words: "7 programs: 5 hits, 2 misses (71% hit rate);
/// 0.35 s compiling the misses; not cached: 2 could not be read".
std::string runStatsText(const LogSummary &log, const RunStats &stats);

/// One program across N runs: "jit_step: run-a.log and run-b.log share a
/// key; run-c.log is the odd one out: entry 1 (computation) differs".
std::string programAcrossRunsText(const ManyLogComparison &r,
                                  const ProgramAcrossRuns &p);

/// The verdict of N runs (ManyLogVerdict) in words: how many programs share
/// one key in every run, and which runs are odd ones out how often, with
/// the one cause of a run's odd programs when they share one.
std::string manyVerdictText(const ManyLogComparison &r);

/// A program's name and its argument shapes and types (the pxla
/// "Compiling … with global shapes and types" line) as one lookup key,
/// "<name>\0<shapes>"; requires program.shapes >= 0. Two compiles with the
/// same one differ only in what the shapes do not show (a static argument,
/// a captured constant).
inline std::string nameAndShapes(const LogSummary &log, const LoggedProgram &program) {
  std::string k(program.name.view());
  k += '\0';
  k += log.texts[program.shapes];
  return k;
}

/// Why `log` holds no complete key, where its contents say more than "no
/// cache lines" (LogEvidence.cpp):
/// - Gzip, Utf16: LogSummary::encoding says it is not text to read;
/// - CompiledWithoutCache: compiler.py's get_compile_options lines and not
///   one cache line (no key, lookup, write or cache directory), as with
///   jax_enable_compilation_cache=False (compiler.py never asks the cache);
/// - KeysInterleaved: keysInterleave.
enum class NoKeyReason : uint8_t { Unknown, Gzip, Utf16, Binary, CompiledWithoutCache, KeysInterleaved };
NoKeyReason noKeyReason(const LogSummary &log);

/// Whether `log`'s keys were cut, twice or more, by a new key beginning
/// before the one being read ended, in one stream: several threads
/// compiling at once, their lines interleaved (NoKeyReason::KeysInterleaved;
/// advice SeparateThreads).
bool keysInterleave(const LogSummary &log);

/// The error for `log` holding no complete key (LogReadWording.cpp): its
/// name as the path, code Invalid, the subject "gzip_log", "utf16_log",
/// "binary_file",
/// "compiled_without_cache", "keys_interleaved" or "" (noKeyReason), and
/// the words that say what it holds and how to log the cache lines.
Error noKeyError(const LogSummary &log);

} // namespace cachekey::logs

#endif // CACHEKEY_LIB_LOGS_LOGFACTS_H
