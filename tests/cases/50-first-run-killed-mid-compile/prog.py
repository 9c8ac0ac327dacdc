# Tiny JAX program, configured by env vars:
# CK_CACHE: cache dir set via config.update (unless CK_NO_CONFIG_DIR=1)
# CK_MAXSIZE: jax_compilation_cache_max_size ; CK_VARIANT: 'mul' changes step body
# CK_PROGS: comma list of programs among step,mlp,big ; CK_SLEEP: sleep seconds before compile of 'big'
# CK_XLA_CACHES: value for jax_persistent_cache_enable_xla_caches
import logging, os, sys, time
logging.basicConfig(**({"format": os.environ["CK_FMT"]} if os.environ.get("CK_FMT") else {}))
if os.environ.get("CK_NOLOGSETUP") != "1":
    for n in ("jax._src.cache_key", "jax._src.compiler", "jax._src.compilation_cache", "jax._src.lru_cache"):
        logging.getLogger(n).setLevel(logging.DEBUG)
import jax, jax.numpy as jnp
import numpy as np
if os.environ.get("CK_NO_CONFIG_DIR") != "1":
    jax.config.update("jax_compilation_cache_dir", os.environ["CK_CACHE"])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
if os.environ.get("CK_MAXSIZE"):
    jax.config.update("jax_compilation_cache_max_size", int(os.environ["CK_MAXSIZE"]))
if os.environ.get("CK_XLA_CACHES"):
    jax.config.update("jax_persistent_cache_enable_xla_caches", os.environ["CK_XLA_CACHES"])
variant = os.environ.get("CK_VARIANT", "")
def step(x, y):
    return x * y if variant == "mul" else x + y
def mlp(w, x):
    return jnp.tanh(x @ w).sum()
def big(x):
    for i in range(int(os.environ.get("CK_BIGN", "30"))):
        x = jnp.sin(x) * (i + 1.0) + jnp.cos(x @ x.T)[: x.shape[0], : x.shape[1]]
    return x
progs = os.environ.get("CK_PROGS", "step,mlp").split(",")
a = np.ones((4, 4), np.float32)
for p in progs:
    if p == "step":
        jax.jit(step)(a, a).block_until_ready()
    elif p == "mlp":
        jax.jit(mlp)(a, a).block_until_ready()
    elif p == "big":
        jax.jit(big)(a).block_until_ready()
    print("done", p, file=sys.stdout, flush=True)
