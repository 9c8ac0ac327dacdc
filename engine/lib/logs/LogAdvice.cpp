//===- LogAdvice.cpp - What to do about the second run's misses ----------===//
//
// Chooses the advice of a log comparison (LogCompare.h LogAdvice) from the
// same facts the summary groups by: for each missed program of the second
// run, whether it is new, its KeyMove, or why an equal key still missed
// (MissReason, and the first run's WriteOutcome). One item per kind, in
// the order the kinds first appear. No words here (LogAdviceWording.cpp).
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"
#include "cachekey/JaxConfigTable.h"
#include "cachekey/KnownDigests.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <unordered_set>

namespace cachekey {

namespace logs {

std::string releaseOf(const LogSummary &log) {
  for (const LoggedProgram &p : log.programs)
    if (p.digests().own[1])
      if (auto d = decodeEntryDigest(2, *p.digests().own[1]))
        return d->value;
  return "";
}

std::vector<std::string> settingsMovingEntry(const std::string &release, int entry) {
  std::vector<std::string> out;
  const JaxConfigTable *table = release.empty() ? nullptr : jaxConfigTable(release);
  if (!table)
    return out;
  for (const auto &[name, option] : table->options) {
    if (option.status != JaxOption::Status::Measured)
      continue;
    const EntrySet moved = option.moves();
    if (!moved.count(entry))
      continue;
    if (std::all_of(moved.begin(), moved.end(), [&](int e) { return e == entry || e == 1; }))
      out.push_back(name);
  }
  return out;
}

namespace {

using C = LogAdvice::Code;

/// The advice for a program whose write failed: its -atime file missing
/// (jax#39880), the disk full, or what the error says.
C writeErrorAdvice(const LoggedProgram &p) {
  if (p.atimeError)
    return C::MissingAtime;
  return p.write().noSpace ? C::FreeDiskSpace : C::FixWriteError;
}

LogAdvice advice(C code) {
  LogAdvice a;
  a.code = code;
  return a;
}

/// What `addAdvice` is about when it is about the whole run.
constexpr uint32_t kWholeRun = UINT32_MAX;

/// A write error's text without the entry it names: each path component
/// that holds a key ("<name>-<64 hex digits>", with its "-cache" or
/// "-atime") is dropped, so that the errors of one cause for several
/// programs ("No such file or directory: '/c/jit_f-…-cache'") are one.
std::string withoutEntryNames(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t dash = text.find('-', i);
    if (dash == std::string_view::npos || dash + 65 > text.size()) {
      out.append(text.substr(i));
      break;
    }
    size_t hex = 0;
    while (hex < 64 && std::isxdigit(static_cast<unsigned char>(text[dash + 1 + hex])) &&
           !std::isupper(static_cast<unsigned char>(text[dash + 1 + hex])))
      ++hex;
    if (hex < 64) {
      out.append(text.substr(i, dash + 1 - i));
      i = dash + 1;
      continue;
    }
    // The component starts after the last '/', quote or space before it.
    size_t start = text.find_last_of("/'\" ", dash);
    start = start == std::string_view::npos || start < i ? i : start + 1;
    out.append(text.substr(i, start - i));
    out += "\u2026";
    i = dash + 65;
    for (std::string_view suffix : {"-cache", "-atime"})
      if (text.substr(i, suffix.size()) == suffix)
        i += suffix.size();
  }
  return out;
}

/// Adds `x` for the pair or program `item` (kWholeRun: the whole run) to the
/// item with the same code and facts, or as a new item in the order of
/// first sight. Write errors that differ only in the entry they name are
/// one item (the first one's text is its value).
void addAdvice(std::vector<LogAdvice> &out, LogAdvice x, uint32_t item) {
  const bool writeError = x.code == C::FixWriteError || x.code == C::FreeDiskSpace ||
                          x.code == C::MissingAtime;
  auto it = std::find_if(out.begin(), out.end(), [&](const LogAdvice &y) {
    return y.code == x.code && y.entry == x.entry && y.limit == x.limit &&
           (y.value == x.value ||
            (writeError && withoutEntryNames(y.value) == withoutEntryNames(x.value)));
  });
  if (it == out.end()) {
    out.push_back(std::move(x));
    it = out.end() - 1;
  }
  // The pairs are visited in order, so one already named is the last one
  // (a pair adding the same advice twice).
  if (item != kWholeRun && (it->programs.empty() || it->programs.back() != item))
    it->programs.push_back(item);
}

/// Names in `a` the options that the measured table of `log`'s release
/// says move exactly what moved (settingsMovingEntry): entry 1 alone when
/// a.entry is 0 or 1 (EveryProgram), else a.entry and at most entry 1 with
/// it (GlobalSetting, or entry 5 moved by nothing the logs show).
void nameMeasuredSettings(LogAdvice &a, const LogSummary &log) {
  std::string release = releaseOf(log);
  if (release.empty() || !jaxConfigTable(release))
    return;
  a.settings = settingsMovingEntry(release, a.entry > 1 ? a.entry : 1);
  a.settingsRelease = release;
}

/// LogKeys, where the keys were cut by interleaving: SeparateThreads.
void adviseThreads(std::vector<LogAdvice> &out, bool interleaved) {
  if (!interleaved)
    return;
  for (LogAdvice &a : out)
    if (a.code == LogAdvice::Code::LogKeys)
      a.code = LogAdvice::Code::SeparateThreads;
}

/// The advice for a moved key.
LogAdvice forMove(const KeyMove &move, int cause) {
  LogAdvice a;
  a.code = C::KeyMoved;
  switch (move.code) {
  case KeyMove::Code::EnableX64:
    a.code = C::SameX64;
    break;
  case KeyMove::Code::EveryProgram:
    a.code = C::SameGlobalSettings;
    break;
  case KeyMove::Code::GlobalSetting:
    a.code = C::SameGlobalSettings;
    a.entry = std::atoi(move.after.c_str());
    break;
  case KeyMove::Code::StaticOrConstant:
    a.code = C::StaticOrConstant;
    break;
  case KeyMove::Code::ArgTypes:
    // The same program called with other argument dtypes: a program of its
    // own, as for new shapes (the dtypes, where no shapes line is at hand).
    a.code = C::NewShapes;
    a.value = move.before + " \u2192 " + move.after;
    break;
  case KeyMove::Code::CacheDirMoved:
    a.code = C::SameCacheDirInKey;
    break;
  case KeyMove::Code::ArgShardings:
    a.code = C::SameShardings;
    a.value = move.before + " \u2192 " + move.after;
    break;
  case KeyMove::Code::ProfileVersion:
    a.code = C::SameProfileVersion;
    a.value = move.before + " \u2192 " + move.after;
    break;
  case KeyMove::Code::PgleSetting:
    a.code = C::SamePgle;
    a.value = move.after;
    break;
  case KeyMove::Code::XlaCachesSetting:
    a.code = C::SameXlaCaches;
    a.value = move.after;
    break;
  case KeyMove::Code::KernelCacheChanged:
    // The kernel cache file is enabled by the same setting ('all' or
    // 'xla_gpu_kernel_cache_file'); no run is named (value "").
    a.code = C::SameXlaCaches;
    break;
  case KeyMove::Code::JaxOwnProgram:
    a.code = C::JaxOwnProgram;
    break;
  case KeyMove::Code::None:
  case KeyMove::Code::Inconsistent:
  case KeyMove::Code::TraceMissing:
    a.code = C::LogKeys;
    break;
  default:
    a.entry = cause;
    if (!a.entry)
      a.code = C::LogKeys;
    break;
  }
  return a;
}

/// The advice for a miss whose key the first run had too.
LogAdvice forEqualKey(MissReason reason, const LogSummary &la,
                      const LogSummary &lb, const LoggedProgram *a) {
  LogAdvice x;
  switch (reason) {
  case MissReason::NotWritten:
  case MissReason::TooLarge:
    switch (a ? a->writeReason : NotWrittenReason::None) {
    case NotWrittenReason::CompileTime:
      x.code = C::LowerMinCompileTime;
      break;
    case NotWrittenReason::EntrySize:
      x.code = C::LowerMinEntrySize;
      break;
    case NotWrittenReason::HostCallbacks:
      x.code = C::HostCallbacks;
      break;
    case NotWrittenReason::NotProcessZero:
      x.code = C::NotProcessZero;
      break;
    case NotWrittenReason::CacheDisabled:
      x.code = C::ConfigureCacheEarly;
      break;
    case NotWrittenReason::TooLarge:
      x.code = C::EntryOverMaxSize;
      x.amount = double(a->write().entryBytes);
      x.limit = double(a->write().maxCacheBytes);
      break;
    case NotWrittenReason::None:
      x.code = C::LogWrites;
      break;
    }
    break;
  case MissReason::WriteFailed:
    x.code = a ? writeErrorAdvice(*a) : C::FixWriteError;
    x.value = a ? la.writeError(*a) : "";
    break;
  case MissReason::NoCacheYet:
    // Looked up before a cache was initialised: later in the run (the log
    // names its directory), or never.
    x.code = lb.cacheDirs.empty() ? C::SetCacheDir : C::ConfigureCacheEarly;
    break;
  case MissReason::NoFilelock:
    x.code = C::InstallFilelock;
    break;
  case MissReason::Damaged:
    x.code = C::DeleteDamaged;
    break;
  case MissReason::CompileOnlyClient:
    x.code = C::CompileOnlyCannotLoad;
    break;
  case MissReason::CheckContents:
    x.code = C::TurnOffCheckContents;
    break;
  case MissReason::Evicted:
    x.code = C::RaiseMaxSize;
    for (const LogSummary *l : {&la, &lb})
      for (const auto &[digest, e] : l->evicted)
        if (x.limit < 0 && e.targetBytes >= 0)
          x.limit = double(e.targetBytes);
    break;
  case MissReason::RelativeDir:
    x.code = C::AbsoluteCacheDir;
    x.value = lb.cacheDirs.empty() ? "" : lb.cacheDirs.front();
    break;
  case MissReason::OtherDir:
    x.code = C::SameCacheDir;
    for (const LogSummary *l : {&la, &lb})
      if (!l->cacheDirs.empty() && isRelativeCachePath(l->cacheDirs.front()))
        x.code = C::AbsoluteCacheDir, x.value = l->cacheDirs.front();
    break;
  case MissReason::FirstRunStopped:
    x.code = C::RunStopped;
    x.value = la.name;
    x.amount = double(la.endsCompilingAt);
    break;
  case MissReason::Gone:
  case MissReason::Removed:
    x.code = C::KeepCacheDir;
    x.evictionsLogged = la.lruLookupLines && lb.lruLookupLines && la.evicted.empty() &&
                        lb.evicted.empty();
    break;
  case MissReason::UnsupportedRuntime:
    x.code = C::UnsupportedRuntime;
    break;
  case MissReason::MaybeNoCache:
    x.code = C::SetCacheDir;
    break;
  case MissReason::Unknown:
    x.code = C::LogWrites;
    break;
  }
  return x;
}

} // namespace


/// Whether the second log reads as the earlier run: it hit nothing, and
/// every program it missed with the key the first log had (at least two),
/// the first log hit and the second then wrote (or went on to write). In
/// that order the cache
/// lost each entry between the runs (KeepCacheDir); logs given the other
/// way round read the same, with nothing lost.
bool looksReversed(const LogComparison &r) {
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  size_t written = 0;
  for (const ProgramPair &p : r.pairs) {
    if (p.b < 0)
      continue;
    const LoggedProgram &b = lb.programs[p.b];
    if (b.lookup == Lookup::Hit)
      return false;
    if (p.a < 0 || p.keys != ProgramPair::Keys::Equal || b.lookup != Lookup::Miss)
      continue;
    if (la.programs[p.a].lookup != Lookup::Hit ||
        (b.writeState != WriteState::Written && b.writeState != WriteState::Attempted))
      return false;
    ++written;
  }
  return written >= 2;
}

std::vector<LogAdvice> adviseLogComparison(const LogComparison &r) {
  const LogSummary &la = r.logs[0], &lb = r.logs[1];
  std::vector<LogAdvice> out;
  size_t hits = 0, misses = 0, inB = 0;
  auto add = [&out](LogAdvice x, size_t item) {
    addAdvice(out, std::move(x), static_cast<uint32_t>(item));
  };
  std::unordered_set<std::string_view> namesInA; // made when first needed
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    const ProgramPair &p = r.pairs[i];
    if (p.b < 0)
      continue;
    ++inB;
    const LoggedProgram &b = lb.programs[p.b];
    hits += b.lookup == Lookup::Hit;
    if (b.lookup != Lookup::Miss)
      continue;
    ++misses;
    const LoggedProgram *a = p.a >= 0 ? &la.programs[p.a] : nullptr;
    if (!a && p.keyOfFirst)
      // A key the first run computed too, missed again here: the pair that
      // holds the first run's program is advised (its outcome says why).
      continue;
    if (!a)
    {
      // The first run compiled this name with other argument shapes (the
      // pairing keeps a program with new shapes apart): name the shapes.
      if (namesInA.empty())
        for (const LoggedProgram &x : la.programs)
          namesInA.insert(x.name);
      const bool nameInA = !b.name.empty() && namesInA.count(b.name);
      if (const int from = r.renamedFrom(p); from >= 0) {
        // The first run's program of one run only, under a new name: the
        // name alone moved entry 1 (LogComparison::renames).
        LogAdvice x = advice(C::RenamedFunction);
        x.value = r.labelOf(r.pairs[from]);
        add(std::move(x), i);
      } else if (p.shapesInFirst) {
        // The first run compiled this name with these very argument shapes
        // and types, and the pairing still left this compile alone: its key
        // is none of theirs, so its module differs with nothing in its
        // inputs' shapes to show for it: a new static argument value or
        // captured Python constant (jax.jit's static_argnums/argnames).
        add(advice(C::StaticOrConstant), i);
      } else if (nameInA && b.shapes >= 0) {
        LogAdvice x = advice(C::NewShapes);
        x.value = lb.texts[b.shapes];
        add(std::move(x), i);
      } else {
        add(advice(C::NewPrograms), i);
      }
    }
    else if (p.keys != ProgramPair::Keys::Equal && b.lookupNoCache)
      // Looked up without a cache: it could not hit whatever its key (a key
      // made before the cache was set lacks the autotune path under it in
      // entry 5, jax <= 0.10.2).
      add(advice(lb.cacheDirs.empty() ? C::SetCacheDir : C::ConfigureCacheEarly), i);
    else if (p.keys == ProgramPair::Keys::Differ &&
             a->writeState == WriteState::NotWritten &&
             a->writeReason == NotWrittenReason::HostCallbacks)
      // Never cached by this release (jax <= 0.10.2): whether or not its key
      // moved (jax 0.4.30 puts the callback's address into the program), the
      // second run could not have read it.
      add(advice(C::HostCallbacks), i);
    else if (p.keys == ProgramPair::Keys::Differ) {
      LogAdvice x = forMove(r.moveOf(p), p.cause);
      if (x.code == C::NewShapes && b.shapes >= 0)
        x.value = lb.texts[b.shapes]; // the shapes and dtypes compiled for
      add(std::move(x), i);
    }
    else if (p.keys == ProgramPair::Keys::Unknown)
      add(advice(C::LogKeys), i);
    else {
      LogAdvice x = forEqualKey(p.miss ? *p.miss : MissReason::Unknown, la, lb, a);
      if (x.code == C::LowerMinCompileTime || x.code == C::LowerMinEntrySize) {
        // One item for the group: JAX writes when the compile time (entry
        // size) is at least the setting, so the fastest compile (smallest
        // entry) decides the setting that would cache them all.
        double v = x.code == C::LowerMinCompileTime ? a->write().compileSeconds
                                                    : double(a->write().entryBytes);
        auto it = std::find_if(out.begin(), out.end(),
                               [&](const LogAdvice &y) { return y.code == x.code; });
        if (it != out.end()) {
          if (v >= 0 && (it->amount < 0 || v < it->amount))
            it->amount = v;
          it->programs.push_back(static_cast<uint32_t>(i));
          continue;
        }
        x.amount = v;
      }
      add(std::move(x), i);
    }
  }
  // A write that failed in the second run itself (a read-only or full
  // cache folder, a missing -atime file under a size cap): whatever made
  // this run miss, the next run misses that key again.
  for (size_t i = 0; i < r.pairs.size(); ++i) {
    const ProgramPair &p = r.pairs[i];
    if (p.b < 0 || lb.programs[p.b].writeState != WriteState::Failed)
      continue;
    const LoggedProgram &b = lb.programs[p.b];
    LogAdvice w = advice(writeErrorAdvice(b));
    w.value = lb.writeError(b);
    add(std::move(w), i);
  }
  if (hits + misses == 0 && inB) {
    // No outcome lines: the keys alone say which programs would miss.
    for (size_t i = 0; i < r.pairs.size(); ++i) {
      const ProgramPair &p = r.pairs[i];
      if (p.b >= 0 && p.a >= 0 && p.keys == ProgramPair::Keys::Differ)
        add(forMove(r.moveOf(p), p.cause), i);
    }
    add(advice(C::LogOutcomes), kWholeRun);
  }
  else if (misses == 0 && !lb.endsInsideKeyAt())
    add(advice(C::NothingToDo), kWholeRun);
  // A second log that ends inside a key: what that program did is not in
  // it, whatever the rest says.
  if (size_t line = lb.endsInsideKeyAt()) {
    LogAdvice x = advice(C::LogCut);
    x.value = lb.name;
    x.amount = static_cast<double>(line);
    add(std::move(x), kWholeRun);
  }
  if (looksReversed(r)) {
    LogAdvice x = advice(C::OrderOfLogs);
    x.value = lb.name;
    add(std::move(x), kWholeRun);
  }
  for (LogAdvice &a : out)
    if (a.code == C::SameGlobalSettings || (a.code == C::KeyMoved && a.entry == 5))
      nameMeasuredSettings(a, lb);
  adviseThreads(out, keysInterleave(la) || keysInterleave(lb));
  return out;
}

