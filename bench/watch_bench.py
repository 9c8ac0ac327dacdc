#!/usr/bin/env python3
"""Budget of `python -m cachekey.watch` (bench, not a test).

    .venv/bin/python bench/watch_bench.py [--rounds N] [--compiles N] [--json]

A real program of N (default 50) distinct jitted functions, each compiled
once through the persistent cache; the program times its own compile loop
(``jax.jit(f).lower(x).compile()`` for every function, perf_counter) and
prints it.  Two cases, each run plainly and under the watch, side by side
in interleaved rounds (plain, watch, plain, watch, ...), each run its own
process with a fresh copy of its starting state; the medians are compared:

* ``cold``: an empty cache and index: every compile a miss with no earlier
  entry (the watch records each one);
* ``changed``: a cache and index filled by a run without flags, then a run
  with ``XLA_FLAGS=--xla_cpu_enable_fast_math=true``: every compile a miss
  whose nearest entry the engine diffs (``cachekey diff --json``), the
  watch's worst case.

Budget (issue 37): the watch adds at most 5 % to the compile time, or 20 ms
per compile, whichever is larger.  Needs the project's .venv (or
CACHEKEY_PYTHON, a Python with jax) and a built CLI
(build/native/bin/cachekey, or $CACHEKEY_ENGINE).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CLI = os.environ.get("CACHEKEY_ENGINE") or os.path.join(REPO, "build", "native", "bin", "cachekey")
# A Python with jax (the project's .venv, or CACHEKEY_PYTHON: e.g. an
# oracle venv); the cachekey package comes from python/ on PYTHONPATH.
VENV_PY = os.environ.get("CACHEKEY_PYTHON") or os.path.join(REPO, ".venv", "bin", "python")

PROGRAM = r'''
import os, sys, time, json
import jax, jax.numpy as jnp
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
n = int(sys.argv[1])
x = jnp.ones((16, 16), jnp.float32)
def make(i):
    def f(v):
        return jnp.tanh(v * (i + 1.0)) @ v.T + i
    f.__name__ = f"f{i:03d}"
    return f
fns = [make(i) for i in range(n)]
t0 = time.perf_counter()
for f in fns:
    jax.jit(f).lower(x).compile()
print(json.dumps({"compile_seconds": time.perf_counter() - t0}))
'''


def one_run(python, program, cache, index, xdg, watch, flags, n):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    env.update(JAX_PLATFORMS="cpu", JAX_COMPILATION_CACHE_DIR=cache, XDG_CACHE_HOME=xdg,
               PYTHONPATH=os.path.join(REPO, "python"), CACHEKEY_ENGINE=CLI)
    if flags:
        env["XLA_FLAGS"] = flags
    cmd = [python] + (["-m", "cachekey.watch", "--quiet", "--index", index, "--"] if watch else [])
    p = subprocess.run(cmd + [program, str(n)], env=env, capture_output=True, text=True,
                       timeout=900)
    if p.returncode != 0:
        raise SystemExit(f"run failed: {p.stderr[-2000:]}")
    line = [x for x in p.stdout.splitlines() if x.startswith("{")][-1]
    return json.loads(line)["compile_seconds"], p.stderr.count("persistent-cache miss:")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--compiles", type=int, default=50)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    n = args.compiles
    tmp = tempfile.mkdtemp(prefix="cachekey-watch-bench-")
    try:
        program = os.path.join(tmp, "fifty.py")
        with open(program, "w") as f:
            f.write(PROGRAM)
        xdg = os.path.join(tmp, "xdg")
        # The starting state of "changed": a cache and index of a run without flags.
        base_cache, base_index = os.path.join(tmp, "base-cache"), os.path.join(tmp, "base-index")
        one_run(VENV_PY, program, base_cache, base_index, xdg, True, None, n)
        results = {}
        for case in ("cold", "changed"):
            times = {"plain": [], "watch": []}
            warned = []
            for r in range(args.rounds):
                for mode in ("plain", "watch"):
                    cache = os.path.join(tmp, f"{case}-{mode}-{r}-cache")
                    index = os.path.join(tmp, f"{case}-{mode}-{r}-index")
                    if case == "changed":
                        shutil.copytree(base_cache, cache)
                        shutil.copytree(base_index, index)
                    secs, count = one_run(VENV_PY, program, cache, index, xdg, mode == "watch",
                                          "--xla_cpu_enable_fast_math=true" if case == "changed"
                                          else None, n)
                    times[mode].append(secs)
                    if mode == "watch":
                        warned.append(count)
            plain, watch = statistics.median(times["plain"]), statistics.median(times["watch"])
            added = (watch - plain) / n
            allowed = max(0.05 * plain / n, 0.020)
            results[case] = {"compiles": n, "rounds": args.rounds, "plain_s": times["plain"],
                             "watch_s": times["watch"], "median_plain_s": round(plain, 3),
                             "median_watch_s": round(watch, 3),
                             "added_ms_per_compile": round(added * 1000, 2),
                             "allowed_ms_per_compile": round(allowed * 1000, 2),
                             "added_percent": round(100 * (watch - plain) / plain, 1),
                             "warnings_per_run": warned, "pass": added <= allowed}
        for case, r in results.items():
            if args.json:
                print(json.dumps({"bench": "watch_" + case, **r}))
            else:
                print(f"watch {case}: {n} compiles, median plain {r['median_plain_s']:.2f} s, "
                      f"watched {r['median_watch_s']:.2f} s: +{r['added_ms_per_compile']:.1f} ms "
                      f"per compile ({r['added_percent']:+.1f} %), budget "
                      f"{r['allowed_ms_per_compile']:.1f} ms: "
                      f"{'pass' if r['pass'] else 'SHORT'} (warnings per watched run "
                      f"{r['warnings_per_run']})")
        return 0 if all(r["pass"] for r in results.values()) else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
