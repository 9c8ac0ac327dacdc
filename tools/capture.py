#!/usr/bin/env python3
"""Capture cache-key fixtures from the real JAX 0.10.2 (CPU).

Run through the wrapper ``tools/capture`` (it uses the project's ``.venv``).
With no arguments it regenerates every file it owns in ``fixtures/``:

* one scenario per program (``add_1x1``, ``mul_2x2``, ``lines_*``,
  ``sharded_4dev``, ``custom_partitioning_*``, ``large_mlp``);
* ``json_dumps_golden.json`` (Python ``json.dumps`` behaviour);
* ``debug_options_fields.json`` (the DebugOptions field table, discovered from
  the wire bytes jaxlib writes).

How a program fixture is captured.  Each program runs in its own child process
(``--worker ID``) so that its environment (for example ``XLA_FLAGS`` with a
forced host device count) is in place before JAX starts.  The child enables
the persistent compilation cache in a temporary directory, attaches a logging
handler at DEBUG to the ``jax._src.cache_key`` logger and wraps
``jax._src.cache_key.get``.  When JAX compiles the program it calls the
wrapper, which records the arguments JAX passed (module, devices,
compile_options, backend, compression name, ignore_callbacks), runs the real
``get`` while recording every byte fed to each SHA-256 object it creates, and
keeps the key that ``get`` returned.  Everything under ``expected`` is copied
from that real run (the key, the DEBUG log lines and the digests they print);
nothing there is computed by this script.

The CPU topology.  jaxlib 0.10.2's ``DeviceTopology`` has ``fingerprint()``
but no ``serialize()``.  The ``CpuTopologyProto`` is therefore rebuilt from the
client's devices and the LLVM target-machine options that jaxlib embeds in a
serialized CPU executable, and the rebuilt bytes are accepted only if their
FarmHash ``Fingerprint64`` equals jaxlib's own ``fingerprint()``.
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import json
import logging
import os
import platform
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import ckref  # noqa: E402  (tools/ckref.py)

PROFILE = "0.10.2"
CACHE_DIR = "/tmp/jax-cache-key-capture"

# Every program fixture: id -> how to run it.  ``env`` is added to the child's
# environment before JAX starts; ``config`` holds jax.config values.
PROGRAM_FIXTURES = {
    "add_1x1": {
        "title": "x + y on float32[1,1] (the program JAX's own cache-key tests use)",
        "program": "add_1x1",
    },
    "mul_2x2": {
        "title": "x * y on float32[2,2]",
        "program": "mul_2x2",
    },
    "lines_a_nometa": {
        "title": "same function body at source line A, metadata not in key",
        "program": "lines_a",
        "config": {"jax_compilation_cache_include_metadata_in_key": False},
    },
    "lines_b_nometa": {
        "title": "same function body at source line B, metadata not in key",
        "program": "lines_b",
        "config": {"jax_compilation_cache_include_metadata_in_key": False},
    },
    "lines_a_meta": {
        "title": "same function body at source line A, metadata in key",
        "program": "lines_a",
        "config": {"jax_compilation_cache_include_metadata_in_key": True},
    },
    "lines_b_meta": {
        "title": "same function body at source line B, metadata in key",
        "program": "lines_b",
        "config": {"jax_compilation_cache_include_metadata_in_key": True},
    },
    "sharded_4dev": {
        "title": "matmul sharded over a 2x2 mesh of 4 CPU devices",
        "program": "sharded_4dev",
        "env": {"XLA_FLAGS": "--xla_force_host_platform_device_count=4"},
    },
    "custom_partitioning_off": {
        "title": "custom_partitioning program, pointer left in the key",
        "program": "custom_partitioning",
        "env": {"XLA_FLAGS": "--xla_force_host_platform_device_count=4"},
        "config": {"jax_remove_custom_partitioning_ptr_from_cache_key": False},
    },
    "custom_partitioning_on": {
        "title": "custom_partitioning program, pointer removed from the key",
        "program": "custom_partitioning",
        "env": {"XLA_FLAGS": "--xla_force_host_platform_device_count=4"},
        "config": {"jax_remove_custom_partitioning_ptr_from_cache_key": True},
    },
    "large_mlp": {
        "title": "190 unrolled MLP+attention layers with distinct widths (>1 MB of MLIR)",
        "program": "large_mlp",
    },
}

def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def host_cpu_note() -> str:
    """Model name from /proc/cpuinfo (the LLVM CPU name is in the topology)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def write_json(path: str, obj) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write("\n")


