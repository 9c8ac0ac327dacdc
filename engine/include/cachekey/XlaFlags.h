//===- XlaFlags.h - What XLA itself does with XLA_FLAGS ---------*- C++ -*-===//
//
// Entry 4 hashes XLA_FLAGS as text (Flags.h). XLA also parses the same
// variable, once per process, into the `DebugOptions` of every
// CompileOptionsProto (entry 5; `GetDebugOptionsFromFlags`,
// xla/debug_options_flags.cc) and into the CPU client (the device count and
// the LLVM target of entry 6), and aborts on a flag it does not register
// ("Unknown flag in XLA_FLAGS: …", xla/parse_flags_from_env.cc).
//
// The rules are not written here: each jaxlib's table
// (fixtures/xla_flags/<jaxlib>.json) is measured in that jaxlib by
// tools/xla_flags/generate.py and compiled in. This file reads a table,
// splits XLA_FLAGS as XLA does and says what each flag sets.
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_XLAFLAGS_H
#define CACHEKEY_XLAFLAGS_H

#include "cachekey/CpuMaxIsa.h"
#include "cachekey/Scenario.h"
#include "cachekey/Support.h"
#include "cachekey/Wire.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cachekey {

/// How one flag's value reaches DebugOptions, as its table measured it.
struct XlaFlagRule {
  enum class Effect : uint8_t {
    None,     ///< the samples changed no DebugOptions field
    Field,    ///< one field, by the parse rule below
    Observed, ///< no single rule fits: only the measured values are known
  };
  enum class Parse : uint8_t { Bool, Int, Float, String, CommaList, Enum, EnumList, Unknown };
  std::string name;         ///< without dashes, e.g. "xla_cpu_enable_fast_math"
  std::string type;         ///< XLA's type: "bool", "int32", "int64", "float", "string"
  Effect effect = Effect::None;
  uint32_t number = 0;      ///< DebugOptions field number (Field)
  std::string field;        ///< its name in the text format ("" if not seen)
  WireType wire = WireType::Varint;
  Parse parse = Parse::Unknown;
  bool repeatAppends = false; ///< CommaList: a second occurrence appends
  std::map<std::string, bool> spellings;     ///< Bool: value text → value ("" = bare)
  std::map<std::string, int64_t> enumValues; ///< Enum: name → number
  /// EnumList: name → the numbers it gave alone; a comma list is the
  /// concatenation of its names' numbers, packed into one field.
  std::map<std::string, std::vector<int64_t>> enumLists;
  /// EnumList: a number given twice stays once (the setter keeps a set).
  bool enumListDropsRepeats = false;
  /// Values XLA refused when measured (it aborts on them).
  std::vector<std::string> refused;
  /// The field as a process without flags writes it (maybe absent).
  std::vector<WireField> defaultWire;
  /// Observed: value text ("" = bare) → the DebugOptions fields it changed,
  /// each number with its occurrences after the change (empty: absent).
  std::map<std::string, std::map<uint32_t, std::vector<WireField>>> observed;
};

/// The CPU topology a CPU client reports for one setting, measured.
struct MeasuredCpuTarget {
  std::string value; ///< the flag's value, e.g. "AVX2"
  std::string cpu, features;
};

/// One jaxlib's table.
struct XlaFlagTable {
  std::string jaxlib;
  std::map<std::string, XlaFlagRule> flags;
  /// The DebugOptions fields a process without flags writes: number → its
  /// occurrences.
  std::map<uint32_t, std::vector<WireField>> defaultDebug;
  /// The host CPU the topology measurements were made on, and its features
  /// without flags.
  std::string hostCpu, hostFeatures;
  std::vector<MeasuredCpuTarget> maxIsa;
  /// The version of XLA's `--xla_cpu_max_isa` rule this jaxlib carries
  /// (CpuMaxIsa.h).
  CpuIsaRule cpuIsaRule = CpuIsaRule::ToGraniteRapids;
};

/// The table measured in jaxlib `jaxlibVersion`, or nullptr when none is
/// compiled in (fixtures/xla_flags/ holds 0.10.2 and 0.12.0.1).
const XlaFlagTable *xlaFlagTable(const std::string &jaxlibVersion);

/// The jaxlib versions with a table, in version order.
std::vector<std::string> xlaFlagTableVersions();

/// XLA_FLAGS split the way XLA splits it (`ParseArgvFromString`,
/// xla/parse_flags_from_env.cc): at ASCII whitespace, a `--name="…"` or
/// `--name='…'` value unquoted (backslash escapes inside double quotes), and
/// nothing read after the first word that does not start with '-'.
std::vector<std::string> xlaArgv(const std::string &xlaFlags);

/// One flag of XLA_FLAGS and what XLA makes of it.
struct ParsedXlaFlag {
  std::string flag;                 ///< as split by xlaArgv
  std::string name;                 ///< without dashes and value
  std::optional<std::string> value; ///< unset for a bare `--name`
  const XlaFlagRule *rule = nullptr;
};

/// What a whole XLA_FLAGS value sets.
struct XlaFlagEffects {
  std::vector<ParsedXlaFlag> flags;
  /// DebugOptions field number → its occurrences after parsing (empty:
  /// absent), the last flag's setting winning.
  std::map<uint32_t, std::vector<WireField>> debugFields;
  /// DebugOptions field number → the flags that set it (for the reader).
  std::map<uint32_t, std::vector<std::string>> setBy;
  std::optional<int64_t> deviceCount;  ///< --xla_force_host_platform_device_count
  std::optional<std::string> maxIsa;   ///< --xla_cpu_max_isa
  /// Flags whose DebugOptions effect the table cannot give for this value
  /// (a value no rule covers): the key may not be JAX's.
  std::vector<std::string> unknownEffect;
};

/// Parses `xlaFlags` with `table` as XLA would.
///
/// Errors at `path` (the JSON path of the XLA_FLAGS value): a flag the
/// jaxlib does not register is UnknownFlag, with XLA's own words ("Unknown
/// flag in XLA_FLAGS: --x"), the release and the flag as subject; a value
/// XLA refuses (it was refused when measured, or is not an integer for an
/// integer flag) is Invalid, naming the flag and the release.
Expected<XlaFlagEffects> parseXlaFlags(const XlaFlagTable &table,
                                       const std::string &xlaFlags,
                                       const std::string &path);

/// The DebugOptions fields `flag` (as split by xlaArgv) set in `effects`,
/// by name (the table's, else "field N"), in field-number order.
std::vector<std::string> xlaFlagDebugFields(const XlaFlagEffects &effects,
                                            const std::string &flag);

/// `proto` (a serialized CompileOptionsProto) with the DebugOptions fields
/// that `before` set put back to what a process without flags writes, then
/// those of `after` set: the proto a process started under `after` would
/// have built, given one built under `before`.
///
/// Errors: MalformedProto (empty path) when a message on the path does not
/// parse.
Expected<Bytes> replaceXlaFlagEffects(const Bytes &proto,
                                      const XlaFlagTable &table,
                                      const XlaFlagEffects &before,
                                      const XlaFlagEffects &after);

} // namespace cachekey

#endif // CACHEKEY_XLAFLAGS_H
