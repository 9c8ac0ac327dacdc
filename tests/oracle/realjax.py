"""Runs oracle recipes through the real ``jax._src.cache_key`` (jax 0.10.2).

``RealJax`` is created once per process.  It lowers a handful of programs
once, makes one CPU client per device count, and attaches a DEBUG handler to
the ``jax._src.cache_key`` logger.  ``RealJax.run(recipe)`` then:

1. builds a real ``CompileOptions`` through ``jax._src.compiler.get_compile_options``
   and the ``xla_client`` Python API;
2. sets ``XLA_FLAGS`` / ``LIBTPU_INIT_ARGS`` in ``os.environ``, patches
   ``sys.argv``, registers extra flag prefixes, patches ``custom_hook`` (and,
   when asked, the jaxlib version string), and for the fallback path makes
   ``xla_client.get_topology_for_devices`` raise ``JaxRuntimeError``;
3. calls the real ``cache_key.get`` (or, for a derived compression name, a
   private copy of the real ``compilation_cache`` module loaded with
   ``zstandard`` / ``compression.zstd`` made importable or not), recording
   every byte fed to each SHA-256 object and every log record;
4. restores everything it changed.

It returns the engine scenario (the docs/scenario.md format, with entry 1 as
the exact bytes real JAX hashed) and the real result (key, per-entry digests
from the DEBUG lines, the full trace, and each entry's bytes).

Import this module only after the process environment for JAX is final:
``make_real_jax()`` expects ``XLA_FLAGS`` to give 4 host devices at start-up
(the custom_partitioning program needs a multi-device mesh).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import logging
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

import ckref  # noqa: E402

_MISSING = object()


class _StandIn:
    """A device as the fallback path sees it: only ``device_kind`` is read."""

    def __init__(self, device_kind: str):
        self.device_kind = device_kind

    def __repr__(self):
        return f"StandInDevice({self.device_kind!r})"


class RealJax:
    """One process-wide harness around the real ``jax._src.cache_key``."""

    def __init__(self):
        import jax
        import jax.numpy as jnp
        import numpy as np
        from jax._src import cache_key, compilation_cache, compiler
        from jax._src import config as jax_config
        from jax._src.lib import _jax, xla_client

        self.jax, self.jnp, self.np = jax, jnp, np
        self.cache_key = cache_key
        self.compiler = compiler
        self.jax_config = jax_config
        self.xla_client = xla_client
        self.runtime_error = _jax.JaxRuntimeError
        self.compilation_cache_path = compilation_cache.__file__
        self._cc_variants: dict = {}

        self.handler = ckref.TraceHandler()
        logger = logging.getLogger("jax._src.cache_key")
        logger.addHandler(self.handler)
        logger.setLevel(logging.DEBUG)

        self.modules = self._lower_programs()
        self.sym_names = {name: self._sym_name(m) for name, m in self.modules.items()}

        candidates = ckref.cpu_target_machine_candidates(jax, jnp)
        self.clients = {}
        self.topologies = {}
        for n in (1, 2, 3, 4, 8):
            client = xla_client.make_cpu_client(num_devices=n)
            fingerprint = int(xla_client.get_topology_for_devices(client.devices()).fingerprint())
            topo, _ = ckref.describe_cpu_topology(client.devices(), candidates, fingerprint)
            self.clients[n] = client
            self.topologies[n] = (topo, fingerprint)

    # -- set-up ------------------------------------------------------------

    def _sym_name(self, module) -> str:
        from jax._src.lib.mlir import ir
        return ir.StringAttr(module.operation.attributes["sym_name"]).value

    def _lower_programs(self) -> dict:
        jax, jnp, np = self.jax, self.jnp, self.np
        from jax.experimental import io_callback
        from jax.experimental.custom_partitioning import custom_partitioning
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

        f32 = jnp.float32
        modules = {}
        modules["add"] = jax.jit(lambda x, y: x + y).lower(
            jax.ShapeDtypeStruct((1, 1), f32), jax.ShapeDtypeStruct((1, 1), f32)).compiler_ir()

        def mlp(x, w1, w2):
            h = jax.nn.relu(x @ w1)
            return jax.nn.softmax(h @ w2, axis=-1).sum()
        modules["mlp"] = jax.jit(mlp).lower(
            jax.ShapeDtypeStruct((4, 8), f32), jax.ShapeDtypeStruct((8, 16), f32),
            jax.ShapeDtypeStruct((16, 3), f32)).compiler_ir()

        def callbacks(x):
            y = jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
            jax.debug.callback(lambda a: None, y)
            return io_callback(lambda a: a, jax.ShapeDtypeStruct(x.shape, x.dtype), y) + 1
        modules["callbacks"] = jax.jit(callbacks).lower(jax.ShapeDtypeStruct((2,), f32)).compiler_ir()

        @custom_partitioning
        def scaled(x):
            return x * 2.0
        scaled.def_partition(
            partition=lambda mesh, args, res: (mesh, lambda x: x * 2.0, args[0].sharding, (args[0].sharding,)),
            infer_sharding_from_operands=lambda mesh, args, res: args[0].sharding,
            sharding_rule="i j -> i j")
        devices = jax.devices()
        if len(devices) < 2:
            raise RuntimeError("the oracle needs several host devices: start it with "
                               "XLA_FLAGS=--xla_force_host_platform_device_count=4")
        mesh = Mesh(np.array(devices), ("x",))
        sh = NamedSharding(mesh, P("x", None))
        modules["custom_partitioning"] = jax.jit(
            lambda x: scaled(x) + 1.0, in_shardings=sh, out_shardings=sh).lower(
            jax.ShapeDtypeStruct((8, 4), f32, sharding=sh)).compiler_ir()
        text = str(modules["custom_partitioning"])
        if "CustomSPMDPartitioning" not in text:
            raise RuntimeError("custom_partitioning program has no CustomSPMDPartitioning call")
        return modules

    def _compilation_cache_variant(self, python: str, zstandard_installed: bool):
        """A private copy of the real compilation_cache module, imported as if
        running on ``python`` with or without the ``zstandard`` package."""
        major_minor = tuple(int(x) for x in python.split(".")[:2])
        has_stdlib_zstd = major_minor >= (3, 14)
        tag = (has_stdlib_zstd, zstandard_installed)
        if tag in self._cc_variants:
            return self._cc_variants[tag]
        names = ("compression", "compression.zstd", "zstandard")
        saved = {n: sys.modules.get(n, _MISSING) for n in names}
        try:
            if has_stdlib_zstd:
                pkg = types.ModuleType("compression")
                pkg.__path__ = []
                pkg.zstd = types.ModuleType("compression.zstd")
                sys.modules["compression"] = pkg
                sys.modules["compression.zstd"] = pkg.zstd
            else:
                sys.modules["compression"] = None
                sys.modules["compression.zstd"] = None
            sys.modules["zstandard"] = types.ModuleType("zstandard") if zstandard_installed else None
            spec = importlib.util.spec_from_file_location(
                f"ck_oracle_compilation_cache_{int(has_stdlib_zstd)}{int(zstandard_installed)}",
                self.compilation_cache_path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        finally:
            for n, v in saved.items():
                if v is _MISSING:
                    sys.modules.pop(n, None)
                else:
                    sys.modules[n] = v
        self._cc_variants[tag] = module
        return module

    # -- compile options ---------------------------------------------------

    def _set_debug_option(self, debug_options, name, value):
        current = getattr(debug_options, name)
        members = getattr(type(current), "__members__", None)
        if members:
            value = next(m for m in members.values() if int(m.value) == value)
        setattr(debug_options, name, value)

    def _compile_options(self, co: dict):
        """(real CompileOptions, scenario compile_options object)."""
        np, xc, compiler = self.np, self.xla_client, self.compiler
        fdo = base64.b64decode(co["fdo_profile_b64"]) if co["fdo_profile_b64"] is not None else None
        overrides = co["env_overrides"]
        da = co["device_assignment"]
        R, C = co["num_replicas"], co["num_partitions"]
        if da is not None:
            R, C = len(da), len(da[0])
        if co["encoding"] == "edits":
            options = compiler.get_compile_options(1, 1)
            base = options.SerializeAsString()
            ebo = options.executable_build_options
            edits: dict = {}
            if co["debug_options"]:
                for name, value in co["debug_options"].items():
                    self._set_debug_option(ebo.debug_options, name, value)
                edits["debug_options"] = dict(co["debug_options"])
            options.num_replicas = R
            options.num_partitions = C
            edits["num_replicas"], edits["num_partitions"] = R, C
            if da is not None:
                options.device_assignment = xc.DeviceAssignment.create(np.array(da))
                edits["device_assignment"] = da
            if fdo is not None:
                ebo.fdo_profile = fdo
                edits["fdo_profile_b64"] = co["fdo_profile_b64"]
            if overrides is not None:
                options.env_option_overrides = [tuple(p) for p in overrides]
                edits["env_option_overrides"] = [list(p) for p in overrides]
            return options, {"proto_b64": ckref.b64(base), "edits": edits}
        via_gco = co["overrides_via"] == "get_compile_options" and overrides is not None
        options = compiler.get_compile_options(
            R, C,
            device_assignment=np.array(da) if da is not None else None,
            env_options_overrides=[tuple(p) for p in overrides] if via_gco else None,
            fdo_profile=fdo)
        if overrides is not None and not via_gco:
            options.env_option_overrides = [tuple(p) for p in overrides]
        for name, value in co["debug_options"].items():
            self._set_debug_option(options.executable_build_options.debug_options, name, value)
        return options, {"proto_b64": ckref.b64(options.SerializeAsString())}

    # -- accelerator -------------------------------------------------------

    def _devices(self, acc: dict):
        """(devices ndarray, scenario accelerator object, fallback error or None)."""
        np = self.np
        shape = list(acc["device_shape"])
        count = 1
        for d in shape:
            count *= d
        if acc["mode"] == "fallback":
            kinds = list(acc["device_kinds"] or ["cpu"] * count)[:count]
            kinds += ["cpu"] * (count - len(kinds))
            arr = np.empty(count, dtype=object)
            for i, k in enumerate(kinds):
                arr[i] = _StandIn(k)
            error = acc["error"] if acc["error"] is not None else ""
            return arr.reshape(shape), {"device_kinds": kinds, "error": error}, error
        n = acc["client_devices"]
        devs = self.clients[n].devices()
        if count > len(devs):
            shape, count = [len(devs)], len(devs)
        arr = np.empty(count, dtype=object)
        for i in range(count):
            arr[i] = devs[i]
        topo, fingerprint = self.topologies[n]
        if acc["engine_form"] == "fingerprint":
            scenario = {"fingerprint": {
                "value": f"{fingerprint:016x}",
                "provenance": f"jaxlib 0.10.2 DeviceTopology.fingerprint() of a CPU client with {n} devices",
                "stand_in": False}}
        else:
            scenario = {"cpu_topology": topo}
        return arr.reshape(shape), scenario, None

    # -- one case ----------------------------------------------------------

    def run(self, recipe: dict, case_id: str = "oracle") -> tuple[dict, dict]:
        """Run one recipe through real JAX; return (engine scenario, real result)."""
        ck, jax_config = self.cache_key, self.jax_config
        module = self.modules[recipe["module"]["program"]]
        ignore = ck.IgnoreCallbacks[recipe["module"]["ignore_callbacks"]]
        backend = types.SimpleNamespace(platform=recipe["backend"]["platform"],
                                        platform_version=recipe["backend"]["platform_version"])
        options, co_scenario = self._compile_options(recipe["compile_options"])
        devices, acc_scenario, fallback_error = self._devices(recipe["accelerator"])
        flags = recipe["flags"]
        compression = recipe["compression"]
        hook_value = recipe["custom_hook"]

        saved_env = {k: os.environ.get(k) for k in ("XLA_FLAGS", "LIBTPU_INIT_ARGS")}
        saved_argv = sys.argv
        saved_hook = ck.custom_hook
        saved_version = ck.jaxlib_version_str
        saved_topology = self.xla_client.get_topology_for_devices
        saved_metadata = jax_config.compilation_cache_include_metadata_in_key.value
        hashers: list = []

        def make_hasher():
            hashers.append(ckref.RecordingSha256(hashlib))
            return hashers[-1]

        def raise_runtime_error(devices):
            raise self.runtime_error(fallback_error)

        first_log = len(self.handler.messages)
        try:
            for k in ("XLA_FLAGS", "LIBTPU_INIT_ARGS"):
                if flags[k] is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = flags[k]
            sys.argv = list(flags["argv"])
            ck.clear_flag_prefixes()
            ck.add_flag_prefixes(list(flags["extra_prefixes"]))
            ck.custom_hook = lambda: hook_value
            if recipe["jaxlib_version"] is not None:
                ck.jaxlib_version_str = recipe["jaxlib_version"]
            if fallback_error is not None:
                self.xla_client.get_topology_for_devices = raise_runtime_error
            self.jax.config.update("jax_compilation_cache_include_metadata_in_key",
                                   recipe["module"]["include_metadata"])
            ck.hashlib = types.SimpleNamespace(sha256=make_hasher)
            # Under the module's MLIR context: in 0.10.2, include_metadata with
            # ignore_callbacks != NO rewrites backend_config outside any
            # context and raises when no context is active (jax.jit itself
            # crashes on that combination); the context gives the bytes JAX
            # hashes whenever the call succeeds.
            with module.context:
                if isinstance(compression, dict):
                    cc = self._compilation_cache_variant(compression["python"],
                                                         compression["zstandard_installed"])
                    key = cc.get_cache_key(module, devices, options, backend, ignore)
                else:
                    key = ck.get(module, devices, options, backend, compression, ignore)
            jaxlib_version = ck.jaxlib_version_str
        finally:
            ck.hashlib = hashlib
            self.jax.config.update("jax_compilation_cache_include_metadata_in_key", saved_metadata)
            self.xla_client.get_topology_for_devices = saved_topology
            ck.jaxlib_version_str = saved_version
            ck.custom_hook = saved_hook
            ck.clear_flag_prefixes()
            sys.argv = saved_argv
            for k, v in saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        trace = self.handler.messages[first_log:]

        # Self-checks of the harness (not of the engine).
        running, fresh = hashers[0], hashers[1:]
        if len(fresh) != 8:
            raise RuntimeError(f"expected 8 fresh hash objects, got {len(fresh)}")
        entry_bytes = [b"".join(h.fed) for h in fresh]
        if b"".join(running.fed) != b"".join(entry_bytes):
            raise RuntimeError("running hash fed different bytes than the fresh ones")
        if running.hexdigest() != key.rsplit("-", 1)[1]:
            raise RuntimeError("recorded running hash does not match the key")

        scenario = {
            "schema": 1,
            "id": case_id,
            "profile": "0.10.2",
            "module": {
                "sym_name": self.sym_names[recipe["module"]["program"]],
                "entry1_b64": ckref.b64(entry_bytes[0]),
                "include_metadata": recipe["module"]["include_metadata"],
                "ignore_callbacks": recipe["module"]["ignore_callbacks"],
            },
            "jaxlib_version": jaxlib_version,
            "backend": dict(recipe["backend"]),
            "flags": {k: (list(v) if isinstance(v, list) else v) for k, v in flags.items()},
            "compile_options": co_scenario,
            "accelerator": acc_scenario,
            "compression": compression,
            "custom_hook": hook_value,
        }
        real = {
            "key": key,
            "entries": ckref.entries_from_trace(trace),
            "trace": trace,
            "entry_bytes_b64": [ckref.b64(b) for b in entry_bytes],
        }
        return scenario, real
