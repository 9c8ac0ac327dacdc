"""Case 42: one program pair run three ways (see README.md)."""
import logging, sys, os
logging.basicConfig(level=logging.DEBUG)
import jax, numpy as np
jax.config.update("jax_compilation_cache_dir", os.environ.get("CACHE", "cache"))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
mode = sys.argv[1]
if mode == "off": jax.config.update("jax_enable_compilation_cache", False)
if mode == "none": jax.config.update("jax_persistent_cache_enable_xla_caches", "none")
def step(x):
    return x + 1
def double(x):
    return x * 2
jax.jit(step)(np.ones(4)).block_until_ready()
jax.jit(double)(np.ones(4)).block_until_ready()
