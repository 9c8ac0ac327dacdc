import os, sys
import jax, jax.numpy as jnp
C = float(os.environ.get("BK_CONST", "2.0"))
@jax.jit
def f(x): return x * C + 1
@jax.jit
def g(x): return jnp.sin(x) @ x.T
x = jnp.ones((4,4))
print(f(x).sum(), g(x).sum())
if os.environ.get("BK_NEW"):
    @jax.jit
    def h(x): return jnp.cos(x) - 3
    print(h(x).sum())
