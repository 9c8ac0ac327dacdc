# only jitted programs, inputs from numpy (no eager jax ops)
import logging, os, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
import numpy as np
import jax, jax.numpy as jnp
jax.config.update('jax_compilation_cache_dir', os.environ["CDIR"])
jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
jax.config.update('jax_persistent_cache_min_entry_size_bytes', -1)
if os.environ.get("MAXSIZE"):
    jax.config.update('jax_compilation_cache_max_size', int(os.environ["MAXSIZE"]))
if os.environ.get("META"):
    jax.config.update('jax_compilation_cache_include_metadata_in_key', True)
@jax.jit
def f(x): return (jnp.sin(x) * 2 + 1).sum()
@jax.jit
def g(x, y): return (x @ y + jnp.tanh(x)).sum()
@jax.jit
def h(x): return jnp.cumsum(x ** 2).sum()
x = np.arange(16.0).reshape(4, 4)
print(f(x), g(x, x), h(x.ravel()))
if os.environ.get("INTS"):
    @jax.jit
    def k(i): return (i * 3 + 1).sum()
    print(k(np.arange(8)))
for i in range(int(os.environ.get("NEXTRA", "0"))):
    e = jax.jit(lambda v, i=i: (v * (i + 3) - jnp.cos(v)).sum())
    print(e(x))
