"""A small JAX program whose persistent-cache log the case tests read.

Run by tests/cases/make_cases.py, once per run of a case, under the real jax
of the venv it is given. Everything a case changes between its two runs comes
in through the environment:

  CK_LOG          the log file (appended to: processes may share one)
  CK_CACHE_DIR    jax_compilation_cache_dir
  CK_MIN_TIME     jax_persistent_cache_min_compile_time_secs (default 0)
  CK_MIN_ENTRY    jax_persistent_cache_min_entry_size_bytes (default -1)
  CK_VARIANT      "add" (default) or "mul": the body of the last program
  CK_CALLBACK     "1": the last program calls jax.debug.print
  CK_EXTRA        "1": compile one more program (jit_restore) first
  CK_FORMAT       "basic" (logging.basicConfig's format), "absl" (glog-style
                  with time and thread), "asctime", "ansi" (coloured level)
  CK_TAG          a launcher-style tag put before every line, e.g. "[rank1] "
  XLA_FLAGS       as usual
"""
import logging
import os
import sys

tag = os.environ.get("CK_TAG", "")
fmt = {
    "basic": "%(levelname)s:%(name)s:%(message)s",
    "absl": "%(levelname).1s%(asctime)s.%(msecs)03d000 %(thread)d %(filename)s:%(lineno)d] %(message)s",
    "asctime": "%(asctime)s - %(name)s - %(levelname)s - %(message)s",
    "ansi": "\x1b[36m%(levelname)s\x1b[0m:%(name)s:%(message)s",
}[os.environ.get("CK_FORMAT", "basic")]
datefmt = "%m%d %H:%M:%S" if os.environ.get("CK_FORMAT") == "absl" else None
handler = logging.FileHandler(os.environ["CK_LOG"], mode="a")
handler.setFormatter(logging.Formatter(tag + fmt, datefmt=datefmt))
for name in ("jax._src.cache_key", "jax._src.compiler", "jax._src.compilation_cache"):
    logger = logging.getLogger(name)
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)

import jax
import jax.numpy as jnp

jax.config.update("jax_compilation_cache_dir", os.environ["CK_CACHE_DIR"])
jax.config.update("jax_persistent_cache_min_compile_time_secs",
                  float(os.environ.get("CK_MIN_TIME", "0")))
jax.config.update("jax_persistent_cache_min_entry_size_bytes",
                  int(os.environ.get("CK_MIN_ENTRY", "-1")))

variant = os.environ.get("CK_VARIANT", "add")


@jax.jit
def restore(w):
    return w * 1.0


@jax.jit
def step(x, y):
    if os.environ.get("CK_CALLBACK") == "1":
        jax.debug.print("x = {}", x[0])
    return (x + y) if variant == "add" else (x * y)


x = jnp.ones((4,), jnp.float32)
if os.environ.get("CK_EXTRA") == "1":
    x = restore(x)
step(x, x).block_until_ready()
sys.stdout.flush()