# ---------------------------------------------------------------------------
# Programs (run in the worker; they import jax lazily)
# ---------------------------------------------------------------------------

def _program_add_1x1(jax, jnp):
    f = jax.jit(lambda x, y: x + y)
    x = jnp.ones((1, 1), jnp.float32)
    return lambda: f(x, x).block_until_ready()


def _program_mul_2x2(jax, jnp):
    def mul(x, y):
        return x * y
    f = jax.jit(mul)
    x = jnp.arange(4, dtype=jnp.float32).reshape(2, 2)
    return lambda: f(x, x).block_until_ready()


def _lines_variant(variant: str):
    """The same body, defined at two source lines, with one function name."""
    import jax.numpy as jnp
    if variant == "a":
        def same_body(x, y):
            return jnp.tanh(x) * y + 1.0
        return same_body
    # Padding so that variant B sits on different source lines than A.
    # (Only line numbers differ: the body and the name are identical.)
    #
    #
    if variant == "b":
        def same_body(x, y):
            return jnp.tanh(x) * y + 1.0
        return same_body
    raise ValueError(variant)


def _program_lines(jax, jnp, variant):
    f = jax.jit(_lines_variant(variant))
    x = jnp.ones((3, 5), jnp.float32)
    return lambda: f(x, x).block_until_ready()


def _program_sharded_4dev(jax, jnp):
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    devices = jax.devices()
    if len(devices) != 4:
        raise RuntimeError(f"expected 4 CPU devices, got {len(devices)}")
    mesh = Mesh(np.array(devices).reshape(2, 2), ("data", "model"))
    xs = NamedSharding(mesh, P("data", None))
    ws = NamedSharding(mesh, P(None, "model"))
    out = NamedSharding(mesh, P("data", "model"))

    def sharded_matmul(x, w):
        return jnp.tanh(x @ w)

    f = jax.jit(sharded_matmul, in_shardings=(xs, ws), out_shardings=out)
    x = jax.device_put(jnp.ones((8, 16), jnp.float32), xs)
    w = jax.device_put(jnp.ones((16, 8), jnp.float32), ws)
    return lambda: f(x, w).block_until_ready()


def _program_custom_partitioning(jax, jnp):
    import numpy as np
    from jax.experimental.custom_partitioning import custom_partitioning
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    @custom_partitioning
    def scaled(x):
        return x * 2.0

    def infer(mesh, arg_shapes, result_shape):
        return arg_shapes[0].sharding

    def partition(mesh, arg_shapes, result_shape):
        sharding = arg_shapes[0].sharding
        return mesh, (lambda x: x * 2.0), sharding, (sharding,)

    scaled.def_partition(partition=partition,
                         infer_sharding_from_operands=infer,
                         sharding_rule="i j -> i j")
    mesh = Mesh(np.array(jax.devices()), ("x",))
    sh = NamedSharding(mesh, P("x", None))

    def with_custom_partitioning(x):
        return scaled(x) + 1.0

    f = jax.jit(with_custom_partitioning, in_shardings=sh, out_shardings=sh)
    x = jax.device_put(jnp.ones((8, 4), jnp.float32), sh)
    return lambda: f(x).block_until_ready()


LARGE_MLP_LAYERS = 190


def _program_large_mlp(jax, jnp):
    n = LARGE_MLP_LAYERS
    widths = [16 + (i * 37) % 97 for i in range(n + 1)]

    def large_mlp(x, params):
        h = x
        for i, (w, b, g) in enumerate(params):
            y = h @ w + b
            mu = jnp.mean(y, axis=-1, keepdims=True)
            var = jnp.mean((y - mu) ** 2, axis=-1, keepdims=True)
            y = (y - mu) * jax.lax.rsqrt(var + 1e-5) * g
            y = jax.nn.gelu(y)
            attn = jax.nn.softmax(y @ y.T / (i + 1.0), axis=-1) @ y
            h = y + attn
        return h.sum()

    f32 = jnp.float32
    x = jax.ShapeDtypeStruct((8, widths[0]), f32)
    params = [(jax.ShapeDtypeStruct((widths[i], widths[i + 1]), f32),
               jax.ShapeDtypeStruct((widths[i + 1],), f32),
               jax.ShapeDtypeStruct((widths[i + 1],), f32)) for i in range(n)]
    f = jax.jit(large_mlp)
    return lambda: f.lower(x, params).compile()


