"""The CPU program fixtures: which JAX program each fixture compiles, and how.

``PROGRAM_FIXTURES`` maps a fixture id (the file ``fixtures/<id>.json``) to
its program and its setting: ``env`` is added to the worker's environment
before JAX starts, ``config`` holds ``jax.config`` values.  The programs
import nothing themselves: ``make_program(name, jax, jnp)`` builds one with
the worker's ``jax`` and returns a function that compiles and runs it (inputs
are built first, since creating arrays compiles small programs of its own).

Where a fixture keeps source locations in its key (``lines_*_meta``), the key
depends on this file's path and on the line numbers below.
"""

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
    """Program ``name`` (a ``PROGRAM_FIXTURES`` "program") built with the
    given ``jax`` and ``jax.numpy``: a function that compiles and runs it."""
    if name.startswith("lines_"):
        return _program_lines(jax, jnp, name[len("lines_"):])
    return globals()["_program_" + name](jax, jnp)
