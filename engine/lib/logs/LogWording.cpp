//===- LogWording.cpp - The words of the log comparison -------------------===//
//
// The only file of the logs family that writes English: outcomes, the
// brief of a KeyMove, the detail line of a LogFinding, verdicts, the
// explanation sentence, the notes, the summary and the text the CLI prints.
// Grouping and "the same reason" are decided on facts by the callers; the
// list and plural grammar is Wording.h's.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include "cachekey/KnownDigests.h"
#include "cachekey/PyText.h"
#include "cachekey/Wording.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <sstream>

namespace cachekey {
namespace logs {

namespace {

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

/// A program label at the start of a sentence: "key 4 …" → "Key 4 …".
std::string upperFirst(std::string s) {
  return s.rfind("key ", 0) == 0 ? capitalised(std::move(s)) : s;
}

std::string ordinalWord(int n) {
  std::string suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th"
                       : n % 10 == 1                     ? "st"
                       : n % 10 == 2                     ? "nd"
                       : n % 10 == 3                     ? "rd"
                                                         : "th";
  return std::to_string(n) + suffix;
}

const char kHostCallbacks[] =
    "host callbacks (jax.debug.print, breakpoint), which jax 0.10.2 and older "
    "never cache";

/// Why an entry was not written, as a clause.
std::string notWrittenClause(const WriteOutcome &w) {
  switch (w.reason) {
  case NotWrittenReason::CompileTime:
    return "compiled in " + seconds(w.compileSeconds) + ", under " +
           kMinCompileTime + " (" + seconds(w.minCompileSeconds) + ")";
  case NotWrittenReason::HostCallbacks:
    return std::string("it uses ") + kHostCallbacks;
  case NotWrittenReason::NotProcessZero:
    return "only process 0 writes to the cache";
  case NotWrittenReason::EntrySize:
    return "its entry (" + std::to_string(w.entryBytes) + " bytes) is under " +
           kMinEntrySize + " (" + std::to_string(w.minEntryBytes) + " bytes)";
  case NotWrittenReason::CacheDisabled:
    return "the cache is disabled or was not initialised";
  case NotWrittenReason::TooLarge:
    return "its entry (" + std::to_string(w.entryBytes) +
           " bytes) exceeds jax_compilation_cache_max_size (" +
           std::to_string(w.maxCacheBytes) + " bytes), so the LRU cache "
           "refused it";
  case NotWrittenReason::None:
    break;
  }
  return "no reason logged";
}

/// How a MissReason is said: after the programs' names, as a relative
/// clause ("…, which never wrote them: …"), or as a verdict's main clause
/// ("run1.log never wrote it: …").
enum class ClauseForm { Relative, Main };

/// The clause for programs of one MissReason; `inA` are their programs in
/// the first run.
std::string missClause(MissReason kind, ClauseForm form, const LogSummary &la,
                       const LogSummary &lb,
                       const std::vector<const LoggedProgram *> &inA,
                       const std::vector<const LoggedProgram *> &inB) {
  bool many = inA.size() > 1;
  std::string them = many ? "them" : "it";
  // The subject of the clause: "which" after names, the first log's name
  // in a main clause.
  std::string which = form == ClauseForm::Relative ? "which " : la.name + " ";
  switch (kind) {
  case MissReason::NotWritten: {
    const WriteOutcome &w = inA.front()->write;
    bool sameReason = true;
    double slowest = 0;
    for (const auto *p : inA) {
      sameReason = sameReason && p->write.reason == w.reason;
      slowest = std::max(slowest, p->write.compileSeconds);
    }
    long long largest = 0;
    for (const auto *p : inA)
      largest = std::max(largest, p->write.entryBytes);
    std::string why =
        !sameReason ? "see each program's outcome"
        : !many ? (w.reason == NotWrittenReason::CompileTime ? "it " : "") +
                      notWrittenClause(w)
        : w.reason == NotWrittenReason::CompileTime
            ? "each compiled in at most " + seconds(slowest) + ", under " +
                  kMinCompileTime + " (" + seconds(w.minCompileSeconds) + ")"
        : w.reason == NotWrittenReason::EntrySize
            ? "each entry (at most " + std::to_string(largest) +
                  " bytes) is under " + kMinEntrySize + " (" +
                  std::to_string(w.minEntryBytes) + " bytes)"
        : w.reason == NotWrittenReason::HostCallbacks
            ? std::string("they use ") + kHostCallbacks
            : notWrittenClause(w);
    return which + "never wrote " + them + ": " + why;
  }
  case MissReason::WriteFailed: {
    const std::string &e = inA.front()->write.error;
    std::string s = which + "failed to write " + them + ": \"" + e + "\"";
    if (e.find("-atime") != std::string::npos)
      s += " (the LRU cache's -atime file of an entry is missing, jax#39880: "
           "with jax_compilation_cache_max_size set, every later write scans "
           "the directory and fails the same way until that entry is "
           "hit again, which rewrites its -atime file, or its -cache file is "
           "deleted)";
    return s;
  }
  case MissReason::NoCacheYet: {
    // The threshold the same run applies once its cache is open.
    double before = -1, later = -1;
    for (const auto *p : inB)
      if (p->write.minCompileSeconds >= 0)
        before = p->write.minCompileSeconds;
    for (const LogSummary *l : {&lb, &la})
      for (const auto &p : l->programs)
        if (later < 0 && l->cacheInitLine && p.lookupLine > l->cacheInitLine &&
            p.write.minCompileSeconds >= 0)
          later = p.write.minCompileSeconds;
    std::string s = std::string(form == ClauseForm::Relative ? "but " : "") +
                    (many ? "they were" : "it was") +
                    " compiled before the persistent cache was configured: " +
                    lb.name + " looked " + them +
                    " up with no cache open (\"cache is disabled/not "
                    "initialized\")";
    if (lb.cacheInitLine)
      s += ", and initialised the cache only later (line " +
           std::to_string(lb.cacheInitLine) + ")";
    if (before >= 0 && later >= 0 && before != later)
      s += "; " + std::string(kMinCompileTime) + " was still " +
           seconds(before) + " then (JAX's default), " + seconds(later) +
           " once the script had configured it";
    return s + ". Configure the cache (jax.config.update or "
               "JAX_COMPILATION_CACHE_DIR, JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS) "
               "before the first JAX operation";
  }
  case MissReason::Damaged: {
    const LoggedProgram &b = *inB.front();
    std::string s = std::string(form == ClauseForm::Relative ? "but " : "") +
                    lb.name + " found " + (many ? "their entries" : "its entry") +
                    " and could not read " + them + " (\"" +
                    lb.texts[b.readError] + "\"): damaged " +
                    (many ? "files" : "file");
    const WriteOutcome &wa = inA.front()->write;
    if (wa.state == WriteState::Failed)
      s += ", left by " + la.name + "'s failed write (\"" + wa.error + "\")";
    s += ". JAX never replaces an existing entry (LRUCache.put keeps the "
         "file), so " + std::string(many ? "they miss" : "it misses") +
         " on every run until " + (many ? "those files are" : "that file is") +
         " deleted from the cache directory";
    return s;
  }
  case MissReason::Evicted: {
    const LoggedProgram &b = *inB.front();
    auto d = b.finalDigest();
    const Eviction *ea = nullptr, *eb = nullptr;
    if (d) {
      auto ia = la.evicted.find(*d), ib = lb.evicted.find(*d);
      ea = ia != la.evicted.end() ? &ia->second : nullptr;
      eb = ib != lb.evicted.end() ? &ib->second : nullptr;
    }
    const Eviction *e = ea ? ea : eb;
    std::string s = std::string(form == ClauseForm::Relative ? "but " : "") +
                    "the LRU cache evicted " + them + " (\"Evicting cache "
                    "entry\" in " +
                    (ea && eb ? "both logs" : ea ? la.name : lb.name);
    if (e && !many)
      s += ", line " + std::to_string(e->line) + ": " +
           std::to_string(e->bytes) + " bytes, target cache size " +
           std::to_string(e->targetBytes) + " bytes";
    s += ")";
    size_t lines = la.evictionLines + lb.evictionLines;
    s += ": jax_compilation_cache_max_size is below what the runs write (" +
         plural(lines, "eviction line", "eviction lines") +
         " in the two logs), so entries are evicted before they are used "
         "again. Raise the cap above what one run writes, or unset it";
    return s;
  }
  case MissReason::TooLarge: {
    const WriteOutcome &w = inA.front()->write;
    return which + "never wrote " + them + ": " + notWrittenClause(w);
  }
  case MissReason::RelativeDir:
    return std::string(form == ClauseForm::Relative ? "but " : "") +
           "the cache path " + pyRepr(lb.cacheDirs.front()) +
           " is relative: it is resolved against each run's working "
           "directory, so runs started elsewhere use another cache. Give "
           "jax_compilation_cache_dir an absolute path";
  case MissReason::UnsupportedRuntime:
    return std::string(form == ClauseForm::Relative ? "but " : "") +
           lb.name + "'s runtime never uses the persistent cache (\"" +
           "Unsupported runtime: " + lb.unsupportedRuntime + "\")";
  case MissReason::MaybeNoCache:
    return "whose log shows no write of " + them + " and no cache directory: "
           "if jax_compilation_cache_dir was not set, the persistent cache is "
           "off and nothing is written (set it; DEBUG logging of "
           "jax._src.compilation_cache shows each write)";
  case MissReason::OtherDir: {
    std::string s = std::string(form == ClauseForm::Relative ? "but " : "") +
                    "the runs use different cache directories (" +
                    pyRepr(la.cacheDirs.front()) + " \u2192 " +
                    pyRepr(lb.cacheDirs.front()) + ")";
    if (isRelativeCachePath(la.cacheDirs.front()) ||
        isRelativeCachePath(lb.cacheDirs.front()))
      s += "; a relative path is resolved against the working directory: "
           "give jax_compilation_cache_dir an absolute path";
    return s;
  }
  case MissReason::Gone:
    if (!la.cacheDirs.empty() && !lb.cacheDirs.empty())
      return which + "had " + them + " in its cache, but " + lb.name +
             " did not find " + them + " in the same directory (" +
             pyRepr(lb.cacheDirs.front()) +
             "), and neither log shows an eviction: the entries were removed "
             "between the runs, or the path is on each machine's own disk";
    return which + "had " + them + " in its cache, but " + lb.name +
           " did not find " + them + ": evicted (jax_compilation_cache_max_size), "
           "or the cache directory is not shared between the runs (DEBUG on "
           "jax._src.compilation_cache and jax._src.lru_cache logs the "
           "directory and each eviction)";
  case MissReason::Unknown:
    break;
  }
  return which + "does not log whether it wrote " + them;
}

std::string moveText(const KeyMove &move) {
  std::string brief = keyMoveText(move);
  return brief.empty() ? std::string("the keys differ") : brief;
}

} // namespace

std::string digestText(int entry, const std::optional<Digest> &d) {
  if (!d)
    return "(not logged)";
  if (auto v = decodeEntryDigest(entry, *d))
    return v->text;
  return "unknown (digest " + toHex(*d).substr(0, 12) + "\u2026)";
}

std::string firstPathText(const std::vector<std::string> &paths) {
  return paths.empty() ? std::string("unset") : pyRepr(paths.front());
}

std::string pairLabel(const ProgramPair &p, const std::string &stream,
                      bool byStream) {
  std::string s = p.name.empty() ? "key " + std::to_string(p.ordinal)
                  : p.ordinal > 1 ? p.name + " (" + ordinalWord(p.ordinal) + ")"
                                  : p.name;
  if (!byStream || stream.empty())
    return s;
  return s + (stream[0] == '[' ? " " + stream : " [" + stream + "]");
}

std::string outcomeText(const LoggedProgram &p) {
  if (p.lookup == Lookup::Hit)
    return "hit";
  if (p.lookup == Lookup::Unknown)
    return "no hit or miss logged";
  const WriteOutcome &w = p.write;
  if (p.lookupNoCache && !(w.state == WriteState::NotWritten &&
                           w.reason == NotWrittenReason::CacheDisabled))
    return "missed, looked up before the cache was initialised (\"cache is "
           "disabled/not initialized\")" +
           (w.state == WriteState::NotWritten ? "; never written: " + notWrittenClause(w)
                                              : std::string());
  if (p.readError >= 0)
    return "missed: its entry is in the cache but could not be read (a "
           "damaged file)" +
           std::string(w.state == WriteState::Written
                            ? "; JAX logged a write, but an existing entry is "
                              "never replaced, so it stays damaged"
                            : "");
  switch (w.state) {
  case WriteState::Written:
    return "missed, then written to the cache";
  case WriteState::Attempted:
    return "missed; compiled in " + seconds(w.compileSeconds) + ", over the " +
           seconds(w.minCompileSeconds) +
           " minimum, so JAX went on to write it (the write itself is not "
           "logged here)";
  case WriteState::NotWritten:
    return "missed, never written: " + notWrittenClause(w);
  case WriteState::Failed:
    return "missed; writing it failed: " + w.error;
  case WriteState::Unknown:
    break;
  }
  return "missed (whether it was written is not logged)";
}

std::string keyMoveText(const KeyMove &m) {
  using M = KeyMove::Code;
  switch (m.code) {
  case M::None:
    return "";
  case M::Inconsistent:
    return "every entry's own digest is the same in both logs, yet the keys "
           "differ: the logs are not consistent (edited, or lines of "
           "different runs mixed)";
  case M::TraceMissing:
    return std::string("the keys differ (") +
           (m.both ? "neither run logged the trace"
                   : "the trace of one run was not logged") +
           ")";
  case M::ProgramChanged:
    return "the program changed";
  case M::ArgTypes:
    return "the argument types changed " + m.before + " \u2192 " + m.after;
  case M::EnableX64:
    return "the argument types changed " + m.before + " \u2192 " + m.after +
           " (jax_enable_x64)";
  case M::JaxOwnProgram:
    return "JAX's own program changed (its inputs or a global setting, not "
           "your code)";
  case M::EveryProgram:
    return "one global setting changed every program";
  case M::JaxlibUpgrade:
    return "the jaxlib upgrade " + m.before + " \u2192 " + m.after;
  case M::JaxlibChanged:
    return "the jaxlib version changed";
  case M::BackendChanged:
    return "the backend version changed";
  case M::FlagsNotLogged:
    return "the XLA flags changed";
  case M::Flags:
    return flagChangeText(m.flag);
  case M::CacheDirMoved:
    return "the cache directory moved (entry 5)";
  case M::KernelCacheChanged:
    return "the XLA kernel cache setting changed (entry 5)";
  case M::CompileOptionsChanged:
    return "the compile options changed (entry 5)";
  case M::DevicesChanged:
    return "the devices changed (entry 6)";
  case M::Compression:
    return "compression " + m.before + " \u2192 " + m.after;
  case M::CustomHook:
    return "custom_hook " + m.before + " \u2192 " + m.after;
  }
  return "";
}

std::string logFindingText(const LogFinding &f) {
  using C = LogFinding::Code;
  const std::string change = f.before + " \u2192 " + f.after;
  switch (f.code) {
  case C::ProgramChanged:
    return "the program itself changed: its MLIR, with locations stripped, "
           "is different (a log holds only the digest: compare "
           "jax.jit(f).lower(\u2026).as_text() of both runs)";
  case C::ArgTypes:
    return "the argument types changed, " + f.subject +
           " (pxla's \"Compiling \u2026 with global shapes and types\" lines: " +
           shortened(f.before, 120) + " \u2192 " + shortened(f.after, 120) + ")";
  case C::EnableX64:
    return "the argument types changed, " + f.subject +
           " (pxla's \"Compiling \u2026 with global shapes and types\" lines: " +
           shortened(f.before, 120) + " \u2192 " + shortened(f.after, 120) +
           "): JAX's default types are 64-bit when jax_enable_x64 is on "
           "(JAX_ENABLE_X64=1 in the environment, or jax.config.update); "
           "check the second run's environment";
  case C::JaxOwnProgram:
    return f.subject + " is a program JAX compiles itself (an operation run "
           "outside jit), so your code did not change it: its argument "
           "types or a global setting did (jax_enable_x64, "
           "jax_compilation_cache_include_metadata_in_key, a jax upgrade)";
  case C::EveryProgram:
    return "entry 1 of all " + f.subject + " paired programs moved, JAX's "
           "own programs (jit_broadcast_in_dim, \u2026) among them: not your "
           "code but one setting that changes every module: "
           "jax_compilation_cache_include_metadata_in_key (source locations "
           "in the key), jax_enable_x64, jax_use_shardy_partitioner, or a "
           "jax upgrade";
  case C::JaxlibVersions:
    return "jaxlib " + change;
  case C::JaxlibNotRelease:
    return change + " (a version that is not a release: a development build?)";
  case C::BackendDecoded:
    return change;
  case C::BackendOneSide:
    return "the backend version is hashed in one run only (jax before 0.6.0 "
           "has no entry 3)";
  case C::BackendPlatform:
    return "the platform or its version changed (another CUDA, driver or "
           "libtpu): " + change;
  case C::FlagsNotLogged:
    return "the kept XLA flags changed (their \"Including XLA flag\" lines "
           "were not logged)";
  case C::Flag:
    return flagChangeText(f.flag);
  case C::CacheDirMoved:
    return "the cache directory moved: JAX writes its XLA autotuning "
           "cache path into " + debugFieldLabel(kAutotuneField) +
           ", which entry 5 hashes, " + change +
           " (jax 0.11.0 and later zero this field; before that, give "
           "every run the same jax_compilation_cache_dir path)";
  case C::KernelCacheOneSide:
    return "the XLA kernel cache is enabled in " + f.subject +
           " only (jax_persistent_cache_enable_xla_caches): it sets " +
           debugFieldLabel(kKernelField) + " " + change + " and " +
           debugFieldLabel(kParallelismField);
  case C::KernelCacheMoved:
    return "the XLA kernel cache path moved: " + debugFieldLabel(kKernelField) +
           " " + change;
  case C::CompileOptionsLogged:
    return "the compile options JAX logged differ: " + shortened(f.before, 100) +
           " \u2192 " + shortened(f.after, 100);
  case C::ExcludedFlagHashed:
    return "--" + f.subject + " is excluded from entry 4, but XLA still "
           "parses it into " + debugFieldLabel(f.subject) +
           ", which JAX does not zero";
  case C::CompileOptionsUnknown: {
    std::string hint = "the compile options moved, and the logs show nothing "
                       "that moved them. ";
    if (f.hashesAutotune)
      hint += "On jax 0.10.x and older entry 5 contains the cache directory "
              "path, in " + debugFieldLabel(kAutotuneField) +
              ": did the runs use different jax_compilation_cache_dir? ";
    return hint + "Other candidates: per-jit compiler_options, a DebugOptions "
                  "value from XLA_FLAGS that entry 4 excludes, the device "
                  "assignment. Enable DEBUG on jax._src.compiler to log the "
                  "cache paths and devices, or capture both runs as scenarios "
                  "and run `cachekey diff`";
  }
  case C::DeviceCount:
    return "the device count changed: " + change +
           " (excluded from entry 4 itself, but it sets how many CPU "
           "devices the client has, and the topology fingerprint covers "
           "every device)";
  case C::DeviceKindFallback:
    return "the devices were hashed by device_kind (the runtime has no "
           "topology) in " + f.subject + ": " + shortened(f.after, 160);
  case C::DevicesUnknown:
    return "the devices changed: another CPU model or feature set (CI "
           "runners on different hardware), another device count, or "
           "another GPU or TPU; a log holds only the digest of the topology "
           "fingerprint (capture both runs as scenarios and run `cachekey "
           "diff` to see the fields)";
  case C::Compression:
    return "compression " + change +
           " (the zstandard package is installed for one run only, or one "
           "run uses Python 3.14 or later)";
  case C::CustomHook:
    return "custom_hook " + change;
  }
  return "";
}

std::string pairVerdict(const LogComparison &r, const ProgramPair &p,
                        const KeyMove &move) {
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  if (p.a < 0) {
    const LoggedProgram &b = lb.programs[p.b];
    if (b.shapes >= 0)
      return "new in " + lb.name + ": " + la.name + " did not compile it with "
             "these argument shapes, " + shortened(lb.texts[b.shapes], 160);
    return "only in " + lb.name + ": " + la.name + " did not compile it";
  }
  if (p.b < 0)
    return "only in " + la.name + ": " + lb.name + " did not compile it";
  switch (p.keys) {
  case ProgramPair::Keys::Unknown:
    return "its keys cannot be compared (a trace is incomplete)";
  case ProgramPair::Keys::Differ:
    return "its key moved: " + moveText(move);
  case ProgramPair::Keys::Equal:
    break;
  }
  if (!p.miss)
    return "same key";
  return "same key, yet " + lb.name + " missed: " +
         missClause(*p.miss, ClauseForm::Main, la, lb, {&la.programs[p.a]},
                    {&lb.programs[p.b]});
}

std::string noKeyMessage(const LogSummary &log) {
  std::string msg =
      log.programs.empty() && log.problems.empty()
          ? "no cache-key lines found. Enable them with "
            "logging.getLogger(\"jax._src.cache_key\").setLevel(logging.DEBUG) "
            "(and jax._src.compiler for the hits and misses) and give the "
            "whole log"
          : "no complete key: " +
                (!log.incomplete.empty() ? log.incomplete.front()
                 : !log.problems.empty()
                     ? log.problems.front()
                     : std::string("its keys' digest lines were not all "
                                   "read (every program lacks some of its 16 "
                                   "get_cache_key lines and no hit or miss "
                                   "line names its key)"));
  if (!log.problems.empty() && !log.incomplete.empty())
    msg += " (" + log.problems.front() + ")";
  return msg;
}

void readingNotes(const LogSummary &la, const LogSummary &lb,
                  std::vector<std::string> &notes, std::vector<NoteCode> &codes) {
  auto note = [&](NoteCode code, std::string text) {
    notes.push_back(std::move(text));
    codes.push_back(code);
  };
  for (const LogSummary *l : {&la, &lb}) {
    for (const auto &cut : l->incomplete)
      note(NoteCode::IncompleteKey, l->name + ": " + cut + "; that program is left out.");
    for (const auto &pr : l->problems)
      note(NoteCode::UnreadableLine, l->name + ": " + pr);
    if (l->problemCount > l->problems.size())
      note(NoteCode::MoreUnreadableLines,
           l->name + ": " + std::to_string(l->problemCount - l->problems.size()) +
               " more unreadable lines");
    if (l->longLines)
      note(NoteCode::LongLines, l->name + ": " +
                                    plural(l->longLines, "line", "lines") +
                                    " longer than 1 MiB, read in part");
    if (l->keyErrors)
      note(NoteCode::KeyErrors,
           l->name + ": " + plural(l->keyErrors, "program", "programs") +
               " skipped the cache because JAX could not make a key: " +
               shortened(l->firstKeyError, 160));
    if (!l->unsupportedRuntime.empty())
      note(NoteCode::CacheOff, l->name + ": this runtime never uses the "
                                   "persistent cache (\"Unsupported runtime: " +
                                   l->unsupportedRuntime + "\")");
    if (l->verificationErrors)
      note(NoteCode::UnreadableLine,
           l->name + ": " + plural(l->verificationErrors, "entry", "entries") +
               " failed the cache's verification (\"Persistent compilation "
               "cache inconsistency\"): an entry's executable differs from a "
               "fresh compile of the same key");
    if (l->pgleLoaded || l->pgleMisses)
      note(NoteCode::CacheOff,
           l->name + ": PGLE: " + std::to_string(l->pgleLoaded) +
               " PGLE-optimized programs loaded from the cache, " +
               std::to_string(l->pgleMisses) +
               " missed although their non-PGLE key hit (the PGLE-optimized "
               "key is another key)");
    for (const auto &dir : l->cacheDirs)
      if (isRelativeCachePath(dir)) {
        note(NoteCode::CacheOff, l->name + ": the cache path " + pyRepr(dir) +
                                     " is relative: it depends on the working "
                                     "directory");
        break;
      }
    if (l->cacheDisabled || l->cacheInitFailed)
      note(NoteCode::CacheOff, l->name + ": the persistent cache is " +
                                   (l->cacheDisabled ? "disabled" : "not initialised") +
                                   " in this run");
  }
}

std::string comparisonSentence(const LogComparison &r,
                               const std::vector<KeyMove> &moves) {
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  size_t na = la.comparable().size(), nb = lb.comparable().size();
  std::string s = la.name + " holds " + plural(na, "program", "programs") +
                  " and " + lb.name + " " + std::to_string(nb) + "; ";
  size_t byKey = 0, byOther = 0;
  for (const auto &p : r.pairs) {
    byKey += p.match == PairMatch::Key;
    byOther += p.a >= 0 && p.b >= 0 && p.match != PairMatch::Key;
  }
  if (byKey)
    s += (byKey == 1 ? std::string("1 program is")
                     : std::to_string(byKey) + " programs are") +
         " matched by key (" + lb.name + "'s key is one " + la.name +
         " computed, whatever the name or order)" +
         (byOther == 0 ? std::string(". ") : "; the others are ");
  else
    s += "programs are ";
  if (!byKey || byOther)
    s += r.pairedBy == PairedBy::Order
             ? "paired in order (the logs name no programs: no hit or miss "
               "lines). "
             : std::string("paired by ") + pairedByName(r.pairedBy) +
                   ", then by argument shapes, then by order within a name. ";
  std::vector<std::string> onlyA, onlyB, equal;
  for (const auto &p : r.pairs) {
    if (p.a < 0)
      onlyB.push_back(p.label);
    else if (p.b < 0)
      onlyA.push_back(p.label);
    else if (p.keys == ProgramPair::Keys::Equal)
      equal.push_back(p.label);
  }
  if (r.explained >= 0 && r.pairs[r.explained].keys == ProgramPair::Keys::Differ) {
    const ProgramPair &x = r.pairs[r.explained];
    size_t differing = 0, sameAsFirst = 0;
    for (size_t i = 0; i < r.pairs.size(); ++i)
      if (r.pairs[i].keys == ProgramPair::Keys::Differ) {
        ++differing;
        sameAsFirst += moves[i] == moves[r.explained];
      }
    bool oneCause = differing >= 2 && sameAsFirst == differing;
    if (oneCause)
      s += "All " + std::to_string(differing) +
           " programs whose keys differ moved the same way, for one cause "
           "(said once, for " + x.label + "). ";
    else
      s += upperFirst(x.label) + " is the first pair whose keys differ. ";
    s += r.comparison.cause ? r.comparison.sentence
                            : capitalised(keyMoveText(moves[r.explained])) + ".";
    // The other differing pairs: the same cause, or which other, grouped in
    // the order the reasons first appear.
    std::vector<std::string> same;
    std::map<KeyMove, std::vector<std::string>> other;
    std::vector<KeyMove> otherOrder;
    for (size_t i = 0; i < r.pairs.size(); ++i) {
      if (static_cast<int>(i) == r.explained ||
          r.pairs[i].keys != ProgramPair::Keys::Differ)
        continue;
      if (moves[i] == moves[r.explained])
        same.push_back(r.pairs[i].label);
      else {
        if (!other.count(moves[i]))
          otherOrder.push_back(moves[i]);
        other[moves[i]].push_back(r.pairs[i].label);
      }
    }
    if (!same.empty() && !oneCause)
      s += " " + upperFirst(nameList(same)) +
           (same.size() == 1 ? " differs" : " differ") + " for the same reason.";
    for (const auto &m : otherOrder)
      s += " " + upperFirst(nameList(other[m])) +
           (other[m].size() == 1 ? " differs" : " differ") +
           " for another reason: " + keyMoveText(m) + ".";
    if (!equal.empty())
      s += " " + upperFirst(nameList(equal)) +
           (equal.size() == 1 ? " has" : " have") + " the same key in both runs.";
  } else if (!equal.empty()) {
    s += (equal.size() == 1 ? std::string("The paired program has")
                            : "All " + std::to_string(equal.size()) +
                                  " paired programs have") +
         " the same key in both runs: nothing moved.";
    if (!r.comparison.unhashed.empty()) {
      s += " Not hashed, so not a cause: ";
      for (size_t i = 0; i < r.comparison.unhashed.size() && i < 4; ++i)
        s += (i ? "; " : "") + r.comparison.unhashed[i];
      s += ".";
    }
  } else {
    s += "No program pairs with one in the other log.";
  }
  if (!onlyB.empty())
    s += " Only in " + lb.name + ": " + nameList(onlyB) + ".";
  if (!onlyA.empty())
    s += " Only in " + la.name + ": " + nameList(onlyA) + ".";
  if (!r.notes.empty()) {
    size_t cuts = la.incomplete.size() + lb.incomplete.size();
    if (cuts)
      s += " " + plural(cuts, "key is", "keys are") +
           " incomplete and left out (see the notes).";
  }
  return s;
}

std::string runSummary(const LogComparison &r, const std::vector<KeyMove> &moves) {
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  size_t n = 0, hits = 0, misses = 0, differing = 0, paired = 0, onlyB = 0;
  for (const auto &p : r.pairs) {
    if (p.b < 0)
      continue;
    ++n;
    const LoggedProgram &pb = lb.programs[p.b];
    hits += pb.lookup == Lookup::Hit;
    misses += pb.lookup == Lookup::Miss;
    paired += p.a >= 0;
    differing += p.keys == ProgramPair::Keys::Differ;
    onlyB += p.a < 0;
  }
  std::string s = lb.name + ": ";
  if (hits + misses == 0) {
    // No hit or miss lines: say what the keys say.
    if (paired == 0)
      s += "no program pairs with one in " + la.name;
    else if (differing == 0)
      s += (paired == 1 ? std::string("the paired program has")
                        : "all " + std::to_string(paired) + " paired programs have") +
           " the same key as in " + la.name;
    else
      s += std::to_string(differing) + " of " +
           plural(paired, "paired program", "paired programs") +
           (differing == 1 ? " has" : " have") + " another key";
    if (onlyB)
      s += "; " + plural(onlyB, "program is", "programs are") + " new";
    return s + " (no hit or miss lines: enable DEBUG on jax._src.compiler to "
               "see the outcomes).";
  }
  s += std::to_string(hits) + " of " + plural(n, "program", "programs") + " hit";
  if (misses == 0)
    return s + ".";
  s += ", " + std::to_string(misses) + " missed.";
  // The misses, grouped by reason in the order the reasons first appear.
  struct Group {
    enum class Kind { New, Moved, Unknown, Equal } kind;
    KeyMove move;                               // Moved
    MissReason reason = MissReason::Unknown;    // Equal
    std::vector<std::string> names;
    std::vector<const LoggedProgram *> inA, inB;
    auto key() const { return std::tie(kind, move, reason); }
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    const auto &p = r.pairs[i];
    if (p.b < 0 || lb.programs[p.b].lookup != Lookup::Miss)
      continue;
    Group g;
    g.kind = p.a < 0                                   ? Group::Kind::New
             : p.keys == ProgramPair::Keys::Differ     ? Group::Kind::Moved
             : p.keys == ProgramPair::Keys::Unknown    ? Group::Kind::Unknown
                                                       : Group::Kind::Equal;
    if (g.kind == Group::Kind::Moved)
      g.move = moves[i];
    if (g.kind == Group::Kind::Equal)
      g.reason = p.miss ? *p.miss : MissReason::Unknown;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const Group &x) { return x.key() == g.key(); });
    if (it == groups.end()) {
      groups.push_back(g);
      it = groups.end() - 1;
    }
    it->names.push_back(p.label);
    if (p.a >= 0)
      it->inA.push_back(&la.programs[p.a]);
    it->inB.push_back(&lb.programs[p.b]);
  }
  bool compileTime = false;
  for (const Group &g : groups) {
    size_t k = g.names.size();
    std::string who = k == misses && k > 1 ? "All " + std::to_string(k)
                                            : nameList(g.names);
    who = upperFirst(who);
    switch (g.kind) {
    case Group::Kind::New:
      s += " " + who + (k == 1 ? " is " : " are ") + "new in this run.";
      break;
    case Group::Kind::Equal:
      s += " " + who + (k == 1 ? " has" : " have") + " the same key as in " +
           la.name + ", " +
           missClause(g.reason, ClauseForm::Relative, la, lb, g.inA, g.inB) + ".";
      for (const auto *p : g.inA)
        compileTime = compileTime || (g.reason == MissReason::NotWritten &&
                                      p->write.reason == NotWrittenReason::CompileTime);
      break;
    case Group::Kind::Moved:
      s += " " + who + (k == 1 ? " has " : " have ") + "another key: " +
           keyMoveText(g.move) + ".";
      break;
    case Group::Kind::Unknown:
      s += " " + who + (k == 1 ? " has " : " have ") +
           "keys that cannot be compared.";
      break;
    }
  }
  if (compileTime)
    s += " To cache programs that compile fast, lower " +
         std::string(kMinCompileTime) + ", e.g. jax.config.update(\"" +
         kMinCompileTime + "\", 0) or JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0.";
  return s;
}

