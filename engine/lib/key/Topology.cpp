//===- Topology.cpp - Entry 6: accelerator config -------------------------===//
#include "cachekey/Topology.h"

#include "cachekey/PyText.h"
#include "xla_subset.pb.h"

#include <farmhash.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace cachekey {

namespace {
Bytes serializeDeterministic(const google::protobuf::MessageLite &msg) {
  Bytes out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    msg.SerializeToCodedStream(&coded);
  }
  return out;
}
} // namespace

Bytes serializeCpuTopology(const CpuTopology &t) {
  xla::CpuTopologyProto p;
  for (const auto &d : t.devices) {
    auto *dev = p.add_cpu_devices();
    dev->set_process_index(d.processIndex);
    dev->set_local_hardware_id(d.localHardwareId);
  }
  if (t.machineAttributes) {
    for (const auto &a : *t.machineAttributes)
      p.add_machine_attributes(a);
  } else {
    auto *tm = p.mutable_target_machine_options();
    tm->set_triple(t.triple);
    tm->set_cpu(t.cpu);
    tm->set_features(t.features);
  }
  return serializeDeterministic(p);
}

Bytes serializeGpuTopology(const GpuTopology &t) {
  xla::GpuTopologyProto p;
  p.set_platform_version(t.platformVersion);
  p.set_num_partitions(t.numPartitions);
  p.set_num_hosts_per_partition(t.numHostsPerPartition);
  p.set_num_devices_per_host(t.numDevicesPerHost);
  if (t.numDevicesPerProcess)
    p.set_num_devices_per_process(*t.numDevicesPerProcess);
  return serializeDeterministic(p);
}

uint64_t fingerprint64(const Bytes &bytes) {
  return util::Fingerprint64(bytes.data(), bytes.size());
}

Bytes bigEndian64(uint64_t value) {
  Bytes out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(value & 0xff);
    value >>= 8;
  }
  return out;
}

Expected<AcceleratorEntry> acceleratorEntry(const Scenario &s) {
  const ProfileSpec &profile = profileSpec(s.profile);
  const bool serialize = profile.accelerator == AcceleratorRule::Serialize;
  AcceleratorEntry e;
  e.spec = s.accelerator;
  // A rebuilt topology proto: its bytes (before 0.10.0) or their
  // fingerprint (0.10.0 and later).
  auto useProto = [&](const Bytes &proto, const std::string &what) {
    uint64_t fp = fingerprint64(proto);
    e.fingerprint = fp;
    if (serialize) {
      e.parts.emplace_back("serialized " + what + " (" +
                               std::to_string(proto.size()) + " bytes)",
                           proto);
      e.provenance = what + " as topology.serialize() returns it";
    } else {
      e.parts.emplace_back("fingerprint (8 bytes, big-endian)", bigEndian64(fp));
      e.provenance = "FarmHash Fingerprint64 of " + what + " (" +
                     std::to_string(proto.size()) + " bytes)";
    }
  };
  if (auto *f = std::get_if<FingerprintSpec>(&s.accelerator)) {
    if (serialize)
      return Error{"$.accelerator.fingerprint",
                   std::string("profile ") + profile.id +
                       " feeds topology.serialize(), the serialized topology "
                       "proto, which a fingerprint alone cannot give; "
                       "describe the topology (cpu_topology or gpu_topology) "
                       "instead"};
    e.fingerprint = f->value;
    e.parts.emplace_back("fingerprint (8 bytes, big-endian)",
                         bigEndian64(f->value));
    e.provenance = f->provenance;
    e.standIn = f->standIn;
  } else if (auto *c = std::get_if<CpuTopology>(&s.accelerator)) {
    useProto(serializeCpuTopology(*c), "CpuTopologyProto");
    e.provenance += ", " + std::to_string(c->devices.size()) + " devices";
  } else if (auto *g = std::get_if<GpuTopology>(&s.accelerator)) {
    // From jax 0.10.0 on, entry 6 is the fingerprint of the GpuTopologyProto
    // the CUDA plugin builds, which also holds the target config (device
    // description) and depends on the compiling host; its scalar fields do
    // not give it (NVIDIA H100 80GB HBM3, 1x1x1: these fields give
    // 407aeac78e3117b0; jax-cuda12-plugin 0.12.0.1's compile-only client
    // gave b17cc9af155c8fbb on this project's CPU machine). Only a measured
    // fingerprint is accepted there (fixtures/gpu_topologies.json, or a
    // capture's).
    if (!serialize)
      return Error{"$.accelerator.gpu_topology",
                   std::string("profile ") + profile.id +
                       " feeds the fingerprint of the GPU runtime's "
                       "GpuTopologyProto, which also carries the target "
                       "config and the compiling host, so its scalar fields "
                       "cannot give it; give entry 6 as {\"fingerprint\": "
                       "...} measured by the GPU runtime (a capture, or "
                       "fixtures/gpu_topologies.json: compile-only GPU "
                       "client)",
                   ErrorCode::Unsupported};
    useProto(serializeGpuTopology(*g), "GpuTopologyProto");
    e.provenance += "; computed from its scalar fields, not measured with a GPU runtime";
  } else {
    const auto &k = std::get<DeviceKinds>(s.accelerator);
    e.fallback = true;
    e.provenance = "device_kind fallback (runtime has no topology)";
    for (size_t i = 0; i < k.kinds.size(); ++i)
      e.parts.emplace_back("device_kind[" + std::to_string(i) + "]",
                           hashStringBytes(k.kinds[i]));
    if (profile.fallback == FallbackRule::DeviceKindsAndBackend) {
      e.parts.emplace_back("platform", hashStringBytes(s.platform));
      e.parts.emplace_back("platform_version",
                           hashStringBytes(s.platformVersion));
      e.parts.emplace_back("runtime_type", hashStringBytes(s.runtimeType));
    }
  }
  return e;
}

std::string fallbackLogLine(const DeviceKinds &kinds, Profile profile) {
  const ProfileSpec &p = profileSpec(profile);
  std::string type = kinds.errorType.empty() ? p.fallbackErrorType
                                             : kinds.errorType;
  return std::string("get (_hash_accelerator_config): unable to hash "
                     "accelerator config, falling back to hashing devices") +
         (p.fallback == FallbackRule::DeviceKindsAndBackend ? " + platform: "
                                                            : " ") +
         kinds.error + " (type " + type + ")";
}

} // namespace cachekey