def make_program(name, jax, jnp):
    if name.startswith("lines_"):
        return _program_lines(jax, jnp, name[len("lines_"):])
    return globals()["_program_" + name](jax, jnp)


# ---------------------------------------------------------------------------
# Worker: capture one program fixture
# ---------------------------------------------------------------------------

def run_worker(fixture_id: str, out_path: str, command: str) -> None:
    spec = PROGRAM_FIXTURES[fixture_id]
    import hashlib
    import types

    import jax
    import jax.numpy as jnp
    from jax._src import cache_key
    from jax._src import config as jax_config
    from jax._src.lib import version_str as jaxlib_version
    from jax._src.lib import xla_client
    from jax._src.lib.mlir import ir

    # One fixed cache directory for every fixture: in 0.10.2 its path reaches
    # the key through debug_options.xla_gpu_per_fusion_autotune_cache_dir (set
    # by JAX when the persistent cache is on, and not zeroed by cache_key), so
    # a random or per-fixture name would make keys differ for that reason alone.
    cache_dir = CACHE_DIR
    shutil.rmtree(cache_dir, ignore_errors=True)
    os.makedirs(cache_dir)
    jax.config.update("jax_compilation_cache_dir", cache_dir)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    for name, value in spec.get("config", {}).items():
        jax.config.update(name, value)

    handler = ckref.TraceHandler()
    logger = logging.getLogger("jax._src.cache_key")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)

    calls = []
    real_get = cache_key.get

    # How this release's get() takes the callback setting (a feature test):
    # the IgnoreCallbacks enum (0.4.36-0.10.x) or the ignore_custom_partitioning
    # bool (0.11+).  The recorder passes it on positionally, as get() does to
    # its helpers.
    get_params = inspect.signature(cache_key.get).parameters
    if "ignore_callbacks" in get_params:
        callbacks_param, callbacks_default = "ignore_callbacks", cache_key.IgnoreCallbacks.NO
    elif "ignore_custom_partitioning" in get_params:
        callbacks_param, callbacks_default = "ignore_custom_partitioning", False
    else:
        raise RuntimeError(f"jax {jax.__version__}: cache_key.get takes no callback setting; "
                           "tools/capture supports jax 0.4.36 and later")

    def recording_get(module, devices, compile_options, backend,
                      compression_algorithm="zstandard", *rest, **kwargs):
        ignore = rest[0] if rest else kwargs.get(callbacks_param, callbacks_default)
        include_metadata = bool(jax_config.compilation_cache_include_metadata_in_key.value)
        entry1 = ckref.BytesRecorder()
        cache_key._hash_computation(entry1, module, ignore)
        with module.context:
            canonical = cache_key._canonicalize_ir(module, ignore)
            metadata = cache_key._serialize_ir(module, ignore)
            pretty = module.operation.get_asm(enable_debug_info=True)
            generic = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
        record = {
            "sym_name": ir.StringAttr(module.operation.attributes["sym_name"]).value,
            "include_metadata": include_metadata,
            "callbacks": ({"ignore_callbacks": ignore.name} if callbacks_param == "ignore_callbacks"
                          else {"ignore_custom_partitioning": bool(ignore)}),
            "entry1": bytes(entry1.data),
            "canonical": canonical,
            "metadata": metadata,
            "pretty": pretty,
            "generic": generic,
            "devices": list(devices.flat),
            "compile_options": compile_options.SerializeAsString(),
            "platform": backend.platform,
            "platform_version": backend.platform_version,
            "runtime_type": getattr(backend, "runtime_type", None),
            "compression": compression_algorithm,
            "env": {k: os.environ.get(k) for k in ("XLA_FLAGS", "LIBTPU_INIT_ARGS")},
            "argv": list(sys.argv),
            "prefixes": list(cache_key.get_flag_prefixes()),
            "custom_hook": cache_key.custom_hook(),
        }
        # Record every byte each SHA-256 object is fed during the real call.
        hashers = []
        shim = types.SimpleNamespace(sha256=lambda: hashers.append(ckref.RecordingSha256(hashlib)) or hashers[-1])
        first_log = len(handler.messages)
        cache_key.hashlib = shim
        try:
            key = real_get(module, devices, compile_options, backend,
                           compression_algorithm, ignore)
        finally:
            cache_key.hashlib = hashlib
        record["key"] = key
        record["trace"] = handler.messages[first_log:]
        record["trace_formatted"] = handler.formatted[first_log:]
        record["hashers"] = hashers
        calls.append(record)
        return key

    # Build inputs first (creating arrays compiles small programs of its own),
    # then record only the compilation of the program itself.
    run_program = make_program(spec["program"], jax, jnp)
    cache_key.get = recording_get
    try:
        run_program()
    finally:
        cache_key.get = real_get
    if len(calls) != 1:
        raise RuntimeError(f"{fixture_id}: expected one cache_key.get call, got {len(calls)}")
    call = calls[0]

    # The running hash is the first SHA-256 object; with DEBUG on, one fresh
    # object per entry follows, each fed exactly that entry's bytes.
    running, fresh = call["hashers"][0], call["hashers"][1:]
    entries = ckref.entries_from_trace(call["trace"])
    if len(fresh) != len(entries):
        raise RuntimeError(f"{len(fresh)} fresh hash objects for {len(entries)} logged entries")
    entry_bytes = [b"".join(h.fed) for h in fresh]
    if b"".join(running.fed) != b"".join(entry_bytes):
        raise RuntimeError("running hash was fed different bytes than the fresh ones")
    if entry_bytes[0] != call["entry1"]:
        raise RuntimeError("entry 1 bytes differ from _hash_computation's")
    expected_entry1 = call["metadata"] if call["include_metadata"] else call["canonical"]
    if call["entry1"] != expected_entry1:
        raise RuntimeError("entry 1 bytes are neither the canonical nor the metadata bytecode as expected")

    # Accelerator: the topology of the whole client (jaxlib ignores the list).
    topology = xla_client.get_topology_for_devices(call["devices"])
    if not hasattr(topology, "fingerprint"):
        raise RuntimeError(f"jax {jax.__version__}: DeviceTopology has no fingerprint(); "
                           "tools/capture supports jaxlib 0.10 and later")
    fingerprint = int(topology.fingerprint())
    accel_index = [e["name"] for e in entries].index("accelerator_config")
    if entry_bytes[accel_index] != fingerprint.to_bytes(8, "big"):
        raise RuntimeError("entry 6 is not the 8-byte big-endian fingerprint")
    client = call["devices"][0].client
    candidates = ckref.cpu_target_machine_candidates(jax, jnp)
    cpu_topology, topo_bytes = ckref.describe_cpu_topology(client.devices(), candidates, fingerprint)
    target_machine = cpu_topology["target_machine"]

    prefixes = call["prefixes"]
    argv_flags = [a for a in call["argv"] if a.startswith("--xla") or any(a.startswith(p) for p in prefixes)]
    backend_fields = {"platform": call["platform"], "platform_version": call["platform_version"]}
    if jax.__version__ != PROFILE:  # the 0.10.2 fixtures keep their original form
        backend_fields["runtime_type"] = call["runtime_type"]
    scenario = {
        "schema": 1,
        "id": fixture_id,
        "title": spec["title"],
        "profile": jax.__version__,
        "module": {
            "sym_name": call["sym_name"],
            "entry1_b64": ckref.b64(call["entry1"]),
            "include_metadata": call["include_metadata"],
            **call["callbacks"],
        },
        "jaxlib_version": jaxlib_version,
        "backend": backend_fields,
        "flags": {
            "XLA_FLAGS": call["env"]["XLA_FLAGS"],
            "LIBTPU_INIT_ARGS": call["env"]["LIBTPU_INIT_ARGS"],
            "argv": argv_flags,
            "extra_prefixes": prefixes,
        },
        "compile_options": {"proto_b64": ckref.b64(call["compile_options"])},
        "accelerator": {"cpu_topology": cpu_topology},
        "compression": call["compression"],
        "custom_hook": call["custom_hook"],
        "provenance": {
            "command": command,
            "date": utc_now(),
            "python": platform.python_version(),
            "jax": jax.__version__,
            "jaxlib": jaxlib_version,
            "platform": " ".join(platform.uname()),
            "host_cpu": f"{host_cpu_note()} (LLVM cpu {target_machine['cpu']})",
            "environment": spec.get("env", {}),
            "config": spec.get("config", {}),
            "compilation_cache_dir": cache_dir,
            "notes": [
                "Everything under 'expected' is copied from the real jax._src.cache_key.get call "
                "that jax.jit made while compiling with the persistent cache enabled.",
                "module.entry1_b64 is exactly what the running SHA-256 was fed for entry 1 "
                "(recorded from the hash object during the real call).",
                "capture.topology_serialized_b64 is the CpuTopologyProto rebuilt from the client "
                "devices and the executable's target machine options (jaxlib 0.10.2 has no "
                "DeviceTopology.serialize()), accepted because its FarmHash Fingerprint64 equals "
                "jaxlib's fingerprint().",
            ],
        },
        "capture": {
            "module_pretty": call["pretty"],
            "module_generic": call["generic"],
            "canonical_b64": ckref.b64(call["canonical"]),
            "metadata_b64": ckref.b64(call["metadata"]),
            "topology_serialized_b64": ckref.b64(topo_bytes),
            "topology_fingerprint_hex": f"{fingerprint:016x}",
            "entry_bytes_b64": {e["name"]: ckref.b64(data) for e, data in zip(entries[1:], entry_bytes[1:])},
            "devices_passed": [{"id": int(d.id), "process_index": int(d.process_index),
                                "local_hardware_id": int(d.local_hardware_id),
                                "device_kind": d.device_kind} for d in call["devices"]],
            "debug_log_formatted": call["trace_formatted"],
        },
        "expected": {
            "key": call["key"],
            "entries": entries,
            "trace": call["trace"],
        },
    }
    write_json(out_path, scenario)


