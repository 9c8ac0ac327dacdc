# A training job: init, a train step, an eval step; --batch sets the batch.
import logging, os, sys
logging.basicConfig(level=logging.DEBUG)
import jax, jax.numpy as jnp

jax.config.update("jax_compilation_cache_dir", os.environ["CACHE_DIR"])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
batch = int(sys.argv[sys.argv.index("--batch") + 1]) if "--batch" in sys.argv else 8

@jax.jit
def init(key):
    return jax.random.normal(key, (32, 32)) * 0.1

@jax.jit
def train_step(w, x):
    loss = lambda w: jnp.mean(jnp.tanh(x @ w) ** 2)
    return w - 0.1 * jax.grad(loss)(w)

@jax.jit
def eval_step(w, x):
    y = jnp.tanh(x @ w)
    return jnp.stack([y.mean(), y.std()])

w = init(jax.random.key(0))
x = jnp.ones((batch, 32))
for _ in range(3):
    w = train_step(w, x)
print(eval_step(w, x))
