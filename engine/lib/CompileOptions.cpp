//===- CompileOptions.cpp - Entry 5: compile options ----------------------===//
//
// Mirrors `_hash_serialized_compile_options` in jax/_src/cache_key.py (see the
// header). DebugOptions field names come from the table tools/capture
// discovered in the real jaxlib; it is compiled in from
// fixtures/debug_options_fields.json.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CompileOptions.h"

#include "cachekey/PyText.h"
#include "xla_subset.pb.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <map>
#include <set>
#include <unordered_set>

namespace cachekey {

extern const char kDebugOptionsFieldsJson[]; // generated from fixtures/

namespace {

struct Table {
  std::vector<DebugOptionField> byNumber;
  std::map<std::string, size_t> nameIndex;
  std::map<uint32_t, size_t> numberIndex;
};

const Table &table() {
  static const Table t = [] {
    Table t;
    Json j = Json::parse(kDebugOptionsFieldsJson, nullptr, false);
    const Json *fields = nullptr;
    if (j.is_object() && j.contains("fields"))
      fields = &j["fields"];
    if (fields && fields->is_object()) {
      for (auto it = fields->begin(); it != fields->end(); ++it) {
        const Json &v = *it;
        if (!v.is_object() || !v.contains("number") ||
            !v["number"].is_number_integer())
          continue;
        DebugOptionField f;
        f.name = it.key();
        f.number = v["number"].get<uint32_t>();
        f.kind = v.contains("kind") && v["kind"].is_string()
                     ? v["kind"].get<std::string>()
                     : "int";
        t.byNumber.push_back(f);
      }
    }
    std::sort(t.byNumber.begin(), t.byNumber.end(),
              [](const auto &a, const auto &b) { return a.number < b.number; });
    for (size_t i = 0; i < t.byNumber.size(); ++i) {
      t.nameIndex[t.byNumber[i].name] = i;
      t.numberIndex[t.byNumber[i].number] = i;
    }
    return t;
  }();
  return t;
}

const char *compileOptionsFieldName(uint32_t n) {
  switch (n) {
  case 1: return "argument_layouts";
  case 2: return "parameter_is_tupled_arguments";
  case 3: return "executable_build_options";
  case 4: return "compile_portable_executable";
  case 5: return "profile_version";
  case 6: return "serialized_multi_slice_config";
  case 7: return "env_option_overrides";
  case 8: return "target_config";
  case 9: return "allow_in_place_mlir_modification";
  case 10: return "matrix_unit_operand_precision";
  case 11: return "compiler_variant";
  default: return nullptr;
  }
}

const char *buildOptionsFieldName(uint32_t n) {
  switch (n) {
  case 1: return "device_ordinal";
  case 2: return "result_layout";
  case 3: return "debug_options";
  case 4: return "num_replicas";
  case 5: return "num_partitions";
  case 6: return "use_spmd_partitioning";
  case 7: return "use_auto_spmd_partitioning";
  case 8: return "deduplicate_hlo";
  case 9: return "device_assignment";
  case 10: return "alias_passthrough_params";
  case 11: return "run_backend_only";
  case 12: return "allow_spmd_sharding_propagation_to_output";
  case 13: return "comp_envs";
  case 14: return "fdo_profile";
  case 15: return "device_memory_size";
  case 16: return "auto_spmd_partitioning_mesh_shape";
  case 17: return "auto_spmd_partitioning_mesh_ids";
  case 18: return "allow_spmd_sharding_propagation_to_parameters";
  case 19: return "use_shardy_partitioner";
  case 22: return "process_index";
  case 23: return "process_count";
  case 27: return "gpu_topology";
  default: return nullptr;
  }
}

std::string jsonQuoted(const std::string &s) {
  Json j = s;
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

bool printable(const Bytes &b) {
  for (unsigned char c : b)
    if (c < 0x20 && c != '\n' && c != '\t')
      return false;
  return true;
}

/// Renders one field occurrence for a human, using `kind` when known.
std::string describeValue(const WireField *f, const std::string &kind) {
  if (!f)
    return "unset";
  switch (f->type) {
  case WireType::Varint:
    if (kind == "bool")
      return f->varint == 0 ? "false" : f->varint == 1 ? "true"
                                                        : std::to_string(f->varint);
    return std::to_string(static_cast<int64_t>(f->varint));
  case WireType::Fixed32: {
    float x;
    std::memcpy(&x, f->payload.data(), 4);
    return kind == "float" ? std::to_string(x) : "0x" + toHex(f->payload);
  }
  case WireType::Fixed64: {
    double x;
    std::memcpy(&x, f->payload.data(), 8);
    return kind == "double" ? std::to_string(x) : "0x" + toHex(f->payload);
  }
  case WireType::Len:
    if (kind == "string" || (kind.empty() && printable(f->payload) &&
                             f->payload.size() <= 200))
      return jsonQuoted(f->payload);
    return std::to_string(f->payload.size()) + " bytes (" +
           hexPreview(f->payload, 12) + ")";
  }
  return "?";
}

std::string debugFieldLabel(uint32_t number) {
  const DebugOptionField *f = findDebugOption(number);
  return "DebugOptions." + (f ? f->name : std::string("?")) + " (field " +
         std::to_string(number) + ")";
}

/// Parses a message the edits rewrite. JAX's copy goes through protobuf, which
/// writes fields in number order; sorting here does the same for input that
/// was not, and changes nothing for input a serializer wrote.
Expected<WireMessage> parseNamed(const Bytes &bytes, const std::string &what) {
  auto m = WireMessage::parse(bytes);
  if (!m)
    return Error{"", what + ": " + m.error().message, m.error().code};
  m->sortByNumber();
  return m;
}

Bytes lastPayload(const WireMessage &m, uint32_t number) {
  const WireField *f = m.last(number);
  return f && f->type == WireType::Len ? f->payload : Bytes();
}

Expected<WireField> encodeDebugValue(const DebugOptionField &f, const Json &v,
                                     const std::string &path) {
  const std::string &k = f.kind;
  if (k == "bool") {
    if (!v.is_boolean())
      return Error{path, "DebugOptions." + f.name + " is a bool"};
    return WireField::makeVarint(f.number, v.get<bool>() ? 1 : 0);
  }
  if (k == "string") {
    if (!v.is_string())
      return Error{path, "DebugOptions." + f.name + " is a string"};
    return WireField::makeLen(f.number, v.get<std::string>());
  }
  if (k == "float" || k == "double") {
    if (!v.is_number())
      return Error{path, "DebugOptions." + f.name + " is a " + k};
    WireField w;
    w.number = f.number;
    if (k == "float") {
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
    return Error{path, "DebugOptions." + f.name + " is an integer (" + k + ")"};
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return Error{path, "DebugOptions." + f.name + ": integer out of range"};
  if ((k.find("32") != std::string::npos || k == "enum") &&
      (v.get<int64_t>() < INT32_MIN || v.get<int64_t>() > INT32_MAX))
    return Error{path, "DebugOptions." + f.name + " is a " + k +
                           ": " + std::to_string(v.get<int64_t>()) +
                           " is out of range"};
  return WireField::makeVarint(f.number,
                               static_cast<uint64_t>(v.get<int64_t>()));
}

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

/// Decodes a DeviceAssignmentProto into R rows of C ids, for display.
std::string describeDeviceAssignment(const WireField *f) {
  if (!f)
    return "unset";
  xla::DeviceAssignmentProto p;
  if (!p.ParseFromString(f->payload))
    return "malformed (" + std::to_string(f->payload.size()) + " bytes)";
  std::string out = "[";
  for (int r = 0; r < p.replica_count(); ++r) {
    out += r ? ", [" : "[";
    for (int c = 0; c < p.computation_count(); ++c) {
      if (c)
        out += ", ";
      const auto *dev = c < p.computation_devices_size()
                            ? &p.computation_devices(c)
                            : nullptr;
      out += dev && r < dev->replica_device_ids_size()
                 ? std::to_string(dev->replica_device_ids(r))
                 : "?";
    }
    out += "]";
  }
  return out + "]";
}

/// A map entry of env_option_overrides: its key and its whole entry bytes.
struct OverrideEntry {
  std::string key;
  WireField field;
};

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

std::string overrideValueText(const Bytes &entryBytes) {
  auto entry = WireMessage::parse(entryBytes);
  if (!entry)
    return "malformed";
  auto value = WireMessage::parse(lastPayload(*entry, 2));
  if (!value || value->fields.empty())
    return "unset";
  const WireField &v = value->fields.back();
  static const char *kinds[] = {"", "string", "bool", "int", "double"};
  return describeValue(&v, v.number <= 4 ? kinds[v.number] : "");
}

void diffMessages(const WireMessage &a, const WireMessage &b, int level,
                  std::vector<std::string> &out);

void diffNested(const Bytes &a, const Bytes &b, int level,
                std::vector<std::string> &out, const std::string &label) {
  auto ma = WireMessage::parse(a), mb = WireMessage::parse(b);
  if (!ma || !mb) {
    out.push_back(label + " differs (" + std::to_string(a.size()) + " → " +
                  std::to_string(b.size()) + " bytes)");
    return;
  }
  diffMessages(*ma, *mb, level, out);
}

std::vector<const WireField *> occurrences(const WireMessage &m, uint32_t n) {
  std::vector<const WireField *> v;
  for (const auto &f : m.fields)
    if (f.number == n)
      v.push_back(&f);
  return v;
}

/// level 0: CompileOptionsProto, 1: ExecutableBuildOptionsProto,
/// 2: DebugOptions.
void diffMessages(const WireMessage &a, const WireMessage &b, int level,
                  std::vector<std::string> &out) {
  std::set<uint32_t> numbers;
  for (const auto &f : a.fields)
    numbers.insert(f.number);
  for (const auto &f : b.fields)
    numbers.insert(f.number);
  for (uint32_t n : numbers) {
    auto va = occurrences(a, n), vb = occurrences(b, n);
    bool same = va.size() == vb.size();
    for (size_t i = 0; same && i < va.size(); ++i)
      same = *va[i] == *vb[i];
    if (same)
      continue;
    const WireField *la = va.empty() ? nullptr : va.back();
    const WireField *lb = vb.empty() ? nullptr : vb.back();
    if (level == 0 && n == field::kExecutableBuildOptions) {
      diffNested(la ? la->payload : "", lb ? lb->payload : "", 1, out,
                 "executable_build_options");
      continue;
    }
    if (level == 1 && n == field::kDebugOptions) {
      diffNested(la ? la->payload : "", lb ? lb->payload : "", 2, out,
                 "debug_options");
      continue;
    }
    if (level == 0 && n == field::kEnvOptionOverrides) {
      std::map<std::string, Bytes> ma, mb;
      for (auto *f : va)
        if (auto e = WireMessage::parse(f->payload))
          ma[lastPayload(*e, 1)] = f->payload;
      for (auto *f : vb)
        if (auto e = WireMessage::parse(f->payload))
          mb[lastPayload(*e, 1)] = f->payload;
      std::set<std::string> keys;
      for (auto &kv : ma)
        keys.insert(kv.first);
      for (auto &kv : mb)
        keys.insert(kv.first);
      for (const auto &k : keys) {
        auto ia = ma.find(k), ib = mb.find(k);
        if (ia != ma.end() && ib != mb.end() && ia->second == ib->second)
          continue;
        out.push_back("env_option_overrides[" + jsonQuoted(k) + "] " +
                      (ia == ma.end() ? "unset" : overrideValueText(ia->second)) +
                      " → " +
                      (ib == mb.end() ? "unset" : overrideValueText(ib->second)));
      }
      if (ma == mb)
        out.push_back("env_option_overrides entry order or duplicates differ");
      continue;
    }
    if (level == 1 && n == field::kDeviceAssignment) {
      out.push_back("device assignment " + describeDeviceAssignment(la) +
                    " → " + describeDeviceAssignment(lb));
      continue;
    }
    std::string label, kind;
    if (level == 2) {
      label = debugFieldLabel(n);
      if (const DebugOptionField *f = findDebugOption(n))
        kind = f->kind;
    } else {
      const char *name =
          level == 0 ? compileOptionsFieldName(n) : buildOptionsFieldName(n);
      label = std::string(level == 0 ? "CompileOptionsProto."
                                     : "ExecutableBuildOptionsProto.") +
              (name ? name : "?") + " (field " + std::to_string(n) + ")";
      if (n == field::kFdoProfile || (level == 0 && n == 6))
        kind = "bytes";
    }
    std::string line = label + " " + describeValue(la, kind) + " → " +
                       describeValue(lb, kind);
    if (va.size() > 1 || vb.size() > 1)
      line += " (repeated: " + std::to_string(va.size()) + " → " +
              std::to_string(vb.size()) + " occurrences)";
    out.push_back(line);
  }
}

} // namespace

const std::vector<DebugOptionField> &knownDebugOptions() {
  return table().byNumber;
}

const DebugOptionField *findDebugOption(const std::string &name) {
  auto it = table().nameIndex.find(name);
  return it == table().nameIndex.end() ? nullptr : &table().byNumber[it->second];
}

const DebugOptionField *findDebugOption(uint32_t number) {
  auto it = table().numberIndex.find(number);
  return it == table().numberIndex.end() ? nullptr
                                         : &table().byNumber[it->second];
}

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
    if (!unchanged)
      result.changes.push_back(
          "DebugOptions." + std::string(z.name) + " (field " +
          std::to_string(z.number) + ") " +
          describeValue(before.empty() ? nullptr : before.back(),
                        z.kind == ZeroKind::String ? "string" : "int") +
          " → " + (z.kind == ZeroKind::String ? "\"\"" : "0") +
          (!explicitZeroes ? " (a zero is not written: proto3 implicit "
                             "presence in this jaxlib)"
           : before.empty() ? " (added: explicit presence keeps the zero)"
                            : ""));
    if (explicitZeroes)
      dbg->setSorted(std::move(zero));
    else
      dbg->removeAll(z.number);
  }
  ebo->setMessage(field::kDebugOptions, dbg->serialize());

  // 3. GPU: renumber the device assignment 0 … R·C−1.
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
      if (flat.payload != da->payload)
        result.changes.push_back("device assignment " +
                                 describeDeviceAssignment(da) +
                                 " renumbered to " +
                                 describeDeviceAssignment(&flat) +
                                 " (platform is gpu)");
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
      if (excluded.count(e.key))
        result.changes.push_back("env_option_overrides[" + jsonQuoted(e.key) +
                                 "] dropped (on the exclusion list)");
      else
        kept.push_back(std::move(e));
    }
    writeOverrides(*co, std::move(kept));
  }
  result.output = co->serialize();
  return result;
}

std::vector<std::string> describeCompileOptionsDiff(const Bytes &before,
                                                    const Bytes &after) {
  std::vector<std::string> out;
  if (before == after)
    return out;
  diffNested(before, after, 0, out, "CompileOptionsProto");
  if (out.empty())
    out.push_back("CompileOptionsProto bytes differ");
  return out;
}

} // namespace cachekey
