"""Every TPU topology name tried through libtpu (a worker process).

For an accepted name: device count, ``device_kind``, platform,
``platform_version`` (exact), ``DeviceTopology.fingerprint()`` of all devices
and of ``devices[:1]``, and the exact bytes the release's own
``jax._src.cache_key._hash_accelerator_config`` feeds for that device array
(entry 6), recorded by calling that real function with a recording hash
object.  For a refused name: the exception type and full message.  ``merge``
combines the files of several releases.
"""

from __future__ import annotations

import inspect
import json
import os
import time

from fixture_capture.provenance import code_sha256, utc_now, versions, write_json
from fixture_capture.tpu.recorders import Sink, b64, device_info, err_text

HERE = os.path.dirname(os.path.abspath(__file__))

# (generation label, canonical spelling, sizes).  Sizes that libtpu refuses
# are kept: the refusal is recorded.
TOPOLOGY_SIZES = [
    ("v2", "v2", ["1x1", "2x2", "2x2x1", "4x4"]),
    ("v3", "v3", ["1x1", "2x2", "2x2x1", "4x4"]),
    ("v4", "v4", ["1x1x1", "2x2x1", "2x2x2", "2x2x4", "4x4x4"]),
    ("v4 lite", "v4 lite", ["1x1", "2x2", "2x2x1"]),
    ("v5e", "v5e", ["1x1", "1x2", "2x1", "2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16", "3x3"]),
    ("v5p", "v5p", ["1x1x1", "2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4"]),
    ("v6e", "v6e", ["1x1", "2x2", "2x4", "4x4", "8x8", "16x16"]),
    ("TPU7x", "tpu7x", ["1x1x1", "2x2x1", "2x2x2", "2x2x4", "4x4x4"]),
]

# Other spellings and syntax, each tried once.
TOPOLOGY_EXTRA = [
    # generation spellings
    ("v5e", "v5 lite:2x2", {}), ("v5e", "v5litepod:2x2", {}), ("v5e", "v5lite:2x2", {}),
    ("v5e", "v5E:2x2", {}), ("v5e", "v5litepod-4", {}), ("v5e", "v5e-4", {}),
    ("v5p", "v5:2x2x1", {}), ("v5p", "v5p-8", {}),
    ("v6e", "v6 lite:2x2", {}), ("v6e", "v6lite:2x2", {}), ("v6e", "v6:2x2", {}),
    ("v6e", "trillium:2x2", {}), ("v6e", "v6e-4", {}),
    ("TPU7x", "TPU7x:2x2x1", {}), ("TPU7x", "tpu7:2x2x1", {}), ("TPU7x", "v7:2x2x1", {}),
    ("TPU7x", "v7x:2x2x1", {}), ("TPU7x", "ironwood:2x2x1", {}),
    ("v4", "V4:2x2x1", {}), ("v4", "TPU v4:2x2x1", {}), ("v4", "v4lite:2x2", {}), ("v4", "v4i:2x2", {}),
    # separators and suffixes
    ("v5e", "v5e=2x2", {}), ("v5e", "v5e_2x2", {}), ("v5e", "v5e 2x2", {}), ("v5e", "v5e:2x2x1", {}),
    ("v5e", "v5e:2x2_untwisted", {}), ("v5e", "v5e:2x2_twisted", {}),
    ("v4", "v4:4x4x8_twisted", {}), ("v4", "v4:4x4x8", {}),
    ("v5p", "v5p:2x2", {}), ("v5e", "v5e:2x2x2", {}),
    ("default", "", {}),
    # keyword arguments passed through to libtpu
    ("v2", "v2:1x1", {"chips_per_host_bounds": [1, 1, 1]}),
    ("v3", "v3:1x1", {"chips_per_host_bounds": [1, 1, 1]}),
    ("v4", "v4:1x1x1", {"chips_per_host_bounds": [1, 1, 1]}),
    ("v4 lite", "v4 lite:1x1", {"chips_per_host_bounds": [1, 1, 1]}),
    ("v5e", "v5e:1x1", {"chips_per_host_bounds": [1, 1, 1]}),
    ("v5e", "v5e:2x2", {"chips_per_host_bounds": [1, 1, 1]}),
    ("v5e", "v5e:2x2", {"chips_per_host_bounds": [2, 2, 1]}),
    ("v5p", "v5p:1x1x1", {"chips_per_host_bounds": [1, 1, 1]}),
    ("v6e", "v6e:1x1", {"chips_per_host_bounds": [1, 1, 1]}),
    ("TPU7x", "tpu7x:1x1x1", {"chips_per_host_bounds": [1, 1, 1]}),
    ("v5e", "v5e:1x1", {"chips_per_host_bounds": "1x1x1"}),
    ("v5e", "v5e:2x2", {"num_slices": 2}),
    ("v5e", "v5e:2x2", {"chip_config_name": "megacore"}),
    ("v5p", "v5p:2x2x1", {"chip_config_name": "megacore"}),
    ("v4", "v4:2x2x1", {"chip_config_name": "megacore"}),
    ("v4", "v4:2x2x1", {"chip_config_name": "default"}),
    ("TPU7x", "tpu7x:2x2x1", {"chip_config_name": "megacore"}),
    ("v5e", "v5e:2x2", {"bogus": 1}),
]


