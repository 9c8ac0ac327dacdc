"""A small JAX program captured by tests/capture/test_capture.py.

CK_VARIANT selects one controlled change of the program itself:
  "code"      the function `scaled` adds 2.0 instead of 1.0
  "extra"     one more jitted function (`only_here`) is compiled
  "options"   `scaled` is jitted with compiler_options={CK_OPTION: CK_VALUE}
  "device1"   the arguments live on the second device (needs two devices)
  "shape"     the arguments are 8x8 instead of 4x8
CK_MIN_SECS sets jax_persistent_cache_min_compile_time_secs (default 0).
Everything else (flags, device count, cache directory, jax release) is
changed from outside by the test.
"""

import os

import jax
import jax.numpy as jnp

jax.config.update("jax_persistent_cache_min_compile_time_secs",
                  float(os.environ.get("CK_MIN_SECS", "0")))
variant = os.environ.get("CK_VARIANT", "")


def scaled(x, y):
    if variant == "code":
        return jnp.tanh(x) * y + 2.0
    return jnp.tanh(x) * y + 1.0


def other(x):
    return jnp.sin(x) - x


options = {}
if variant == "options":
    value = os.environ["CK_VALUE"]
    parsed = {"true": True, "false": False}.get(value, value)
    options = {os.environ["CK_OPTION"]: int(value) if value.lstrip("-").isdigit() else parsed}

x = jnp.ones((8, 8) if variant == "shape" else (4, 8), jnp.float32)
if variant == "device1":
    x = jax.device_put(x, jax.devices()[1])
# jax.jit takes compiler_options from jax 0.4.36 on; before that only the
# "options" variant needs it.
jitted = jax.jit(scaled, compiler_options=options) if options else jax.jit(scaled)
jitted(x, x).block_until_ready()
jax.jit(other)(x).block_until_ready()
if variant == "extra":
    def only_here(x):
        return x @ x.T
    jax.jit(only_here)(x).block_until_ready()
