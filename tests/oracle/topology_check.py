#!/usr/bin/env python3
"""What jaxlib's CPU ``DeviceTopology`` hashes into entry 6, for one release.

Run with a release's own interpreter (``tools/oracle --jax V --topology-check``
does that for each device count)::

    python topology_check.py --devices N

Prints one JSON object: the jax/jaxlib versions, ``serialize()`` (hex) when the
topology has it, ``fingerprint()`` when it has it, the fields of the
``CpuTopologyProto`` found in those bytes (devices, field-4 strings, field-5
target machine), and the proto that ``tools/ckref.py`` rebuilds from the
client's devices and the LLVM target machine found in a serialized executable,
with whether it equals jaxlib's bytes (or, when only ``fingerprint()`` exists,
whether its FarmHash equals it).  Nothing is inferred: each field is read from
jaxlib's own output.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))

import ckref  # noqa: E402


def main() -> int:
    """Print the JSON report for ``--devices N``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=1)
    args = parser.parse_args()
    # Releases whose make_cpu_client has no num_devices read the count from
    # XLA_FLAGS once, at start-up.
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={args.devices}"
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    import jax.numpy as jnp
    import jaxlib
    from jax._src.lib import xla_client

    if "num_devices" in inspect.signature(xla_client.make_cpu_client).parameters:
        devices = xla_client.make_cpu_client(num_devices=args.devices).devices()
    else:
        devices = jax.devices()
    topology = xla_client.get_topology_for_devices(devices)
    report = {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "devices": len(devices),
              "methods": sorted(m for m in dir(topology) if not m.startswith("_"))}
    serialized = topology.serialize() if hasattr(topology, "serialize") else None
    fingerprint = int(topology.fingerprint()) if hasattr(topology, "fingerprint") else None
    if serialized is not None:
        report["serialize_hex"] = serialized.hex()
        proto = ckref.unwrap_cpu_topology_proto(serialized)
        report["cpu_topology_proto_is_whole_serialize"] = proto == serialized
        report["cpu_topology_proto_hex"] = proto.hex()
        report["cpu_topology_proto_fields"] = ckref.cpu_topology_parts(proto)
    if fingerprint is not None:
        report["fingerprint"] = f"{fingerprint:016x}"
    try:
        candidates = ckref.cpu_target_machine_candidates(jax, jnp)
    except RuntimeError as e:
        report["rebuilt"] = None
        report["rebuilt_reason"] = str(e)
        candidates = []
    dev = [{"process_index": int(d.process_index), "local_hardware_id": int(d.local_hardware_id)}
           for d in devices]
    for tm in candidates:
        rebuilt = ckref.cpu_topology_proto(dev, tm)
        entry = {"target_machine": tm, "hex": rebuilt.hex()}
        if serialized is not None:
            entry["equals_serialize"] = rebuilt == serialized
            entry["equals_cpu_topology_proto"] = rebuilt == ckref.unwrap_cpu_topology_proto(serialized)
        if fingerprint is not None:
            entry["farmhash_equals_fingerprint"] = ckref.fingerprint64(rebuilt) == fingerprint
        report.setdefault("rebuilt", []).append(entry)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