def probe_topology(generation: str, name: str, kwargs: dict) -> dict:
    """What libtpu says about topology ``name`` with ``kwargs``, or why it refuses it."""
    import numpy as np
    from jax.experimental import topologies
    from jax._src import cache_key
    from jax._src.lib import xla_client

    rec = {"generation": generation, "name": name, "kwargs": kwargs}
    t0 = time.perf_counter()
    try:
        topo = topologies.get_topology_desc(name, "tpu", **kwargs)
    except Exception as e:  # noqa: BLE001 - a refusal is data
        rec["accepted"] = False
        rec["error"] = err_text(e)
        rec["seconds"] = round(time.perf_counter() - t0, 3)
        return rec
    devices = list(topo.devices)
    d0 = devices[0]
    dt_all = xla_client.get_topology_for_devices(devices)
    dt_one = xla_client.get_topology_for_devices(devices[:1])
    fp_all = int(dt_all.fingerprint())
    fp_one = int(dt_one.fingerprint())

    def entry6(devs) -> bytes:
        sink = Sink()
        cache_key._hash_accelerator_config(sink, np.array(devs, dtype=object))
        return b"".join(sink.fed)

    e6_all, e6_one = entry6(devices), entry6(devices[:1])
    client = d0.client
    rec.update({
        "accepted": True,
        "device_count": len(devices),
        "device_kind": d0.device_kind,
        "device_kinds": sorted({d.device_kind for d in devices}),
        "platform": d0.platform,
        "client_type": type(client).__name__,
        "client_platform": client.platform,
        "client_platform_version": client.platform_version,
        "topology_platform": dt_all.platform,
        "topology_platform_version": dt_all.platform_version,
        "fingerprint_hex": f"{fp_all:016x}",
        "fingerprint_int": fp_all,
        "fingerprint_first_device_only_hex": f"{fp_one:016x}",
        "entry6_bytes_hex": e6_all.hex(),
        "entry6_bytes_first_device_only_hex": e6_one.hex(),
        "entry6_equals_fingerprint_8_bytes_big_endian": e6_all == fp_all.to_bytes(8, "big"),
        "process_indices": sorted({d.process_index for d in devices}),
        "devices": [device_info(d) for d in devices] if len(devices) <= 16 else None,
        "first_device": device_info(d0),
        "seconds": round(time.perf_counter() - t0, 3),
    })
    if hasattr(dt_all, "serialize"):
        try:
            s = dt_all.serialize()
            rec["serialize_b64"] = b64(s)
            rec["serialize_len"] = len(s)
        except Exception as e:  # noqa: BLE001
            rec["serialize_error"] = err_text(e)
    else:
        rec["serialize_b64"] = None
        rec["serialize_note"] = "DeviceTopology has no serialize() in this jaxlib"
    return rec


