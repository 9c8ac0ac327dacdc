//===- LogAdviceWording.cpp - The words of the log comparison's advice ----===//
//
// The only place that words LogAdvice (LogCompare.h). The settings named
// are the ones the release's own config.py, compiler.py and
// compilation_cache.py read (jax_persistent_cache_min_compile_time_secs,
// jax_persistent_cache_min_entry_size_bytes, jax_compilation_cache_max_size,
// jax_compilation_cache_dir), and lru_cache.py's handling of a missing
// -atime file (jax#39880; counted as 0 from jax 0.11.2).
//
//===----------------------------------------------------------------------===//
#include "LogFacts.h"

#include "cachekey/PyText.h"
#include "cachekey/Wording.h"

#include <cstdio>

namespace cachekey {

namespace {

std::string bytesText(double b) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f bytes", b);
  return buf;
}

/// The sentence naming the options that the table measured on
/// `a.settingsRelease` says move what moved (nameMeasuredSettings), led by a
/// space; "" when no table was asked.
std::string measuredSettingsText(const LogAdvice &a) {
  if (a.settingsRelease.empty())
    return "";
  const std::string what = a.entry > 1 ? "entry " + std::to_string(a.entry) +
                                             " (and entry 1 at most)"
                                       : std::string("entry 1 alone");
  if (a.settings.empty())
    return " No jax option moves " + what + " in the table measured on jax " +
           a.settingsRelease + " (fixtures/jax_config): look at XLA_FLAGS and "
           "the jax version first.";
  return " The jax options that move " + what + " in the table measured on jax " +
         a.settingsRelease + " (fixtures/jax_config): " +
         nameList(a.settings, a.settings.size()) + ".";
}

std::string words(const LogAdvice &a) {
  using C = LogAdvice::Code;
  switch (a.code) {
  case C::NothingToDo:
    return "Nothing to do: every program of the second run was read from the "
           "cache.";
  case C::SharedKeys:
    return "Nothing to do: every run computes the same key for every program "
           "it shares, so the runs can share one cache directory.";
  case C::NewPrograms:
    return "Nothing to do: a program the first run never compiled is compiled "
           "once and then cached, so the next run with the same inputs hits.";
  case C::NewShapes:
    return "compiled for argument shapes the first run did not use, " +
           (a.value.size() > 160 ? a.value.substr(0, 160) + "…" : a.value) +
           ": each new shape or dtype is a program of its own, compiled once "
           "and then cached. To reuse one entry, keep the shapes fixed (pad or "
           "bucket the inputs).";
  case C::LogOutcomes:
    return (a.value.empty() ? std::string()
                            : a.value + " holds no cache line, so it was left out. ") +
           "Log DEBUG for jax._src.compiler and jax._src.compilation_cache in "
           "both runs (logging.basicConfig() and setLevel(logging.DEBUG) on "
           "each; JAX_DEBUG_LOG_MODULES=jax._src.compiler,"
           "jax._src.compilation_cache prints them only with JAX_LOGGING_LEVEL "
           "set too) to see each hit, miss and write.";
  case C::LogKeys:
    return "Log DEBUG for jax._src.cache_key in both runs: its trace names "
           "the entry that moved.";
  case C::SeparateThreads:
    return "The cache-key lines were logged at DEBUG, but new keys began "
           "before others ended, again and again: programs compiled at once "
           "by several threads, their lines interleaved. Put the thread in "
           "the log format of both runs (logging.basicConfig(format="
           "\"%(thread)d %(levelname)s:%(name)s:%(message)s\")) so that each "
           "thread's 16 lines are read as one key.";
  case C::KeyMoved:
  {
    if (a.entry == 1)
      // A log holds entry 1's digest only, never the module: say what can
      // move it, and the two ways to see inside (capture + diff, the
      // structural module diff; or jax_dump_ir_to, interpreters/mlir.py).
      return "The program itself changed (entry 1, the module JAX hashes): "
             "its code, the shapes or dtypes of its arguments, or a Python "
             "value baked in at trace time (a static argument, a closure, a "
             "global). A log carries only the module's digest. To see what "
             "changed inside, capture both runs (python -m cachekey.capture "
             "--out DIR -- SCRIPT) and run cachekey diff on the two "
             "directories: it names the change in JAX's terms (a baked-in "
             "constant, matmul precision, donation, shardings, argument "
             "types, random-bit generation, the checkpoint policy, host "
             "callbacks and kernels). Or set JAX_DUMP_IR_TO=DIR in both runs "
             "and compare these programs' dumped modules by eye.";
    static const Advice byEntry[] = {
        Advice::Program,        Advice::JaxlibVersion, Advice::Backend,
        Advice::Flags,          Advice::CompileOptions, Advice::Accelerator,
        Advice::Compression,    Advice::CustomHook};
    return a.entry >= 1 && a.entry <= 8
               ? adviceText(byEntry[a.entry - 1]) + measuredSettingsText(a)
               : "";
  }
  case C::SameX64:
    return "Set jax_enable_x64 (JAX_ENABLE_X64) the same way in every run that "
           "shares the cache: it changes the dtypes of every program.";
  case C::JaxOwnProgram:
    return "Nothing to do on its own: JAX compiles this small program for an "
           "operation outside jit, with the shapes and dtypes of your arrays, so "
           "it moves when they do.";
  case C::SameGlobalSettings: {
    std::string text;
    if (a.entry == 5)
      text = "One setting outside the programs moved entry 5 (compile_options) "
             "of every program, and entry 1 of some with it: a jax option JAX "
             "passes in the compile options (jax_use_shardy_partitioner, "
             "jax_default_device_assignment…) or an XLA flag parsed into "
             "DebugOptions. Give every run that shares the cache the same jax "
             "settings and XLA_FLAGS; the logs do not say which one moved: "
             "capture both runs (python -m cachekey.capture) and run cachekey "
             "diff on them.";
    else if (a.entry > 1)
      text = "One setting outside the programs moved entry " +
             std::to_string(a.entry) + " of every program: give every run "
             "that shares the cache the same jax settings, XLA_FLAGS and "
             "devices; to see which moved, capture both runs (python -m "
             "cachekey.capture) and run cachekey diff on them.";
    else
      text = "One setting moved every program: give every run that shares the "
             "cache the same jax and jaxlib and the same settings that change "
             "every module (jax_compilation_cache_include_metadata_in_key, "
             "jax_enable_x64, jax_default_matmul_precision, "
             "jax_use_shardy_partitioner, jax_threefry_partitionable, "
             "jax_default_prng_impl); to see which moved, capture both runs "
             "(python -m cachekey.capture) and run cachekey diff on them.";
    return text + measuredSettingsText(a);
  }
  case C::SameCacheDirInKey:
    return "Use the same jax_compilation_cache_dir in every run: JAX writes "
           "the autotune cache path under it into DebugOptions (entry 5), so "
           "another directory is another key.";
  case C::SameShardings:
    return "Place the arguments the same way in every run (the same mesh and "
           "PartitionSpec for jax.device_put, or the same in_shardings of "
           "jax.jit): a program's input shardings are written into its module "
           "(entry 1), so each placement is another key (" +
           shortened(a.value, 300) + ").";
  case C::SameProfileVersion:
    return "Give every run the same jax_xla_profile_version "
           "(JAX_XLA_PROFILE_VERSION; 0, the default, lets JAX ask for the "
           "latest XLA-AutoFDO profile, and -1 in its compile options means "
           "none): compiler.py puts it into the compile options' "
           "profile_version, which entry 5 hashes (" + a.value + " here).";
  case C::SamePgle:
    return "Give every run that shares the cache the same jax_enable_pgle "
           "(and jax_compilation_cache_expect_pgle): " + a.value + " compiled "
           "under PGLE, which compiles each program with other options (XLA's "
           "command buffers off while it profiles, then the profile), so its "
           "entries have other keys (entry 5) than a run without PGLE writes "
           "or reads.";
  case C::SameXlaCaches:
    if (a.value.empty())
      return "Give every run that shares the cache the same "
             "jax_persistent_cache_enable_xla_caches (or JAX_PERSISTENT_CACHE_"
             "ENABLE_XLA_CACHES): the runs differ in the XLA kernel cache file it "
             "enables under the cache directory ('all' or "
             "'xla_gpu_kernel_cache_file'), whose path their DebugOptions hold "
             "(entry 5).";
    return "Give every run that shares the cache the same "
           "jax_persistent_cache_enable_xla_caches (or JAX_PERSISTENT_CACHE_"
           "ENABLE_XLA_CACHES): " + a.value + " enabled no XLA autotuning "
           "cache, so its DebugOptions lack the autotune path under the cache "
           "directory, which the other run's DebugOptions hold (entry 5; jax "
           "0.11.0 and later no longer hash that path).";
  case C::LowerMinCompileTime:
    return "To cache programs this fast, set "
           "jax_persistent_cache_min_compile_time_secs to at most " +
           (a.amount >= 0 ? logs::seconds(a.amount) + ", the fastest of their compile times"
                          : std::string("their compile time")) +
           " (0 caches every program: jax.config.update(\"jax_persistent_cache_min_compile_time_secs\", 0)"
           " or JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0).";
  case C::LowerMinEntrySize:
    return "To cache entries this small, set "
           "jax_persistent_cache_min_entry_size_bytes to at most " +
           (a.amount >= 0 ? bytesText(a.amount) + ", the smallest of them"
                          : std::string("their size")) +
           " (0 caches every entry).";
  case C::HostCallbacks:
    return "Nothing to change in the cache: this release never writes a "
           "program that uses host callbacks, so it compiles again in every "
           "run.";
  case C::NotProcessZero:
    return "Nothing to do: only process 0 writes entries; the other "
           "processes read what it wrote when they share its cache directory.";
  case C::ConfigureCacheEarly:
    return "Configure the cache before the first JAX operation (jax.config."
           "update or JAX_COMPILATION_CACHE_DIR and "
           "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS in the environment): "
           "programs compiled earlier are never looked up or written.";
  case C::FixWriteError:
    return "Fix what the write error says (\"" + a.value +
           "\": space, permissions or the path of the cache directory); "
           "until then nothing is cached.";
  case C::FreeDiskSpace:
    return "Free space on the disk that holds the cache directory, or point "
           "jax_compilation_cache_dir at one with room (\"" + a.value +
           "\"); with jax_compilation_cache_max_size set below the free space, "
           "the LRU keeps the directory under it. Until then the entries that "
           "did not fit are not written, and every run compiles them again.";
  case C::MissingAtime:
    return "Delete the entry's -cache file whose -atime file is missing (`cachekey "
           "cache-dir DIR` lists these orphans), or upgrade to jax 0.11.2 or "
           "later, which counts a missing -atime as 0; until then every write "
           "with jax_compilation_cache_max_size set fails.";
  case C::InstallFilelock:
    return "Install the filelock package (pip install filelock) where JAX runs, "
           "or unset jax_compilation_cache_max_size: with a cap set and no "
           "filelock, JAX cannot open the cache, so nothing is read or written "
           "and every program compiles again.";
  case C::DeleteDamaged:
    return "Delete the damaged entries from the cache directory (`cachekey "
           "cache-dir DIR` names them): JAX never replaces an existing file, so "
           "they miss until removed, and the next miss writes them again.";
  case C::CompileOnlyCannotLoad:
    return "Nothing to delete: these entries are not damaged. A compile-only "
           "client (a deviceless topology from "
           "jax.experimental.topologies.get_topology_desc, or the CUDA plugin's "
           "compile-only client) writes entries but cannot load any (\"PjRtCompiler "
           "must be constructed with a Client\"), so the persistent cache does "
           "not save a deviceless compile: each one compiles again, and such "
           "runs never hit. Deleting the entries changes nothing.";
  case C::TurnOffCheckContents:
    return "Set jax_compilation_cache_check_contents back to False (its "
           "default; JAX_COMPILATION_CACHE_CHECK_CONTENTS): it is a check of "
           "the cache itself, and with it on each process compiles every "
           "program once although its entry is there, to compare the fresh "
           "executable with the stored one. The entries are fine.";
  case C::RaiseMaxSize:
    return "Raise jax_compilation_cache_max_size above what one run writes" +
           (a.limit >= 0 ? " (the Evicting lines' target cache size, the cap "
                           "less the entry being written, is " +
                               bytesText(a.limit) + ")"
                         : std::string()) +
           ", or set it to -1 for no cap: the LRU evicts entries before they "
           "are used again.";
  case C::EntryOverMaxSize:
    return "Raise jax_compilation_cache_max_size above the entry's size" +
           (a.amount >= 0 ? " (" + bytesText(a.amount) +
                                (a.limit >= 0 ? ", cap " + bytesText(a.limit) : "") + ")"
                          : std::string()) +
           ": a larger entry is never written.";
  case C::AbsoluteCacheDir:
    return "Give jax_compilation_cache_dir an absolute path" +
           (a.value.empty() ? std::string() : " instead of " + pyRepr(a.value)) +
           ": a relative one is resolved against each run's working directory.";
  case C::SameCacheDir:
    return "Point every run at the same jax_compilation_cache_dir (shared "
           "storage for several machines).";
  case C::KeepCacheDir:
    return std::string("Keep the cache directory between runs: a temporary or "
                       "per-job directory, or a cleanup, loses its entries; "
                       "check that the path is on storage every run sees. ") +
           (a.evictionsLogged
                ? "Neither run's LRU evicted them (both log jax._src.lru_cache "
                  "at DEBUG, and neither has an \"Evicting cache entry\" "
                  "line): with jax_compilation_cache_max_size set, another "
                  "process sharing the directory may have."
                : "With jax_compilation_cache_max_size set, the LRU may have "
                  "evicted them: log DEBUG for jax._src.lru_cache to see its "
                  "\"Evicting cache entry\" lines.");
  case C::OrderOfLogs:
    return "Or the logs are in the other order: " + a.value + " reads as "
           "the earlier run (it hit nothing, and wrote each entry the first "
           "log then found). If so, give the earlier run's log first "
           "(cachekey compare-logs EARLIER LATER): nothing was lost from the "
           "cache.";
  case C::RunStopped:
    return a.value + " stopped while it compiled " + (a.programs.size() > 1 ? "them" : "it") +
           ": its log ends after the miss at line " +
           std::to_string(static_cast<long long>(a.amount)) +
           ", with no compile time or write, so the entry was never written (the "
           "run was killed, crashed, timed out or its log was cut). Let that run "
           "finish its compile, or find what stopped it (the end of its output, "
           "the job's exit status, the OOM killer); the next complete run writes "
           "the entry.";
  case C::LogCut:
    return a.value + " ends in the middle of a key (line " +
           std::to_string(static_cast<long long>(a.amount)) +
           "), so what its last program did is not known: compare the log "
           "of a whole run, or find what stopped the run (the end of its "
           "output, the job's exit status).";
  case C::UnsupportedRuntime:
    return "Nothing to change in the cache: this runtime never uses the "
           "persistent compilation cache.";
  case C::SetCacheDir:
    return "Set jax_compilation_cache_dir (or JAX_COMPILATION_CACHE_DIR): the "
           "logs show no cache directory, and without one nothing is written.";
  case C::LogWrites:
    return "Log DEBUG for jax._src.compilation_cache in both runs: it says "
           "whether and why each entry was written.";
  case C::RenamedFunction:
    return "probably " + a.value + " of the first run under a new name (the "
           "same argument shapes and types, and the same entries 2 to 8; "
           "only entry 1 differs). JAX names the lowered module after the "
           "function, so a rename alone gives a new key; the logs show entry "
           "1's digest, not the module, so a change made with the rename "
           "(its body, donate_argnums, a static value) would look the same. "
           "Nothing to fix: it is compiled once and then cached. If the "
           "rename is all that changed, keeping the old name (or its "
           "__name__) lets the runs share the entry.";
  case C::StaticOrConstant:
    return "Each call compiled another program with the same argument shapes: "
           "a static argument (static_argnums / static_argnames) took a new "
           "value, the function captures a Python constant that changed "
           "(a new closure or a global), or a setting in effect around the "
           "call differed (a jax.default_matmul_precision or jax.enable_x64 "
           "context, or a jax.config option changed between calls), or the "
           "function is jitted more than once with other options "
           "(donate_argnums, keep_unused, in_shardings / out_shardings, "
           "compiler_options) or is another function of the same name. Pass "
           "such values as traced arguments, or keep them the same between "
           "runs, and jit each function once; to see which, compare the programs "
           "(jax.jit(f).lower(...).as_text(), or JAX_DUMP_IR_TO) or capture "
           "both runs (cachekey diff).";
  }
  return "";
}

} // namespace

std::string logAdviceText(const LogAdvice &advice, const NameSample &labels) {
  std::string w = words(advice);
  if (labels.empty())
    return w;
  return nameList(labels) + ": " + w;
}

namespace {

/// logAdviceText naming the items by `r.adviceLabel`, made for the first
/// few only.
template <class Comparison>
std::string adviceTextOf(const Comparison &r, const LogAdvice &advice) {
  NameSample labels;
  for (uint32_t i : advice.programs)
    labels.add([&] { return r.adviceLabel(i); });
  return logAdviceText(advice, labels);
}

} // namespace

std::string LogComparison::adviceText(const LogAdvice &advice) const {
  return adviceTextOf(*this, advice);
}

std::string ManyLogComparison::adviceText(const LogAdvice &advice) const {
  return adviceTextOf(*this, advice);
}

} // namespace cachekey
