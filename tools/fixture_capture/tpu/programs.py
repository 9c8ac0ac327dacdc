"""The programs of the whole-key TPU captures.

``PROGRAMS`` maps a program id to its title, its builder (which lays out
``jax.ShapeDtypeStruct`` inputs over the devices of a deviceless topology and
returns a function that lowers and compiles), the topology it uses, and
optionally ``config`` (``jax.config`` values) and ``fallback`` (force the
device_kind fallback of entry 6).  Keys that cover source locations depend on
this file's path and line numbers.
"""

from __future__ import annotations

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

# The message of the error the fallback programs raise. Kept as it was when
# the committed fixtures were captured (by the single-file capture_tpu.py), so
# that a new capture logs the same line.
FALLBACK_MESSAGE = "UNIMPLEMENTED: capture_tpu.py forced the device_kind fallback"
