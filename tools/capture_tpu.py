#!/usr/bin/env python3
"""Capture real TPU compilation-cache-key values on a CPU-only machine.

Runs inside a venv that has ``jax``, ``jaxlib`` and ``libtpu`` from PyPI
(no TPU needed: libtpu compiles "deviceless", ahead of time, for a TPU
topology that it describes itself).  Usage::

    JAX venv/bin/python capture_tpu.py --out DIR                # everything
    JAX venv/bin/python capture_tpu.py --out DIR --only topologies
    JAX venv/bin/python capture_tpu.py --out DIR --only captures --programs add_v5e_1x1,pallas_a
    python capture_tpu.py --merge DIR/topologies_jax*.json --merged-out topologies.json

What it writes (``<ver>`` is the running jax version):

* ``DIR/topologies_jax<ver>.json``: every TPU topology name tried through
  ``jax.experimental.topologies.get_topology_desc(name, "tpu", **kwargs)``.
  For an accepted name: device count, ``device_kind``, platform,
  ``platform_version`` (exact), ``DeviceTopology.fingerprint()`` (hex, 16
  digits) of all devices and of ``devices[:1]``, and the exact bytes that the
  release's own ``jax._src.cache_key._hash_accelerator_config`` feeds to a hash
  object for that device array (entry 6 "accelerator_config"), recorded by
  calling that real function with a recording hash object.  For a refused
  name: the exception type and full message.
* ``DIR/captures/<program>__jax<ver>.json``: one whole-key capture per
  program.  Each program runs in its own child process (``--worker``) with
  ``JAX_PLATFORMS=cpu``, the persistent compilation cache enabled in a fixed
  temporary directory (emptied first), ``min_compile_time_secs=0``,
  ``min_entry_size_bytes=-1``, and the ``jax._src.cache_key`` logger at DEBUG.
  The child replaces ``jax._src.cache_key.get`` with a wrapper that records
  the arguments JAX passed (module text and bytecode, devices,
  ``compile_options.SerializeAsString()``, backend platform and
  platform_version, compression name, custom-partitioning / callback switch),
  swaps ``cache_key.hashlib`` for a shim whose sha256 objects record every
  byte string fed to them, and calls the real ``get``.  Because DEBUG is on,
  the real ``get`` makes one running hash object plus one fresh object per
  entry; the fresh objects' inputs are the per-entry bytes.  Every value under
  ``expected`` is copied from that real run.  Self-checks: the running hash
  was fed exactly the concatenation of the per-entry bytes, its digest is the
  key's suffix, the DEBUG digests equal the recorded objects' digests, and
  entry 6 equals ``fingerprint().to_bytes(8, "big")`` of
  ``xla_client.get_topology_for_devices`` on the passed devices.
* ``fallback_*`` programs force the device_kind fallback of entry 6 by
  making ``get_topology_for_devices`` (as seen from ``jax._src.cache_key``
  only) raise ``JaxRuntimeError``; that path is never taken naturally for TPU
  devices (libtpu always supplies a topology), so these captures are marked
  ``synthetic_trigger``.

Environment: ``CAPTURE_TPU_CACHE_DIR`` replaces the fixed cache directory
``/tmp/jax-tpu-cache-key-capture`` (under jax 0.10.2 that path is part of
entry 5, so keep the default to reproduce the stored keys).  ``--list`` prints
the program ids.  Keys captured with
``jax_compilation_cache_include_metadata_in_key=True`` (``*_meta``) and, under
jax 0.10.2, the Pallas keys, depend on this file's path and line numbers; each
capture records ``script_sha256``.

Nothing here reimplements the cache key: every key and digest comes from the
installed JAX.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import glob
import hashlib
import inspect
import json
import logging
import os
import platform
import shutil
import subprocess
import sys
import time
import types

# Fixed, because in jax 0.10.2 this path reaches the key: JAX sets
# debug_options.xla_gpu_per_fusion_autotune_cache_dir = <dir>/xla_gpu_per_fusion_autotune_cache_dir
# whenever the persistent cache is on, and 0.10.2's cache_key does not clear it
# (0.12.0.1 does).  CAPTURE_TPU_CACHE_DIR overrides it (for that experiment).
CACHE_DIR = os.environ.get("CAPTURE_TPU_CACHE_DIR", "/tmp/jax-tpu-cache-key-capture")
ENTRY_NAMES = ["computation", "jax_lib version", "backend version", "XLA flags",
               "compile_options", "accelerator_config", "compression", "custom_hook"]


def _script_sha256() -> str:
    with open(os.path.abspath(__file__), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def write_json(path: str, obj) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write("\n")


def versions() -> dict:
    from importlib import metadata
    out = {"python": platform.python_version()}
    for dist in ("jax", "jaxlib", "libtpu", "numpy", "ml_dtypes", "zstandard"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    out["platform"] = " ".join(platform.uname())
    return out


class RecordingSha256:
    """A hashlib.sha256 stand-in that keeps every byte string it is fed."""

    def __init__(self):
        self._h = hashlib.sha256()
        self.fed: list[bytes] = []

    def update(self, data):
        self.fed.append(bytes(data))
        self._h.update(data)

    def digest(self):
        return self._h.digest()

    def hexdigest(self):
        return self._h.hexdigest()


class Sink:
    """Hash-like object that only records what is fed to it."""

    def __init__(self):
        self.fed: list[bytes] = []

    def update(self, data):
        self.fed.append(bytes(data))


class LogRecorder(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        self.records: list[dict] = []

    def emit(self, record):
        self.records.append({"logger": record.name, "level": record.levelname,
                             "message": record.getMessage(),
                             "formatted": self.format(record)})


def err_text(e: BaseException) -> dict:
    return {"type": f"{type(e).__module__}.{type(e).__qualname__}", "message": str(e)}


# ---------------------------------------------------------------------------
# Topologies
# ---------------------------------------------------------------------------

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


def _device_info(d) -> dict:
    out = {}
    for attr in ("id", "process_index", "host_id", "task_id", "local_hardware_id",
                 "device_kind", "platform", "coords", "core_on_chip", "slice_index"):
        try:
            v = getattr(d, attr)
            if isinstance(v, (list, tuple)):
                v = [int(x) for x in v]
            out[attr] = v if isinstance(v, (int, str, list)) or v is None else repr(v)
        except Exception as e:  # noqa: BLE001 - recorded
            out[attr] = {"error": err_text(e)}
    out["repr"] = repr(d)
    return out


def probe_topology(generation: str, name: str, kwargs: dict) -> dict:
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
        "devices": [_device_info(d) for d in devices] if len(devices) <= 16 else None,
        "first_device": _device_info(d0),
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
        "script_sha256": _script_sha256(),
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


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------

def _topo(name, kwargs=None):
    from jax.experimental import topologies
    return topologies.get_topology_desc(name, "tpu", **(kwargs or {}))


def _v5e_1x1_spec():
    """v5e:1x1; jax 0.10.2's libtpu refuses it without chips_per_host_bounds."""
    import jax
    major_minor = tuple(int(p) for p in jax.__version__.split(".")[:2])
    if major_minor < (0, 11):
        return "v5e:1x1", {"chips_per_host_bounds": [1, 1, 1]}
    return "v5e:1x1", {}


