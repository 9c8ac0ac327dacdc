//===- Scenario.h - The one scenario format ---------------------*- C++ -*-===//
//
// A scenario names every ingredient of one cache key. Its JSON form is
// documented in docs/scenario.md; the CLI, the wasm API, the fixtures and the
// page's permalinks all use it. Reading is strict: unknown keys, wrong types
// and bad values are Errors whose path is the JSON path of the culprit.
//
// Reading is two steps: `resolveBase` merges a `"base"` chain
// (ScenarioBase.cpp), then `scenarioFromJson` walks the members
// (ScenarioReader.cpp, with the typed reads of ScenarioSchema.h).
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_SCENARIO_H
#define CACHEKEY_SCENARIO_H

#include "cachekey/Json.h"
#include "cachekey/Profile.h"
#include "cachekey/Support.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cachekey {

/// The scenario format version this engine reads and writes.
constexpr int kScenarioSchema = 1;

/// jax 0.10.2 `cache_key.IgnoreCallbacks`.
enum class IgnoreCallbacks { No, All, CustomPartitioning };

/// Entry 1 input.
struct ModuleSpec {
  std::string symName;
  /// Exact entry-1 bytes as captured from jaxlib; used as-is.
  std::optional<Bytes> entry1;
  /// MLIR text (or bytecode) to canonicalise live.
  std::optional<std::string> text;
  bool includeMetadata = false;
  IgnoreCallbacks ignoreCallbacks = IgnoreCallbacks::No; // jax 0.4.36–0.10.2
  bool ignoreCustomPartitioning = false;                 // jax 0.11.0 and later
};

/// Entry 4 inputs: the process environment and argv.
struct FlagInputs {
  std::optional<std::string> xlaFlags;       // XLA_FLAGS, unset when empty
  std::optional<std::string> libtpuInitArgs; // LIBTPU_INIT_ARGS
  std::vector<std::string> argv;             // sys.argv
  std::vector<std::string> extraPrefixes;    // cache_key.add_flag_prefixes
};

/// An `OptionOverrideProto` value: string, bool, int64 or double.
using OverrideValue = std::variant<std::string, bool, int64_t, double>;

/// Structured edits to `CompileOptionsProto`, applied before the cache-key
/// edits, the way the Python API would have set them.
struct CompileOptionsEdits {
  /// DebugOptions field name → JSON value (bool, integer, string or float).
  std::vector<std::pair<std::string, Json>> debugOptions;
  std::optional<std::vector<std::pair<std::string, OverrideValue>>>
      envOptionOverrides;
  /// R rows (replicas) of C columns (computations) of device ids.
  std::optional<std::vector<std::vector<int64_t>>> deviceAssignment;
  std::optional<int64_t> numReplicas;
  std::optional<int64_t> numPartitions;
  std::optional<Bytes> fdoProfile;

  bool empty() const {
    return debugOptions.empty() && !envOptionOverrides && !deviceAssignment &&
           !numReplicas && !numPartitions && !fdoProfile;
  }
};

/// Entry 5 input.
struct CompileOptionsSpec {
  Bytes proto; // CompileOptionsProto as SerializeAsString() returned it
  CompileOptionsEdits edits;
  /// `compile_options.xla_flags`: the XLA_FLAGS that XLA parsed in the
  /// process that built `proto` ("" for none). When set, the engine makes
  /// entry 5 (and the CPU devices and target of entry 6) follow the
  /// scenario's own XLA_FLAGS instead (XlaFlags.h): the effect of these
  /// flags is taken out and that of `flags.XLA_FLAGS` put in. Unset: the
  /// proto is used as given and XLA_FLAGS reaches entry 4 only (also
  /// when the scenario says `false`: XLA parsed none of its flags).
  std::optional<std::string> parsedXlaFlags;
};

struct FingerprintSpec {
  uint64_t value = 0;
  std::string provenance;
  bool standIn = false;
};

struct CpuDevice {
  int32_t processIndex = 0;
  int32_t localHardwareId = 0;
};