# ---------------------------------------------------------------------------
# DebugOptions field table (worker)
# ---------------------------------------------------------------------------

def _text_fields(debug_options) -> list[tuple[str, str]]:
    """(name, value text) pairs of DebugOptions' top-level text format, in order.

    The first line of str(DebugOptions) is a randomized debug marker
    (goo.gle/...), not a field; it is skipped.  A message-typed field (such
    as a map entry) is reported once with the value "{message}".
    """
    lines = str(debug_options).splitlines()
    out = []
    depth = 0
    for line in lines[1:]:
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            if depth == 0:
                out.append((line[:-1].strip(), "{message}"))
            depth += 1
            continue
        if line == "}":
            depth -= 1
            continue
        if depth:
            continue
        name, _, value = line.partition(":")
        out.append((name.strip(), value.strip()))
    return out


def _value_kind(text: str) -> str:
    if text in ("true", "false"):
        return "bool"
    if text.startswith('"'):
        return "string"
    if re.fullmatch(r"-?\d+", text):
        return "int"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) and text not in ("inf", "nan"):
        return "enum"
    return "float"


def _decode_text_value(text: str, kind: str):
    if kind == "bool":
        return text == "true"
    if kind == "string":
        return json.loads(text) if "\\" not in text else text[1:-1]
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    return text


