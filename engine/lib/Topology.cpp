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
  auto *tm = p.mutable_target_machine_options();
  tm->set_triple(t.triple);
  tm->set_cpu(t.cpu);
  tm->set_features(t.features);
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

AcceleratorEntry acceleratorEntry(const AcceleratorSpec &spec) {
  AcceleratorEntry e;
  e.spec = spec;
  auto useFingerprint = [&](uint64_t fp) {
    e.fingerprint = fp;
    e.parts.emplace_back("fingerprint (8 bytes, big-endian)", bigEndian64(fp));
  };
  if (auto *f = std::get_if<FingerprintSpec>(&spec)) {
    useFingerprint(f->value);
    e.provenance = f->provenance;
    e.standIn = f->standIn;
  } else if (auto *c = std::get_if<CpuTopology>(&spec)) {
    Bytes proto = serializeCpuTopology(*c);
    useFingerprint(fingerprint64(proto));
    e.provenance = "FarmHash Fingerprint64 of CpuTopologyProto (" +
                   std::to_string(proto.size()) + " bytes, " +
                   std::to_string(c->devices.size()) + " devices)";
  } else if (auto *g = std::get_if<GpuTopology>(&spec)) {
    Bytes proto = serializeGpuTopology(*g);
    useFingerprint(fingerprint64(proto));
    e.provenance = "FarmHash Fingerprint64 of GpuTopologyProto (" +
                   std::to_string(proto.size()) +
                   " bytes); not checked against a real GPU runtime";
  } else {
    const auto &k = std::get<DeviceKinds>(spec);
    e.fallback = true;
    e.provenance = "device_kind fallback (runtime has no topology)";
    for (size_t i = 0; i < k.kinds.size(); ++i)
      e.parts.emplace_back("device_kind[" + std::to_string(i) + "]",
                           hashStringBytes(k.kinds[i]));
  }
  return e;
}

std::string fallbackLogLine(const DeviceKinds &kinds) {
  return "get (_hash_accelerator_config): unable to hash accelerator config, "
         "falling back to hashing devices " +
         kinds.error + " (type <class 'jax.errors.JaxRuntimeError'>)";
}

} // namespace cachekey
