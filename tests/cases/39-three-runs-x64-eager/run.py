import logging, os, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
for n in ["jax._src.compiler","jax._src.cache_key","jax._src.compilation_cache","jax._src.lru_cache"]:
    logging.getLogger(n).setLevel(logging.DEBUG)
import jax, jax.numpy as jnp
cdir = os.environ["CDIR"]
jax.config.update('jax_compilation_cache_dir', cdir)
jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
jax.config.update('jax_persistent_cache_min_entry_size_bytes', -1)
if os.environ.get("MAXSIZE"):
    jax.config.update('jax_compilation_cache_max_size', int(os.environ["MAXSIZE"]))
if os.environ.get("META"):
    jax.config.update('jax_compilation_cache_include_metadata_in_key', True)

@jax.jit
def f(x): return jnp.sin(x) * 2 + 1
@jax.jit
def g(x, y): return x @ y + jnp.tanh(x)
@jax.jit
def h(x): return jnp.cumsum(x ** 2)

x = jnp.arange(16.0).reshape(4, 4)
print(f(x).sum(), g(x, x).sum(), h(x.ravel()).sum())
n = int(os.environ.get("NEXTRA", "0"))
for i in range(n):
    k = jax.jit(lambda v, i=i: v * (i + 3) - jnp.cos(v))
    print(k(x).sum())