def run_topologies_worker(out_path: str, command: str) -> None:
    """Probes every name of TOPOLOGY_SIZES and TOPOLOGY_EXTRA; writes ``out_path``."""
    t0 = time.perf_counter()
    import jax  # noqa: F401
    from jax._src import cache_key
    import_s = time.perf_counter() - t0
    entries = []
    for gen, spelling, sizes in TOPOLOGY_SIZES:
        for size in sizes:
            entries.append(probe_topology(gen, f"{spelling}:{size}", {}))
    for gen, name, kwargs in TOPOLOGY_EXTRA:
        entries.append(probe_topology(gen, name, kwargs))
    src = inspect.getsource(cache_key._hash_accelerator_config)
    write_json(out_path, {
        "schema": 1,
        "versions": versions(),
        "date": utc_now(),
        "command": command,
        "code_sha256": code_sha256(HERE),
        "environment": {k: os.environ.get(k) for k in ("JAX_PLATFORMS", "TPU_ACCELERATOR_TYPE",
                                                       "TPU_WORKER_HOSTNAMES", "LIBTPU_INIT_ARGS",
                                                       "XLA_FLAGS")},
        "api": "jax.experimental.topologies.get_topology_desc(name, 'tpu', **kwargs).devices; "
               "fingerprint = jax._src.lib.xla_client.get_topology_for_devices(devices).fingerprint()",
        "entry6_how": ("bytes recorded by calling this release's jax._src.cache_key._hash_accelerator_config"
                       "(recorder, numpy object array of the devices); in this release that function "
                       + ("feeds topology.fingerprint().to_bytes(8, byteorder='big')"
                          if "to_bytes(8" in src and "big" in src else "does something else: inspect")),
        "import_seconds": round(import_s, 3),
        "total_seconds": round(time.perf_counter() - t0, 3),
        "topologies": entries,
    })


def merge(paths: list[str], out: str) -> None:
    """Combine per-release topology files; add compact tables and a comparison."""
    runs = []
    for p in sorted(paths):
        with open(p, encoding="utf-8") as f:
            runs.append(json.load(f))
    tables, platform_versions, by_key = {}, {}, {}
    for run in runs:
        tag = f"jax {run['versions']['jax']} / libtpu {run['versions']['libtpu']}"
        rows = []
        pv = platform_versions.setdefault(tag, {})
        for t in run["topologies"]:
            k = json.dumps([t["name"], t["kwargs"]], sort_keys=True)
            if t["accepted"]:
                rows.append({"name": t["name"], "kwargs": t["kwargs"], "generation": t["generation"],
                             "device_count": t["device_count"], "device_kind": t["device_kind"],
                             "fingerprint_hex": t["fingerprint_hex"],
                             "entry6_bytes_hex": t["entry6_bytes_hex"],
                             "platform_version": t["client_platform_version"]})
                pv.setdefault(t["device_kind"], [])
                if t["client_platform_version"] not in pv[t["device_kind"]]:
                    pv[t["device_kind"]].append(t["client_platform_version"])
                by_key.setdefault(k, {})[tag] = (t["device_count"], t["device_kind"], t["fingerprint_hex"])
            else:
                rows.append({"name": t["name"], "kwargs": t["kwargs"], "generation": t["generation"],
                             "refused": t["error"]["message"]})
                by_key.setdefault(k, {})[tag] = "refused"
        tables[tag] = rows
    comparison = {"same_in_all_releases": [], "differs": []}
    for k, per in by_key.items():
        name, kwargs = json.loads(k)
        vals = list(per.values())
        entry = {"name": name, "kwargs": kwargs, "per_release": per}
        (comparison["same_in_all_releases"] if all(v == vals[0] for v in vals) and len(per) == len(runs)
         else comparison["differs"]).append(entry)
    write_json(out, {"schema": 1, "merged": utc_now(), "sources": sorted(paths),
                     "table": tables, "platform_versions_by_device_kind": platform_versions,
                     "comparison": comparison, "runs": runs})
