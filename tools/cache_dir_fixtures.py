"""Writes a real JAX persistent compilation cache directory for the fixtures
of `cachekey cache-dir` (tests/engine/cachedir, fixtures/cache_dirs/README.md).

Run with the interpreter of a real jax venv (tests/oracle/venvs.py); filelock
and zstandard come from PYTHONPATH when the venv lacks them::

    PYTHONPATH=EXTRA python tools/cache_dir_fixtures.py run CACHE LOG STEP [--cap BYTES]

STEP is one of

- ``first``:  jit_f on f32[64,8] and f32[128,8], jit_g on f32[16], jit_slow
  (an unrolled chain that takes more than a second to compile, so its entry
  records non-zero compile seconds);
- ``second``: jit_f on f32[192,8] (a third key for jit_f) and f32[64,8] again
  (a hit: the entry's -atime, or in 0.4.30 its mtime, moves), jit_g again;
- ``third``:  jit_h on f32[32] (one new entry: the put that evicts under a cap);
- ``lookup``: jit_f on f32[192,8] (a new key), f32[64,8] (a hit), jit_g on
  f32[16] and jit_slow on f32[96] (a new key); run with ``--min-compile-secs
  1`` after ``first`` so that the quick new jit_f is not written and the slow
  one is (tools/cache_dir_lookup_fixture.sh).

Each STEP is one process, so hits come from the directory, not from memory.
The log LOG gets JAX's own DEBUG lines of jax._src.compilation_cache,
jax._src.compiler and jax._src.lru_cache (appended).

    python tools/cache_dir_fixtures.py describe CACHE

prints, as JSON, each file's st_mtime_ns (git does not keep them: the tests
put them back) and what JAX's own functions read from each entry
(compilation_cache.decompress_executable + extract_executable_and_time): the
compile seconds and the decompressed size; the expectations of the tests.
"""

import json
import logging
import os
import sys


def _configure(cache, cap, min_secs=0.0):
    import jax
    jax.config.update("jax_compilation_cache_dir", cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", min_secs)
    for name, value in (("jax_persistent_cache_min_entry_size_bytes", 0),
                        ("jax_compilation_cache_max_size", cap)):
        try:
            jax.config.update(name, value)
        except AttributeError:
            if name == "jax_compilation_cache_max_size" and cap != -1:
                raise
    return jax


def run(cache, log, step, cap, min_secs=0.0):
    handler = logging.FileHandler(log)
    handler.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
    for name in ("jax._src.compilation_cache", "jax._src.compiler", "jax._src.lru_cache",
                 "jax._src.dispatch"):
        lg = logging.getLogger(name)
        lg.setLevel(logging.DEBUG)
        lg.addHandler(handler)
    jax = _configure(cache, cap, min_secs)
    import numpy as np
    jnp = jax.numpy

    @jax.jit
    def f(x):
        return jnp.tanh(x @ x.T).sum(axis=0)

    @jax.jit
    def g(x):
        return x * 2.0 + 1.0

    @jax.jit
    def h(x):
        return jnp.cumsum(x) - 3.0

    def slow(x):
        for i in range(30):
            x = jnp.sin(x) * (1.0 + i * 1e-4) + jnp.roll(x, i % 7)
        return x

    jit_slow = jax.jit(slow)

    def arr(*shape):
        return np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 100.0

    if step == "first":
        np.asarray(f(arr(64, 8)))
        np.asarray(f(arr(128, 8)))
        np.asarray(g(arr(16)))
        np.asarray(jit_slow(arr(64)))
    elif step == "second":
        np.asarray(f(arr(192, 8)))
        np.asarray(f(arr(64, 8)))
        np.asarray(g(arr(16)))
    elif step == "third":
        np.asarray(h(arr(32)))
    elif step == "lookup":
        np.asarray(f(arr(192, 8)))
        np.asarray(f(arr(64, 8)))
        np.asarray(g(arr(16)))
        np.asarray(jit_slow(arr(96)))
    else:
        raise SystemExit(f"unknown step {step}")
    print(f"jax {jax.__version__}: step {step} done in {cache}")


def describe(cache):
    from jax._src import compilation_cache as cc
    out = {}
    for name in sorted(os.listdir(cache)):
        path = os.path.join(cache, name)
        if os.path.islink(path):
            # a link's own mtime (lstat), and where it points
            out[name] = {"symlink": os.readlink(path), "mtime_ns": os.lstat(path).st_mtime_ns}
            continue
        mtime = os.stat(path).st_mtime_ns
        if name.endswith("-atime"):
            with open(path, "rb") as fh:
                out[name] = {"atime_ns": int.from_bytes(fh.read(), "little"), "mtime_ns": mtime}
            continue
        if name.startswith(".") or not os.path.isfile(path):
            # .lockfile and XLA's sub-caches: their mtime (jax 0.4.30 ranks every file by it)
            out[name] = {"mtime_ns": mtime, "size": os.path.getsize(path)}
            continue
        with open(path, "rb") as fh:
            data = fh.read()
        row = {"size": len(data), "mtime_ns": os.stat(path).st_mtime_ns}
        try:
            plain = cc.decompress_executable(data)
            executable, seconds = cc.extract_executable_and_time(plain)
            row.update(decompressed=len(plain), compile_seconds=seconds,
                       executable_bytes=len(executable))
        except Exception as e:  # a damaged entry: what JAX's own reader raises
            row["error"] = f"{type(e).__name__}: {e}"
        out[name] = row
    import jax
    print(json.dumps({"jax": jax.__version__, "files": out}, indent=1, sort_keys=True))


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["run"]:
        cap = -1
        if "--cap" in args:
            i = args.index("--cap")
            cap = int(args[i + 1])
            del args[i:i + 2]
        min_secs = 0.0
        if "--min-compile-secs" in args:
            i = args.index("--min-compile-secs")
            min_secs = float(args[i + 1])
            del args[i:i + 2]
        run(args[1], args[2], args[3], cap, min_secs)
    elif args[:1] == ["describe"]:
        describe(args[1])
    else:
        raise SystemExit(__doc__)
