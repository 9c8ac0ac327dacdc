//===- LogWording.cpp - The words of the log comparison -------------------===//
//
// The words of one program or pair: outcomes, the brief of a KeyMove, the
// miss clauses and verdicts (a finding's detail line is entryChangeText's,
// explain/EntryChangeWording.cpp). The words of
// a whole comparison (sentence, notes, summary, stats, N runs, the CLI's
// text) are LogSummaryWording.cpp's, and the advice LogAdviceWording.cpp's:
// these three are the only files of the logs family that write English.
// Grouping and "the same reason" are decided on facts by the callers; the
// list and plural grammar is Wording.h's.
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"
#include "cachekey/StringExtras.h"

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


std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

/// A program label at the start of a sentence: "key 4 …" → "Key 4 …".
std::string upperFirst(std::string s) {
  return startsWith(s, "key ") ? capitalised(std::move(s)) : s;
}

static std::string ordinalWord(int n) {
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
static std::string notWrittenClause(const WriteOutcome &w) {
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


/// For a miss neither log explains by an eviction: when either log shows
/// the size cap evicting, the words that a process whose log is not among
/// these (sharing the cache) may have evicted `them`; else "".
std::string evictedElsewhere(const LogSummary &la, const LogSummary &lb,
                             const std::string &them) {
  const LogSummary *l = la.evictionLines ? &la : lb.evictionLines ? &lb : nullptr;
  if (!l)
    return "";
  return "; but the size cap evicts entries (" + l->name +
         " logs evictions), so another process sharing the cache may have evicted " + them;
}

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
    const WriteOutcome w = inA.front()->write();
    bool sameReason = true;
    double slowest = 0;
    for (const auto *p : inA) {
      sameReason = sameReason && p->writeReason == w.reason;
      slowest = std::max(slowest, p->write().compileSeconds);
    }
    long long largest = 0;
    for (const auto *p : inA)
      largest = std::max(largest, p->write().entryBytes);
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
    const std::string &e = la.writeError(*inA.front());
    std::string s = which + "failed to write " + them + ": \"" + e + "\"";
    if (inA.front()->atimeError)
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
      if (p->write().minCompileSeconds >= 0)
        before = p->write().minCompileSeconds;
    for (const LogSummary *l : {&lb, &la})
      for (const auto &p : l->programs)
        if (later < 0 && l->cacheInitLine && p.lookupLine() > l->cacheInitLine &&
            p.write().minCompileSeconds >= 0)
          later = p.write().minCompileSeconds;
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
  case MissReason::NoFilelock:
    return std::string(form == ClauseForm::Relative ? "but " : "") + lb.name +
           " never opened its cache: jax_compilation_cache_max_size is set, and "
           "this JAX needs the filelock package to honour a cap (\"Please install "
           "the `filelock` package to set `jax_compilation_cache_max_size`\"), so "
           "nothing was read or written";
  case MissReason::Damaged: {
    const LoggedProgram &b = *inB.front();
    std::string s = std::string(form == ClauseForm::Relative ? "but " : "") +
                    lb.name + " found " + (many ? "their entries" : "its entry") +
                    " and could not read " + them + " (\"" +
                    lb.texts[b.readError()] + "\"): damaged " +
                    (many ? "files" : "file");
    const WriteOutcome wa = inA.front()->write();
    if (wa.state == WriteState::Failed)
      s += ", left by " + la.name + "'s failed write (\"" + la.writeError(*inA.front()) + "\")";
    s += ". JAX never replaces an existing entry (LRUCache.put keeps the "
         "file), so " + std::string(many ? "they miss" : "it misses") +
         " on every run until " + (many ? "those files are" : "that file is") +
         " deleted from the cache directory";
    return s;
  }
  case MissReason::CompileOnlyClient:
    return std::string(form == ClauseForm::Relative ? "but " : "") + lb.name +
           " found " + (many ? "their entries" : "its entry") +
           " and its compile-only client could not load " + them + " (\"" +
           lb.texts[inB.front()->readError()] +
           "\"): a deviceless (ahead-of-time) compile cannot load any entry, so " +
           (many ? "they miss" : "it misses") +
           " on every such run; nothing is damaged";
  case MissReason::CheckContents:
    return std::string(form == ClauseForm::Relative ? "but " : "") + lb.name +
           " found " + (many ? "their entries" : "its entry") + " and compiled " +
           them + " again anyway (lru_cache.py logged \"Cache hit for key\" right "
           "before the miss, with no read error): "
           "jax_compilation_cache_check_contents is on, and with it each process "
           "compiles every program once to check its entry against the fresh "
           "executable";
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
    const WriteOutcome w = inA.front()->write();
    return which + "never wrote " + them + ": " + notWrittenClause(w);
  }
  case MissReason::RelativeDir:
    return std::string(form == ClauseForm::Relative ? "but " : "") +
           "the cache path " + pyRepr(*cacheDirOf(lb, *inB.front())) +
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
    // The directories in effect for these programs (a run may switch).
    const std::string &da = *cacheDirOf(la, *inA.front()), &db = *cacheDirOf(lb, *inB.front());
    std::string s = std::string(form == ClauseForm::Relative ? "but " : "") +
                    "the runs use different cache directories (" + pyRepr(da) +
                    " \u2192 " + pyRepr(db) + ")";
    if (lb.cacheDirs.size() > 1)
      s += "; " + lb.name + " switched to " + pyRepr(db) + " during the run (another "
           "jax_compilation_cache_dir after compilation_cache.reset_cache(), or a second "
           "process)";
    if (isRelativeCachePath(da) || isRelativeCachePath(db))
      s += "; a relative path is resolved against the working directory: "
           "give jax_compilation_cache_dir an absolute path";
    return s;
  }
  case MissReason::FirstRunStopped:
    return which + "stopped while it compiled " + them + ": " + la.name +
           " ends after the miss at line " + std::to_string(la.endsCompilingAt) +
           ", with no compile time or write for " + them +
           " where its other programs' writes are logged (the run was killed, crashed, "
           "timed out or its log was cut), so " + them + " never reached the cache";
  case MissReason::Removed:
    return which + "had " + them + " in its cache, and " + lb.name + " read other entries " +
           la.name + " wrote in that folder (" + pyRepr(*cacheDirOf(lb, *inB.front())) +
           "), yet did not find " + them + ": " + (many ? "they were" : "it was") +
           " removed after " + la.name + " wrote " + them + ", between the runs or during " +
           lb.name + " (a cleanup job, a scratch-space cleaner, by hand), or the runs "
           "overlapped and " + lb.name + " looked " + them + " up before " + la.name +
           " had written " + them + "; neither log shows an eviction" +
           evictedElsewhere(la, lb, them);
  case MissReason::Gone:
    if (!la.cacheDirs.empty() && !lb.cacheDirs.empty())
      return which + "had " + them + " in its cache, but " + lb.name +
             " did not find " + them + " in the same directory (" +
             pyRepr(*cacheDirOf(lb, *inB.front())) +
             "), and neither log shows an eviction: the entries were removed "
             "between the runs, the path is on each machine's own disk, or the "
             "runs overlapped and " + lb.name + " looked " + them + " up before " +
             la.name + " had written " + them + evictedElsewhere(la, lb, them);
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

