#!/usr/bin/env python3
"""compare-logs against grep on two real-shaped 1 GB logs: time ratio and peak memory.

Builds two logs of about --gb GB each (default 1) with --programs programs
each (default 220,000, the issue-21 budget's shape: a real JAX DEBUG log
repeated to 1 GB), from the real program blocks of tests/cases/09-jax-upgrade
(provenance in its README: jax and jaxlib 0.10.2 on Python 3.11 and 0.12.0.1
on Python 3.12, CPU, logging.basicConfig format; before_upgrade.log and
after_upgrade.log, three programs each; each block: the compile-options
lines, JAX's 16 cache-key DEBUG lines, the miss line and the compile time).
Program i of each log is block i mod 3 of its run renamed `<name>_<i>`, so
every program is paired by name and every pair's keys differ (the costliest
case: each pair is explained). Between programs come unrelated lines (a
training loop's progress lines, absl-style INFO lines) to reach the size.

Each of --repeat rounds (default 5) runs, side by side on the same two files,
`grep -F -c cache_key A B` (the anchor), then
`build/native/bin/cachekey compare-logs A B` (the default text report) and
`… compare-logs A B --json` (every pair as JSON, one line each, about 188 MB here), stdout
to a file, and then the same bytes written by themselves to a new file (what
the file system alone takes for them: on this project's VMs, fresh pages
make that about 0.4-1.2 s), each child's wall time and peak resident set size read with
os.wait4 (ru_maxrss, KiB on Linux). The machine is shared, so the ratios are
taken within a round and the median over rounds is reported, with the
lowest and highest (the spread). Budgets (issues 33 and 40): compare-logs at
most 3x grep's time and at most 64 MB peak RSS; both outputs are held to
them.

Prints one JSON line: for the text report the medians (seconds, s/GB,
ratio, peak RSS) at the top level, the same for --json under "json", every
round's figures, the budgets with pass/fail, the programs the CLI paired and
its exit status (1: some key differs, as every key does here); with
--wheel-cli, the wheel's command (--json) on the same logs right after the
native --json run of each round (seconds, the per-round wheel / native
ratios' median and range, same output in every round). The logs are written under
--dir (default: a temporary directory, removed afterwards).
"""
import argparse
import filecmp
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
BUDGET_RATIO = 3  # compare-logs / grep -F -c, text and --json (issues 33, 40)


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


def run_child(argv, stdout_path):
    """Runs argv with stdout to a file: (wall seconds, peak RSS in MB, exit status)."""
    with open(stdout_path, "wb") as out:
        t = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE)
        err = p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)
        seconds = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss / 1024, p.returncode, err.decode(errors="replace")


def write_seconds(source, path):
    """Wall seconds for dd to copy `source` (just written, so in the page
    cache) to a new file at `path` in 1 MiB blocks: what the file system
    takes for --json's bytes alone. Removes the copy."""
    t = time.perf_counter()
    subprocess.run(["dd", f"if={source}", f"of={path}", "bs=1M", "status=none"], check=True)
    seconds = time.perf_counter() - t
    os.unlink(path)
    return seconds


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gb", type=float, default=1.0)
    ap.add_argument("--programs", type=int, default=220000)
    ap.add_argument("--repeat", type=int, default=5)
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
        gb = total / 1e9
        out_path = os.path.join(work, "compare.json")
        text_path = os.path.join(work, "compare.txt")
        rounds = []
        for _ in range(args.repeat):
            g_s, g_mb, g_rc, _ = run_child(["grep", "-F", "-c", "cache_key", a, b],
                                           os.path.join(work, "grep.txt"))
            t_s, t_mb, t_rc, _ = run_child([args.cli, "compare-logs", a, b], text_path)
            c_s, c_mb, c_rc, err = run_child([args.cli, "compare-logs", a, b, "--json"], out_path)
            # The same bytes written by themselves, in the same round: what
            # the file system alone costs for --json's output.
            w_s = write_seconds(out_path, out_path + ".write")
            wheel = {}
            if args.wheel_cli:
                # The wheel's command right after the native one, in every
                # round: the ratio is per round, as the others are.
                k_s, _, k_rc, _ = run_child([args.wheel_cli, "compare-logs", a, b, "--json"],
                                            os.path.join(work, "wheel.json"))
                # Compared in chunks: a parent holding the 188 MB outputs
                # would pass its size to the next child's peak RSS (Linux
                # keeps the pre-exec peak). No cached verdict of an earlier
                # round's files.
                filecmp.clear_cache()
                same = filecmp.cmp(os.path.join(work, "wheel.json"), out_path, shallow=False)
                wheel = {"wheel_seconds": round(k_s, 3), "wheel_ratio": round(k_s / c_s, 3),
                         "wheel_same": same and k_rc == c_rc}
            rounds.append({**wheel, "grep_seconds": round(g_s, 3), "grep_peak_rss_mb": round(g_mb, 1),
                           "grep_exit": g_rc,
                           "seconds": round(t_s, 3), "ratio": round(t_s / g_s, 2),
                           "peak_rss_mb": round(t_mb, 1), "exit": t_rc,
                           "json_seconds": round(c_s, 3), "json_ratio": round(c_s / g_s, 2),
                           "json_peak_rss_mb": round(c_mb, 1), "json_exit": c_rc,
                           "json_write_seconds": round(w_s, 3)})
        paired = None
        stdout = open(out_path, "rb").read()
        try:
            paired = len(json.loads(stdout).get("pairs", []))
        except (ValueError, AttributeError):
            pass
        grep_s = median([r["grep_seconds"] for r in rounds])

        def figures(prefix):
            seconds = median([r[prefix + "seconds"] for r in rounds])
            ratio = round(median([r[prefix + "ratio"] for r in rounds]), 2)
            peak = max(r[prefix + "peak_rss_mb"] for r in rounds)
            ratios = [r[prefix + "ratio"] for r in rounds]
            return {"seconds": round(seconds, 3), "s_per_gb": round(seconds / gb, 3),
                    "ratio_to_grep": ratio, "ratio_min": min(ratios), "ratio_max": max(ratios),
                    "peak_rss_mb": peak,
                    "ratio_pass": ratio <= BUDGET_RATIO, "rss_pass": peak <= 64,
                    "exit": rounds[-1][prefix + "exit"]}

        row = {"bench": "compare_logs_gb", "output": "text (default)", **figures(""),
               "json": {"output": "--json", **figures("json_"),
                        "output_mb": round(os.path.getsize(out_path) / 1e6, 1),
                        "write_seconds": median([r["json_write_seconds"] for r in rounds])},
               "grep_seconds": round(grep_s, 3), "gb_read": round(gb, 3),
               "grep_s_per_gb": round(grep_s / gb, 3),
               "budget_ratio": BUDGET_RATIO, "budget_rss_mb": 64,
               "programs_per_log": args.programs, "paired": paired,
               "rounds": rounds, "stderr": err[-300:],
               "source": "tests/cases/09-jax-upgrade/{before,after}_upgrade.log (jax 0.10.2 -> 0.12.0.1)"}
        if args.wheel_cli:
            ratios = [r["wheel_ratio"] for r in rounds]
            row.update(wheel_seconds=median([r["wheel_seconds"] for r in rounds]),
                       wheel_ratio=round(median(ratios), 3),
                       wheel_ratio_min=min(ratios), wheel_ratio_max=max(ratios),
                       wheel_same=all(r["wheel_same"] for r in rounds))
        print(json.dumps(row))
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