std::string runStatsText(const LogSummary &log, const RunStats &st) {
  std::string s = log.name + ": " + plural(st.programs, "program", "programs") +
                  ", " + plural(st.hits, "hit", "hits") + ", " +
                  plural(st.misses, "miss", "misses");
  if (st.hits + st.misses) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f%%",
                  100.0 * st.hits / double(st.hits + st.misses));
    s += " (" + std::string(buf) + " hit rate)";
  }
  if (st.noOutcome)
    s += ", " + std::to_string(st.noOutcome) + " without a logged outcome";
  if (st.timedMisses)
    s += "; " + seconds(st.missCompileSeconds) + " compiling the misses" +
         (st.timedMisses < st.misses
              ? " (" + std::to_string(st.timedMisses) + " of them timed)"
              : std::string());
  if (st.written)
    s += "; " + std::to_string(st.written) + " written";
  if (!st.notCached.empty()) {
    s += "; not cached: ";
    bool first = true;
    for (auto [why, n] : st.notCached) {
      const char *t = "";
      switch (why) {
      case NotCached::CompileTime: t = "under the minimum compile time"; break;
      case NotCached::EntrySize: t = "under the minimum entry size"; break;
      case NotCached::HostCallbacks: t = "host callbacks"; break;
      case NotCached::NotProcessZero: t = "not process 0"; break;
      case NotCached::NoCache: t = "no cache initialised yet"; break;
      case NotCached::TooLarge: t = "over the maximum cache size"; break;
      case NotCached::WriteFailed: t = "write failed"; break;
      case NotCached::ReadFailed: t = "found but unreadable"; break;
      case NotCached::Unknown: t = "write not logged"; break;
      }
      s += (first ? "" : ", ") + std::to_string(n) + " " + t;
      first = false;
    }
  }
  if (st.evictions)
    s += "; " + plural(st.evictions, "eviction", "evictions");
  return s + ".";
}

