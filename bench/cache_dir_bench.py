"""`cachekey cache-dir` on a directory of 100,000 entries, side by side with
JAX's own eviction pass over the same directory (issue 40 budget: <= 0.33x)
and with a plain read of every file's first block (the limit); issue 24's
absolute budgets (<= 2 s, <= 64 MB) are reported beside them.

The entries are real: the five entries jax 0.12.0.1 wrote in
fixtures/cache_dirs/0.12.0.1/cap/cache, hard-linked under 100,000 distinct
keys whose digests are SHA-256 hex as JAX's are (same bytes, same sizes as
a real directory; one inode each, so the files are in the page cache as a
warm real directory would be), each with
an 8-byte little-endian -atime file of its own. The anchor, when the jax
0.12.0.1 venv and filelock are there (CACHEKEY_VENV_ROOT, $CACHEKEY_BENCH_PYTHONPATH), is
jax/_src/lru_cache.py's LRUCache._evict_if_needed on the same directory with a
cap that evicts nothing: the glob, the stats and the -atime reads every
capped put of JAX does (timed inside its process, without the import). The
limit is build/native/bin/first_block_read (bench/first_block_read.cpp):
open, read 4 KiB, close, for every file, on the CLI's threads; and the
limit of what the CLI reports is the same with each entry's head decoded
(first_block_read --decode: the 16 KiB the CLI reads first, and the zstd
blocks up to the head's 16 KiB of output), since the compile time and the
output shapes lie in the decoded bytes.

Each round runs the four, in an order that rotates from round to round;
the ratios are per round (CLI / anchor), reported as their median and their
range, with the load average (1 min) at the start and the end.

    python3 bench/cache_dir_bench.py [--entries N] [--rounds R]   -> one JSON line
"""

import hashlib
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
CLI = os.environ.get("CACHEKEY_BENCH_CLI", os.path.join(ROOT, "build/native/bin/cachekey"))
LIMIT = os.path.join(ROOT, "build/native/bin/first_block_read")


def make(dir_, n):
    real = sorted(f for f in os.listdir(SRC) if f.endswith("-cache"))
    for i in range(n):
        src = os.path.join(SRC, real[i % len(real)])
        module = real[i % len(real)].split("-")[0]
        # A key as JAX names one: the module, '-', a SHA-256 hex digest
        # (distinct digests, no long shared prefixes as counters have).
        key = f"{module}-{hashlib.sha256(str(i).encode()).hexdigest()}"
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
    """{"seconds": JAX's pass}, {"error": ...}, or None without the venv."""
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


def limit(dir_, decode=False):
    """Seconds of a plain read of every file's first block, with each zstd
    entry's head decoded when `decode` (None without the tool)."""
    if not os.path.exists(LIMIT):
        return None
    r = subprocess.run([LIMIT] + (["--decode"] if decode else []) + [dir_],
                       stdout=subprocess.PIPE, text=True, check=True)
    files, _, secs = r.stdout.split()
    return float(secs)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def main():
    n = 100_000
    rounds = 5
    if "--entries" in sys.argv:
        n = int(sys.argv[sys.argv.index("--entries") + 1])
    if "--rounds" in sys.argv:
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1])
    tmp = tempfile.mkdtemp(prefix="cachedir-bench-")
    try:
        make(tmp, n)
        total = sum(os.path.getsize(os.path.join(SRC, f)) for f in os.listdir(SRC)
                    if f.endswith("-cache")) * n // 5
        load_start = os.getloadavg()[0]
        run_cli(tmp, total // 2)  # warm the page cache
        cli, jax, lim, dec, rss, jax_error, text, code = [], [], [], [], 0, None, "", 0
        for i in range(rounds):
            steps = ["cli", "jax", "limit", "decode"]
            steps = steps[i % 4:] + steps[:i % 4]
            for step in steps:
                if step == "cli":
                    secs, r, code, text = run_cli(tmp, total // 2)
                    cli.append(secs)
                    rss = max(rss, r)
                elif step == "jax" and jax_error is None:
                    a = anchor(tmp)
                    if a is None or "error" in a:
                        jax_error = a["error"] if a else "no jax 0.12.0.1 venv"
                    else:
                        jax.append(a["seconds"])
                elif step == "limit":
                    t = limit(tmp)
                    if t is not None:
                        lim.append(t)
                elif step == "decode":
                    t = limit(tmp, decode=True)
                    if t is not None:
                        dec.append(t)
        report = json.loads(text)
        out = {"bench": "cache_dir_100k", "entries": n, "rounds": rounds,
               "seconds": round(median(cli), 3), "seconds_min": round(min(cli), 3),
               "seconds_max": round(max(cli), 3),
               "peak_rss_mb": round(rss / 1024, 1), "exit": code,
               "entries_read": report["entries"], "evicted": len(report["eviction"]["evicted"]),
               "programs": len(report["programs"]),
               "load_start": round(load_start, 2), "load_end": round(os.getloadavg()[0], 2)}
        if len(jax) == rounds:
            ratios = [c / j for c, j in zip(cli, jax)]
            out.update({"jax_evict_pass_seconds": round(median(jax), 3),
                        "jax_seconds_min": round(min(jax), 3), "jax_seconds_max": round(max(jax), 3),
                        "ratio_to_jax_median": round(median(ratios), 3),
                        "ratio_to_jax_min": round(min(ratios), 3),
                        "ratio_to_jax_max": round(max(ratios), 3)})
        else:
            out["jax_error"] = jax_error or "the anchor did not run every round"
        for name, times in (("first_block_read", lim), ("first_block_decode", dec)):
            if len(times) == rounds:
                ratios = [c / t for c, t in zip(cli, times)]
                out.update({f"{name}_seconds": round(median(times), 3),
                            f"ratio_to_{name}_median": round(median(ratios), 2),
                            f"ratio_to_{name}_min": round(min(ratios), 2),
                            f"ratio_to_{name}_max": round(max(ratios), 2)})
        if len(dec) == rounds and len(jax) == rounds:
            out["first_block_decode_to_jax_median"] = round(
                median([d / j for d, j in zip(dec, jax)]), 3)
        print(json.dumps(out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
