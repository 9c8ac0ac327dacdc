import os, sys, logging
mode = os.environ.get("LOGMODE","basic")
if mode == "basic":
    logging.basicConfig(level=logging.DEBUG)
elif mode == "twohandlers":   # same format twice (e.g. a library adds its own handler)
    logging.basicConfig(level=logging.DEBUG, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    h = logging.StreamHandler(); h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger("jax").addHandler(h)
elif mode == "compileronly":
    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("jax._src.compiler").setLevel(logging.DEBUG)
elif mode == "warnfmt":
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s [%(levelname)s] %(name)s - %(message)s")
elif mode == "cache4":
    logging.basicConfig(level=logging.WARNING)
    for n in ("jax._src.cache_key","jax._src.compiler","jax._src.compilation_cache","jax._src.lru_cache"):
        logging.getLogger(n).setLevel(logging.DEBUG)
import jax, jax.numpy as jnp, numpy as np
jax.config.update('jax_compilation_cache_dir', os.environ["CACHE"])
jax.config.update('jax_persistent_cache_min_compile_time_secs', float(os.environ.get("MINT","0")))
jax.config.update('jax_persistent_cache_min_entry_size_bytes', -1)
for kv in os.environ.get("JAXCFG","").split(";"):
    if kv:
        k,v = kv.split("=",1)
        jax.config.update(k, eval(v))
V = os.environ.get("VARIANT","a")
S = os.environ.get("SCEN","plain")
x = np.ones((8,8), np.float32); w = np.ones((8,8), np.float32)
if S == "plain":
    step = jax.jit(lambda a, b: a + b if V != "b" else a * b) if os.environ.get("LAMBDA") else jax.jit((lambda a,b: a+b) if V!="b" else (lambda a,b: a*b))
    def step_(a,b): return a + b if V != "b" else a * b
    if not os.environ.get("LAMBDA"): step = jax.jit(step_)
    def mlp(w, x): return jnp.tanh(x @ w).sum()
    step(x, x).block_until_ready(); jax.jit(mlp)(w, x).block_until_ready()
elif S == "eager":
    y = jnp.ones((8,8)) * 2.0 + 1.0
    z = jnp.sum(y)
    def mlp(w, x): return jnp.tanh(x @ w).sum()
    jax.jit(mlp)(w, x).block_until_ready()
elif S == "clear":
    def mlp(w, x): return jnp.tanh(x @ w).sum() * (1.0 if V != "b" else 2.0)
    jax.jit(mlp)(w, x).block_until_ready()
    jax.clear_caches()
    jax.jit(mlp)(w, x).block_until_ready()
print("done", file=sys.stderr)
