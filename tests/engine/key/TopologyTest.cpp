// Entry 6 (engine/lib/Topology.cpp): topology protos, their fingerprints and
// what each profile feeds.
//
// Expected values are real: every CPU fixture records jaxlib's own
// `DeviceTopology.fingerprint()` (capture.topology_fingerprint_hex), the
// CpuTopologyProto bytes the capture rebuilt in Python and accepted only
// because their FarmHash equals that fingerprint
// (capture.topology_serialized_b64), and the bytes the running SHA-256 was
// fed for entry 6 (capture.entry_bytes_b64.accelerator_config). The TPU
// captures give libtpu's fingerprints, the bytes fed, and the fallback's
// INFO line as JAX logged it. The GPU proto, which no fixture holds, is
// checked against bytes derived by hand from the wire format.
#include "TestUtil.h"

#include "cachekey/Topology.h"

using namespace cachekey;
using namespace cachekey::test;

namespace {

Bytes b64(const Json &j) { return *base64Decode(j.get<std::string>()); }

Bytes hex(const std::string &h) {
  Bytes out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

/// The scenario of a fixture file, read without computing a key.
Scenario scenarioOf(const std::string &rel) {
  auto s = readScenario(loadJson(rel), fixtureResolver());
  EXPECT_TRUE(s) << rel << ": " << s.error().str();
  return s ? *s : Scenario{};
}

/// Files under the captured fixture folders whose capture has `key`.
std::vector<std::string> capturedWith(const char *key) {
  std::vector<std::string> out;
  for (const std::string dir : {"fixtures", "fixtures/0.12.0.1", "fixtures/tpu"})
    for (const auto &id : jsonIdsIn(dir)) {
      Json doc = loadJson(dir + "/" + id + ".json");
      if (doc.contains("capture") && doc["capture"].contains(key) &&
          !doc["capture"][key].is_null())
        out.push_back(dir + "/" + id + ".json");
    }
  return out;
}

} // namespace

TEST(Topology, CpuFingerprintsAreJaxlibsOwn) {
  int checked = 0;
  for (const auto &rel : capturedWith("topology_serialized_b64")) {
    Json doc = loadJson(rel);
    if (!doc["accelerator"].contains("cpu_topology"))
      continue;
    SCOPED_TRACE(rel);
    Scenario s = scenarioOf(rel);
    const auto &topo = std::get<CpuTopology>(s.accelerator);
    Bytes proto = serializeCpuTopology(topo);
    EXPECT_EQ(toHex(proto), toHex(b64(doc["capture"]["topology_serialized_b64"])));
    char fp[17];
    std::snprintf(fp, sizeof fp, "%016llx",
                  static_cast<unsigned long long>(fingerprint64(proto)));
    EXPECT_EQ(fp, doc["capture"]["topology_fingerprint_hex"].get<std::string>());
    ++checked;
  }
  EXPECT_GE(checked, 20); // 10 programs captured under two releases
}

TEST(Topology, EntrySixFeedsWhatTheRunningHashWasFed) {
  // CPU (rebuilt topology), TPU (libtpu's fingerprint) and the TPU
  // device_kind fallback, each under its capture's own profile.
  int checked = 0;
  for (const auto &rel : capturedWith("entry_bytes_b64")) {
    SCOPED_TRACE(rel);
    Json doc = loadJson(rel);
    Scenario s = scenarioOf(rel);
    auto e = acceleratorEntry(s);
    ASSERT_TRUE(e) << e.error().str();
    Bytes fed;
    for (const auto &part : e->parts)
      fed += part.second;
    EXPECT_EQ(toHex(fed),
              toHex(b64(doc["capture"]["entry_bytes_b64"]["accelerator_config"])));
    ++checked;
  }
  EXPECT_GE(checked, 50); // 20 CPU captures and the TPU ones
}

TEST(Topology, BigEndianIsMostSignificantByteFirst) {
  // Python: (0x0102030405060708).to_bytes(8, "big") == b"\x01\x02...\x08".
  EXPECT_EQ(toHex(bigEndian64(0x0102030405060708ULL)), "0102030405060708");
  EXPECT_EQ(toHex(bigEndian64(0)), "0000000000000000");
  EXPECT_EQ(toHex(bigEndian64(UINT64_MAX)), "ffffffffffffffff");
}

TEST(Topology, GpuTopologyProtoOnTheWire) {
  // xla/pjrt/gpu/gpu_topology.proto: platform_version = 3 (string),
  // num_partitions = 4, num_hosts_per_partition = 5,
  // num_devices_per_host = 6 (int32), num_devices_per_process = 10
  // (optional int32). Deterministic serialization writes fields in number
  // order and leaves proto3 zeros out:
  //   1a 04 "A100"  tag 3<<3|2, length 4
  //   20 01         tag 4<<3|0, 1
  //   28 02         tag 5<<3|0, 2
  //   30 08         tag 6<<3|0, 8
  //   50 00         tag 10<<3|0, 0: explicit presence keeps a set zero
  GpuTopology g;
  g.platformVersion = "A100";
  g.numPartitions = 1;
  g.numHostsPerPartition = 2;
  g.numDevicesPerHost = 8;
  g.numDevicesPerProcess = 0;
  EXPECT_EQ(toHex(serializeGpuTopology(g)),
            toHex(hex("1a04") + "A100" + hex("2001280230085000")));
  g.numDevicesPerProcess.reset();
  g.numHostsPerPartition = 0; // a proto3 zero is not written
  EXPECT_EQ(toHex(serializeGpuTopology(g)),
            toHex(hex("1a04") + "A100" + hex("20013008")));
  // A negative int32 is sign-extended to ten varint bytes:
  //   20 ff ff ff ff ff ff ff ff ff 01   (-1 as a 64-bit two's complement)
  GpuTopology neg;
  neg.numPartitions = -1;
  EXPECT_EQ(toHex(serializeGpuTopology(neg)), "20ffffffffffffffffff01");
}

TEST(Topology, CpuTopologyProtoBeforeJaxlib091ListsMachineAttributes) {
  // xla/pjrt/cpu/cpu_topology.proto: cpu_devices = 1 (a message with
  // process_index = 2, local_hardware_id = 3), machine_attributes = 4
  // (repeated string). Device {process 0, hardware id 1}: proto3 leaves the
  // zero out, so it is 18 01 (tag 3<<3|0, 1), wrapped as 0a 02 … (tag
  // 1<<3|2, length 2); each attribute is 22 02 then its two bytes (tag
  // 4<<3|2, length 2).
  CpuTopology t;
  t.devices.push_back({0, 1});
  t.machineAttributes = std::vector<std::string>{"+a", "-b"};
  EXPECT_EQ(toHex(serializeCpuTopology(t)),
            toHex(hex("0a021801") + hex("2202") + "+a" + hex("2202") + "-b"));
}

TEST(Topology, TheFallbackLineIsTheOneJaxLogged) {
  int checked = 0;
  for (const auto &id : jsonIdsIn("fixtures/tpu")) {
    Json doc = loadJson("fixtures/tpu/" + id + ".json");
    if (!doc["accelerator"].contains("device_kinds"))
      continue;
    SCOPED_TRACE(id);
    Scenario s = scenarioOf("fixtures/tpu/" + id + ".json");
    std::string line =
        fallbackLogLine(std::get<DeviceKinds>(s.accelerator), s.profile);
    int seen = 0;
    for (const auto &t : doc["expected"]["trace"])
      seen += t.get<std::string>() == line;
    EXPECT_GT(seen, 0) << line;
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST(Topology, AFingerprintCannotStandInForTheSerializedProto) {
  // Before jax 0.10.0 entry 6 feeds topology.serialize(); a fingerprint
  // alone cannot give those bytes.
  Scenario s = scenarioOf("fixtures/tpu/matmul_v5e_2x2__0.10.2.json");
  ASSERT_TRUE(std::holds_alternative<FingerprintSpec>(s.accelerator));
  s.profile = *parseProfile("0.9.2");
  auto e = acceleratorEntry(s);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().path, "$.accelerator.fingerprint");
  // The same topology described field by field feeds its serialization.
  Scenario cpu = scenarioOf("fixtures/add_1x1.json");
  cpu.profile = *parseProfile("0.9.2");
  auto c = acceleratorEntry(cpu);
  ASSERT_TRUE(c) << c.error().str();
  ASSERT_EQ(c->parts.size(), 1u);
  EXPECT_EQ(toHex(c->parts[0].second),
            toHex(b64(loadJson("fixtures/add_1x1.json")["capture"]["topology_serialized_b64"])));
}

TEST(Topology, GpuTopologyFieldsAreRefusedWhereEntrySixIsAFingerprint) {
  // From jax 0.10.0 entry 6 is the fingerprint of the GPU runtime's
  // GpuTopologyProto, which also carries the target config. The CUDA plugin's
  // compile-only client measured b17cc9af155c8fbb for NVIDIA H100 80GB HBM3
  // 1x1x1 (fixtures/gpu_topologies.json); these scalar fields give another
  // value, so the engine refuses them there and takes a measured fingerprint.
  Scenario s = scenarioOf("fixtures/add_1x1.json");
  GpuTopology g;
  g.platformVersion = "NVIDIA H100 80GB HBM3";
  g.numPartitions = 1;
  g.numHostsPerPartition = 1;
  g.numDevicesPerHost = 1;
  s.accelerator = g;
  for (const char *id : {"0.10.2", "0.12.0.1"}) {
    SCOPED_TRACE(id);
    s.profile = *parseProfile(id);
    auto e = acceleratorEntry(s);
    ASSERT_FALSE(e);
    EXPECT_EQ(e.error().code, ErrorCode::Unsupported);
    EXPECT_EQ(e.error().path, "$.accelerator.gpu_topology");
  }
  const Json table = loadJson("fixtures/gpu_topologies.json");
  for (const Json &t : table["topologies"]) {
    if (t["id"] == "NVIDIA H100 80GB HBM3/1x1x1") {
      EXPECT_NE(t["fingerprint"]["value"].get<std::string>(),
                toHex(bigEndian64(fingerprint64(serializeGpuTopology(g)))));
    }
  }
  // Where entry 6 feeds topology.serialize() the fields are still accepted
  // (computed, labelled as not measured).
  s.profile = *parseProfile("0.9.2");
  auto old = acceleratorEntry(s);
  ASSERT_TRUE(old) << old.error().str();
  EXPECT_NE(old->provenance.find("not measured"), std::string::npos) << old->provenance;
}