def _program_add(topology, kwargs=None, device_index=0):
    def build():
        import jax
        import jax.numpy as jnp
        from jax.sharding import SingleDeviceSharding
        topo = _topo(topology, kwargs)
        sh = SingleDeviceSharding(topo.devices[device_index])
        x = jax.ShapeDtypeStruct((1, 1), jnp.float32, sharding=sh)
        f = jax.jit(lambda x, y: x + y)
        return lambda: f.lower(x, x).compile()
    return build


def _program_matmul(topology, mesh_shape, kwargs=None):
    def build():
        import jax
        import jax.numpy as jnp
        from jax.experimental import topologies
        from jax.sharding import NamedSharding, PartitionSpec as P
        topo = _topo(topology, kwargs)
        mesh = topologies.make_mesh(topo, mesh_shape, ("data", "model"))
        xs = NamedSharding(mesh, P("data", None))
        ws = NamedSharding(mesh, P(None, "model"))
        out = NamedSharding(mesh, P("data", "model"))

        def sharded_matmul(x, w):
            return jnp.tanh(x @ w)

        f = jax.jit(sharded_matmul, in_shardings=(xs, ws), out_shardings=out)
        x = jax.ShapeDtypeStruct((8, 16), jnp.float32, sharding=xs)
        w = jax.ShapeDtypeStruct((16, 8), jnp.float32, sharding=ws)
        return lambda: f.lower(x, w).compile()
    return build


