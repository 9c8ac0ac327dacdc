"""One GPU program, compiled deviceless by the CUDA plugin's compile-only
client (the script ``fixture_capture.gpu`` runs under ``cachekey.capture``).

Usage: python gpu_program.py SPEC_JSON

SPEC_JSON: {"target": device_description_str, "shape": "1x1x8",
"program": "add" | "sum" | "matmul" | "pallas", "devices": "all" | [i, ...] (indices
into the topology's devices, in the order wanted), "mesh": [R, C] or [N]}.

Like upstream tests/aot_test.py (test_deviceless_aot_compile): the topology
comes from ``jax.experimental.topologies.get_topology_desc(platform="cuda",
target_config=TEXT, topology=SHAPE)`` with TEXT the plugin's embedded spec,
the mesh from ``topologies.make_mesh`` when every device is used in order,
else a ``Mesh`` of the chosen devices; inputs are ``ShapeDtypeStruct``s with
shardings; ``.lower(...).compile()`` compiles for the GPU (ptxas from
nvidia-cuda-nvcc-cu12) and, with the persistent cache on, writes the entry.
Prints one JSON line: the device ids of the compiled executable; writes the
messages of the ``jax._src.cache_key`` logger (DEBUG, the trace) as a JSON
list to ``$CACHEKEY_GPU_TRACE`` when set.
"""

from __future__ import annotations

import json
import logging
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "oracle"))

import gpu  # noqa: E402  (tests/oracle/gpu.py)


class _Trace(logging.Handler):
    """Keeps the messages of the ``jax._src.cache_key`` logger (the trace)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def main() -> int:
    spec = json.loads(sys.argv[1])
    trace = _Trace()
    logger = logging.getLogger("jax._src.cache_key")
    logger.addHandler(trace)
    logger.setLevel(logging.DEBUG)
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import topologies
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding

    text = gpu.embedded_target_configs()[spec["target"]]
    topo = topologies.get_topology_desc(platform="cuda", target_config=text, topology=spec["shape"])
    devices = list(topo.devices)
    chosen = devices if spec["devices"] == "all" else [devices[i] for i in spec["devices"]]
    f32 = jnp.float32
    if spec["program"] == "pallas":
        # A Pallas kernel lowered by the Triton backend. It reads the GPU from
        # the abstract mesh (pallas/triton/gpu_info.py), so the topology's
        # mesh is made the abstract mesh while lowering.
        from jax.experimental import pallas as pl

        def kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...] + 1

        fun = jax.jit(lambda x: pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), f32))(x))
        mesh = topologies.make_mesh(topo, (len(devices),), ("x",))
        with jax.sharding.use_abstract_mesh(mesh.abstract_mesh):
            lowered = fun.lower(jax.ShapeDtypeStruct((8, 128), f32, sharding=SingleDeviceSharding(chosen[0])))
        return _finish(lowered.compile(), trace)
    if spec["program"] == "add":
        sh = SingleDeviceSharding(chosen[0])
        fun = jax.jit(lambda x, y: x + y)
        args = (jax.ShapeDtypeStruct((8, 128), f32, sharding=sh), jax.ShapeDtypeStruct((8, 128), f32, sharding=sh))
    else:
        shape = tuple(spec["mesh"])
        names = ("data", "model")[:len(shape)]
        if spec["devices"] == "all":
            mesh = topologies.make_mesh(topo, shape, names)
        else:
            mesh = Mesh(np.array(chosen, dtype=object).reshape(shape), names)
        if spec["program"] == "sum":
            fun = jax.jit(lambda x: jnp.sum(x * x))
            args = (jax.ShapeDtypeStruct((8 * shape[0], 4), f32, sharding=NamedSharding(mesh, P(names[0]))),)
        else:
            rows, cols = shape if len(shape) == 2 else (shape[0], 1)
            px = P("data", None)
            pw = P(None, "model") if len(shape) == 2 else P(None, None)
            fun = jax.jit(lambda x, w: jnp.tanh(x @ w))
            args = (jax.ShapeDtypeStruct((4 * rows, 16), f32, sharding=NamedSharding(mesh, px)),
                    jax.ShapeDtypeStruct((16, 4 * cols), f32, sharding=NamedSharding(mesh, pw)))
    return _finish(fun.lower(*args).compile(), trace)


def _finish(compiled, trace) -> int:
    """Writes the trace, prints the compiled executable's device ids."""
    ids = []
    try:
        ids = [int(d.id) for d in compiled.input_shardings[0][0].device_set]
    except Exception:  # noqa: BLE001 - informational only
        pass
    if os.environ.get("CACHEKEY_GPU_TRACE"):
        with open(os.environ["CACHEKEY_GPU_TRACE"], "w", encoding="utf-8") as f:
            json.dump(trace.messages, f)
    print(json.dumps({"devices": sorted(ids)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
