# two warm-up worker threads pull programs from a queue (one at a time); which worker compiles which program varies by run
import os, sys, logging, threading
logging.basicConfig(level=logging.WARNING, format="%(threadName)s %(levelname)s %(name)s: %(message)s")
for n in ("jax._src.cache_key","jax._src.compiler","jax._src.compilation_cache","jax._src.lru_cache"):
    logging.getLogger(n).setLevel(logging.DEBUG)
import jax, jax.numpy as jnp, numpy as np
jax.config.update('jax_compilation_cache_dir', os.environ["CACHE"])
jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
jax.config.update('jax_persistent_cache_min_entry_size_bytes', -1)
V = os.environ.get("VARIANT", "a")
def step(a, b): return a * 0.5 + b if V != "b" else a * 0.25 + b
def mlp(w, x): return jnp.tanh(x @ w).sum()
x = np.ones((8, 8), np.float32)
jobs = [("step", step), ("mlp", mlp)]
workers = ["warmup-0", "warmup-1"] if os.environ.get("SWAP") is None else ["warmup-1", "warmup-0"]
for (name, f), w in zip(jobs, workers):
    t = threading.Thread(target=lambda f=f: jax.jit(f)(x, x).block_until_ready(), name=w)
    t.start(); t.join()