static std::string moveText(const KeyMove &move) {
  std::string brief = keyMoveText(move);
  return brief.empty() ? std::string("the keys differ") : brief;
}


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

std::string labelText(std::string_view name, int ordinal, const std::string &stream,
                      bool byStream) {
  std::string s = name.empty() ? "key " + std::to_string(ordinal)
                  : ordinal > 1 ? std::string(name) + " (" + ordinalWord(ordinal) + ")"
                                : std::string(name);
  if (!byStream || stream.empty())
    return s;
  return s + (stream[0] == '[' ? " " + stream : " [" + stream + "]");
}

std::string outcomeText(const LogSummary &log, const LoggedProgram &p) {
  if (p.lookup == Lookup::Hit)
    return "hit";
  if (p.lookup == Lookup::Unknown)
    return "no hit or miss logged";
  const WriteOutcome w = p.write();
  if (p.lookupNoCache && !(w.state == WriteState::NotWritten &&
                           w.reason == NotWrittenReason::CacheDisabled))
    return "missed, looked up before the cache was initialised (\"cache is "
           "disabled/not initialized\")" +
           (w.state == WriteState::NotWritten ? "; never written: " + notWrittenClause(w)
                                              : std::string());
  if (w.state == WriteState::Unknown && log.endsCompiling(p))
    return "missed; the log ends while it compiled, with no compile time or "
           "write for it (the run was killed, crashed, timed out or its log was "
           "cut), so it was not written";
  if (p.readError() >= 0 && p.compileOnlyRead())
    return "missed: its entry is in the cache, but a compile-only client cannot "
           "load entries (not damaged)";
  if (p.readError() >= 0)
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
    return "missed; writing it failed: " + log.writeError(p);
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
    return "JAX's own program changed with what your code passed to it, "
           "such as a shape, or with a global setting";
  case M::EveryProgram:
    return "one global setting changed every program";
  case M::JaxlibUpgrade:
    return "the jaxlib upgrade " + m.before + " \u2192 " + m.after;
  case M::JaxlibDowngrade:
    return "the jaxlib downgrade " + m.before + " \u2192 " + m.after;
  case M::JaxlibChanged:
    return "the jaxlib version changed";
  case M::BackendChanged:
    return "the backend version changed";
  case M::FlagsNotLogged:
    return "the XLA flags changed";
  case M::Flags:
    return flagChangeText(m.flag);
  case M::CacheDirMoved:
    return "the cache directory's path changed (entry 5)";
  case M::KernelCacheChanged:
    return "the XLA kernel cache setting changed (entry 5)";
  case M::ArgShardings:
    return "the arguments' shardings changed " + shortened(m.before, 120) + " \u2192 " +
           shortened(m.after, 120);
  case M::ProfileVersion:
    return "the XLA-AutoFDO profile version changed " + m.before + " \u2192 " + m.after +
           " (jax_xla_profile_version, entry 5)";
  case M::PgleSetting:
    return "jax_enable_pgle differs: " + m.after + " compiled under PGLE (entry 5)";
  case M::XlaCachesSetting:
    return "jax_persistent_cache_enable_xla_caches differs: " + m.after +
           " enabled no XLA autotuning cache (entry 5)";
  case M::CompileOptionsChanged:
    return "the compile options changed (entry 5)";
  case M::DevicesChanged:
    return "the devices changed (entry 6)";
  case M::Compression:
    return "compression " + m.before + " \u2192 " + m.after;
  case M::CustomHook:
    return "custom_hook " + m.before + " \u2192 " + m.after;
  case M::GlobalSetting:
    return "one setting outside the programs moved entry " + m.after +
           " of all " + m.before + " programs";
  case M::StaticOrConstant:
    return "the program changed with the same argument shapes (compiled " +
           m.before + " times in one run, each time with another key: a "
           "static argument, a captured constant, or another jax.jit of the "
           "function with other options)";
  }
  return "";
}

} // namespace logs

