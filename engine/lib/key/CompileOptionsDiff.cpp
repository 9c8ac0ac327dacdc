//===- CompileOptionsDiff.cpp - Entry 5: which fields changed -------------===//
//
// Finds field by field how two serialized CompileOptionsProto differ,
// descending into ExecutableBuildOptionsProto, DebugOptions (named from the
// DebugOptions table), the device assignment and the env_option_overrides
// map, as FieldChange facts (the words are explain/Wording.cpp's); and
// renders single values for the change lines of the edits.
//
//===----------------------------------------------------------------------===//
#include "cachekey/CompileOptions.h"

#include "CompileOptionsDetail.h"
#include "xla_subset.pb.h"

#include <cstring>
#include <map>
#include <set>

namespace cachekey {

namespace {
/// No control characters other than newline and tab.
bool printable(const Bytes &b) {
  for (unsigned char c : b)
    if (c < 0x20 && c != '\n' && c != '\t')
      return false;
  return true;
}
} // namespace

namespace detail {

std::string jsonQuoted(const std::string &s) {
  return dumpJson(Json(s));
}

std::string describeValue(const WireField *f, FieldKind kind) {
  if (!f)
    return "unset";
  switch (f->type) {
  case WireType::Varint:
    if (kind == FieldKind::Bool)
      return f->varint == 0 ? "false" : f->varint == 1 ? "true"
                                                        : std::to_string(f->varint);
    return std::to_string(static_cast<int64_t>(f->varint));
  case WireType::Fixed32: {
    float x;
    std::memcpy(&x, f->payload.data(), 4);
    return kind == FieldKind::Float ? std::to_string(x) : "0x" + toHex(f->payload);
  }
  case WireType::Fixed64: {
    double x;
    std::memcpy(&x, f->payload.data(), 8);
    return kind == FieldKind::Double ? std::to_string(x) : "0x" + toHex(f->payload);
  }
  case WireType::Len:
    if (kind == FieldKind::String ||
        (kind == FieldKind::Unknown && printable(f->payload) &&
         f->payload.size() <= 200))
      return jsonQuoted(f->payload);
    return std::to_string(f->payload.size()) + " bytes (" +
           hexPreview(f->payload, 12) + ")";
  }
  return "?";
}

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

} // namespace detail

using namespace detail;

namespace {

/// CompileOptionsProto's field names (xla/pjrt/proto/compile_options.proto).
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

/// ExecutableBuildOptionsProto's field names (same file).
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

/// The value of one env_option_overrides map entry (its OptionOverrideProto:
/// 1 string, 2 bool, 3 int, 4 double).
std::string overrideValueText(const Bytes &entryBytes) {
  auto entry = WireMessage::parse(entryBytes);
  if (!entry)
    return "malformed";
  auto value = WireMessage::parse(lastPayload(*entry, 2));
  if (!value || value->fields.empty())
    return "unset";
  const WireField &v = value->fields.back();
  static const FieldKind kinds[] = {FieldKind::Unknown, FieldKind::String,
                                    FieldKind::Bool, FieldKind::Int,
                                    FieldKind::Double};
  return describeValue(&v, v.number <= 4 ? kinds[v.number] : FieldKind::Unknown);
}

void diffMessages(const WireMessage &a, const WireMessage &b,
                  ProtoMessage message, std::vector<FieldChange> &out);

/// Appends the differences between serialized messages `a` and `b`; one
/// line naming `label` when either does not parse.
void diffNested(const Bytes &a, const Bytes &b, ProtoMessage message,
                std::vector<FieldChange> &out, const std::string &label) {
  auto ma = WireMessage::parse(a), mb = WireMessage::parse(b);
  if (!ma || !mb) {
    FieldChange c;
    c.kind = FieldChange::Kind::Unreadable;
    c.name = label;
    c.before = std::to_string(a.size());
    c.after = std::to_string(b.size());
    out.push_back(c);
    return;
  }
  diffMessages(*ma, *mb, message, out);
}

/// Appends one line per field number whose occurrences differ between `a`
/// and `b` (both of type `message`), in field-number order, descending into
/// the nested messages.
void diffMessages(const WireMessage &a, const WireMessage &b,
                  ProtoMessage message, std::vector<FieldChange> &out) {
  const bool top = message == ProtoMessage::CompileOptions;
  const bool build = message == ProtoMessage::ExecutableBuildOptions;
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
    if (top && n == field::kExecutableBuildOptions) {
      diffNested(la ? la->payload : "", lb ? lb->payload : "",
                 ProtoMessage::ExecutableBuildOptions, out,
                 "executable_build_options");
      continue;
    }
    if (build && n == field::kDebugOptions) {
      diffNested(la ? la->payload : "", lb ? lb->payload : "",
                 ProtoMessage::DebugOptions, out, "debug_options");
      continue;
    }
    if (top && n == field::kEnvOptionOverrides) {
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
        FieldChange c;
        c.kind = FieldChange::Kind::EnvOverride;
        c.number = n;
        c.name = k;
        c.before = ia == ma.end() ? "unset" : overrideValueText(ia->second);
        c.after = ib == mb.end() ? "unset" : overrideValueText(ib->second);
        out.push_back(c);
      }
      if (ma == mb) {
        FieldChange c;
        c.kind = FieldChange::Kind::EnvOverrideOrder;
        c.number = n;
        out.push_back(c);
      }
      continue;
    }
    if (build && n == field::kDeviceAssignment) {
      FieldChange c;
      c.kind = FieldChange::Kind::DeviceAssignment;
      c.message = message;
      c.number = n;
      c.before = describeDeviceAssignment(la);
      c.after = describeDeviceAssignment(lb);
      out.push_back(c);
      continue;
    }
    FieldChange c;
    c.message = message;
    c.number = n;
    FieldKind kind = FieldKind::Unknown;
    if (message == ProtoMessage::DebugOptions) {
      const DebugOptionField *f = findDebugOption(n);
      c.name = f ? f->name : "?";
      if (f)
        kind = f->kind;
    } else {
      const char *name =
          top ? compileOptionsFieldName(n) : buildOptionsFieldName(n);
      c.name = name ? name : "?";
      // Serialized bytes, not text. (CompileOptionsProto has no field 14,
      // fdo_profile's number in ExecutableBuildOptionsProto.)
      if (n == field::kFdoProfile ||
          (top && n == field::kSerializedMultiSliceConfig))
        kind = FieldKind::Bytes;
    }
    c.before = describeValue(la, kind);
    c.after = describeValue(lb, kind);
    c.occurrencesBefore = va.size();
    c.occurrencesAfter = vb.size();
    out.push_back(c);
  }
}

} // namespace

std::vector<FieldChange> compileOptionsChanges(const Bytes &before,
                                               const Bytes &after) {
  std::vector<FieldChange> out;
  if (before == after)
    return out;
  diffNested(before, after, ProtoMessage::CompileOptions, out,
             "CompileOptionsProto");
  if (out.empty()) {
    FieldChange c;
    c.kind = FieldChange::Kind::BytesDiffer;
    out.push_back(c);
  }
  return out;
}

} // namespace cachekey