/// The fields of XLA's `CpuTopologyProto` that the fingerprint covers: the
/// devices, then either the LLVM target machine (`target_machine_options`,
/// jaxlib 0.9.1 and later) or, in older jaxlibs, one `machine_attributes`
/// string per host feature, in the order jaxlib wrote them.
struct CpuTopology {
  std::vector<CpuDevice> devices;
  std::string triple, cpu, features;
  std::optional<std::vector<std::string>> machineAttributes;
};

/// The scalar fields of XLA's `GpuTopologyProto`.
struct GpuTopology {
  std::string platformVersion;
  int32_t numPartitions = 0;
  int32_t numHostsPerPartition = 0;
  int32_t numDevicesPerHost = 0;
  std::optional<int32_t> numDevicesPerProcess;
};

/// The `device_kind` fallback, used when the runtime raises.
struct DeviceKinds {
  std::vector<std::string> kinds;
  std::string error; // the runtime's message, quoted in JAX's INFO line
  /// The exception class as Python prints it in that line, e.g.
  /// "<class 'jax.errors.JaxRuntimeError'>"; empty means the profile's
  /// default (ProfileSpec::fallbackErrorType).
  std::string errorType;
};

using AcceleratorSpec =
    std::variant<FingerprintSpec, CpuTopology, GpuTopology, DeviceKinds>;

/// Entry 7: the name, or the runtime it is derived from (Compression.h).
struct CompressionSpec {
  std::string name = "zstandard";
  /// Set when the scenario gave a runtime instead of a name.
  std::optional<std::string> python;
  bool zstandardInstalled = true;
};

/// Every ingredient of one key.
struct Scenario {
  Profile profile = kNewestProfile;
  ModuleSpec module;
  std::string jaxlibVersion;
  std::string platform;
  std::string platformVersion;
  /// `backend.runtime_type`, fed by releases before 0.8.2 (entry 3, or the
  /// entry-6 fallback before 0.6.0). "pjrt_ifrt" is what jaxlib's PjRt
  /// clients report (measured on jaxlib 0.10.2, CPU).
  std::string runtimeType = "pjrt_ifrt";
  FlagInputs flags;
  CompileOptionsSpec compileOptions;
  AcceleratorSpec accelerator;
  CompressionSpec compression;
  std::string customHook;
};

/// Looks up a fixture's scenario JSON by id, for `"base"`. An id it does not
/// know is an Error with code UnknownFixture and the id as subject.
using FixtureResolver = std::function<Expected<Json>(const std::string &id)>;

/// Resolves `"base"` chains by RFC 7386 merge patch over the fixture's
/// scenario (at most 8 levels) and returns the merged document, without
/// `base`. Members with several forms (accelerator, compression, the
/// module's entry1_b64 or text, its two callback spellings) are replaced,
/// not merged; the base's annotations (id, title, provenance, expected, …)
/// are dropped. `resolver` may be empty when no base is used.
///
/// Errors: path "$" (Type) when `document` is not an object; "$.schema"
/// (Missing, Unsupported) unless the document itself says schema 1;
/// "$.base" for a base that is not a string (Type), that `resolver` does not
/// know (UnknownFixture, subject: the id) or that is not an object, and for
/// a chain deeper than 8 (TooLarge).
Expected<Json> resolveBase(const Json &document, const FixtureResolver &resolver);

/// Reads a scenario document (after `resolveBase`), validating every member.
///
/// Errors name the JSON path of the first bad member, e.g.
/// "$.flags.argv[1]" (Type), "$.backend.platfrom" (UnknownKey),
/// "$.module" (Missing), "$.profile" (UnknownProfile),
/// "$.compile_options.proto_b64" (Syntax: bad base64), "$.schema" (Missing,
/// Unsupported). A wrong value has code Invalid (an integer out of range, an
/// unknown enum name, two forms where one is allowed).
Expected<Scenario> scenarioFromJson(const Json &document);

/// `resolveBase` then `scenarioFromJson`; the Error is the first step's.
Expected<Scenario> readScenario(const Json &document,
                                const FixtureResolver &resolver);

} // namespace cachekey

#endif // CACHEKEY_SCENARIO_H
