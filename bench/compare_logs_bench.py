#!/usr/bin/env python3
"""compare-logs on two 1 GB logs: seconds per GB and peak memory.

Builds two logs of about --gb GB each (default 1) with --programs programs
each (default 10,000), from the real program blocks of
tests/cases/09-jax-upgrade (jax 0.10.2 logs before and after a jax upgrade;
each block: the compile-options lines, JAX's 16 cache-key DEBUG lines, the
miss line and the compile time). Program i of each log is block i mod 3 of
its run renamed `<name>_<i>`, so every program is paired by name and every
pair's keys differ (the costliest case: each pair is explained). Between
programs come unrelated lines (a training loop's progress lines, absl-style
INFO lines) to reach the size.

Runs `build/native/bin/cachekey compare-logs A B --json` once, and prints one
JSON line: wall seconds, GB read (both files), seconds per GB, the child's
peak resident set size (getrusage RUSAGE_CHILDREN ru_maxrss, KiB on Linux)
in MB (read before --wheel-cli runs), the programs the CLI paired, and its exit status (1: some key differs,
as every key does here); with --wheel-cli, the same for the wheel's
command beside it (seconds, wheel / native ratio, same output). The logs are written under --dir (default: a temporary
directory, removed afterwards).
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASE = os.path.join(ROOT, "tests/cases/09-jax-upgrade")
START = "DEBUG:jax._src.compiler:get_compile_options: "


def program_blocks(log):
    """The real log's program blocks, each with the program name in it."""
    text = open(os.path.join(CASE, log), encoding="utf-8").read()
    parts = [START + p for p in text.split(START)[1:]]
    blocks = []
    for p in parts:
        m = re.search(r"CACHE MISS for '([^']+)'", p)
        if m:
            blocks.append((m.group(1), p))
    if not blocks:
        sys.exit(f"no program blocks in {CASE}")
    return blocks


def filler(size, seed):
    """About `size` bytes of lines a real training run logs around compiles."""
    lines, n, i = [], 0, 0
    while n < size:
        if i % 3 == 0:
            line = (f"I1130 12:{i % 60:02d}:{(i * 7) % 60:02d}.{(i * 7919 + seed) % 1000000:06d} "
                    f"  4242 train.py:{100 + i % 50}] step {i + seed} loss={1.0 / (i + 2):.6f} "
                    f"lr=3e-4 tokens/s={12000 + (i * 31 + seed) % 977}\n")
        elif i % 3 == 1:
            line = (f"INFO:absl:checkpoint manager: step {i + seed} not saved "
                    f"(interval 1000); host buffer {(i * 13 + seed) % 4096} MiB\n")
        else:
            line = (f"DEBUG:jax._src.dispatch:Finished tracing + transforming "
                    f"update_{i % 97} for pjit in {((i * 17 + seed) % 1000) / 1e4:.4f} sec\n")
        lines.append(line)
        n += len(line)
        i += 1
    return "".join(lines)


def write_log(path, blocks, programs, size, seed):
    per_program = max(0, size // programs - len(blocks[0][1]))
    pad = filler(per_program, seed)
    with open(path, "w", encoding="utf-8") as f:
        for i in range(programs):
            name, block = blocks[i % len(blocks)]
            f.write(block.replace(f"'{name}", f"'{name}_{i}"))
            f.write(pad)
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--programs", type=int, default=10000)
    ap.add_argument("--dir")
    ap.add_argument("--cli", default=os.path.join(ROOT, "build/native/bin/cachekey"))
    ap.add_argument("--wheel-cli", help="also run this cachekey (the wheel's, installed) on the same "
                    "logs, after the native one, and report its seconds, their ratio and whether "
                    "its stdout and exit status are the native one's")
    args = ap.parse_args()
    work = args.dir or tempfile.mkdtemp(prefix="cachekey-logs-")
    os.makedirs(work, exist_ok=True)
    try:
        size = int(args.gb * 1e9)
        a, b = os.path.join(work, "run1.log"), os.path.join(work, "run2.log")
        total = (write_log(a, program_blocks("before_upgrade.log"), args.programs, size, 1)
                 + write_log(b, program_blocks("after_upgrade.log"), args.programs, size, 2))
        t = time.perf_counter()
        r = subprocess.run([args.cli, "compare-logs", a, b, "--json"], capture_output=True, text=True)
        seconds = time.perf_counter() - t
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        paired = None
        try:
            paired = len(json.loads(r.stdout).get("pairs", []))
        except (ValueError, AttributeError):
            pass
        row = {"bench": "compare_logs_gb", "seconds": round(seconds, 3),
               "gb_read": round(total / 1e9, 3), "s_per_gb": round(seconds / (total / 1e9), 3),
               "peak_rss_mb": round(peak_kib / 1024, 1), "programs_per_log": args.programs,
               "paired": paired, "exit": r.returncode,
               "stderr": r.stderr[-300:]}
        if args.wheel_cli:
            t = time.perf_counter()
            w = subprocess.run([args.wheel_cli, "compare-logs", a, b, "--json"], capture_output=True, text=True)
            wheel_seconds = time.perf_counter() - t
            row.update(wheel_seconds=round(wheel_seconds, 3), wheel_ratio=round(wheel_seconds / seconds, 3),
                       wheel_same=(w.stdout == r.stdout and w.returncode == r.returncode))
        print(json.dumps(row))
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