def run_debug_options_worker(out_path: str, command: str) -> None:
    """Discover DebugOptions field numbers, wire types and defaults.

    Two independent methods, cross-checked:

    1. Attribute diff (the Python API): for every settable attribute of
       CompileOptions().executable_build_options.debug_options, set a
       non-default value, serialize, and diff the DebugOptions wire fields
       (CompileOptionsProto 3 -> ExecutableBuildOptionsProto 3).  Also set the
       "zero" value (False/0/"") and note whether the field stays on the wire.
    2. Wire injection (covers fields with no Python attribute, such as
       xla_gpu_autotune_level): append field N with a probe value to the
       DebugOptions bytes, parse with CompileOptions.ParseFromString, and read
       which name changes in the DebugOptions text format.
    """
    import jax
    from jax._src.lib import version_str as jaxlib_version
    from jax._src.lib import xla_client

    def fresh():
        co = xla_client.CompileOptions()
        return co, co.executable_build_options.debug_options

    base_co, base_do = fresh()
    base_bytes = base_co.SerializeAsString()
    base_dbg = ckref.debug_options_bytes(base_bytes)
    base_fields = {n: (w, v) for n, w, v, _ in ckref.parse_fields(base_dbg)}
    base_text = dict(_text_fields(base_do))

    def dbg_fields_of(co) -> dict:
        return {n: (w, v) for n, w, v, _ in ckref.parse_fields(ckref.debug_options_bytes(co.SerializeAsString()))}

    table: dict[str, dict] = {}

    # Method 1: the Python attributes.
    attrs = [a for a in dir(base_do) if not a.startswith("_")]
    for attr in attrs:
        co, do = fresh()
        default = getattr(do, attr)
        if hasattr(type(default), "__members__"):
            members = list(type(default).__members__.values())
            probe = next(m for m in members if m != default)
            zero, kind = members[0], "enum"
        elif isinstance(default, bool):
            probe, zero, kind = (not default), False, "bool"
        elif isinstance(default, int):
            probe, zero, kind = default + 7, 0, "int"
        elif isinstance(default, str):
            probe, zero, kind = "ck_probe_value", "", "string"
        elif isinstance(default, float):
            probe, zero, kind = default + 0.5, 0.0, "float"
        else:
            continue
        setattr(do, attr, probe)
        changed = {n: fv for n, fv in dbg_fields_of(co).items() if base_fields.get(n) != fv}
        if len(changed) != 1:
            raise RuntimeError(f"{attr}: expected one changed field, got {sorted(changed)}")
        (number, (wire, value)), = changed.items()
        co_zero, do_zero = fresh()
        setattr(do_zero, attr, zero)
        zero_fields = dbg_fields_of(co_zero)
        entry = {
            "number": number,
            "wire_type": ckref.WIRE_NAMES[wire],
            "kind": kind,
            "python_attribute": True,
            "python_default": default.name if kind == "enum" else default,
            "in_default_serialization": number in base_fields,
            "zero_kept_on_wire": number in zero_fields,
            "zero_wire_value": (zero_fields[number][1].decode("utf-8")
                                if number in zero_fields and wire == ckref.WIRE_LEN
                                else zero_fields.get(number, (None, None))[1]),
        }
        if kind == "enum":
            entry["enum_values"] = {m.name: int(m.value) for m in type(default).__members__.values()}
        table[attr] = entry

    # Method 2: wire injection over field numbers.
    def parse_with_field(extra: bytes):
        build = ckref.single_field(base_bytes, 3, b"")
        new_build = b"".join(raw for n, _, _, raw in ckref.parse_fields(build) if n != 3)
        new_build += ckref.encode_len_field(3, base_dbg + extra)
        new_co = b"".join(raw for n, _, _, raw in ckref.parse_fields(base_bytes) if n != 3)
        new_co += ckref.encode_len_field(3, new_build)
        co = xla_client.CompileOptions.ParseFromString(new_co)
        return co, _text_fields(co.executable_build_options.debug_options)

    # Two probe values per wire type, so that a field whose default already
    # equals one of them still changes.
    probes = [
        (ckref.WIRE_VARINT, lambda n: ckref.encode_varint_field(n, 5)),
        (ckref.WIRE_VARINT, lambda n: ckref.encode_varint_field(n, 0)),
        (ckref.WIRE_LEN, lambda n: ckref.encode_len_field(n, b"ck_probe")),
        (ckref.WIRE_I32, lambda n: ckref.encode_varint((n << 3) | 5) + struct.pack("<f", 1.25)),
        (ckref.WIRE_I32, lambda n: ckref.encode_varint((n << 3) | 5) + struct.pack("<f", 0.0)),
        (ckref.WIRE_I64, lambda n: ckref.encode_varint((n << 3) | 1) + struct.pack("<d", 1.25)),
        (ckref.WIRE_I64, lambda n: ckref.encode_varint((n << 3) | 1) + struct.pack("<d", 0.0)),
    ]
    by_number: dict[int, dict] = {}
    base_pairs = _text_fields(base_do)
    for number in range(1, 1200):
        for wire, make in probes:
            _, pairs = parse_with_field(make(number))
            if pairs == base_pairs:
                continue
            new_names = [p for p in pairs if p not in base_pairs]
            if len(new_names) != 1 or new_names[0][0].isdigit():
                continue
            name, text = new_names[0]

            def text_for(value: int) -> str | None:
                """Text-format value of ``name`` after injecting varint ``value``."""
                _, pv = parse_with_field(ckref.encode_varint_field(number, value))
                vals = [t for n, t in pv if n == name]
                return vals[-1] if vals else None

            kind = _value_kind(text)
            if wire == ckref.WIRE_I64 and kind == "float":
                kind = "double"
            enum_names = {}
            if wire == ckref.WIRE_VARINT:
                # An open enum prints unknown numbers as numbers, so a field
                # is an enum when any small value prints as an identifier.
                for v in range(0, 16):
                    t = text_for(v)
                    if t is not None and _value_kind(t) == "enum":
                        enum_names[t] = v
                if enum_names:
                    kind = "enum"
                elif kind == "int":
                    # Integer width and signedness from how large values print.
                    if text_for(1) == "-1":
                        kind = "sint64" if text_for(1 << 33) not in ("0", None) else "sint32"
                    elif text_for((1 << 33) + 5) == str((1 << 33) + 5):
                        kind = "int64" if text_for((1 << 63) + 1).startswith("-") else "uint64"
                    else:
                        kind = "int32" if text_for((1 << 31) + 1).startswith("-") else "uint32"
            _, twice = parse_with_field(make(number) + make(number))
            count = sum(1 for n, _ in twice if n == name)
            repeated = count - sum(1 for n, _ in base_pairs if n == name) == 2
            info = {"number": number, "wire_type": ckref.WIRE_NAMES[wire], "kind": kind,
                    "repeated": repeated}
            if enum_names:
                info["enum_values"] = enum_names
            if name in base_text:
                info["default_text"] = base_text[name]
                info["default"] = _decode_text_value(base_text[name], _value_kind(base_text[name]))
            info["in_default_serialization"] = number in base_fields
            by_number[number] = (name, info)
            break

    fields: dict[str, dict] = {}
    for number in sorted(by_number):
        name, info = by_number[number]
        if not info["in_default_serialization"]:
            # Absent from CompileOptions(): the value is the proto default.
            if info["kind"] == "enum":
                zero_names = [n for n, v in info["enum_values"].items() if v == 0]
                default = zero_names[0] if zero_names else 0
            elif info["kind"] in ("bool", "string", "float", "double"):
                default = {"bool": False, "string": "", "float": 0.0, "double": 0.0}[info["kind"]]
            else:
                default = 0
            info.setdefault("default", [] if info["repeated"] else default)
        if name in table:
            attr = table[name]
            if attr["number"] != number or attr["wire_type"] != info["wire_type"]:
                raise RuntimeError(f"{name}: attribute diff says {attr}, injection says {info}")
            info.update({k: v for k, v in attr.items() if k not in ("number", "wire_type", "kind", "enum_values")})
            info["python_kind"] = attr["kind"]
            if attr["kind"] == "enum":
                info["python_enum_values"] = attr["enum_values"]
            info["discovered_by"] = "attribute diff and wire injection"
        else:
            info["python_attribute"] = False
            info["discovered_by"] = "wire injection"
        fields[name] = info
    missing = sorted(set(table) - set(fields))
    if missing:
        raise RuntimeError(f"attributes not found by wire injection: {missing}")
    # Fields set by default but not discovered (message-typed fields such as
    # maps cannot be probed with scalar values).
    undiscovered = sorted({n for n, _ in base_pairs if not n.isdigit()} - set(fields))

    doc = {
        "description": ("DebugOptions (xla/xla.proto) fields as jaxlib writes them. Nested in "
                        "CompileOptionsProto field 3 (ExecutableBuildOptionsProto), field 3."),
        "provenance": {
            "command": command,
            "date": utc_now(),
            "python": platform.python_version(),
            "jax": jax.__version__,
            "jaxlib": jaxlib_version,
            "platform": " ".join(platform.uname()),
            "method": run_debug_options_worker.__doc__.strip(),
        },
        "default_compile_options_b64": ckref.b64(base_bytes),
        "not_discovered_default_fields": undiscovered,
        "fields": fields,
    }
    write_json(out_path, doc)


