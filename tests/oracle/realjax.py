"""Runs oracle recipes through the real ``jax._src.cache_key`` of whatever jax
release is installed (0.4.30 to 0.12.0.1 are exercised).

``RealJax`` is created once per process.  It probes the installed release for
the features the harness depends on (never for the cache-key rules
themselves), lowers a handful of programs once, makes CPU clients, and
attaches a DEBUG handler to the ``jax._src.cache_key`` logger.
``RealJax.run(recipe)`` then:

1. builds a real ``CompileOptions`` through ``jax._src.compiler.get_compile_options``
   and the ``xla_client`` Python API;
2. sets ``XLA_FLAGS`` / ``LIBTPU_INIT_ARGS`` in ``os.environ``, patches
   ``sys.argv``, registers extra flag prefixes, patches ``custom_hook`` (and,
   when asked, the jaxlib version string), and for the fallback path makes
   ``xla_client.get_topology_for_devices`` raise the runtime error class of
   this jaxlib;
3. calls the real ``cache_key.get`` (or, for a derived compression name, a
   private copy of the real ``compilation_cache`` module loaded with
   ``zstandard`` / ``compression.zstd`` made importable or not), recording
   every byte fed to each SHA-256 object and every log record;
4. restores everything it changed.

It returns the engine scenario (the docs/scenario.md format, with entry 1 as
the exact bytes real JAX hashed, and ``"profile"`` set to ``jax.__version__``)
and the real result (key, per-entry digests from the DEBUG lines, the full
trace, and each entry's bytes).

Mosaic programs (``module.program == "mosaic"``) put one or more
``stablehlo.custom_call @tpu_custom_call`` ops, whose ``backend_config`` the
recipe describes, into a module parsed with jax's own MLIR bindings.  For
them the result also carries the module as generic MLIR text (for the
engine's live canonicaliser), the real rewritten ``backend_config`` strings,
or, when real JAX raises, the exception (``real["error"]``) instead of a key.

Feature probes (``RealJax.features``):

* how ``get`` takes the callback setting: the ``IgnoreCallbacks`` enum
  (0.4.36-0.10.x), the ``ignore_custom_partitioning`` bool (0.11+), the
  ``jax_remove_custom_partitioning_ptr_from_cache_key`` config read inside
  cache_key (0.4.34-0.4.35: the config exists and ``get`` has neither), or
  nothing (older);
* the runtime error class: ``_jax.JaxRuntimeError`` or
  ``xla_client._xla.XlaRuntimeError``;
* ``DeviceTopology.fingerprint()`` / ``serialize()``;
* ``make_cpu_client(num_devices=...)`` (else only the 4-device default client);
* ``def_partition(sharding_rule=...)``;
* which DebugOptions fields the Python API exposes, and which value types
  ``CompileOptions.env_option_overrides`` accepts.

Import this module only after the process environment for JAX is final:
``RealJax()`` expects ``XLA_FLAGS`` to give 4 host devices at start-up
(the custom_partitioning program needs a multi-device mesh).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import inspect
import json
import logging
import os
import re
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

import ckref  # noqa: E402

_MISSING = object()

# A tiny kernel module in generic form with file locations (what a Pallas
# kernel body carries before the Mosaic step strips it).
KERNEL_TEXT = """\
"builtin.module"() ({
  "func.func"() <{function_type = (i32) -> i32, sym_name = "kernel"}> ({
  ^bb0(%arg0: i32 loc("/src/kernels/scale.py":12:4)):
    %0 = "arith.addi"(%arg0, %arg0) : (i32, i32) -> i32 loc("/src/kernels/scale.py":13:8)
    "func.return"(%0) : (i32) -> () loc("/src/kernels/scale.py":14:4)
  }) : () -> () loc("/src/kernels/scale.py":11:0)
}) : () -> () loc("/src/kernels/scale.py":10:0)
"""

# Programs a TPU recipe lowers for its topology (tpu.py TpuSide.jit_call).
TPU_PROGRAMS = ("tpu_add", "tpu_matmul")
# The same programs for a GPU recipe (gpu.py GpuSide.jit_call).
GPU_PROGRAMS = ("gpu_add", "gpu_matmul")

# The outer program of the Mosaic cases: N custom calls chained on f32[8,128].
MOSAIC_ARG = 'loc("x")'


class _StandIn:
    """A device as the fallback path sees it: only ``device_kind`` is read."""

    def __init__(self, device_kind: str):
        self.device_kind = device_kind

    def __repr__(self):
        return f"StandInDevice({self.device_kind!r})"


def _short_name(qualified: str) -> str:
    """``json.decoder.JSONDecodeError`` -> ``JSONDecodeError``; a bare
    ``Error`` keeps its module (``binascii.Error``)."""
    parts = qualified.split(".")
    if parts[-1] == "Error" and len(parts) > 1:
        return f"{parts[-2]}.{parts[-1]}"
    return parts[-1]


_CAUSE_RE = re.compile(r"^((?:[A-Za-z_][\w.]*)?(?:Error|Exception|Warning))(?::|$)")


def exception_names(exc: BaseException) -> list[str]:
    """The names an error message about ``exc`` should quote.

    MLIR's ``walk`` turns an exception raised in its Python callback into
    ``RuntimeError("Exception raised in callback: <traceback>")``: the names
    are then ``RuntimeError`` and the callback's exception, read from the last
    line of that traceback (``KeyError``, ``JSONDecodeError``, and
    ``binascii.Error`` as the bare ``Error`` that traceback prints)."""
    cls = type(exc)
    names = [_short_name(f"{cls.__module__}.{cls.__qualname__}" if cls.__module__ != "builtins"
                         else cls.__qualname__)]
    lines = str(exc).strip().splitlines()
    if isinstance(exc, RuntimeError) and lines and "Exception raised in callback" in lines[0]:
        m = _CAUSE_RE.match(lines[-1])
        if m:
            names.append(_short_name(m.group(1)))
    return names


class RealJax:
    """One process-wide harness around the real ``jax._src.cache_key``."""

    def __init__(self, tpu: bool = False, gpu: bool = False):
        """``tpu``: also attach the TPU side (``tpu.TpuSide``: libtpu's
        deviceless topologies), which TPU recipes need; ``gpu``: the GPU side
        (``gpu.GpuSide``: the CUDA plugin's compile-only client)."""
        import jax
        import jax.numpy as jnp
        import jaxlib
        import numpy as np
        from jax._src import cache_key, compilation_cache, compiler
        from jax._src import config as jax_config
        from jax._src.lib import xla_client
        from jax._src.lib.mlir import ir

        self.jax, self.jnp, self.np, self.ir = jax, jnp, np, ir
        self.version = jax.__version__
        self.jaxlib_version = jaxlib.__version__
        self.cache_key = cache_key
        self.compiler = compiler
        self.jax_config = jax_config
        self.xla_client = xla_client
        self.compilation_cache_path = compilation_cache.__file__
        self._cc_variants: dict = {}
        self.features = self._probe_features()
        self.runtime_error = self.features.pop("_runtime_error_class")

        self.handler = ckref.TraceHandler()
        logger = logging.getLogger("jax._src.cache_key")
        logger.addHandler(self.handler)
        logger.setLevel(logging.DEBUG)

        self.modules = self._lower_programs()
        self.sym_names = {name: self._sym_name(m) for name, m in self.modules.items()}
        self.kernels = self._kernel_bodies()

        self.clients = {}
        self.topologies = {}
        candidates = None
        if self.features["make_cpu_client_num_devices"]:
            counts = [(n, xla_client.make_cpu_client(num_devices=n)) for n in (1, 2, 3, 4, 8)]
        else:  # the device count comes from XLA_FLAGS at start-up only
            counts = [(len(jax.devices()), jax.devices()[0].client)]
        for n, client in counts:
            topology = xla_client.get_topology_for_devices(client.devices())
            self.clients[n] = client
            self.topologies[n] = self._describe_topology(client, topology, candidates)
            candidates = self.topologies[n].pop("_candidates", candidates)
        any_topology = next(iter(self.topologies.values()))
        self.features["topology"] = (
            "fingerprint()" if any_topology["fingerprint"] is not None else
            "serialize(): CpuTopologyProto with target_machine"
            if "target_machine" in any_topology["cpu_topology"] else
            "serialize(): CpuTopologyProto with machine_attributes")
        self.features["client_device_counts"] = sorted(self.clients)
        self.tpu = None
        if tpu:
            import tpu as tpu_mod
            self.tpu = tpu_mod.TpuSide(self)
            self.features["libtpu"] = self.tpu.libtpu
        self.gpu = None
        if gpu:
            import gpu as gpu_mod
            self.gpu = gpu_mod.GpuSide(self)
            self.features["cuda_plugin"] = self.gpu.cuda_plugin
            self.features["host_cpu"] = self.gpu.host_cpu

    # -- set-up ------------------------------------------------------------

    def _probe_features(self) -> dict:
        ck, xc, jax_config = self.cache_key, self.xla_client, self.jax_config
        params = inspect.signature(ck.get).parameters
        if hasattr(ck, "IgnoreCallbacks") and "ignore_callbacks" in params:
            callbacks = "enum"
        elif "ignore_custom_partitioning" in params:
            callbacks = "bool"
        elif hasattr(jax_config, "remove_custom_partitioning_ptr_from_cache_key"):
            callbacks = "config"
        else:
            callbacks = "none"
        try:
            from jax._src.lib import _jax
            runtime_error = _jax.JaxRuntimeError
        except (ImportError, AttributeError):
            runtime_error = xc._xla.XlaRuntimeError
        probe = xc.CompileOptions()
        override_types = []
        for value in ("s", True, 1, 0.5):
            try:
                probe.env_option_overrides = [("probe", value)]
                override_types.append(type(value).__name__)
            except (TypeError, ValueError):
                pass
        from jax.experimental.custom_partitioning import custom_partitioning
        return {
            "callbacks": callbacks,
            "runtime_error": f"{runtime_error.__module__}.{runtime_error.__qualname__}",
            "runtime_error_repr": repr(runtime_error),
            "_runtime_error_class": runtime_error,
            "make_cpu_client_num_devices":
                "num_devices" in inspect.signature(xc.make_cpu_client).parameters,
            "sharding_rule": "sharding_rule" in inspect.signature(custom_partitioning.def_partition).parameters,
            "override_types": override_types,
        }

    def _describe_topology(self, client, topology, candidates) -> dict:
        """How this release's topology is hashed, and the engine's form of it."""
        devices = [{"process_index": int(d.process_index), "local_hardware_id": int(d.local_hardware_id)}
                   for d in client.devices()]
        out = {"devices": devices, "fingerprint": None, "serialized": None}
        if hasattr(topology, "fingerprint"):
            out["fingerprint"] = int(topology.fingerprint())
        if hasattr(topology, "serialize"):
            out["serialized"] = bytes(topology.serialize())
        if candidates is None:
            try:
                candidates = ckref.cpu_target_machine_candidates(self.jax, self.jnp)
            except RuntimeError:
                candidates = []
        out["_candidates"] = candidates
        rebuilt = None
        if out["fingerprint"] is not None and candidates:
            rebuilt, _ = ckref.describe_cpu_topology(client.devices(), candidates, out["fingerprint"])
        elif out["serialized"] is not None:
            proto = ckref.unwrap_cpu_topology_proto(out["serialized"])
            for tm in candidates:
                if ckref.cpu_topology_proto(devices, tm) == proto:
                    rebuilt = {"devices": devices, "target_machine": dict(tm)}
            if rebuilt is None:
                parts = ckref.cpu_topology_parts(proto)
                if parts["target_machine"] is None and not parts["other_fields"] \
                        and parts["devices"] == devices:
                    # jaxlib < 0.10: devices plus one field-4 string per host
                    # feature, no target machine (see docs/oracle-sweep.md).
                    rebuilt = {"devices": devices, "machine_attributes": parts["machine_attributes"]}
        if rebuilt is None:
            raise RuntimeError(f"cannot describe the CPU topology of jax {self.version} "
                               f"({len(devices)} devices) in an engine form")
        out["cpu_topology"] = rebuilt
        return out

    def _sym_name(self, module) -> str:
        return self.ir.StringAttr(module.operation.attributes["sym_name"]).value

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
        kwargs = {"sharding_rule": "i j -> i j"} if self.features["sharding_rule"] else {}
        scaled.def_partition(
            partition=lambda mesh, args, res: (mesh, lambda x: x * 2.0, args[0].sharding, (args[0].sharding,)),
            infer_sharding_from_operands=lambda mesh, args, res: args[0].sharding, **kwargs)
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
        self.context = modules["add"].context
        return modules

    def _kernel_bodies(self) -> dict:
        """Kernel bytes the Mosaic cases embed (base64) in backend_config."""
        ir = self.ir
        out = {"kernel_text": KERNEL_TEXT.encode("utf-8")}
        with self.context:
            kernel = ir.Module.parse(KERNEL_TEXT)
            out["kernel_bytecode"] = self._bytecode(kernel)
        out["pallas"] = self._pallas_kernel_body()
        return out

    def _bytecode(self, module) -> bytes:
        import io
        buf = io.BytesIO()
        module.operation.write_bytecode(file=buf)
        return buf.getvalue()

    def _pallas_kernel_body(self):
        """The kernel body of a real ``pl.pallas_call`` exported for TPU on this
        CPU machine (jaxlib's own Mosaic bytecode), or None where this release
        cannot do that."""
        jax, jnp = self.jax, self.jnp
        try:
            from jax import export
            from jax.experimental import pallas as pl
        except ImportError:
            return None

        def kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...] * 2.0 + 1.0

        def f(x):
            return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
        try:
            exp = export.export(jax.jit(f), platforms=["tpu"])(jax.ShapeDtypeStruct((8, 128), jnp.float32))
            text = exp.mlir_module()
        except Exception:  # noqa: BLE001 - any failure means "not available here"
            return None
        ir = self.ir
        found = []
        with self.context:
            module = ir.Module.parse(text)

            def visit(op):
                if op.name == "stablehlo.custom_call" and "backend_config" in op.attributes:
                    try:
                        bc = json.loads(ir.StringAttr(op.attributes["backend_config"]).value)
                        found.append(base64.b64decode(bc["custom_call_config"]["body"]))
                    except (ValueError, KeyError, TypeError):
                        pass
                return ir.WalkResult.ADVANCE
            module.operation.walk(visit)
        return found[0] if found else None

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

    # -- Mosaic programs ---------------------------------------------------

    def mosaic_backend_config(self, spec: dict):
        """(backend_config value, kind) for one custom call of a Mosaic recipe.

        kind is "string" (a StringAttr holding the text), "dict" (a
        DictionaryAttr, as newer custom calls carry) or "missing"."""
        form = spec["config_form"]
        if form == "missing":
            return None, "missing"
        if form == "dict_attr":
            return None, "dict"
        if form == "empty_string":
            return "", "string"
        if form == "invalid_json":
            return '{"custom_call_config": {"body": ', "string"
        if form == "json_list":
            return '[{"custom_call_config": {}}]', "string"
        if form == "json_number":
            return "7", "string"
        cc_form = spec["custom_call_config"]
        cc: object
        if cc_form == "dict":
            cc = {}
            body = spec["body"]
            if body != "missing":
                cc["body"] = self._body_value(body)
            for k, v in spec["extra_config"]:
                cc[k] = v
            if "debug_locations" in spec:
                cc["debug_locations"] = spec["debug_locations"]
        elif cc_form == "string":
            cc = "config with debug_locations" if "debug_locations" in spec else "config"
        elif cc_form == "list":
            cc = ["debug_locations", "body"]
        elif cc_form == "null":
            cc = None
        else:
            cc = _MISSING
        items = [tuple(p) for p in spec["extra_top"]]
        if cc is not _MISSING:
            if spec["config_first"]:
                items.insert(0, ("custom_call_config", cc))
            else:
                items.append(("custom_call_config", cc))
        bc = dict(items)
        style = spec["dumps_style"]
        if style == "compact":
            text = json.dumps(bc, separators=(",", ":"))
        elif style == "indent":
            text = json.dumps(bc, indent=1, ensure_ascii=False)
        elif style == "raw_unicode":
            text = json.dumps(bc, ensure_ascii=False)
        else:
            text = json.dumps(bc)
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate cannot be an MLIR string: escape it
            text = json.dumps(bc)
        if spec["duplicate_key"] and text.startswith("{") and len(text) > 2:
            text = '{"custom_call_config": "shadowed", ' + text[1:]
        return text, "string"

    def _body_value(self, body: str):
        kernels = self.kernels
        if body == "kernel_text":
            return base64.b64encode(kernels["kernel_text"]).decode("ascii")
        if body == "kernel_bytecode":
            return base64.b64encode(kernels["kernel_bytecode"]).decode("ascii")
        if body == "pallas":
            data = kernels["pallas"] if kernels["pallas"] is not None else kernels["kernel_bytecode"]
            return base64.b64encode(data).decode("ascii")
        if body == "kernel_text_unpadded":
            return base64.b64encode(kernels["kernel_text"]).decode("ascii").rstrip("=")
        return {
            "empty": "",
            "null": None,
            "number": 5,
            "false": False,
            "invalid_base64": "abcde",
            "non_ascii": "TUzv\u00e9",
            "junk_base64": "!!!!",
            "unparsable": base64.b64encode(b"this is not MLIR {").decode("ascii"),
            "urlsafe": base64.urlsafe_b64encode(b"\xfb\xff" + kernels["kernel_text"]).decode("ascii"),
        }[body]

    def mosaic_module(self, recipe_mosaic: dict):
        """A fresh module with one tpu_custom_call per recipe op, parsed in
        jax's own MLIR context, backend_config set through the bindings."""
        ir = self.ir
        n = len(recipe_mosaic["ops"])
        lines = ['module @jit_mosaic_kernel attributes {mhlo.num_partitions = 1 : i32, '
                 'mhlo.num_replicas = 1 : i32} {',
                 f'  func.func public @main(%arg0: tensor<8x128xf32> {MOSAIC_ARG}) -> (tensor<8x128xf32>) {{']
        prev = "%arg0"
        for i in range(n):
            target = recipe_mosaic["ops"][i].get("target", "tpu_custom_call")
            lines.append(f'    %{i} = stablehlo.custom_call @{target}({prev}) {{kernel_name = "k{i}"}} : '
                         f'(tensor<8x128xf32>) -> tensor<8x128xf32> loc("/src/model.py":{20 + i}:7)')
            prev = f"%{i}"
        lines.append(f'    return {prev} : tensor<8x128xf32> loc("/src/model.py":40:3)')
        lines.append('  } loc("/src/model.py":19:0)')
        lines.append('} loc("/src/model.py":1:0)')
        with self.context:
            module = ir.Module.parse("\n".join(lines))
            ops = []

            def visit(op):
                if op.name == "stablehlo.custom_call":
                    ops.append(op)
                return ir.WalkResult.ADVANCE
            module.operation.walk(visit)
            for op, spec in zip(ops, recipe_mosaic["ops"]):
                value, kind = self.mosaic_backend_config(spec)
                if kind == "string":
                    op.attributes["backend_config"] = ir.StringAttr.get(value)
                elif kind == "dict":  # only valid with the typed-FFI api_version (4)
                    op.attributes["api_version"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 4)
                    op.attributes["backend_config"] = ir.DictAttr.get(
                        {"custom_call_config": ir.StringAttr.get("{}")})
        return module

    def tpu_backend_configs(self, data: bytes) -> list:
        """backend_config of every tpu_custom_call in MLIR bytecode (or text),
        in walk order, read with jax's own MLIR (None where it is not a string);
        None when jax's MLIR refuses to read the module (it verifies)."""
        ir = self.ir
        out = []
        with self.kernel_context():
            try:
                module = ir.Module.parse(data)
            except ir.MLIRError:
                # Bytes real JAX hashed need not verify: with callbacks
                # ignored, JAX replaces the backend_config of a typed-FFI
                # (api_version 4) CustomSPMDPartitioning call by the string
                # "REMOVED", which the stablehlo verifier refuses, and the
                # bindings always verify what they parse.
                return None

            def visit(op):
                if op.name == "stablehlo.custom_call" and "call_target_name" in op.attributes \
                        and ir.StringAttr(op.attributes["call_target_name"]).value == "tpu_custom_call":
                    value = None
                    if "backend_config" in op.attributes:
                        try:
                            value = ir.StringAttr(op.attributes["backend_config"]).value
                        except ValueError:  # not a StringAttr
                            pass
                    out.append(value)
                return ir.WalkResult.ADVANCE
            module.operation.walk(visit)
        return out

    def kernel_context(self):
        """A context of its own (jax's dialects, the tpu dialect, unregistered
        dialects allowed) for reading kernel bodies, so the one real JAX hashes
        in is left as it was."""
        if getattr(self, "_kernel_ctx", None) is None:
            from jax._src.interpreters import mlir as jax_mlir
            ctx = jax_mlir.make_ir_context()
            try:
                from jax._src.lib import tpu
                tpu.register_dialect(ctx)
            except (ImportError, AttributeError):
                pass
            ctx.allow_unregistered_dialects = True
            self._kernel_ctx = ctx
        return self._kernel_ctx

    def kernel_text(self, body_b64):
        """A kernel body (base64) as jax's MLIR prints it with locations, or
        None when it does not decode or parse here."""
        if not isinstance(body_b64, str):
            return None
        ir = self.ir
        try:
            data = base64.b64decode(body_b64)
        except ValueError:
            return None
        with self.kernel_context():
            try:
                module = ir.Module.parse(data)
            except Exception:  # noqa: BLE001 - MLIRError and friends
                return None
            return module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)

    # -- compile options ---------------------------------------------------

    def _set_debug_option(self, debug_options, name, value) -> bool:
        if not hasattr(debug_options, name):
            return False  # this jaxlib's Python API does not expose the field
        current = getattr(debug_options, name)
        members = getattr(type(current), "__members__", None)
        if members:
            value = next(m for m in members.values() if int(m.value) == value)
        setattr(debug_options, name, value)
        return True

    def _overrides(self, overrides):
        if overrides is None:
            return None
        allowed = self.features["override_types"]
        return [list(p) for p in overrides if type(p[1]).__name__ in allowed]

    def _compile_options(self, co: dict, base_bytes: bytes | None = None):
        """(real CompileOptions, scenario compile_options object).

        With ``base_bytes`` (options real JAX built, serialized) the options
        start from those bytes (``CompileOptions.ParseFromString``) and keep
        their replica/partition counts and device assignment; the recipe's
        overrides, FDO profile and DebugOptions are set on top."""
        np, xc, compiler = self.np, self.xla_client, self.compiler
        fdo = base64.b64decode(co["fdo_profile_b64"]) if co["fdo_profile_b64"] is not None else None
        overrides = self._overrides(co["env_overrides"])
        da = co["device_assignment"]
        R, C = co["num_replicas"], co["num_partitions"]
        if da is not None:
            R, C = len(da), len(da[0])
        if base_bytes is not None:
            options = xc.CompileOptions.ParseFromString(base_bytes)
            if options.SerializeAsString() != base_bytes:
                raise RuntimeError("CompileOptions.ParseFromString does not round-trip real JAX's options")
        if co["encoding"] == "edits":
            if base_bytes is None:
                options = compiler.get_compile_options(1, 1)
            base = options.SerializeAsString()
            ebo = options.executable_build_options
            edits: dict = {}
            if co["debug_options"]:
                applied = {name: value for name, value in co["debug_options"].items()
                           if self._set_debug_option(ebo.debug_options, name, value)}
                if applied:
                    edits["debug_options"] = applied
            if base_bytes is None:
                options.num_replicas = R
                options.num_partitions = C
                edits["num_replicas"], edits["num_partitions"] = R, C
            if da is not None and base_bytes is None:
                options.device_assignment = xc.DeviceAssignment.create(np.array(da))
                edits["device_assignment"] = da
            if fdo is not None:
                ebo.fdo_profile = fdo
                edits["fdo_profile_b64"] = co["fdo_profile_b64"]
            if overrides is not None:
                options.env_option_overrides = [tuple(p) for p in overrides]
                edits["env_option_overrides"] = [list(p) for p in overrides]
            return options, {"proto_b64": ckref.b64(base), "edits": edits}
        if base_bytes is not None:
            if overrides is not None:
                options.env_option_overrides = [tuple(p) for p in overrides]
            if fdo is not None:
                options.executable_build_options.fdo_profile = fdo
            for name, value in co["debug_options"].items():
                self._set_debug_option(options.executable_build_options.debug_options, name, value)
            return options, {"proto_b64": ckref.b64(options.SerializeAsString())}
        via_gco = co["overrides_via"] == "get_compile_options" and overrides is not None
        # A dict: every release's get_compile_options takes one (older ones
        # call .items(), newer ones dict() it); a repeated name keeps its
        # last value either way.
        options = compiler.get_compile_options(
            R, C,
            device_assignment=np.array(da) if da is not None else None,
            env_options_overrides=dict((p[0], p[1]) for p in overrides) if via_gco else None,
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
        if n not in self.clients:
            n = max(self.clients)
        devs = self.clients[n].devices()
        if count > len(devs):
            shape, count = [len(devs)], len(devs)
        arr = np.empty(count, dtype=object)
        for i in range(count):
            arr[i] = devs[i]
        topo = self.topologies[n]
        if acc["engine_form"] == "fingerprint" and topo["fingerprint"] is not None:
            scenario = {"fingerprint": {
                "value": f"{topo['fingerprint']:016x}",
                "provenance": f"jaxlib {self.jaxlib_version} DeviceTopology.fingerprint() of a CPU client "
                              f"with {n} devices",
                "stand_in": False}}
        else:
            scenario = {"cpu_topology": json.loads(json.dumps(topo["cpu_topology"]))}
        return arr.reshape(shape), scenario, None

    def _tpu_parts(self, recipe: dict):
        """Everything ``get`` takes for a TPU recipe, from libtpu (tpu.py):
        (module, backend, scenario backend, options, scenario compile_options,
        devices, scenario accelerator, fallback error or None, fingerprint
        entry 6 must be fed or None)."""
        import tpu as tpu_mod
        kind = "tpu" if "tpu" in recipe else "gpu"
        side, knobs = (self.tpu if kind == "tpu" else self.gpu), recipe[kind]
        topo = side.topology(knobs["topology"])
        picked = side.pick(topo, knobs)
        program = recipe["module"]["program"]
        jit = (side.jit_call(knobs["topology"], program, picked)
               if program in TPU_PROGRAMS + GPU_PROGRAMS else None)
        if jit is not None:
            module = jit["module"]
        elif program == "mosaic":
            module = self.mosaic_module(recipe["mosaic"])
        else:
            module = self.modules[program]
        co = dict(recipe["compile_options"])
        base_bytes = None
        if knobs["compile_options"] == "jit" and jit is not None:
            base_bytes = jit["options_bytes"]
            listed, shape = list(jit["devices"].flat), list(jit["devices"].shape)
        else:
            listed, shape = picked, tpu_mod.layout_shape(len(picked), knobs["layout"])
            if knobs["compile_options"] == "ids":
                ids = [int(d.id) for d in picked]
                rows = shape[0] if len(shape) == 2 else 1
                co["device_assignment"] = [ids[r * (len(ids) // rows):(r + 1) * (len(ids) // rows)]
                                           for r in range(rows)]
        options, co_scenario = self._compile_options(co, base_bytes)
        acc = recipe["accelerator"]
        fallback_error = expected = None
        fallback = acc["mode"] == f"{kind}_fallback"
        if fallback and knobs["mixed_with"] is not None:
            listed = listed + side.topology(knobs["mixed_with"])["devices"][:1]
            shape = [len(listed)]
        arr = self.np.empty(len(listed), dtype=object)
        for i, d in enumerate(listed):
            arr[i] = d
        devices = arr.reshape(shape)
        if fallback:
            fallback_error = acc["error"] if acc["error"] is not None else ""
            acc_scenario = {"device_kinds": [d.device_kind for d in listed], "error": fallback_error}
        else:
            acc_scenario, expected = side.fingerprint_scenario(devices, topo)
        backend, backend_scenario = side.backend(recipe, jit["backend"] if jit is not None else topo["client"])
        return (module, backend, backend_scenario, options, co_scenario, devices, acc_scenario,
                fallback_error, expected)

    # -- one case ----------------------------------------------------------

    def _callbacks_setting(self, recipe_value: str):
        """(kwargs for get, scenario module fields, config value or None)."""
        mode = self.features["callbacks"]
        if mode == "enum":
            member = self.cache_key.IgnoreCallbacks[recipe_value]
            return {"ignore_callbacks": member}, {"ignore_callbacks": recipe_value}, None
        on = recipe_value != "NO"
        if mode == "bool":
            return {"ignore_custom_partitioning": on}, {"ignore_custom_partitioning": on}, None
        if mode == "config":
            return {}, {"ignore_custom_partitioning": on}, on
        return {}, {}, None

    def run(self, recipe: dict, case_id: str = "oracle") -> tuple[dict, dict]:
        """Run one recipe through real JAX; return (engine scenario, real result).

        For a Mosaic program on which real JAX raises, the result has
        ``error`` ({type, names, message}) and no key; the scenario then holds
        the module as text only.
        """
        ck, jax_config = self.cache_key, self.jax_config
        program = recipe["module"]["program"]
        mosaic = program == "mosaic"
        get_kwargs, module_fields, cp_config = self._callbacks_setting(recipe["module"]["ignore_callbacks"])
        expected_fingerprint = None
        if "tpu" in recipe or "gpu" in recipe:
            (module, backend, backend_scenario, options, co_scenario, devices, acc_scenario,
             fallback_error, expected_fingerprint) = self._tpu_parts(recipe)
        else:
            module = self.mosaic_module(recipe["mosaic"]) if mosaic else self.modules[program]
            backend = types.SimpleNamespace(platform=recipe["backend"]["platform"],
                                            platform_version=recipe["backend"]["platform_version"],
                                            runtime_type=recipe["backend"]["runtime_type"])
            backend_scenario = dict(recipe["backend"])
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
        saved_cp = (jax_config.remove_custom_partitioning_ptr_from_cache_key.value
                    if cp_config is not None else None)
        hashers: list = []
        error = None

        def make_hasher():
            hashers.append(ckref.RecordingSha256(hashlib))
            return hashers[-1]

        def raise_runtime_error(devices):
            raise self.runtime_error(fallback_error)

        first_log = len(self.handler.messages)
        key = None
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
            if cp_config is not None:
                self.jax.config.update("jax_remove_custom_partitioning_ptr_from_cache_key", cp_config)
            ck.hashlib = types.SimpleNamespace(sha256=make_hasher)
            # Under the module's MLIR context: in 0.10.2, include_metadata with
            # ignore_callbacks != NO rewrites backend_config outside any
            # context and raises when no context is active (jax.jit itself
            # crashes on that combination); the context gives the bytes JAX
            # hashes whenever the call succeeds.
            with module.context:
                try:
                    if isinstance(compression, dict):
                        cc = self._compilation_cache_variant(compression["python"],
                                                             compression["zstandard_installed"])
                        key = cc.get_cache_key(module, devices, options, backend, **get_kwargs)
                    else:
                        key = ck.get(module, devices, options, backend, compression, **get_kwargs)
                except Exception as e:  # noqa: BLE001 - recorded for Mosaic programs only
                    if not mosaic:
                        raise
                    error = {"type": f"{type(e).__module__}.{type(e).__qualname__}",
                             "names": exception_names(e), "message": str(e)}
            jaxlib_version = ck.jaxlib_version_str
        finally:
            ck.hashlib = hashlib
            self.jax.config.update("jax_compilation_cache_include_metadata_in_key", saved_metadata)
            if cp_config is not None:
                self.jax.config.update("jax_remove_custom_partitioning_ptr_from_cache_key", saved_cp)
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

        module_scenario = {"include_metadata": recipe["module"]["include_metadata"], **module_fields}
        if mosaic:
            module_scenario["text"] = module.operation.get_asm(enable_debug_info=True,
                                                                print_generic_op_form=True)
            original_configs = self.tpu_backend_configs(module_scenario["text"])
        scenario = {
            "schema": 1,
            "id": case_id,
            "profile": self.version,
            "module": module_scenario,
            "jaxlib_version": jaxlib_version,
            "backend": backend_scenario,
            "flags": {k: (list(v) if isinstance(v, list) else v) for k, v in flags.items()},
            "compile_options": co_scenario,
            "accelerator": acc_scenario,
            "compression": compression,
            "custom_hook": hook_value,
        }
        if error is not None:
            return scenario, {"error": error, "trace": trace, "original_backend_configs": original_configs}

        # Self-checks of the harness (not of the engine).
        running, fresh = hashers[0], hashers[1:]
        entries = ckref.entries_from_trace(trace)
        if len(fresh) != len(entries):
            raise RuntimeError(f"{len(fresh)} fresh hash objects for {len(entries)} logged entries")
        entry_bytes = [b"".join(h.fed) for h in fresh]
        if b"".join(running.fed) != b"".join(entry_bytes):
            raise RuntimeError("running hash fed different bytes than the fresh ones")
        if running.hexdigest() != key.rsplit("-", 1)[1]:
            raise RuntimeError("recorded running hash does not match the key")
        if expected_fingerprint is not None:
            fed = entry_bytes[[e["name"] for e in entries].index("accelerator_config")]
            if fed != expected_fingerprint.to_bytes(8, "big"):
                raise RuntimeError(f"entry 6 was fed {fed.hex()}, not the topology's (libtpu's / the plugin's) fingerprint "
                                   f"{expected_fingerprint:016x}")

        real = {
            "key": key,
            "entries": entries,
            "trace": trace,
            "entry_bytes_b64": [ckref.b64(b) for b in entry_bytes],
        }
        if mosaic:
            real["backend_configs"] = self.tpu_backend_configs(entry_bytes[0])
            real["original_backend_configs"] = original_configs
            real["sym_name"] = self._sym_name(module)
        else:
            scenario["module"]["sym_name"] = (self.sym_names[program] if program in self.sym_names
                                              else self._sym_name(module))
            scenario["module"]["entry1_b64"] = ckref.b64(entry_bytes[0])
        return scenario, real

    def bytes_scenario(self, scenario: dict, real: dict) -> dict:
        """The scenario of a successful Mosaic case with entry 1 as the exact
        bytes real JAX hashed (instead of the module text)."""
        out = json.loads(json.dumps(scenario))
        del out["module"]["text"]
        out["module"]["sym_name"] = real["sym_name"]
        out["module"]["entry1_b64"] = real["entry_bytes_b64"][0]
        return out
