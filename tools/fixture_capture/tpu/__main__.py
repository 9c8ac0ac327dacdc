"""``python -m fixture_capture.tpu``: the TPU captures (see the package docstring)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from fixture_capture import workers
from fixture_capture.provenance import utc_now, write_json
from fixture_capture.tpu import __doc__ as PACKAGE_DOC
from fixture_capture.tpu.programs import PROGRAMS
from fixture_capture.tpu.record import run_capture_worker
from fixture_capture.tpu.topologies import merge, run_topologies_worker


def _child(worker: str, out_path: str, command: str, log_path: str) -> tuple[int, float]:
    """Runs one worker with JAX_PLATFORMS=cpu, its output in ``log_path``;
    (exit status, seconds)."""
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    t0 = time.perf_counter()
    with open(log_path, "w", encoding="utf-8") as log:
        rc = workers.run_worker("fixture_capture.tpu", worker, out_path, command, env,
                                stdout=log, stderr=subprocess.STDOUT).returncode
    return rc, time.perf_counter() - t0


def main() -> int:
    """The command line; returns the exit status."""
    ap = argparse.ArgumentParser(description=PACKAGE_DOC.split("\n\n")[0])
    ap.add_argument("--out", help="output directory")
    ap.add_argument("--only", choices=("all", "topologies", "captures"), default="all")
    ap.add_argument("--programs", help="comma-separated program ids (default: all)")
    ap.add_argument("--list", action="store_true", help="list program ids")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", help=argparse.SUPPRESS)
    ap.add_argument("--command", help=argparse.SUPPRESS)
    ap.add_argument("--merge", nargs="+", help="merge topologies_jax*.json files")
    ap.add_argument("--merged-out", help="output of --merge")
    ns = ap.parse_args()

    if ns.list:
        for k, v in PROGRAMS.items():
            print(f"{k}: {v['title']}")
        return 0
    if ns.merge:
        merge(ns.merge, ns.merged_out)
        return 0
    if ns.worker:
        if ns.worker == "topologies":
            run_topologies_worker(ns.worker_out, ns.command)
        else:
            run_capture_worker(ns.worker, ns.worker_out, ns.command)
        return 0
    if not ns.out:
        ap.error("--out is required")

    from importlib import metadata
    jax_version = metadata.version("jax")
    command = " ".join([sys.executable, "-m", "fixture_capture.tpu"] + sys.argv[1:])
    out = os.path.abspath(ns.out)
    logs = os.path.join(out, "logs")
    os.makedirs(logs, exist_ok=True)
    summary = []
    if ns.only in ("all", "topologies"):
        path = os.path.join(out, f"topologies_jax{jax_version}.json")
        rc, secs = _child("topologies", path, command,
                          os.path.join(logs, f"topologies_jax{jax_version}.log"))
        summary.append(("topologies", rc, secs))
        print(f"topologies: rc={rc} {secs:.1f}s", flush=True)
    if ns.only in ("all", "captures"):
        ids = ns.programs.split(",") if ns.programs else list(PROGRAMS)
        for pid in ids:
            path = os.path.join(out, "captures", f"{pid}__jax{jax_version}.json")
            rc, secs = _child(pid, path, command,
                              os.path.join(logs, f"{pid}__jax{jax_version}.log"))
            summary.append((pid, rc, secs))
            print(f"{pid}: rc={rc} {secs:.1f}s", flush=True)
    write_json(os.path.join(logs, f"run_jax{jax_version}.json"),
               {"date": utc_now(), "command": command,
                "results": [{"id": i, "rc": rc, "seconds": round(s, 1)} for i, rc, s in summary]})
    return 0 if all(rc == 0 for _, rc, _ in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