def _pallas_variant(variant: str):
    """The same Pallas add-one kernel, defined at two different source lines.

    Names and bodies are identical; only the line numbers differ.
    """
    import jax
    import jax.numpy as jnp
    from jax.experimental import pallas as pl
    if variant == "a":
        def add_one_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...] + 1

        def pallas_add_one(x):
            return pl.pallas_call(add_one_kernel,
                                  out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
        return pallas_add_one
    # Padding: variant B's definitions sit on different lines than A's.
    #
    #
    #
    #
    if variant == "b":
        def add_one_kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...] + 1

        def pallas_add_one(x):
            return pl.pallas_call(add_one_kernel,
                                  out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
        return pallas_add_one
    raise ValueError(variant)


def _program_pallas(variant):
    def build():
        import jax
        import jax.numpy as jnp
        from jax.sharding import SingleDeviceSharding
        topo = _topo("v5e:2x2")
        sh = SingleDeviceSharding(topo.devices[0])
        x = jax.ShapeDtypeStruct((8, 128), jnp.int32, sharding=sh)
        f = jax.jit(_pallas_variant(variant))
        return lambda: f.lower(x).compile()
    return build


def _v5e_1x1_add():
    name, kw = _v5e_1x1_spec()
    return _program_add(name, kw)()


# id -> spec.  "topology" is informational (the builder picks it);
# "fallback" forces the device_kind fallback; "config" sets jax.config values.
PROGRAMS = {
    "add_v5e_1x1": {"title": "x + y on float32[1,1], SingleDeviceSharding on the only device of v5e:1x1",
                    "build": _v5e_1x1_add, "topology": "v5e:1x1"},
    "add_v5e_2x2_dev0": {"title": "x + y on float32[1,1], SingleDeviceSharding on device 0 of v5e:2x2",
                         "build": _program_add("v5e:2x2"), "topology": "v5e:2x2"},
    "add_v5e_2x2_dev3": {"title": "x + y on float32[1,1], SingleDeviceSharding on device 3 of v5e:2x2",
                         "build": _program_add("v5e:2x2", device_index=3), "topology": "v5e:2x2"},
    "matmul_v5e_2x2": {"title": "tanh(x @ w), x f32[8,16] P('data',None), w f32[16,8] P(None,'model'), mesh 2x2 on v5e:2x2 (4 chips)",
                       "build": _program_matmul("v5e:2x2", (2, 2)), "topology": "v5e:2x2"},
    "matmul_v5e_2x4": {"title": "same sharded matmul, mesh 2x4 on v5e:2x4 (8 chips)",
                       "build": _program_matmul("v5e:2x4", (2, 4)), "topology": "v5e:2x4"},
    "matmul_v5p_2x2x1": {"title": "same sharded matmul, mesh 2x2 on v5p:2x2x1 (4 chips)",
                         "build": _program_matmul("v5p:2x2x1", (2, 2)), "topology": "v5p:2x2x1"},
    "matmul_v6e_2x2": {"title": "same sharded matmul, mesh 2x2 on v6e:2x2 (4 chips)",
                       "build": _program_matmul("v6e:2x2", (2, 2)), "topology": "v6e:2x2"},
    "matmul_v4_2x2x1_megacore": {"title": "same sharded matmul, mesh 2x2 on v4:2x2x1 with chip_config_name='megacore' (4 devices; "
                                 "make_mesh refuses the default 8-device v4 topology: one device per chip needed)",
                                 "build": _program_matmul("v4:2x2x1", (2, 2), {"chip_config_name": "megacore"}),
                                 "topology": "v4:2x2x1 chip_config_name=megacore"},
    "matmul_tpu7x_2x2x1": {"title": "same sharded matmul, mesh 2x4 on tpu7x:2x2x1 (8 devices)",
                           "build": _program_matmul("tpu7x:2x2x1", (2, 4)), "topology": "tpu7x:2x2x1"},
    "matmul_v5e_4x4": {"title": "same sharded matmul, mesh 4x4 on v5e:4x4 (16 chips, devices of 4 processes)",
                       "build": _program_matmul("v5e:4x4", (4, 4)), "topology": "v5e:4x4"},
    "matmul_v5e_2x2_2slices": {"title": "same sharded matmul, mesh 2x4 on v5e:2x2 with num_slices=2 (8 chips in 2 slices)",
                               "build": _program_matmul("v5e:2x2", (2, 4), {"num_slices": 2}),
                               "topology": "v5e:2x2 num_slices=2"},
    "pallas_a": {"title": "Pallas add-one kernel on int32[8,128], device 0 of v5e:2x2, source lines A",
                 "build": _program_pallas("a"), "topology": "v5e:2x2"},
    "pallas_b": {"title": "Pallas add-one kernel on int32[8,128], device 0 of v5e:2x2, source lines B",
                 "build": _program_pallas("b"), "topology": "v5e:2x2"},
    "pallas_a_meta": {"title": "pallas_a with jax_compilation_cache_include_metadata_in_key=True",
                      "build": _program_pallas("a"), "topology": "v5e:2x2",
                      "config": {"jax_compilation_cache_include_metadata_in_key": True}},
    "pallas_b_meta": {"title": "pallas_b with jax_compilation_cache_include_metadata_in_key=True",
                      "build": _program_pallas("b"), "topology": "v5e:2x2",
                      "config": {"jax_compilation_cache_include_metadata_in_key": True}},
    "fallback_add_v5e_1x1": {"title": "add_v5e_1x1 with the device_kind fallback forced (synthetic trigger)",
                             "build": _v5e_1x1_add, "topology": "v5e:1x1", "fallback": True},
    "fallback_matmul_v5e_2x2": {"title": "matmul_v5e_2x2 with the device_kind fallback forced (synthetic trigger)",
                                "build": _program_matmul("v5e:2x2", (2, 2)), "topology": "v5e:2x2",
                                "fallback": True},
}

FALLBACK_MESSAGE = "UNIMPLEMENTED: capture_tpu.py forced the device_kind fallback"


# ---------------------------------------------------------------------------
# Worker: one whole-key capture
# ---------------------------------------------------------------------------

def run_capture_worker(program_id: str, out_path: str, command: str) -> None:
    spec = PROGRAMS[program_id]
    t_start = time.perf_counter()
    import numpy as np
    import jax
    from jax._src import cache_key
    from jax._src.lib import _jax
    from jax._src.lib import xla_client
    from jax._src.lib.mlir import ir
    t_import = time.perf_counter() - t_start

    shutil.rmtree(CACHE_DIR, ignore_errors=True)
    os.makedirs(CACHE_DIR)
    jax.config.update("jax_compilation_cache_dir", CACHE_DIR)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    for name, value in spec.get("config", {}).items():
        jax.config.update(name, value)
    config_values = {n: getattr(jax.config, n) for n in (
        "jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs",
        "jax_persistent_cache_min_entry_size_bytes",
        "jax_compilation_cache_include_metadata_in_key",
        "jax_remove_custom_partitioning_ptr_from_cache_key",
        "jax_persistent_cache_enable_xla_caches")}

    ck_log = LogRecorder()
    ck_logger = logging.getLogger("jax._src.cache_key")
    ck_logger.addHandler(ck_log)
    ck_logger.setLevel(logging.DEBUG)
    ctx_log = LogRecorder()  # compiler / compilation_cache context
    for lname in ("jax._src.compiler", "jax._src.compilation_cache"):
        lg = logging.getLogger(lname)
        lg.addHandler(ctx_log)
        lg.setLevel(logging.DEBUG)

    real_get = cache_key.get
    get_sig = inspect.signature(real_get)
    calls: list[dict] = []

    # Optional synthetic trigger for the device_kind fallback: only the name
    # jax._src.cache_key.xla_client is replaced, by a proxy whose
    # get_topology_for_devices raises JaxRuntimeError.
    real_xla_client = cache_key.xla_client
    if spec.get("fallback"):
        class _Proxy(types.ModuleType):
            def __getattr__(self, item):
                return getattr(real_xla_client, item)

        proxy = _Proxy("xla_client_fallback_proxy")

        def _raise(devices):
            raise _jax.JaxRuntimeError(FALLBACK_MESSAGE)
        proxy.get_topology_for_devices = _raise

    def recording_get(*args, **kwargs):
        bound = get_sig.bind(*args, **kwargs)
        bound.apply_defaults()
        a = dict(bound.arguments)
        module, devices = a["module"], a["devices"]
        compile_options, backend = a["compile_options"], a["backend"]
        extra_names = [n for n in a if n not in ("module", "devices", "compile_options", "backend",
                                                 "compression_algorithm")]
        # The release's own switch (IgnoreCallbacks enum or bool).
        switch_name = extra_names[0]
        switch = a[switch_name]
        with module.context:
            pretty = module.operation.get_asm(enable_debug_info=True)
            generic = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
            canonical = cache_key._canonicalize_ir(module, switch)
            metadata = cache_key._serialize_ir(module, switch)
        dev_list = list(devices.flat)
        try:
            topo = xla_client.get_topology_for_devices(dev_list)
            fp = int(topo.fingerprint())
            topo_info = {"fingerprint_hex": f"{fp:016x}", "platform": topo.platform,
                         "platform_version": topo.platform_version}
        except Exception as e:  # noqa: BLE001
            fp = None
            topo_info = {"error": err_text(e)}
        if fp is not None and hasattr(topo, "serialize"):
            try:
                topo_info["serialize_b64"] = b64(topo.serialize())
            except Exception as e:  # noqa: BLE001 - e.g. multi-slice: "ToProto is unsupported"
                topo_info["serialize_error"] = err_text(e)
        rec = {
            "argument_names": list(a),
            "sym_name": ir.StringAttr(module.operation.attributes["sym_name"]).value,
            "switch": {"name": switch_name,
                       "value": getattr(switch, "name", switch) if not isinstance(switch, bool) else switch},
            "compression_algorithm": a["compression_algorithm"],
            "module_pretty_with_debug_info": pretty,
            "module_generic_with_debug_info": generic,
            "canonical_ir_b64": b64(canonical),
            "serialized_ir_with_metadata_b64": b64(metadata),
            "devices_shape": list(devices.shape),
            "devices": [_device_info(d) for d in dev_list],
            "compile_options_b64": b64(compile_options.SerializeAsString()),
            "backend": {"type": type(backend).__name__, "platform": backend.platform,
                        "platform_version": backend.platform_version},
            "topology_for_devices": topo_info,
            "env": {k: os.environ.get(k) for k in ("XLA_FLAGS", "LIBTPU_INIT_ARGS")},
            "argv": list(sys.argv),
            "flag_prefixes": list(cache_key.get_flag_prefixes()),
            "custom_hook": cache_key.custom_hook(),
            "jaxlib_version_str": cache_key.jaxlib_version_str,
        }
        hashers: list[RecordingSha256] = []

        def make():
            hashers.append(RecordingSha256())
            return hashers[-1]

        first_log = len(ck_log.records)
        cache_key.hashlib = types.SimpleNamespace(sha256=make)
        if spec.get("fallback"):
            cache_key.xla_client = proxy
        try:
            key = real_get(*args, **kwargs)
        finally:
            cache_key.hashlib = hashlib
            cache_key.xla_client = real_xla_client
        rec["key"] = key
        rec["log"] = ck_log.records[first_log:]
        rec["hashers"] = hashers
        rec["fingerprint"] = fp
        calls.append(rec)
        return key

    run = spec["build"]()
    cache_key.get = recording_get
    t0 = time.perf_counter()
    compile_error = None
    try:
        compiled = run()
    except Exception as e:  # noqa: BLE001 - recorded, then re-raised below
        compile_error = e
    finally:
        cache_key.get = real_get
    t_compile = time.perf_counter() - t0
    if compile_error is not None and not calls:
        raise compile_error

    out_calls = []
    for call in calls:
        hashers = call.pop("hashers")
        fp = call.pop("fingerprint")
        running, fresh = hashers[0], hashers[1:]
        if len(fresh) != len(ENTRY_NAMES):
            raise RuntimeError(f"expected {len(ENTRY_NAMES)} fresh hash objects, got {len(fresh)}")
        entry_bytes = [b"".join(h.fed) for h in fresh]
        checks = {
            "running_fed_equals_concat_of_entries": b"".join(running.fed) == b"".join(entry_bytes),
            "running_digest_equals_key_suffix": running.hexdigest() == call["key"].rsplit("-", 1)[1],
        }
        debug_digests = [r["message"] for r in call["log"]
                         if r["message"].startswith("get_cache_key hash of serialized ")]
        checks["debug_digests_equal_recorded"] = (
            [m.rsplit(": ", 1)[1] for m in debug_digests] == [h.hexdigest() for h in fresh])
        include_metadata = bool(config_values["jax_compilation_cache_include_metadata_in_key"])
        expected_entry1 = base64.b64decode(call["serialized_ir_with_metadata_b64"] if include_metadata
                                           else call["canonical_ir_b64"])
        checks["entry1_equals_" + ("serialize_ir" if include_metadata else "canonicalize_ir")] = (
            entry_bytes[0] == expected_entry1)
        if not spec.get("fallback"):
            checks["entry6_equals_fingerprint_be8"] = (fp is not None and
                                                       entry_bytes[5] == fp.to_bytes(8, "big"))
        else:
            kinds = [d["device_kind"] for d in call["devices"]]
            checks["entry6_equals_concat_of_device_kinds"] = (
                entry_bytes[5] == b"".join(k.encode("utf-8").strip() for k in kinds))
        if not all(checks.values()):
            # Kept and written (the data may still be informative); the
            # worker exits with status 2 after writing.
            print(f"SELF-CHECK FAILED: {checks}", file=sys.stderr)
        entries = []
        running_lines = [r["message"] for r in call["log"]
                         if r["message"].startswith("get_cache_key hash after serializing ")]
        for i, name in enumerate(ENTRY_NAMES):
            entries.append({
                "name": name,
                "chunks_b64": [b64(c) for c in fresh[i].fed],
                "bytes_b64": b64(entry_bytes[i]),
                "bytes_len": len(entry_bytes[i]),
                "digest": fresh[i].hexdigest(),
                "running": running_lines[i].rsplit(": ", 1)[1] if i < len(running_lines) else None,
            })
        call["entries"] = entries
        call["self_checks"] = checks
        out_calls.append(call)

    result = {
        "schema": 1,
        "id": program_id,
        "title": spec["title"],
        "topology": spec["topology"],
        "synthetic_trigger": ("jax._src.cache_key.xla_client replaced by a proxy whose "
                              f"get_topology_for_devices raises JaxRuntimeError({FALLBACK_MESSAGE!r})"
                              if spec.get("fallback") else None),
        "provenance": {
            "versions": versions(),
            "date": utc_now(),
            "command": command,
            "environment": {k: os.environ.get(k) for k in ("JAX_PLATFORMS", "XLA_FLAGS",
                                                           "LIBTPU_INIT_ARGS", "TPU_ACCELERATOR_TYPE")},
            "config": config_values,
            "config_overrides": spec.get("config", {}),
            "script": os.path.abspath(__file__),
            "script_sha256": _script_sha256(),
            "note_on_metadata_keys": ("with jax_compilation_cache_include_metadata_in_key=True the key covers "
                                      "source locations (file path and line numbers of this script, including "
                                      "the worker's call stack), so such keys reproduce only with this exact "
                                      "file at this path"),
            "how": ("jax.jit(...).lower(ShapeDtypeStruct inputs with TPU shardings).compile() "
                    "with the persistent cache on; jax._src.cache_key.get wrapped; "
                    "cache_key.hashlib swapped for a recording sha256 shim; logger "
                    "jax._src.cache_key at DEBUG"),
            "import_seconds": round(t_import, 3),
            "compile_seconds": round(t_compile, 3),
            "cache_files_written": sorted(os.listdir(CACHE_DIR)),
        },
        "compile_ok": compile_error is None,
        "compile_error": err_text(compile_error) if compile_error is not None else None,
        "number_of_get_calls": len(out_calls),
        "calls": out_calls,
        "context_log": ctx_log.records,
    }
    if compile_error is None:
        try:
            result["compiled_text_sha256"] = hashlib.sha256(compiled.as_text().encode()).hexdigest()
        except Exception as e:  # noqa: BLE001
            result["compiled_text_error"] = err_text(e)
    # The "expected" block: the last (normally the only) call.
    last = out_calls[-1]
    result["expected"] = {
        "key": last["key"],
        "entries": [{"name": e["name"], "digest": e["digest"], "running": e["running"]}
                    for e in last["entries"]],
        "log_messages": [r["message"] for r in last["log"]],
    }
    result["all_self_checks_passed"] = all(all(c["self_checks"].values()) for c in out_calls)
    write_json(out_path, result)
    if not result["all_self_checks_passed"]:
        sys.exit(2)


# ---------------------------------------------------------------------------
# Parent
# ---------------------------------------------------------------------------

def _child(args: list[str], log_path: str) -> tuple[int, float]:
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    t0 = time.perf_counter()
    with open(log_path, "w", encoding="utf-8") as log:
        rc = subprocess.call([sys.executable, os.path.abspath(__file__)] + args,
                             env=env, stdout=log, stderr=subprocess.STDOUT)
    return rc, time.perf_counter() - t0


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output directory")
    ap.add_argument("--only", choices=("all", "topologies", "captures"), default="all")
    ap.add_argument("--programs", help="comma-separated program ids (default: all)")
    ap.add_argument("--list", action="store_true", help="list program ids")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", help=argparse.SUPPRESS)
    ap.add_argument("--command", help=argparse.SUPPRESS)
    ap.add_argument("--merge", nargs="+", help="merge topologies_jax*.json files")
    ap.add_argument("--merged-out", help="output of --merge")
    ns = ap.parse_args()

    if ns.list:
        for k, v in PROGRAMS.items():
            print(f"{k}: {v['title']}")
        return 0
    if ns.merge:
        merge(ns.merge, ns.merged_out)
        return 0
    if ns.worker:
        if ns.worker == "topologies":
            run_topologies_worker(ns.worker_out, ns.command)
        else:
            run_capture_worker(ns.worker, ns.worker_out, ns.command)
        return 0
    if not ns.out:
        ap.error("--out is required")

    from importlib import metadata
    jax_version = metadata.version("jax")
    command = " ".join([sys.executable] + sys.argv)
    out = os.path.abspath(ns.out)
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    summary = []
    if ns.only in ("all", "topologies"):
        path = os.path.join(out, f"topologies_jax{jax_version}.json")
        rc, secs = _child(["--worker", "topologies", "--worker-out", path, "--command", command],
                          os.path.join(logs, f"topologies_jax{jax_version}.log"))
        summary.append(("topologies", rc, secs))
        print(f"topologies: rc={rc} {secs:.1f}s", flush=True)
    if ns.only in ("all", "captures"):
        ids = ns.programs.split(",") if ns.programs else list(PROGRAMS)
        for pid in ids:
            path = os.path.join(out, "captures", f"{pid}__jax{jax_version}.json")
            rc, secs = _child(["--worker", pid, "--worker-out", path, "--command", command],
                              os.path.join(logs, f"{pid}__jax{jax_version}.log"))
            summary.append((pid, rc, secs))
            print(f"{pid}: rc={rc} {secs:.1f}s", flush=True)
    write_json(os.path.join(logs, f"run_jax{jax_version}.json"),
               {"date": utc_now(), "command": command,
                "results": [{"id": i, "rc": rc, "seconds": round(s, 1)} for i, rc, s in summary]})
    return 0 if all(rc == 0 for _, rc, _ in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
