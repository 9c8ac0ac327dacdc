#!/usr/bin/env python3
"""Runs one slow build command and shows how far it is.

    tools/build_progress.py --label NAME [--log FILE] [--status FILE]
        [--step STEP] [--reference DIR] [--after SECONDS] [--every SECONDS]
        -- COMMAND [ARG...]

COMMAND's stdout passes through unchanged (scripts/build-wasm-deps and
scripts/build-mlir-wasm end their stdout with the path they produced, which
callers read with ``tail -n 1``); its stderr passes through to stderr and,
with ``--log``, is appended to FILE too. Every ``--every`` seconds (default
15) one line on stderr says the elapsed seconds, the step and, when known,
ninja's ``[done/total]`` and an estimate of the time left.

What is read, never written: the command's own output lines, and the log
files it names in its stderr lines ending ``(log: PATH)`` (the convention of
scripts/lib/wasm-common.sh's ck_log). A log named ``configure.log`` means the
configure step, ``build.log`` the build step. Ninja's status lines
(``[n/N] ...``, one per edge when its output is not a terminal) give the
build's progress. The files are only read.

``--status FILE`` also writes a small JSON document there (atomically, by
rename), for the page (web/canonicaliser.mjs) to poll while the MLIR module
is built in the background (scripts/build-web mlir):

    {"schema": 1, "state": "building", "step": "configure",
     "done": 120, "total": 856, "elapsed_s": 311, "eta_s": 640,
     "log": "build/mlir-web.log", "basis": "..."}

``state`` is always "building" here (scripts/build-web writes "ready" or
"failed" when the whole job ends). ``step`` is one of the codes "sources",
"configure", "build" (MLIR's libraries) or "module" (the engine's module
with MLIR, ``--step module``). ``eta_s`` is null when nothing is known.
``basis`` names what the estimate is from: "reference" (the timings.txt,
configure.log and build.log of a complete build in ``--reference`` DIR, a
glob of cache directories, newest first), "rate" (this build's own ninja
rate, once 5% of the edges are done) or "default" (the figures measured on
a 2-core machine, DEFAULTS below). ``--after S`` adds S seconds for what
runs after this command (the module link after MLIR's libraries).

Exit status: COMMAND's. Errors in reading the logs never stop the command.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

NINJA = re.compile(r"^\[(\d+)/(\d+)\] ")
LOG_NAMED = re.compile(r"\(log: (/[^)]+)\)\s*$")
# Seconds measured for the MLIR 19.1.7 wasm build (scripts/build-mlir-wasm)
# on a 2-core AMD EPYC with other work sharing it (its timings.txt,
# 2026-12-02), used when no complete build is there to compare with.
DEFAULTS = {"sources": 25, "configure": 318, "build": 728, "configure_log_bytes": 12032, "build_edges": 856}
STEPS = ("sources", "configure", "build", "module")


def read_reference(pattern: str | None) -> dict | None:
    """Timings of the newest complete build among the directories matching
    ``pattern`` (each with .complete and timings.txt ``key=seconds`` lines):
    {sources, configure, build, configure_log_bytes, build_edges}; None when
    there is none."""
    if not pattern:
        return None
    dirs = [Path(d) for d in glob.glob(pattern) if (Path(d) / ".complete").is_file() and (Path(d) / "timings.txt").is_file()]
    for d in sorted(dirs, key=lambda p: (p / ".complete").stat().st_mtime, reverse=True):
        t = {}
        for line in (d / "timings.txt").read_text().splitlines():
            k, _, v = line.partition("=")
            if v.strip().isdigit():
                t[k.strip()] = int(v)
        if "configure_seconds" not in t or "build_seconds" not in t:
            continue
        ref = {"sources": t.get("fetch_seconds", 0) + t.get("extract_seconds", 0),
               "configure": t["configure_seconds"], "build": t["build_seconds"]}
        try:
            ref["configure_log_bytes"] = (d / "configure.log").stat().st_size
        except OSError:
            ref["configure_log_bytes"] = DEFAULTS["configure_log_bytes"]
        ref["build_edges"] = DEFAULTS["build_edges"]
        try:
            for line in (d / "build.log").read_text(errors="replace").splitlines()[-5:]:
                m = NINJA.match(line)
                if m:
                    ref["build_edges"] = int(m.group(2))
        except OSError:
            pass
        return ref
    return None


def last_ninja(path: str) -> tuple[int, int] | None:
    """The last ``[n/N]`` status line of a ninja log (its last 64 KB)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 65536))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        m = NINJA.match(line)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def estimate(step: str, elapsed_step: float, done: int | None, total: int | None,
             cfg_bytes: int | None, ref: dict, after: float) -> tuple[int | None, str]:
    """Seconds left (this command and ``after``) and the basis of the guess."""
    basis = ref.get("_basis", "default")
    if step == "sources":
        left = max(0.0, ref["sources"] - elapsed_step) + ref["configure"] + ref["build"]
    elif step == "configure":
        frac = min(0.95, (cfg_bytes or 0) / max(1, ref["configure_log_bytes"]))
        left = max(ref["configure"] * (1 - frac), ref["configure"] - elapsed_step, 0) + ref["build"]
    elif step == "build":
        if done and total and done / total >= 0.05:
            left = elapsed_step / done * (total - done)
            basis = "rate"
        else:
            frac = (done or 0) / (total or ref["build_edges"])
            left = max(ref["build"] * (1 - frac), 0)
    elif step == "module":
        if done and total:
            left = elapsed_step / done * (total - done) if done else None
            basis = "rate"
        else:
            left = None
        if left is None:
            return (int(after) if after else None), basis
    else:
        return None, basis
    return int(left + after), basis


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--log")
    ap.add_argument("--status")
    ap.add_argument("--step", choices=STEPS, default="sources", help="the step before any log is named")
    ap.add_argument("--reference", help="glob of complete build directories to take timings from")
    ap.add_argument("--after", type=float, default=0.0)
    ap.add_argument("--every", type=float, default=15.0)
    ap.add_argument("--status-log", default="", help="the log path the status JSON names")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command given after --")

    ref = read_reference(a.reference)
    if ref:
        ref["_basis"] = "reference"
    else:
        ref = dict(DEFAULTS)
    t0 = time.monotonic()
    lock = threading.Lock()
    st = {"step": a.step, "step_t0": t0, "log": None, "done": None, "total": None}
    logf = open(a.log, "a", buffering=1) if a.log else None

    def note(line: str) -> None:
        m = NINJA.match(line)
        with lock:
            if m:
                st["done"], st["total"] = int(m.group(1)), int(m.group(2))
            n = LOG_NAMED.search(line)
            if n:
                st["log"] = n.group(1)
                base = os.path.basename(st["log"])
                new = "configure" if base == "configure.log" else "build" if base == "build.log" else st["step"]
                if new != st["step"]:
                    st["step"], st["step_t0"], st["done"], st["total"] = new, time.monotonic(), None, None

    def pump(src, dst, also_log: bool) -> None:
        for raw in iter(src.readline, b""):
            dst.buffer.write(raw)
            dst.flush()
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if also_log and logf:
                logf.write(line + "\n")
            note(line)

    def snapshot() -> dict:
        with lock:
            step, log, done, total = st["step"], st["log"], st["done"], st["total"]
            elapsed_step = time.monotonic() - st["step_t0"]
        cfg_bytes = None
        if log and step == "build":
            nt = last_ninja(log)
            if nt:
                done, total = nt
        if log and step == "configure":
            try:
                cfg_bytes = os.path.getsize(log)
            except OSError:
                cfg_bytes = None
        eta, basis = estimate(step, elapsed_step, done, total, cfg_bytes, ref, a.after)
        return {"schema": 1, "state": "building", "step": step, "done": done, "total": total,
                "elapsed_s": int(time.monotonic() - t0), "eta_s": eta, "log": a.status_log or a.log or "",
                "basis": basis}

    def write_status(s: dict) -> None:
        if not a.status:
            return
        tmp = a.status + ".tmp"
        try:
            with open(tmp, "w") as f:
                json.dump(s, f)
            os.replace(tmp, a.status)
        except OSError as e:
            print(f"[{a.label}] cannot write {a.status}: {e}", file=sys.stderr)

    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    threads = [threading.Thread(target=pump, args=(p.stdout, sys.stdout, False), daemon=True),
               threading.Thread(target=pump, args=(p.stderr, sys.stderr, True), daemon=True)]
    for t in threads:
        t.start()
    write_status(snapshot())
    last_print = time.monotonic()
    while True:
        try:
            p.wait(timeout=min(5.0, a.every))
            break
        except subprocess.TimeoutExpired:
            pass
        s = snapshot()
        write_status(s)
        if time.monotonic() - last_print >= a.every:
            last_print = time.monotonic()
            where = f", {s['done']}/{s['total']}" if s["done"] is not None else ""
            left = f", about {max(1, round(s['eta_s'] / 60))} min left" if s["eta_s"] is not None else ""
            print(f"[{a.label}] {s['elapsed_s']} s: {s['step']}{where}{left}", file=sys.stderr, flush=True)
    for t in threads:
        t.join()
    if logf:
        logf.close()
    return p.returncode


if __name__ == "__main__":
    sys.exit(main())
