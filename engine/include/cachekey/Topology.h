//===- Topology.h - Entry 6: accelerator config -----------------*- C++ -*-===//
//
// Mirrors `_hash_accelerator_config` in jax/_src/cache_key.py (0.10 and
// later): the topology's 64-bit fingerprint is fed as 8 bytes, big-endian;
// when the runtime has no topology support it raises, and JAX feeds each
// device's `device_kind` through hash-string instead.
//
// XLA computes the CPU and GPU fingerprints as FarmHash `Fingerprint64` over
// the deterministic serialization of `CpuTopologyProto` / `GpuTopologyProto`
// (xla/pjrt/cpu/cpu_topology.h, xla/pjrt/gpu/…); the TPU value comes from
// closed-source libtpu and can only be supplied (see fixtures/tpu_topologies.json).
//
//===----------------------------------------------------------------------===//
#ifndef CACHEKEY_TOPOLOGY_H
#define CACHEKEY_TOPOLOGY_H

#include "cachekey/Scenario.h"

#include <string>
#include <vector>

namespace cachekey {

/// Deterministic serialization of XLA's `CpuTopologyProto` for `topology`.
Bytes serializeCpuTopology(const CpuTopology &topology);

/// Deterministic serialization of the scalar fields of `GpuTopologyProto`.
Bytes serializeGpuTopology(const GpuTopology &topology);

/// FarmHash `Fingerprint64` (farmhashna) of `bytes`, as tsl::Fingerprint64.
uint64_t fingerprint64(const Bytes &bytes);

/// `value` as 8 bytes, most significant first (Python
/// `value.to_bytes(8, byteorder="big")`).
Bytes bigEndian64(uint64_t value);

/// What entry 6 feeds for `spec`, piece by piece.
struct AcceleratorEntry {
  /// The labelled pieces fed in order: one 8-byte fingerprint, or one
  /// hash-string per `device_kind`.
  std::vector<std::pair<std::string, Bytes>> parts;
  /// Set when a fingerprint was used.
  std::optional<uint64_t> fingerprint;
  /// How the value was obtained, e.g. "FarmHash Fingerprint64 of
  /// CpuTopologyProto (91 bytes)", or the supplied provenance.
  std::string provenance;
  bool standIn = false;
  /// True for the device_kind fallback.
  bool fallback = false;
  /// The input it was computed from, for field-level diffs.
  AcceleratorSpec spec;
};

/// Computes entry 6 for `scenario.accelerator` under `scenario.profile`:
/// the fingerprint as 8 bytes, big-endian (0.10.0 and later) or the
/// serialized topology proto (`topology.serialize()`, before 0.10.0); for
/// the fallback, each `device_kind` through hash-string, followed before
/// 0.6.0 by platform, platform_version and runtime_type. The Error says why
/// a spec cannot give the bytes a profile feeds (a bare fingerprint under a
/// profile that hashes the serialized topology; `gpu_topology` under a
/// profile that feeds a fingerprint, code Unsupported: from jax 0.10.0 that
/// fingerprint is of the GPU runtime's whole GpuTopologyProto, target config
/// included, and only a measured value gives it).
Expected<AcceleratorEntry> acceleratorEntry(const Scenario &scenario);

/// JAX's INFO line for the fallback under `profile` (logged by the
/// `jax._src.cache_key` logger, so it appears in DEBUG traces, twice).
std::string fallbackLogLine(const DeviceKinds &kinds, Profile profile);

} // namespace cachekey

#endif // CACHEKEY_TOPOLOGY_H
