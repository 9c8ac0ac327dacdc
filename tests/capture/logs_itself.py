"""A JAX program that configures logging itself, after `import jax`.

    python logs_itself.py CACHE_DIR

CK_LOGGING chooses how:
  "root"    logging.basicConfig(level=DEBUG) to stdout: every logger's DEBUG
            records reach the root handler (the default)
  "none"    logging left as it is
  "module"  the two loggers the capture reads (jax._src.compiler,
            jax._src.compilation_cache) get level DEBUG and a handler of
            their own to stdout; the root logger is left alone
CK_LOG_FIRST=1 configures logging before `import jax` (then JAX's import-time
record, jax._src.path at DEBUG, reaches the handlers: a tool that imported
jax first would take it away).
CK_MIN_SECS sets jax_persistent_cache_min_compile_time_secs (default 0).
Used by tests/capture/test_capture.py, which runs it with and without
`python -m cachekey.capture` and compares what it logged.
"""

import logging
import os
import sys

mode = os.environ.get("CK_LOGGING", "root")
if os.environ.get("CK_LOG_FIRST") == "1":
    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout,
                        format="%(name)s %(levelname)s %(message)s")
    mode = "none"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

if mode == "root":
    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout,
                        format="%(name)s %(levelname)s %(message)s")
elif mode == "module":
    for name in ("jax._src.compiler", "jax._src.compilation_cache"):
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter("own %(name)s %(levelname)s %(message)s"))
        logging.getLogger(name).addHandler(handler)
        logging.getLogger(name).setLevel(logging.DEBUG)
elif mode != "none":
    raise SystemExit(f"CK_LOGGING={mode!r}: give root, module or none")
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs",
                  float(os.environ.get("CK_MIN_SECS", "0")))


def f(x, y):
    return jnp.sin(x) * y + 1.0


x = jnp.ones((4, 8), jnp.float32)
jax.jit(f)(x, x).block_until_ready()
jax.jit(lambda v: v.T @ v)(x).block_until_ready()
