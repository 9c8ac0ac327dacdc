//===- CpuMaxIsa.h - The CPU target under --xla_cpu_max_isa -----*- C++ -*-===//
//
// Entry 6 of a CPU program hashes the client's topology, whose target
// machine is an LLVM CPU name and a feature string. XLA's CPU client builds
// that target from the host (`TargetMachineOptions(const DebugOptions&)`,
// xla/backends/cpu/target_machine_options.cc) and, when `xla_cpu_max_isa`
// names a ceiling it knows, turns off every host feature newer than the
// ceiling (`DetectMachineAttributes` and `ShouldEnableCpuFeature`,
// xla/backends/cpu/codegen/cpu_features.cc). If that turned any feature off,
// the CPU name becomes the oldest generation with the ceiling
// (`CpuTargetFromMaxFeature`), else it stays the host's. When an AVX-512
// feature is left on, XLA adds `prefer-no-gather` and `prefer-no-scatter`.
//
// The rule grew with XLA: jaxlib 0.12.0.1's XLA also knows `AMX_FP8`
// (diamondrapids) and, under every older ceiling, turns off what Diamond
// Rapids adds over Granite Rapids (AVX10.2, the remaining AMX tiles, the APX
// extensions); jaxlib 0.10.2's knows neither and logs "Unknown CPU ISA" for
// AMX_FP8 (observed with both releases). `CpuIsaRule` names the two.
//
// This file applies that rule to a captured target, so that a ceiling moves
// entry 6 as it would on the capture's own host, whatever host the engine
// runs on. The rule was read in openxla/xla; the topologies measured by
// tools/xla-flag-table (fixtures/xla_flags/<jaxlib>.json, "topology") and
// the real keys of fixtures/xla_flags/hosts/ check it for each jaxlib.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_CPUMAXISA_H
#define CACHEKEY_CPUMAXISA_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cachekey {

/// The x86 ceilings XLA's `CpuFeatureFromString` knows, oldest first (the
/// order is the order of the generations: a ceiling keeps every feature an
/// older one keeps).
enum class CpuIsa : uint8_t {
  Sse4_2,     ///< "SSE4_2"
  Avx,        ///< "AVX"
  Avx2,       ///< "AVX2"
  Avx512,     ///< "AVX512" (XLA's AVX512F)
  Avx512Vnni, ///< "AVX512_VNNI"
  Avx512Bf16, ///< "AVX512_BF16"
  Amx,        ///< "AMX" (XLA's AMX_BF16, with AMX_INT8)
  AmxFp16,    ///< "AMX_FP16"
  AmxFp8,     ///< "AMX_FP8" (known from jaxlib 0.12.0.1's XLA)
};

/// Which version of XLA's ceiling rule a jaxlib carries.
enum class CpuIsaRule : uint8_t {
  /// Ceilings SSE4_2 to AMX_FP16; nothing past Granite Rapids is turned off
  /// (jaxlib 0.10.2).
  ToGraniteRapids,
  /// Also AMX_FP8; every ceiling up to AMX_FP16 also turns off amx-fp8,
  /// amx-tf32, amx-avx512, amx-movrs, avx10.2*, egpr, ndd, ccmp, nf, zu,
  /// ppx, push2pop2, movrs and jmpabs (jaxlib 0.12.0.1).
  ToDiamondRapids,
};

/// The ceiling a `--xla_cpu_max_isa` value names, compared without regard
/// to ASCII case as XLA compares it; nullopt for "" and for a value XLA does
/// not know under `rule` (it logs "Unknown CPU ISA" and applies no ceiling).
std::optional<CpuIsa> cpuIsaFromFlag(std::string_view value, CpuIsaRule rule);

/// The flag value of `isa`, e.g. "AVX2".
const char *cpuIsaName(CpuIsa isa);

/// The LLVM CPU name XLA gives the target when `isa` turned a host feature
/// off, e.g. "haswell" for AVX2.
const char *cpuIsaTargetCpu(CpuIsa isa);

/// Whether XLA leaves LLVM feature `feature` (no sign, e.g. "avx512f") on
/// under ceiling `isa`, by `rule`.
bool cpuIsaKeeps(CpuIsa isa, std::string_view feature, CpuIsaRule rule);

/// A CPU target machine: the LLVM CPU name and the feature string as the
/// topology serialises it ("+a,+b,-c": enabled features in byte order, then
/// disabled ones in byte order).
struct CpuTarget {
  std::string cpu, features;
  /// Host features the ceiling turned off (0 when no ceiling, or when the
  /// ceiling is above everything the host has).
  size_t turnedOff = 0;
};

/// The target XLA's CPU client builds on a host whose target without a
/// ceiling is `host` (as a capture without `--xla_cpu_max_isa` records it),
/// under ceiling `isa` (nullopt: none), by `rule`. The host's own feature list is the
/// captured one less the `prefer-no-gather` and `prefer-no-scatter` XLA
/// added for AVX-512 (LLVM's host detection reports no tuning features).
/// Byte order throughout; an item with no leading '+' or '-' is dropped, as
/// XLA's own split of a feature string drops it.
CpuTarget cpuTargetUnder(const CpuTarget &host, std::optional<CpuIsa> isa, CpuIsaRule rule);

} // namespace cachekey

#endif // CACHEKEY_CPUMAXISA_H