std::string programAcrossRunsText(const ManyLogComparison &r,
                                  const ProgramAcrossRuns &p) {
  auto names = [&](const std::vector<int> &runs) {
    std::vector<std::string> v;
    for (int run : runs)
      v.push_back(r.logs[run].name);
    return nameList(v);
  };
  size_t present = r.logs.size() - p.absent.size();
  std::string s = p.label + ": ";
  if (p.common < 0) {
    s += "no key logged";
  } else if (p.odd.empty()) {
    s += present == 1 ? "in " + names(p.groups[0]) + " only"
         : present == r.logs.size()
             ? "all " + std::to_string(present) + " runs share its key"
             : names(p.groups[0]) + " share its key";
  } else {
    s += names(p.groups[p.common]) +
         (p.groups[p.common].size() == 1 ? " has" : " share") + " the common key";
    for (const OddRun &o : p.odd) {
      s += "; " + r.logs[o.run].name + " is an odd one out";
      if (!o.entries.empty()) {
        std::vector<std::string> e;
        for (int x : o.entries)
          e.push_back(entryLabel(x));
        s += ": " + nameList(e, 8) + (o.entries.size() == 1 ? " differs" : " differ");
      }
    }
  }
  if (!p.absent.empty() && present > 1)
    s += "; not compiled in " + names(p.absent);
  return s;
}