std::string pairOutcomeText(const LogComparison &r, const ProgramPair &p, int side) {
  int i = side == 0 ? p.a : p.b;
  return i >= 0 ? logs::outcomeText(r.logs[side], r.logs[side].programs[i]) : std::string();
}

std::string pairVerdictText(const LogComparison &r, const ProgramPair &p) {
  using namespace logs;
  const KeyMove &move = r.moveOf(p);
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  if (p.a < 0) {
    const LoggedProgram &b = lb.programs[p.b];
    if (p.keyOfFirst)
      return "compiled again in " + lb.name + " with a key that " + la.name +
             " computed too (the same program called again, or another "
             "function that lowers to the same module)";
    if (b.lookup == Lookup::Hit && p.keyWrittenBefore)
      return "only in " + lb.name + ", and it hit the entry an earlier "
             "program of " + lb.name + " wrote (JAX's in-memory caches were "
             "cleared in between, e.g. by jax.clear_caches(), or the log "
             "holds more than one run)";
    if (b.lookup == Lookup::Hit)
      return "only in " + lb.name + ", yet it hit: its entry was written by "
             "a run whose log is not " + la.name + " (or " + la.name +
             " is cut before it)";
    if (const int from = r.renamedFrom(p); from >= 0)
      return "new in " + lb.name + ", probably " + r.labelOf(r.pairs[from]) +
             " of " + la.name + " under a new name: the same argument shapes "
             "and types and the same entries 2 to 8, only entry 1 (the "
             "module, named after the function) differs";
    if (p.shapesInFirst)
      return "new in " + lb.name + ": " + la.name + " compiled " +
             std::string(b.name.view()) + " with these argument shapes too, " +
             shortened(lb.texts[b.shapes], 160) + ", but to another key";
    if (b.shapes >= 0)
      return "new in " + lb.name + ": " + la.name + " did not compile it with "
             "these argument shapes, " + shortened(lb.texts[b.shapes], 160);
    return "only in " + lb.name + ": " + la.name + " did not compile it";
  }
  if (p.b < 0) {
    if (size_t line = lb.endsInsideKeyAt())
      return "only in " + la.name + " as far as " + lb.name + " goes: " +
             lb.name + " ends in the middle of a key (the one starting at "
             "line " + std::to_string(line) + "), which may be this "
             "program's: the log was cut, or the run stopped, while it was "
             "computed";
    if (const int to = r.renamedTo(p); to >= 0)
      return "only in " + la.name + ": " + lb.name + " did not compile it "
             "under this name, and probably compiled it as " +
             r.labelOf(r.pairs[to]);
    return "only in " + la.name + ": " + lb.name + " did not compile it";
  }
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

std::string_view pairName(const LogSummary &first, const LogSummary &second,
                          PairedBy by, const ProgramPair &pair) {
  if (by == PairedBy::Order)
    return {};
  const LoggedProgram &p = pair.b >= 0 ? second.programs[pair.b] : first.programs[pair.a];
  return p.name;
}

std::string pairLabel(const LogSummary &first, const LogSummary &second, PairedBy by,
                      const ProgramPair &pair) {
  const LogSummary &log = pair.b >= 0 ? second : first;
  const LoggedProgram &p = log.programs[pair.b >= 0 ? pair.b : pair.a];
  return logs::labelText(pairName(first, second, by, pair), pair.ordinal,
                         log.streams[p.stream], by == PairedBy::ProcessAndName);
}

} // namespace cachekey