std::vector<LogAdvice> adviseManyLogs(const ManyLogComparison &r) {
  std::vector<LogAdvice> out;
  auto add = [&out](LogAdvice x, size_t item) {
    addAdvice(out, std::move(x), static_cast<uint32_t>(item));
  };
  for (size_t i = 0; i < r.programs.size(); ++i)
    for (const OddRun &o : r.programs[i].odd) {
      const ProgramAcrossRuns &p = r.programs[i];
      if (o.move.code != KeyMove::Code::None) {
        // Read from the two runs' logs, as for two logs.
        add(forMove(o.move, o.cause), i);
        continue;
      }
      if (o.entries.empty()) {
        add(advice(C::LogKeys), i);
        continue;
      }
      // The first differing entry stands for the odd run's root cause, as
      // JAX hashes them in order (a jaxlib change moves 1, 5 and 6 too).
      int first = *std::min_element(o.entries.begin(), o.entries.end());
      bool jaxlib = std::count(o.entries.begin(), o.entries.end(), 2);
      if (!jaxlib && first == 1 && isJaxOwnProgram(p.name)) {
        add(advice(C::JaxOwnProgram), i);
        continue;
      }
      LogAdvice x = advice(C::KeyMoved);
      x.entry = jaxlib ? 2 : first;
      add(std::move(x), i);
    }
  // A write that failed in a run (a read-only or full cache folder) and
  // that no later run settled (read or wrote the same key): the next run
  // misses that key whatever the keys show.
  for (size_t i = 0; i < r.programs.size(); ++i)
    for (size_t run = 0; run < r.logs.size(); ++run) {
      int k = r.programs[i].program[run];
      if (k < 0)
        continue;
      const LoggedProgram &x = r.logs[run].programs[k];
      if (x.writeState != WriteState::Failed)
        continue;
      // Settled when a later run read or wrote the same key.
      bool settled = false;
      auto d = x.finalDigest();
      for (size_t later = run + 1; later < r.logs.size() && d && !settled; ++later) {
        int j = r.programs[i].program[later];
        if (j < 0)
          continue;
        const LoggedProgram &y = r.logs[later].programs[j];
        settled = y.finalDigest() == d &&
                  (y.lookup == Lookup::Hit || y.writeState == WriteState::Written);
      }
      if (settled)
        continue;
      LogAdvice w = advice(writeErrorAdvice(x));
      w.value = r.logs[run].writeError(x);
      add(std::move(w), i);
    }
  if (out.empty())
    out.push_back(advice(C::SharedKeys));
  for (LogAdvice &a : out)
    if (a.code == C::SameGlobalSettings)
      nameMeasuredSettings(a, r.logs.back());
  adviseThreads(out, std::any_of(r.logs.begin(), r.logs.end(), keysInterleave));
  // Logs without a cache line were left out: say how to log them.
  for (const LogSummary &log : r.logs)
    if (log.comparable().empty()) {
      LogAdvice x = advice(C::LogOutcomes);
      x.value = log.name;
      out.push_back(std::move(x));
    }
  return out;
}

} // namespace logs