# ---------------------------------------------------------------------------
# json.dumps golden cases (no JAX needed)
# ---------------------------------------------------------------------------

JSON_CASES = [
    '{"a":"caf\u00e9"}',
    '"\u00e9\u00e8\u4e2d\u6587"',
    '"\U0001F600"',
    '"\\ud83d\\ude00"',
    '"\U0001F600 astral \U00010000 \U0010FFFF"',
    '1e-07', '1.0', '1e+16', '-0.0', '1e16', '0.1', '5e-324',
    '1.7976931348623157e308', '123456789012345678901234567890',
    '-123456789012345678901234567890', '1E400', '-1e400', '0.000001', '1e-5',
    '123456789.123456789', '100.0', '1.5e300', '2.5E-3', '-0', '0', '10000000000000000.0',
    '9007199254740993', '3.141592653589793238462643383279',
    '{"z":1,"a":{"y":2,"b":[3,{"x":4,"c":5}]}}',
    '{"k":1,"k":2}',
    '{"a":1,"b":2,"a":3}',
    '{"a":{"x":1},"b":0,"a":{"y":2}}',
    '"line\\nfeed\\ttab\\"quote\\\\back"',
    '"\\u0000\\u001f\\u007f\\/slash/"',
    '"\\b\\f\\r"',
    '"\u007f raw del and \u0080 C1"',
    '"\u2028\u2029"',
    'NaN', 'Infinity', '-Infinity', '[NaN,Infinity,-Infinity,1.0]',
    '{}', '[]', '{"":{}}', '[[],{},[[]]]',
    ' { "spaced" : [ 1 , 2 ] } ',
    'true', 'false', 'null', '[true,false,null]',
    '{"custom_call_config":{"body":"TUxJUg==","serialization_format":1,"needs_layout_passes":true},'
    '"implicit_dim":null,"name":"kernel_\u00fc","cost":{"flops":1.0,"bytes":1e+20}}',
    '{"nested":{"deep":{"deeper":{"deepest":[1,2.5,"\u00e9"]}}}}',
    '"\\uD834\\uDD1E"',
    '"lone \\ud800 high"',
    '"lone \\udc00 low"',
]


