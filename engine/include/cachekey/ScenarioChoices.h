//===- ScenarioChoices.h - Ready-made values for two ingredients -*- C++ -*-===//
//
// The values the page offers in its pickers for entry 7 (what the process
// reports as its compression) and entry 3 (a platform_version string), as
// facts with the engine's words for them, so that the page keeps no JAX
// fact of its own: it builds its options from scenarioChoicesToJson (the
// wasm `scenarioChoices()`). The facts are here (ScenarioChoices.cpp), the
// words in ScenarioChoicesWording.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_SCENARIOCHOICES_H
#define CACHEKEY_SCENARIOCHOICES_H

#include "cachekey/Json.h"
#include "cachekey/Scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cachekey {

/// One value of a scenario's `compression` (docs/scenario.md): a name given
/// directly, which entry 7 hashes as it is, or a runtime (a Python version
/// and whether the zstandard package is installed), from which
/// compressionName (Compression.h) picks the name the release's
/// jax/_src/compilation_cache.py would pass to cache_key.get.
struct CompressionChoice {
  /// A stable id, the page's option value ("zlib", "py313-zstd", …).
  std::string id;
  CompressionSpec spec;
};

/// The compression choices, in the picker's order: "zlib" and "zstandard"
/// given directly; then one runtime per outcome of compilation_cache.py's
/// choice: Python 3.13 with zstandard ("zstandard"), Python 3.13 without it
/// ("zlib"), and Python 3.14 with it ("zlib" from jax 0.7.1 on, which
/// compresses with the standard library's compression.zstd: see
/// writesStdlibZstd; "zstandard" before).
const std::vector<CompressionChoice> &compressionChoices();

/// What kind of backend reports a platform_version.
enum class PlatformVersionKind : uint8_t {
  Cpu,       ///< jaxlib's CPU client
  Gpu,       ///< a GPU backend built into jaxlib
  GpuPlugin, ///< a GPU backend through a PJRT plugin (the C API)
};
/// "cpu", "gpu", "gpu_plugin".
const char *platformVersionKindName(PlatformVersionKind k);

/// A platform_version string to pick for entry 3.
struct PlatformVersionChoice {
  PlatformVersionKind kind;
  std::string platformVersion; ///< as the backend reports it (lines joined by '\n')
};

/// The platform_version choices, in the picker's order:
/// - "cpu", what jaxlib's CPU client reports (every real log of this
///   project, jax 0.10.2 and 0.12.0.1; engine/data/known_strings.json);
/// - "cuda 12080", the form a process on a real GPU is expected to report
///   ("cuda" and the CUDA runtime version; not measured: no GPU was used,
///   see fixtures/derived/gpu_2proc.json);
/// - "PJRT C API\ncuda 12", the form expected through a PJRT plugin: the
///   C API's first line, as the TPU strings measured with libtpu start
///   (fixtures/tpu_topologies.json), then the CUDA version (not measured).
/// The TPU strings measured with libtpu are not here: the page offers them
/// from fixtures/tpu_topologies.json.
const std::vector<PlatformVersionChoice> &platformVersionChoices();

/// The picker's label of a compression choice: "zlib (name given
/// directly)", "Python 3.13, zstandard not installed", … (ScenarioChoicesWording.cpp).
std::string compressionChoiceText(const CompressionChoice &c);
/// The picker's label of a platform_version: the string itself for the CPU,
/// "GPU: …" and "GPU through the plugin: …" (its lines joined by " / ").
std::string platformVersionChoiceText(const PlatformVersionChoice &c);

/// {"compression": [{code: "name", id, name, value, text} | {code:
/// "runtime", id, python, zstandard_installed, value, text}],
/// "platform_versions": [{code: "cpu" | "gpu" | "gpu_plugin",
/// platform_version, text}]}: `value` is the scenario's `compression` member
/// for that choice (a string, or {python, zstandard_installed}).
Json scenarioChoicesToJson();

} // namespace cachekey

#endif // CACHEKEY_SCENARIOCHOICES_H
