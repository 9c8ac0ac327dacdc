"""One whole-key TPU capture (a worker process).

The worker runs one program of ``programs.PROGRAMS`` with ``JAX_PLATFORMS=cpu``
and the persistent compilation cache enabled in a fixed directory (emptied
first), wraps ``jax._src.cache_key.get`` to record the arguments JAX passed,
swaps ``cache_key.hashlib`` for a shim whose sha256 objects record every byte
string they are fed, and calls the real ``get``.  The self-checks and the
written file are described in the package docstring.
"""

from __future__ import annotations

import base64
import hashlib
import inspect
import logging
import os
import shutil
import sys
import time
import types

from cachekey.ref import ENTRY_NAMES
from fixture_capture.provenance import code_sha256, utc_now, versions, write_json
from fixture_capture.tpu.programs import FALLBACK_MESSAGE, PROGRAMS
from fixture_capture.tpu.recorders import (LogRecorder, RecordingSha256, b64, device_info,
                                           err_text)

HERE = os.path.dirname(os.path.abspath(__file__))

# Fixed, because in jax 0.10.2 this path reaches the key: JAX sets
# debug_options.xla_gpu_per_fusion_autotune_cache_dir = <dir>/xla_gpu_per_fusion_autotune_cache_dir
# whenever the persistent cache is on, and 0.10.2's cache_key does not clear it
# (0.12.0.1 does).  CAPTURE_TPU_CACHE_DIR overrides it (for that experiment).
CACHE_DIR = os.environ.get("CAPTURE_TPU_CACHE_DIR", "/tmp/jax-tpu-cache-key-capture")


def run_capture_worker(program_id: str, out_path: str, command: str) -> None:
    """Captures program ``program_id`` into ``out_path``; exits 2 when a self-check fails."""
    spec = PROGRAMS[program_id]
    t_start = time.perf_counter()
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
            "devices": [device_info(d) for d in dev_list],
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
        hashers: list = []

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
            "code": HERE,
            "code_sha256": code_sha256(HERE),
            "note_on_metadata_keys": ("with jax_compilation_cache_include_metadata_in_key=True the key covers "
                                      "source locations (file paths and line numbers of the capture code, including "
                                      "the worker's call stack), so such keys reproduce only with this exact "
                                      "code at this path"),
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
