//===- CompileOptionsEdits.cpp - Entry 5: the edits -----------------------===//
//
// Two sets of edits on a serialized CompileOptionsProto, both at the wire
// level (Wire.h) so that every field they do not touch is written back byte
// for byte: the scenario's structured edits (what setting attributes on the
// Python `CompileOptions` would have done) and JAX's cache-key edits
// (`_hash_serialized_compile_options` in jax/_src/cache_key.py).
//
//===----------------------------------------------------------------------===//
#include "cachekey/CompileOptions.h"

#include "CompileOptionsDetail.h"
#include "cachekey/PyText.h"
#include "xla_subset.pb.h"

#include <algorithm>
#include <climits>
#include <map>
#include <unordered_set>

namespace cachekey {

using namespace detail;

namespace {

/// `v` as DebugOptions field `f` on the wire, checked against the table's
/// kind; the Error (at `path`) names the field and the kind it needs.
Expected<WireField> encodeDebugValue(const DebugOptionField &f, const Json &v,
                                     const std::string &path) {
  const FieldKind k = f.kind;
  const std::string kind = fieldKindName(k);
  if (k == FieldKind::Bool) {
    if (!v.is_boolean())
      return Error{path, "DebugOptions." + f.name + " is a bool"};
    return WireField::makeVarint(f.number, v.get<bool>() ? 1 : 0);
  }
  if (k == FieldKind::String) {
    if (!v.is_string())
      return Error{path, "DebugOptions." + f.name + " is a string"};
    return WireField::makeLen(f.number, v.get<std::string>());
  }
  if (k == FieldKind::Float || k == FieldKind::Double) {
    if (!v.is_number())
      return Error{path, "DebugOptions." + f.name + " is a " + kind};
    WireField w;
    w.number = f.number;
    if (k == FieldKind::Float) {
      float x = v.get<float>();
      w.type = WireType::Fixed32;
      w.payload.assign(reinterpret_cast<const char *>(&x), 4);
    } else {
      double x = v.get<double>();
      w.type = WireType::Fixed64;
      w.payload.assign(reinterpret_cast<const char *>(&x), 8);
    }
    return w;
  }
  if (!v.is_number_integer())
    return Error{path, "DebugOptions." + f.name + " is an integer (" + kind + ")"};
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return Error{path, "DebugOptions." + f.name + ": integer out of range"};
  if ((k == FieldKind::Int32 || k == FieldKind::Enum) &&
      (v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX))
    return Error{path, "DebugOptions." + f.name + " is a " + kind +
                           ": " + std::to_string(v.get<int64_t>()) +
                           " is out of range"};
  return WireField::makeVarint(f.number,
                               static_cast<uint64_t>(v.get<int64_t>()));
}

/// An OptionOverrideProto holding `value` (1 string, 2 bool, 3 int, 4 double).
Bytes encodeOverride(const OverrideValue &value) {
  xla::OptionOverrideProto p;
  if (auto *s = std::get_if<std::string>(&value))
    p.set_string_field(*s);
  else if (auto *b = std::get_if<bool>(&value))
    p.set_bool_field(*b);
  else if (auto *i = std::get_if<int64_t>(&value))
    p.set_int_field(*i);
  else
    p.set_double_field(std::get<double>(value));
  return p.SerializeAsString();
}

/// `rows` (R replicas × C computations of device ids) as a serialized
/// DeviceAssignmentProto: replica_count R, computation_count C, then for
/// each computation its R replica device ids.
Bytes encodeDeviceAssignment(const std::vector<std::vector<int64_t>> &rows) {
  xla::DeviceAssignmentProto p;
  size_t replicas = rows.size(), computations = rows.empty() ? 0 : rows[0].size();
  p.set_replica_count(static_cast<int32_t>(replicas));
  p.set_computation_count(static_cast<int32_t>(computations));
  for (size_t c = 0; c < computations; ++c) {
    auto *dev = p.add_computation_devices();
    for (size_t r = 0; r < replicas; ++r)
      dev->add_replica_device_ids(rows[r][c]);
  }
  return p.SerializeAsString();
}

/// A map entry of env_option_overrides: its key and its whole entry bytes.
struct OverrideEntry {
  std::string key;
  WireField field;
};

/// The env_option_overrides entries of `co`, in wire order.
Expected<std::vector<OverrideEntry>> readOverrides(const WireMessage &co) {
  std::vector<OverrideEntry> entries;
  for (const auto &f : co.fields) {
    if (f.number != field::kEnvOptionOverrides)
      continue;
    auto entry = parseNamed(f.payload, "env_option_overrides entry");
    if (!entry)
      return entry.takeError();
    entries.push_back({lastPayload(*entry, 1), f});
  }
  return entries;
}

/// Replaces all env_option_overrides with `entries`: last value per key wins,
/// ordered by key (protobuf's deterministic map order).
void writeOverrides(WireMessage &co, std::vector<OverrideEntry> entries) {
  std::map<std::string, WireField> byKey;
  for (auto &e : entries)
    byKey[e.key] = std::move(e.field);
  co.removeAll(field::kEnvOptionOverrides);
  auto pos = std::find_if(co.fields.begin(), co.fields.end(),
                          [](const WireField &f) {
                            return f.number > field::kEnvOptionOverrides;
                          });
  std::vector<WireField> sorted;
  for (auto &kv : byKey)
    sorted.push_back(std::move(kv.second));
  co.fields.insert(pos, sorted.begin(), sorted.end());
}

} // namespace

Expected<Bytes> applyStructuredEdits(const Bytes &proto,
                                     const CompileOptionsEdits &edits,
                                     bool explicitZeroes) {
  if (edits.empty())
    return proto;
  const std::string path = "$.compile_options";
  auto co = parseNamed(proto, "CompileOptionsProto");
  if (!co)
    return co.takeError(path + ".proto_b64");
  auto ebo = parseNamed(lastPayload(*co, field::kExecutableBuildOptions),
                        "ExecutableBuildOptionsProto");
  if (!ebo)
    return ebo.takeError(path + ".proto_b64");
  if (!edits.debugOptions.empty()) {
    auto dbg = parseNamed(lastPayload(*ebo, field::kDebugOptions),
                          "DebugOptions");
    if (!dbg)
      return dbg.takeError(path + ".proto_b64");
    for (const auto &kv : edits.debugOptions) {
      std::string p = path + ".edits.debug_options." + kv.first;
      const DebugOptionField *f = findDebugOption(kv.first);
      if (!f)
        return Error{p, "unknown DebugOptions field (the known names are in "
                        "fixtures/debug_options_fields.json)"};
      auto w = encodeDebugValue(*f, kv.second, p);
      if (!w)
        return w.takeError();
      const bool zero = w->type == WireType::Varint
                            ? w->varint == 0
                            : w->payload.find_first_not_of('\0') == Bytes::npos;
      if (zero && !explicitZeroes)
        dbg->removeAll(w->number); // proto3: a zero is not written
      else
        dbg->setSorted(std::move(*w));
    }
    ebo->setMessage(field::kDebugOptions, dbg->serialize());
  }
  auto setInt = [&](uint32_t number, int64_t v) {
    if (v == 0)
      ebo->removeAll(number); // proto3 implicit presence: zero is not written
    else
      ebo->setSorted(WireField::makeVarint(number, static_cast<uint64_t>(v)));
  };
  if (edits.numReplicas)
    setInt(field::kNumReplicas, *edits.numReplicas);
  if (edits.numPartitions)
    setInt(field::kNumPartitions, *edits.numPartitions);
  if (edits.deviceAssignment)
    ebo->setSorted(WireField::makeLen(
        field::kDeviceAssignment, encodeDeviceAssignment(*edits.deviceAssignment)));
  if (edits.fdoProfile) {
    if (edits.fdoProfile->empty())
      ebo->removeAll(field::kFdoProfile);
    else
      ebo->setSorted(WireField::makeLen(field::kFdoProfile, *edits.fdoProfile));
  }
  co->setMessage(field::kExecutableBuildOptions, ebo->serialize());
  if (edits.envOptionOverrides) {
    std::vector<OverrideEntry> entries;
    for (const auto &kv : *edits.envOptionOverrides) {
      WireMessage entry;
      entry.fields.push_back(WireField::makeLen(1, kv.first));
      entry.fields.push_back(WireField::makeLen(2, encodeOverride(kv.second)));
      entries.push_back(
          {kv.first, WireField::makeLen(field::kEnvOptionOverrides,
                                        entry.serialize())});
    }
    writeOverrides(*co, std::move(entries));
  }
  return co->serialize();
}

Expected<EditedCompileOptions> applyCacheKeyEdits(const Bytes &proto,
                                                  Profile profile,
                                                  const std::string &platform) {
  EditedCompileOptions result;
  result.input = proto;
  auto co = parseNamed(proto, "CompileOptionsProto");
  if (!co)
    return co.takeError();
  auto ebo = parseNamed(lastPayload(*co, field::kExecutableBuildOptions),
                        "ExecutableBuildOptionsProto (CompileOptionsProto "
                        "field 3)");
  if (!ebo)
    return ebo.takeError();
  auto dbg = parseNamed(lastPayload(*ebo, field::kDebugOptions),
                        "DebugOptions (ExecutableBuildOptionsProto field 3)");
  if (!dbg)
    return dbg.takeError();

  // 1. Zero the debug fields. jaxlib 0.7.0 and later keep a zero on the wire
  //    (explicit presence); older jaxlibs leave it out (proto3).
  const bool explicitZeroes = profileSpec(profile).explicitZeroes;
  for (const ZeroedField &z : zeroedDebugFields(profile)) {
    WireField zero = z.kind == ZeroKind::String
                         ? WireField::makeLen(z.number, "")
                         : WireField::makeVarint(z.number, 0);
    auto before = occurrences(*dbg, z.number);
    const bool unchanged = explicitZeroes
                               ? before.size() == 1 && *before[0] == zero
                               : before.empty();
    if (!unchanged) {
      CacheKeyEdit e;
      e.code = CacheKeyEdit::Code::Zeroed;
      e.name = z.name;
      e.number = z.number;
      e.before = describeValue(before.empty() ? nullptr : before.back(),
                               z.kind == ZeroKind::String ? FieldKind::String
                                                          : FieldKind::Int);
      e.after = z.kind == ZeroKind::String ? "\"\"" : "0";
      e.zero = !explicitZeroes  ? CacheKeyEdit::Zero::NotWritten
               : before.empty() ? CacheKeyEdit::Zero::Added
                                : CacheKeyEdit::Zero::Replaced;
      result.changes.push_back(std::move(e));
    }
    if (explicitZeroes)
      dbg->setSorted(std::move(zero));
    else
      dbg->removeAll(z.number);
  }
  ebo->setMessage(field::kDebugOptions, dbg->serialize());

  // 3. GPU: renumber the device assignment 0 … R·C−1. The steps are
  //    numbered in JAX's order (CompileOptions.h); this one runs before
  //    step 2 here. They edit disjoint fields (ExecutableBuildOptionsProto
  //    field 9, CompileOptionsProto field 7), so the bytes do not depend on
  //    the order; only which of two malformed inputs is reported does.
  if (platform == "gpu") {
    if (const WireField *da = ebo->last(field::kDeviceAssignment)) {
      xla::DeviceAssignmentProto p;
      if (!p.ParseFromString(da->payload))
        return Error{"", "DeviceAssignmentProto (ExecutableBuildOptionsProto "
                         "field 9) is malformed"};
      // The counts come from the input bytes; bound them before allocating
      // (no machine has a million devices; JAX would run out of memory).
      const int64_t replicas = std::max(0, p.replica_count());
      const int64_t computations = std::max(0, p.computation_count());
      const int64_t limit = int64_t(1) << 20;
      if (replicas > limit || computations > limit ||
          replicas * computations > limit)
        return Error{"", "DeviceAssignmentProto declares " +
                             std::to_string(replicas) + "\u00d7" +
                             std::to_string(computations) +
                             " devices, more than the 1,048,576 this engine "
                             "renumbers"};
      std::vector<std::vector<int64_t>> rows(
          static_cast<size_t>(replicas),
          std::vector<int64_t>(static_cast<size_t>(computations)));
      for (size_t r = 0; r < rows.size(); ++r)
        for (size_t c = 0; c < rows[r].size(); ++c)
          rows[r][c] = static_cast<int64_t>(r * rows[r].size() + c);
      WireField flat = WireField::makeLen(field::kDeviceAssignment,
                                          encodeDeviceAssignment(rows));
      if (flat.payload != da->payload) {
        CacheKeyEdit e;
        e.code = CacheKeyEdit::Code::Renumbered;
        e.before = describeDeviceAssignment(da);
        e.after = describeDeviceAssignment(&flat);
        result.changes.push_back(std::move(e));
      }
      ebo->setMessage(field::kDeviceAssignment, std::move(flat.payload));
    }
  }
  co->setMessage(field::kExecutableBuildOptions, ebo->serialize());

  // 2. Drop excluded env_option_overrides (list names with dashes stripped;
  //    the override's own name is compared as given); from jax 0.4.36.
  auto entries = readOverrides(*co);
  if (!entries)
    return entries.takeError();
  if (profileSpec(profile).filtersEnvOverrides && !entries->empty()) {
    std::unordered_set<std::string> excluded;
    for (const auto &name : excludedFlagNames(profile))
      excluded.insert(pyStripChars(name, "-"));
    std::vector<OverrideEntry> kept;
    for (auto &e : *entries) {
      if (excluded.count(e.key)) {
        CacheKeyEdit d;
        d.code = CacheKeyEdit::Code::Dropped;
        d.name = e.key;
        result.changes.push_back(std::move(d));
      } else
        kept.push_back(std::move(e));
    }
    writeOverrides(*co, std::move(kept));
  }
  result.output = co->serialize();
  return result;
}

} // namespace cachekey
