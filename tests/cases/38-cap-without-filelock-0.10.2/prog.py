import os, logging, sys
logging.basicConfig(level=logging.DEBUG if os.environ.get("LOGALL") else logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
for n in ("jax._src.cache_key","jax._src.compiler","jax._src.compilation_cache"):
    logging.getLogger(n).setLevel(logging.DEBUG)
import jax, jax.numpy as jnp
E=os.environ.get
late = E("LATE")=="1"
if not late:
    jax.config.update('jax_compilation_cache_dir', E("CACHE"))
if E("MINT","0")!="default":
    jax.config.update('jax_persistent_cache_min_compile_time_secs', float(E("MINT","0")))
if E("MAXSZ"):
    jax.config.update('jax_compilation_cache_max_size', int(E("MAXSZ")))
if E("MINENTRY"):
    jax.config.update('jax_persistent_cache_min_entry_size_bytes', int(E("MINENTRY")))
n=int(E("N","8"))
@jax.jit
def f(x): return jnp.sin(x)*2+1
@jax.jit
def g(x): return jnp.cos(x)@x.T
x=jnp.ones((n,n))
if late:
    f(x).block_until_ready()
    jax.config.update('jax_compilation_cache_dir', E("CACHE"))
    g(x).block_until_ready()
else:
    f(x).block_until_ready(); g(x).block_until_ready()
if E("MORE"):
    for k in range(int(E("MORE"))):
        jax.jit(lambda y, k=k: y*k+jnp.tanh(y)*k)(x).block_until_ready()
print("done")
