"""`cachekey cache-dir` on a directory of 100,000 entries (issue 24 budget:
<= 2 s and <= 64 MB), beside JAX's own pass over the same directory.

The entries are real: the six entries jax 0.12.0.1 wrote in
fixtures/cache_dirs/0.12.0.1/cap/cache, hard-linked under 100,000 distinct
keys (same bytes, same sizes as a real directory; one inode each, so the
files are in the page cache as a warm real directory would be), each with
an 8-byte little-endian -atime file of its own. The anchor, when the jax
0.12.0.1 venv and filelock are there (CACHEKEY_VENV_ROOT, $CACHEKEY_BENCH_PYTHONPATH), is
jax/_src/lru_cache.py's LRUCache._evict_if_needed on the same directory with a
cap that evicts nothing: the glob, the stats and the -atime reads every
capped put of JAX does.

    python3 bench/cache_dir_bench.py [--entries N]   -> one JSON line
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "fixtures/cache_dirs/0.12.0.1/cap/cache")
CLI = os.path.join(ROOT, "build/native/bin/cachekey")


def make(dir_, n):
    real = sorted(f for f in os.listdir(SRC) if f.endswith("-cache"))
    for i in range(n):
        src = os.path.join(SRC, real[i % len(real)])
        module = real[i % len(real)].split("-")[0]
        key = f"{module}-{i:064x}"
        os.link(src, os.path.join(dir_, key + "-cache"))
        with open(os.path.join(dir_, key + "-atime"), "wb") as f:
            f.write((1_700_000_000_000_000_000 + i).to_bytes(8, "little"))
    open(os.path.join(dir_, ".lockfile"), "wb").close()


# The CLI is started by a small runner (python -S, a few MB), never forked
# from this process: Linux keeps the pre-exec image's peak in ru_maxrss, so a
# child forked from this parent (which holds the directory listing and the
# last report) would report this parent's size, not the CLI's.
RUNNER = r"""
import os, sys, time
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.dup2(out, 1)
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - t, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def run_cli(dir_, max_size):
    """(wall seconds, peak RSS in KiB, exit status, stdout text) of one CLI run."""
    out = os.path.join(os.path.dirname(dir_), "cachedir-bench-out.json")
    r = subprocess.run([sys.executable, "-S", "-c", RUNNER, out, CLI, "cache-dir", dir_,
                        "--json", "--max-size", str(max_size)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    secs, rss, code = r.stdout.split()
    with open(out) as f:
        text = f.read()
    os.unlink(out)
    return float(secs), int(rss), int(code), text


def anchor(dir_):
    venv = os.environ.get("CACHEKEY_VENV_ROOT", "/var/cache/cachekey/venvs")
    py = os.path.join(venv, "jax-0.12.0.1-py3.12/bin/python")
    if not os.path.exists(py):
        return None
    code = ("import sys,time\nfrom jax._src.lru_cache import LRUCache\n"
            "c = LRUCache(sys.argv[1], max_size=1 << 62)\n"
            "t = time.perf_counter(); c._evict_if_needed(); print(time.perf_counter() - t)\n")
    env = dict(os.environ, JAX_PLATFORMS="cpu",
               PYTHONPATH=os.environ.get("CACHEKEY_BENCH_PYTHONPATH", ""))
    p = subprocess.run([py, "-c", code, dir_], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env)
    if p.returncode != 0:
        return {"error": p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"}
    return {"seconds": float(p.stdout.strip().splitlines()[-1])}


def main():
    n = 100_000
    if "--entries" in sys.argv:
        n = int(sys.argv[sys.argv.index("--entries") + 1])
    tmp = tempfile.mkdtemp(prefix="cachedir-bench-")
    try:
        make(tmp, n)
        total = sum(os.path.getsize(os.path.join(SRC, f)) for f in os.listdir(SRC)
                    if f.endswith("-cache")) * n // 6
        run_cli(tmp, total // 2)  # warm the page cache
        times = []
        rss = 0
        for _ in range(3):
            secs, r, code, text = run_cli(tmp, total // 2)
            times.append(secs)
            rss = max(rss, r)
        report = json.loads(text)
        jax = anchor(tmp)
        out = {"bench": "cache_dir_100k", "entries": n, "seconds": sorted(times)[1],
               "peak_rss_mb": round(rss / 1024, 1), "exit": code,
               "entries_read": report["entries"], "evicted": len(report["eviction"]["evicted"]),
               "programs": len(report["programs"])}
        if jax and "seconds" in jax:
            out["jax_evict_pass_seconds"] = round(jax["seconds"], 3)
        elif jax:
            out["jax_error"] = jax["error"]
        print(json.dumps(out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
