"""One small JAX program, run twice per class with exactly one change.

Usage: python program.py CLASS SIDE, SIDE in {a, b}. Run under
`python -m cachekey.capture` by make_pairs.sh; the pairs in
tests/capture/module_diff/<jax>/<CLASS>/{a,b}.json are the fixtures of
tests/mlir/ModuleDiffTest.cpp, whose expected finding codes are the change
made here (one per class):
  precision  jax_default_matmul_precision unset (a) / "highest" (b)
  constant   a Python float closed over: 0.0729 (a) / 0.06561 (b)
  donate     jit without (a) / with donate_argnums=0 (b)
  callback   without (a) / with a jax.pure_callback (b)
  static     a static step argument: step=1 (a) / step=2 (b)
  locations  metadata in the key; the same lambda on another source line
  x64        jax_enable_x64 off (a) / on (b), float64 input on b
  shape      the input (4, 4) (a) / (8, 4) (b)
  random     jax_threefry_partitionable False (a) / True (b) around
             jax.random.uniform
  remat      jax.checkpoint of a grad, policy nothing_saveable (a) /
             dots_saveable (b)
  shardy     jax_use_shardy_partitioner False (a) / True (b), one device
  devices    an input sharded over 1 device (a) / 2 host devices (b)

With CK_GENERIC_OUT set, the program also writes there the module JAX
lowers for it, in generic form (`get_asm(print_generic_op_form=True)`, with
locations when metadata is in the key): MLIR 19 reads that text, while the
entry-1 bytecode of jaxlib's newer MLIR it cannot.
"""
import os
import sys

cls, side = sys.argv[1], sys.argv[2]
b = side == "b"
if cls == "devices":
    # Both sides ask for 2 host devices, so only the sharding differs.
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_force_host_platform_device_count=2")

import jax
import jax.numpy as jnp
import numpy as np

x = jnp.ones((4, 4), jnp.float32)
args = (x,)

if cls == "precision":
    if b:
        jax.config.update("jax_default_matmul_precision", "highest")
    f = jax.jit(lambda x: jnp.tanh(x @ x))
elif cls == "constant":
    scale = 0.06561 if b else 0.0729
    f = jax.jit(lambda x: jnp.tanh(x * scale))
elif cls == "donate":
    g = lambda x: jnp.tanh(x) + 1.0
    f = jax.jit(g, donate_argnums=0) if b else jax.jit(g)
elif cls == "callback":
    def host(v):
        return np.asarray(v) * 2

    def g(x):
        y = jnp.tanh(x)
        if b:
            y = jax.pure_callback(host, jax.ShapeDtypeStruct(y.shape, y.dtype), y)
        return y + 1.0
    f = jax.jit(g)
elif cls == "static":
    f = jax.jit(lambda x, step: jnp.tanh(x) * step, static_argnums=1)
    args = (x, 2 if b else 1)
elif cls == "locations":
    jax.config.update("jax_compilation_cache_include_metadata_in_key", True)
    # The same lambda on two source lines: only its location differs.
    if b:
        f = jax.jit(lambda x: jnp.tanh(x) + 1.0)
    else:
        f = jax.jit(lambda x: jnp.tanh(x) + 1.0)
elif cls == "x64":
    if b:
        jax.config.update("jax_enable_x64", True)
    x = jnp.ones((4, 4), jnp.float64 if b else jnp.float32)
    args = (x,)
    f = jax.jit(lambda x: jnp.tanh(x) + 1.0)
elif cls == "shape":
    args = (jnp.ones((8, 4) if b else (4, 4), jnp.float32),)
    f = jax.jit(lambda x: jnp.tanh(x) + 1.0)
elif cls == "random":
    jax.config.update("jax_threefry_partitionable", b)
    f = jax.jit(lambda x: x + jax.random.uniform(jax.random.key(0), x.shape))
elif cls == "remat":
    policy = (jax.checkpoint_policies.dots_saveable if b
              else jax.checkpoint_policies.nothing_saveable)

    def loss(w):
        h = jnp.tanh(w @ w)
        return jnp.sum(jnp.sin(h @ w))
    f = jax.jit(jax.grad(jax.checkpoint(loss, policy=policy)))
elif cls == "shardy":
    jax.config.update("jax_use_shardy_partitioner", b)
    f = jax.jit(lambda x: jnp.tanh(x) + 1.0)
elif cls == "devices":
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    mesh = Mesh(np.array(jax.devices()[:2 if b else 1]), ("d",))
    x = jax.device_put(x, NamedSharding(mesh, P("d")))
    args = (x,)
    f = jax.jit(lambda x: jnp.tanh(x) + 1.0)
else:
    raise SystemExit(f"unknown class {cls}")

out = os.environ.get("CK_GENERIC_OUT")
if out:
    module = f.lower(*args).compiler_ir("stablehlo")
    with open(out, "w") as fh:
        fh.write(module.operation.get_asm(
            print_generic_op_form=True, enable_debug_info=cls == "locations"))
call_args = (jnp.ones((4, 4), jnp.float32),) if cls == "donate" else args
f(*call_args).block_until_ready()
