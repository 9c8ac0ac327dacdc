//===- JaxConfigTable.h - Which JAX options move which entries --*- C++ -*-===//
//
// A JAX option (jax/_src/config.py: jax.config.update, JAX_* variables) can
// move a persistent cache key in several places: the lowered program (entry
// 1, e.g. jax_default_prng_impl), the CompileOptionsProto (entry 5, e.g.
// jax_use_shardy_partitioner), the device assignment's topology (entry 6,
// jax_num_cpu_devices), or no key at all (jax_enable_compilation_cache).
// Which, and in which kinds of program, is not written here: each release's
// table (fixtures/jax_config/<jax>.json, schema in its README.md) is
// measured with real JAX by tools/jax_config/generate.py, one option set to
// a non-default value per fresh process, and compiled in. This file reads a
// table and answers "which settings move exactly these entries".
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_JAXCONFIGTABLE_H
#define CACHEKEY_JAXCONFIGTABLE_H

#include "cachekey/Support.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cachekey {

/// The kinds of program the table's probe set compiles (ProbeKinds.def).
enum class ProbeKind : uint8_t {
#define PROBE_KIND(Name, code) Name,
#include "cachekey/ProbeKinds.def"
};

/// The JSON code of `kind`, e.g. "float_constant".
const char *probeKindCode(ProbeKind kind);

/// The kind whose code is `code`, or nullopt.
std::optional<ProbeKind> probeKindFromCode(const std::string &code);

/// Every kind, in ProbeKinds.def order.
const std::vector<ProbeKind> &allProbeKinds();

/// Entries by their 1-based position in cache_key.get (1 = computation … 8 =
/// custom_hook in releases with eight entries; 0.4.30 hashes seven).
using EntrySet = std::set<int>;

/// What setting one option did to one probe program, against the baseline.
struct ProbeEffect {
  enum class Outcome : uint8_t {
    Key,           ///< a key was computed; `moved` says which entries moved
    NoKey,         ///< no key was computed (the cache was not used)
    Error,         ///< the program raised and computed no key
    EntriesDiffer, ///< the logged entry names differ from the baseline's
    OtherProgram,  ///< JAX compiled other programs in its place (`modules`),
                   ///< e.g. one per primitive under jax_disable_jit
  };
  Outcome outcome = Outcome::Key;
  EntrySet moved;    ///< Key: entries whose digest differs from the baseline
  bool keyMoved = false; ///< Key: the final running digest differs
  /// Key: each moved entry's digest under the option (64 hex digits), as
  /// its DEBUG log line "get_cache_key hash of serialized …" shows it.
  std::map<int, std::string> after;
  std::string error; ///< JAX's exception (Error; sometimes with Key)
  std::vector<std::string> modules; ///< OtherProgram: the modules compiled instead
};

/// One option of the release's config registry.
struct JaxOption {
  enum class Status : uint8_t {
    Measured, ///< set to `value` in a fresh process and compiled
    Skipped,  ///< not set: `reason` says why (no known alternative, refused)
    Failed,   ///< the process failed: `reason`
  };
  std::string name;   ///< e.g. "jax_use_shardy_partitioner"
  std::string holder; ///< the registry's holder class ("State", "Flag", …)
  std::string type;   ///< "bool", "optional_bool", "enum", "enum_class", "int", "float", "string", "optional"
  std::string defaultJson; ///< the default, as JSON text ("true", "\"threefry2x32\"", "null")
  std::string valueJson;   ///< Measured: the value set, as JSON text
  std::vector<std::string> allowed; ///< enum / enum_class: the allowed values
  Status status = Status::Skipped;
  std::string reason;
  std::map<ProbeKind, ProbeEffect> programs; ///< Measured
  /// Measured: the union of `moved` over the programs.
  EntrySet moves() const;
};

/// One probe program of the baseline process (no option set).
struct ProbeBaseline {
  std::string description;
  std::string key;                  ///< the final key, e.g. "jit_dot-<hex>" ("" if not logged)
  std::vector<std::string> digests; ///< per-entry digests, entry 1 first
};

/// One release's table.
struct JaxConfigTable {
  std::string jax, jaxlib, python, date, command; ///< provenance
  std::vector<std::string> entries; ///< entry names as cache_key.py logs them, entry 1 first
  std::map<ProbeKind, ProbeBaseline> programs;
  /// Entries that differed between two baseline processes, per kind (never
  /// counted as moved).
  std::map<ProbeKind, EntrySet> unstable;
  std::map<std::string, JaxOption> options; ///< by name
};

/// Reads a table in the fixtures/jax_config/README.md schema.
///
/// Errors (values, never exceptions), each with the JSON path of the
/// offending value: Syntax ("$") for text that is not JSON; Missing for an
/// absent required member ("$.entries"); Type for a member of the wrong JSON
/// type ("$.options.jax_enable_x64.programs.dot.moved[0]"); Invalid for an
/// unknown program kind, status or outcome, or an entry number outside
/// 1..entries.size().
Expected<JaxConfigTable> readJaxConfigTable(const std::string &text);

/// The table measured in jax release `jaxVersion` ("0.10.2", "0.12.0.1"),
/// compiled in from fixtures/jax_config/, or nullptr when there is none.
const JaxConfigTable *jaxConfigTable(const std::string &jaxVersion);

/// The releases with a compiled-in table, in version order.
std::vector<std::string> jaxConfigTableVersions();

/// The measured options that, in every program kind of `moves`, computed a
/// key and moved exactly that kind's entries (no more, no fewer), by name.
///
/// `moves` maps a program kind to the entries seen to move in it, e.g.
/// {Elementwise: {5}, Sharded: {1, 5}}; kinds absent from `moves` are not
/// looked at. An empty `moves` matches nothing. A kind the table did not
/// measure for an option (an older table) does not match.
std::vector<const JaxOption *>
settingsMovingExactly(const JaxConfigTable &table,
                      const std::map<ProbeKind, EntrySet> &moves);

/// The same query with one entry set for all of `kinds`: the options that
/// move exactly `entries` in each of them (e.g. {5} in {Elementwise, Dot}).
std::vector<const JaxOption *>
settingsMovingExactly(const JaxConfigTable &table, const EntrySet &entries,
                      const std::vector<ProbeKind> &kinds);

} // namespace cachekey

#endif // CACHEKEY_JAXCONFIGTABLE_H
