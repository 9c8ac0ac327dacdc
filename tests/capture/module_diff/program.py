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

With CK_GENERIC_OUT set, the program also writes there the module JAX
lowers for it, in generic form (`get_asm(print_generic_op_form=True)`, with
locations when metadata is in the key): MLIR 19 reads that text, while the
entry-1 bytecode of jaxlib's newer MLIR it cannot.
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

cls, side = sys.argv[1], sys.argv[2]
b = side == "b"
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
