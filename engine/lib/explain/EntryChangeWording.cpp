//===- EntryChangeWording.cpp - The words of what moved in an entry -------===//
//
// entryChangeText: the one wording of an EntryChange (Diff.h), whichever
// comparison found it: two computed keys (compareResults), two captures
// (CaptureDiff.h) or two runs' logs (the log-only codes of EntryChanges.def,
// LogCompare.h). No code parses a sentence this writes.
//
//===----------------------------------------------------------------------===//
#include "cachekey/Wording.h"

#include "cachekey/DebugOptions.h"
#include "cachekey/ModuleDiff.h"
#include "cachekey/PyText.h"

namespace cachekey {

namespace {

/// At most `max` names, then "and N more" (no "and" before the last).
std::string someNames(const std::vector<std::string> &names, size_t max = 16) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < max; ++i)
    s += (i ? ", " : "") + names[i];
  if (names.size() > max)
    s += " and " + std::to_string(names.size() - max) + " more";
  return s;
}

std::string repr(const std::string &s) { return shortened(pyRepr(s)); }

const char *specKindPhrase(const std::string &kind) {
  return kind == "fingerprint"    ? "a supplied fingerprint"
         : kind == "cpu_topology" ? "a CPU topology"
         : kind == "gpu_topology" ? "a GPU topology"
                                  : "the device_kind fallback";
}

} // namespace