const char *logAdviceName(LogAdvice::Code code) {
  switch (code) {
  case LogAdvice::Code::NothingToDo: return "nothing_to_do";
  case LogAdvice::Code::SharedKeys: return "shared_keys";
  case LogAdvice::Code::NewPrograms: return "new_programs";
  case LogAdvice::Code::NewShapes: return "new_shapes";
  case LogAdvice::Code::LogOutcomes: return "log_outcomes";
  case LogAdvice::Code::LogKeys: return "log_keys";
  case LogAdvice::Code::KeyMoved: return "key_moved";
  case LogAdvice::Code::SameX64: return "same_x64";
  case LogAdvice::Code::JaxOwnProgram: return "jax_own_program";
  case LogAdvice::Code::SameGlobalSettings: return "same_global_settings";
  case LogAdvice::Code::SameCacheDirInKey: return "same_cache_dir_in_key";
  case LogAdvice::Code::LowerMinCompileTime: return "lower_min_compile_time";
  case LogAdvice::Code::LowerMinEntrySize: return "lower_min_entry_size";
  case LogAdvice::Code::HostCallbacks: return "host_callbacks";
  case LogAdvice::Code::NotProcessZero: return "not_process_zero";
  case LogAdvice::Code::ConfigureCacheEarly: return "configure_cache_early";
  case LogAdvice::Code::FixWriteError: return "fix_write_error";
  case LogAdvice::Code::MissingAtime: return "missing_atime";
  case LogAdvice::Code::DeleteDamaged: return "delete_damaged";
  case LogAdvice::Code::CompileOnlyCannotLoad: return "compile_only_cannot_load";
  case LogAdvice::Code::TurnOffCheckContents: return "turn_off_check_contents";
  case LogAdvice::Code::InstallFilelock: return "install_filelock";
  case LogAdvice::Code::RaiseMaxSize: return "raise_max_size";
  case LogAdvice::Code::EntryOverMaxSize: return "entry_over_max_size";
  case LogAdvice::Code::AbsoluteCacheDir: return "absolute_cache_dir";
  case LogAdvice::Code::SameCacheDir: return "same_cache_dir";
  case LogAdvice::Code::KeepCacheDir: return "keep_cache_dir";
  case LogAdvice::Code::UnsupportedRuntime: return "unsupported_runtime";
  case LogAdvice::Code::SetCacheDir: return "set_cache_dir";
  case LogAdvice::Code::LogWrites: return "log_writes";
  case LogAdvice::Code::StaticOrConstant: return "static_or_constant";
  case LogAdvice::Code::SameXlaCaches: return "same_xla_caches";
  case LogAdvice::Code::SamePgle: return "same_pgle";
  case LogAdvice::Code::FreeDiskSpace: return "free_disk_space";
  case LogAdvice::Code::SameShardings: return "same_shardings";
  case LogAdvice::Code::RenamedFunction: return "renamed_function";
  case LogAdvice::Code::SameProfileVersion: return "same_profile_version";
  case LogAdvice::Code::SeparateThreads: return "separate_threads";
  case LogAdvice::Code::OrderOfLogs: return "order_of_logs";
  case LogAdvice::Code::LogCut: return "log_cut";
  case LogAdvice::Code::RunStopped: return "run_stopped";
  }
  return "unknown";
}

} // namespace cachekey
