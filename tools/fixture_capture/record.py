"""Records one CPU program fixture from a real compilation (a worker process).

The worker enables the persistent compilation cache in a fixed directory,
attaches a handler at DEBUG to the ``jax._src.cache_key`` logger and wraps
``jax._src.cache_key.get``.  When JAX compiles the program it calls the
wrapper, which records the arguments JAX passed (module, devices,
compile_options, backend, compression name, ignore_callbacks), runs the real
``get`` while recording every byte fed to each SHA-256 object it creates, and
keeps the key that ``get`` returned.  Everything under ``expected`` is copied
from that real run; nothing there is computed here.

The CPU topology.  jaxlib 0.10.2's ``DeviceTopology`` has ``fingerprint()``
but no ``serialize()``.  The ``CpuTopologyProto`` is therefore rebuilt from the
client's devices and the LLVM target-machine options that jaxlib embeds in a
serialized CPU executable, and the rebuilt bytes are accepted only if their
FarmHash ``Fingerprint64`` equals jaxlib's own ``fingerprint()``
(``cachekey.ref.describe_cpu_topology``).
"""

from __future__ import annotations

import inspect
import logging
import os
import shutil
import sys

from cachekey import ref as ckref
from cachekey.scenario import argv_flags, make_scenario

from fixture_capture.programs import PROGRAM_FIXTURES, make_program
from fixture_capture.provenance import host_cpu_note, run_provenance, write_json

# The release the fixtures in fixtures/ were captured with; its scenarios
# keep their original form (no backend.runtime_type).
PROFILE = "0.10.2"
CACHE_DIR = "/tmp/jax-cache-key-capture"


def capture_program(fixture_id: str, out_path: str, command: str) -> None:
    """Compiles fixture ``fixture_id``'s program and writes its scenario to ``out_path``."""
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
    backend_fields = {"platform": call["platform"], "platform_version": call["platform_version"]}
    if jax.__version__ != PROFILE:  # the 0.10.2 fixtures keep their original form
        backend_fields["runtime_type"] = call["runtime_type"]
    scenario = make_scenario(
        id=fixture_id,
        title=spec["title"],
        profile=jax.__version__,
        module={
            "sym_name": call["sym_name"],
            "entry1_b64": ckref.b64(call["entry1"]),
            "include_metadata": call["include_metadata"],
            **call["callbacks"],
        },
        jaxlib_version=jaxlib_version,
        backend=backend_fields,
        xla_flags=call["env"]["XLA_FLAGS"],
        libtpu_init_args=call["env"]["LIBTPU_INIT_ARGS"],
        argv=argv_flags(call["argv"], prefixes),
        extra_prefixes=prefixes,
        compile_options_b64=ckref.b64(call["compile_options"]),
        accelerator={"cpu_topology": cpu_topology},
        compression=call["compression"],
        custom_hook=call["custom_hook"],
        provenance=run_provenance(command, jax.__version__, jaxlib_version, **{
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
        }),
        capture={
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
        expected={
            "key": call["key"],
            "entries": entries,
            "trace": call["trace"],
        },
    )
    write_json(out_path, scenario)