std::string entryChangeText(const EntryChange &c) {
  using C = EntryChange::Code;
  const std::string arrow = " \u2192 ";
  auto ids = [](const std::vector<std::string> &v) {
    return "[" + someNames(v, 8) + "]";
  };
  auto fingerprint = [](const std::string &hex, bool standIn) {
    return hex + (standIn ? " (stand-in)" : "");
  };
  // The log-only codes' values are as the logs give them, already written
  // for a person (decoded texts as Python prints them, digests, "unset").
  auto logged = [&] { return c.before + arrow + c.after; };
  switch (c.code) {
  case C::ModuleFinding:
    return c.module ? moduleFindingText(*c.module) : "";
  case C::ModuleBytes:
    return "the module bytecode differs (" + std::to_string(c.sizeBefore) +
           arrow + std::to_string(c.sizeAfter) +
           " bytes, first difference at byte " +
           std::to_string(c.firstDifference) + ")";
  case C::SymName:
    return "sym_name " + repr(c.before) + arrow + repr(c.after);
  case C::JaxlibVersion:
    return "jaxlib version " + repr(c.before) + arrow + repr(c.after);
  case C::BackendHashedOneSide:
    return std::string("entry 3 is ") +
           (c.firstSide ? "hashed on the first side only"
                        : "hashed on the second side only") +
           " (jax 0.6.0 added it)";
  case C::BackendPart:
    return c.subject + " " + repr(c.before) + arrow + repr(c.after);
  case C::BackendJoined:
    return "platform and platform_version feed the same bytes joined "
           "differently";
  case C::Flag:
    return flagChangeText(c.flag);
  case C::CompileOption:
    return fieldChangeText(c.field, 200);
  case C::AcceleratorKind:
    return std::string(specKindPhrase(c.before)) + arrow + specKindPhrase(c.after);
  case C::CpuModel:
    return "CPU model " + pyRepr(c.before) + arrow + pyRepr(c.after);
  case C::TargetTriple:
    return "target triple " + pyRepr(c.before) + arrow + pyRepr(c.after);
  case C::CpuFeaturesAdded:
    return "CPU features added: " + someNames(c.names);
  case C::CpuFeaturesRemoved:
    return "CPU features removed: " + someNames(c.names);
  case C::CpuFeaturesRewritten:
    return "CPU feature string written differently (same features enabled)";
  case C::DeviceCount:
    return "devices " + std::to_string(c.sizeBefore) + arrow +
           std::to_string(c.sizeAfter) + " (ids " + ids(c.namesBefore) + arrow +
           ids(c.names) + ")";
  case C::DeviceIds:
    return "device ids " + ids(c.namesBefore) + arrow + ids(c.names);
  case C::GpuPlatformVersion:
    return "GPU platform_version " + shortened(pyRepr(c.before)) + arrow +
           shortened(pyRepr(c.after));
  case C::GpuCount:
    return c.subject + " " + c.before + arrow + c.after;
  case C::DeviceKinds: {
    std::vector<std::string> ra, rb;
    for (const auto &k : c.namesBefore)
      ra.push_back(pyRepr(k));
    for (const auto &k : c.names)
      rb.push_back(pyRepr(k));
    return "device kinds (" + std::to_string(ra.size()) + arrow +
           std::to_string(rb.size()) + " devices) [" + shortened(someNames(ra, 4)) +
           "]" + arrow + "[" + shortened(someNames(rb, 4)) + "]";
  }
  case C::Fingerprint:
    return "topology fingerprint " + fingerprint(c.before, c.standInBefore) +
           arrow + fingerprint(c.after, c.standInAfter);
  case C::FingerprintToFallback:
    return "topology fingerprint " + fingerprint(c.before, c.standInBefore) +
           arrow + "device_kind fallback";
  case C::FallbackToFingerprint:
    return "device_kind fallback" + arrow + "topology fingerprint " +
           fingerprint(c.after, c.standInAfter);
  case C::AcceleratorBytes:
    return "the accelerator config feeds other bytes";
  case C::Compression:
    return "compression " + repr(c.before) + arrow + repr(c.after);
  case C::CustomHook:
    return "custom_hook " + repr(c.before) + arrow + repr(c.after);
  case C::PlatformCollision:
    return "platform " + pyRepr(c.namesBefore[0]) + " + " + pyRepr(c.namesBefore[1]) +
           " and " + pyRepr(c.names[0]) + " + " + pyRepr(c.names[1]) +
           " differ but feed the same bytes: hash-string puts no separator "
           "between strings";
  case C::FlagsCollision:
    return "the kept flags differ but feed the same bytes: flags are hashed "
           "one after another with no separator";
  case C::ModuleOptionsCaptured:
    return "the module options differ (" + c.before + arrow + c.after +
           ") but entry 1 holds bytes captured from jaxlib, which options "
           "cannot change; capture the module again with them, or give its "
           "text";
  case C::OnlySymName:
    return "only the module name differs (" + repr(c.before) + arrow +
           repr(c.after) + "): it is the key's readable prefix, not hashed";
  case C::StrippedEqual:
    return c.subject + " " + pyRepr(c.before) + " and " + pyRepr(c.after) +
           " feed the same bytes: hash-string strips ASCII whitespace from "
           "both ends before hashing";
  case C::Entry1DigestOnly:
    return "entry-1 SHA-256 " + c.before + arrow + c.after +
           " (captured as digests only: the bytes were not kept)";
  // What two runs' logs show.
  case C::ProgramChanged:
    return "the program itself changed: its MLIR, with locations stripped, "
           "is different (a log holds only the digest: compare "
           "jax.jit(f).lower(\u2026).as_text() of both runs)";
  case C::ArgTypes:
    return "the argument types changed, " + c.subject +
           " (pxla's \"Compiling \u2026 with global shapes and types\" lines: " +
           shortened(c.before, 120) + " \u2192 " + shortened(c.after, 120) + ")";
  case C::EnableX64:
    return "the argument types changed, " + c.subject +
           " (pxla's \"Compiling \u2026 with global shapes and types\" lines: " +
           shortened(c.before, 120) + " \u2192 " + shortened(c.after, 120) +
           "): JAX's default types are 64-bit when jax_enable_x64 is on "
           "(JAX_ENABLE_X64=1 in the environment, or jax.config.update); "
           "check the second run's environment";
  case C::JaxOwnProgram:
    return c.subject + " is a program JAX compiles itself for an operation "
           "run outside jit (jnp.ones, an array's + or *, …): it moves with "
           "what your code passes to that operation (the shapes, dtypes and "
           "static arguments, such as jnp.ones' shape) or with a global "
           "setting (jax_enable_x64, "
           "jax_compilation_cache_include_metadata_in_key, a jax upgrade)";
  case C::EveryProgram:
    if (c.jaxOwn)
      return "entry 1 of all " + std::to_string(c.sizeAfter) +
             " paired programs moved, JAX's own programs "
             "(jit_broadcast_in_dim, \u2026) among them: not your code but "
             "one setting that changes every module: "
             "jax_compilation_cache_include_metadata_in_key (source locations "
             "in the key), jax_enable_x64, jax_use_shardy_partitioner, or a "
             "jax upgrade";
    return "entry 1 of all " + std::to_string(c.sizeAfter) +
           " paired programs moved, with the same argument shapes and types "
           "in both runs: most likely one setting that changes every "
           "module (jax_compilation_cache_include_metadata_in_key: source "
           "locations in the key; "
           "jax_default_matmul_precision, jax_threefry_partitionable, "
           "jax_default_prng_impl, jax_use_shardy_partitioner, a jax upgrade), "
           "unless the code of every program changed";
  case C::JaxlibVersions:
    return "jaxlib " + logged();
  case C::JaxlibNotRelease:
    return logged() +
           " (a version that is not a release: a development build?)";
  case C::BackendDecoded:
    return logged();
  case C::BackendOneSide:
    return "the backend version is hashed in one run only (jax before 0.6.0 "
           "has no entry 3)";
  case C::BackendPlatform:
    return "the platform or its version changed (another CUDA, driver or "
           "libtpu): " + logged();
  case C::FlagsNotLogged:
    return "the kept XLA flags changed (their \"Including XLA flag\" lines "
           "were not logged)";
  case C::CacheDirMoved:
    return "the cache directory's path changed: JAX writes its XLA "
           "autotuning cache path into " + debugFieldLabel(kAutotuneField) +
           ", which entry 5 hashes, " + logged() +
           " (jax 0.11.0 and later zero this field; before that, give "
           "every run the same jax_compilation_cache_dir path, spelled the "
           "same: one folder reached through a link or a relative path is "
           "another path)";
  case C::KernelCacheOneSide:
    return "the XLA kernel cache is enabled in " + c.subject +
           " only (jax_persistent_cache_enable_xla_caches): it sets " +
           debugFieldLabel(kKernelField) + " " + logged() + " and " +
           debugFieldLabel(kParallelismField);
  case C::ArgShardings:
    return "the same argument shapes and types, placed otherwise: " +
           (c.subject.empty() ? std::string("the argument mapping")
            : c.subject.find(',') == std::string::npos ? "argument " + c.subject + "'s sharding"
                                                        : "the shardings of arguments " + c.subject) +
           " (pxla.py's \"Compiling …\" line) moved " + shortened(c.before, 160) +
           " \u2192 " + shortened(c.after, 160) + "; the shardings are in the module";
  case C::ProfileVersion:
    return "the compile options' profile_version moved " + c.before + " \u2192 " +
           c.after + " (compiler.py logs it before each key: "
           "jax_xla_profile_version, or the latest XLA-AutoFDO profile's; -1 is "
           "none)";
  case C::PgleOneSide:
    return c.subject + " compiled it under PGLE (jax_enable_pgle or "
           "jax_compilation_cache_expect_pgle: its log holds the PGLE probe key "
           "JAX computes before the program's own), which compiles with other "
           "options: XLA's command buffers off while it profiles, then the "
           "profile";
  case C::XlaCachesOneSide:
    return c.subject + " used the persistent cache but enabled no XLA "
           "autotuning cache (jax_persistent_cache_enable_xla_caches without "
           "xla_gpu_per_fusion_autotune_cache_dir, e.g. 'none'), so " +
           debugFieldLabel(kAutotuneField) + " " + logged() +
           ": the same cache directory, another key";
  case C::KernelCacheMoved:
    return "the XLA kernel cache path moved: " + debugFieldLabel(kKernelField) +
           " " + logged();
  case C::CompileOptionsLogged:
    return "the compile options JAX logged differ: " + shortened(c.before, 100) +
           " \u2192 " + shortened(c.after, 100);
  case C::ExcludedFlagHashed:
    return "--" + c.subject + " is excluded from entry 4, but XLA still "
           "parses it into " + debugFieldLabel(c.subject) +
           ", which JAX does not zero";
  case C::CompileOptionsUnknown: {
    const bool allLogged = c.optionsLoggedSame && (c.pathsLoggedSame || !c.hashesAutotune);
    std::string hint = "the compile options moved, and the logs show nothing "
                       "that moved them";
    hint += allLogged ? std::string(" (both show the same ") +
                            (c.pathsLoggedSame ? "cache directory and " : "") +
                            "device assignment). "
                      : ". ";
    if (c.hashesAutotune && !c.pathsLoggedSame)
      hint += "On jax 0.10.x and older entry 5 contains the cache directory "
              "path, in " + debugFieldLabel(kAutotuneField) +
              ": did the runs use different jax_compilation_cache_dir? ";
    if (!c.names.empty())
      hint += "The jax options that move entry 5 (and at most entry 1) in the "
              "table measured on jax " + c.subject + " (fixtures/jax_config): " +
              nameList(c.names, 8) + ". ";
    hint += std::string(c.names.empty() ? "Candidates" : "Other candidates") +
            ": per-jit compiler_options, a DebugOptions value from XLA_FLAGS "
            "that entry 4 excludes" +
            (c.optionsLoggedSame ? "" : ", the device assignment") + ". ";
    return hint + (allLogged ? "Capture" : "Enable DEBUG on jax._src.compiler to "
                                           "log the cache paths and devices, or "
                                           "capture") +
           " both runs as scenarios and run `cachekey diff`";
  }
  case C::LoggedDeviceCount:
    return "the device count changed: " + logged() +
           " (excluded from entry 4 itself, but it sets how many CPU "
           "devices the client has, and the topology fingerprint covers "
           "every device)";
  case C::DeviceKindFallback:
    return "the devices were hashed by device_kind (the runtime has no "
           "topology) in " + c.subject + ": " + shortened(c.after, 160);
  case C::DevicesUnknown:
    return "the devices changed: another CPU model or feature set (CI "
           "runners on different hardware), another device count, or "
           "another GPU or TPU; a log holds only the digest of the topology "
           "fingerprint (capture both runs as scenarios and run `cachekey "
           "diff` to see the fields)";
  case C::LoggedCompression:
    return "compression " + logged() +
           " (the zstandard package is installed for one run only, or one "
           "run uses Python 3.14 or later)";
  case C::LoggedCustomHook:
    return "custom_hook " + logged();
  }
  return "";
}


} // namespace cachekey