std::string manySummary(const ManyLogComparison &r) {
  size_t all = 0, everywhere = 0;
  std::vector<size_t> oddCount(r.logs.size(), 0);
  for (const auto &p : r.programs) {
    if (p.common < 0)
      continue;
    ++all;
    everywhere += p.odd.empty() && p.absent.empty();
    for (const auto &o : p.odd)
      ++oddCount[o.run];
  }
  std::string s = std::to_string(everywhere) + " of " +
                  plural(all, "program has", "programs have") +
                  " one key in all " + std::to_string(r.logs.size()) + " runs";
  for (size_t run = 0; run < r.logs.size(); ++run)
    if (oddCount[run])
      s += "; " + r.logs[run].name + " is the odd one out for " +
           plural(oddCount[run], "program", "programs");
  return s + ".";
}

} // namespace logs

namespace {

/// "What to do: …" on one line, or a list of them.
void writeAdvice(std::ostream &os, const std::vector<LogAdvice> &advice) {
  if (advice.size() == 1)
    os << "What to do: " << logAdviceText(advice.front()) << "\n";
  else if (!advice.empty()) {
    os << "What to do:\n";
    for (const LogAdvice &a : advice)
      os << "  - " << logAdviceText(a) << "\n";
  }
}

} // namespace

void writeManyLogComparison(std::ostream &os, const ManyLogComparison &r) {
  os << "Programs across " << r.logs.size() << " runs (each paired with "
     << r.logs[0].name << " by key, then name, shapes and order):\n";
  for (const auto &t : r.programTexts)
    os << "  " << t << ".\n";
  for (const auto &t : r.statsText)
    os << "Run: " << t << "\n";
  os << "Summary: " << r.summary << "\n";
  writeAdvice(os, r.advice);
}

void writeLogComparison(std::ostream &os, const LogComparison &r) {
  os << r.sentence << "\n";
  bool byKey = std::any_of(r.pairs.begin(), r.pairs.end(), [](const ProgramPair &p) {
    return p.match == PairMatch::Key;
  });
  os << "Programs (paired by " << (byKey ? "key and " : "")
     << pairedByName(r.pairedBy) << "):\n";
  for (const auto &p : r.pairs) {
    os << "  " << p.label << ": " << p.verdict << ".";
    for (int side = 0; side < 2; ++side)
      if ((side ? p.b : p.a) >= 0)
        os << " " << r.logs[side].name << ": " << p.outcome[side] << ".";
    os << "\n";
  }
  for (const auto &n : r.notes)
    os << "note: " << n << "\n";
  for (int side = 0; side < 2; ++side)
    os << "Run: " << r.statsText[side] << "\n";
  os << "Summary: " << r.summary << "\n";
  writeAdvice(os, r.advice);
}

std::string formatLogComparison(const LogComparison &r) {
  std::ostringstream os;
  writeLogComparison(os, r);
  return os.str();
}

} // namespace cachekey
