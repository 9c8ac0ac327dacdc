import os, sys, logging
logging.basicConfig(level=logging.WARNING)
for n in ("jax._src.cache_key","jax._src.compiler","jax._src.compilation_cache","jax._src.lru_cache"):
    logging.getLogger(n).setLevel(logging.DEBUG)
import jax, jax.numpy as jnp, numpy as np
jax.config.update('jax_compilation_cache_dir', os.environ["CACHE"])
jax.config.update('jax_persistent_cache_min_compile_time_secs', 0)
jax.config.update('jax_persistent_cache_min_entry_size_bytes', -1)
class Model:
    def __call__(self, w, x):          # a model's __call__, jitted (Flax/Equinox style)
        return jnp.tanh(x @ w).sum()
def mlp(w, x): return jnp.tanh(x @ w).sum() * 2
x = np.ones((8, 8), np.float32)
jax.jit(Model().__call__)(x, x).block_until_ready()
jax.jit(mlp)(x, x).block_until_ready()