def build_json_golden(out_path: str, command: str) -> None:
    cases = []
    for text in JSON_CASES:
        output = json.dumps(json.loads(text), separators=(",", ":"))
        cases.append({"input_json": text, "output": output})
    doc = {
        "description": ("output = json.dumps(json.loads(input_json), separators=(',', ':')) "
                        "in CPython (ensure_ascii=True, allow_nan=True)."),
        "provenance": {"command": command, "date": utc_now(),
                       "python": platform.python_version(),
                       "platform": " ".join(platform.uname())},
        "cases": cases,
    }
    write_json(out_path, doc)


# ---------------------------------------------------------------------------
# Orchestration
# ---------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="fixture ids to capture (default: all)")
    parser.add_argument("--out", default=os.path.join(REPO, "fixtures"), help="output directory")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", help=argparse.SUPPRESS)
    parser.add_argument("--command", default="tools/capture", help=argparse.SUPPRESS)
    parser.add_argument("--programs-only", action="store_true",
                        help="by default capture the program fixtures only (what --jax uses)")
    args = parser.parse_args(argv)

    if args.worker == "debug_options_fields":
        run_debug_options_worker(args.worker_out, args.command)
        return 0
    if args.worker:
        run_worker(args.worker, args.worker_out, args.command)
        return 0

    command = os.environ.get("CACHEKEY_CAPTURE_COMMAND") or (
        "tools/capture" + "".join(" " + a for a in (argv if argv is not None else sys.argv[1:])))
    extra = ["json_dumps_golden", "debug_options_fields"]
    wanted = args.ids or list(PROGRAM_FIXTURES) + ([] if args.programs_only else extra)
    unknown = [i for i in wanted if i not in PROGRAM_FIXTURES and i not in extra]
    if unknown:
        parser.error(f"unknown fixture ids: {unknown}")
    os.makedirs(args.out, exist_ok=True)
    for fixture_id in wanted:
        out_path = os.path.join(args.out, fixture_id + ".json")
        if fixture_id == "json_dumps_golden":
            build_json_golden(out_path, command)
        else:
            env = {k: v for k, v in os.environ.items()
                   if k not in ("XLA_FLAGS", "LIBTPU_INIT_ARGS", "JAX_PLATFORMS")}
            env["JAX_PLATFORMS"] = "cpu"
            env.update(PROGRAM_FIXTURES.get(fixture_id, {}).get("env", {}))
            subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", fixture_id,
                            "--worker-out", out_path, "--command", command],
                           env=env, check=True)
        print(f"wrote {os.path.relpath(out_path, REPO)} ({os.path.getsize(out_path)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
