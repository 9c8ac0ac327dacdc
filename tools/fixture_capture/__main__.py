"""Capture cache-key fixtures from the real JAX (CPU): ``tools/capture``.

Run through the wrapper ``tools/capture`` (the project's ``.venv``, or with
``--jax VERSION`` that release's venv).  With no arguments it regenerates
every file it owns in ``fixtures/``:

* one scenario per program (``fixtures/<id>.json``; ``programs.py``),
  recorded from a real compilation (``record.py``);
* ``json_dumps_golden.json`` (Python ``json.dumps`` behaviour;
  ``json_golden.py``);
* ``debug_options_fields.json`` (the DebugOptions field table, discovered from
  the wire bytes jaxlib writes; ``debug_options.py``).

Each program runs in its own worker process (``workers.py``) so that its
environment is in place before JAX starts.  The TPU captures are the
``fixture_capture.tpu`` package (``tools/capture-tpu``).
"""

from __future__ import annotations

import argparse
import os
import sys

from fixture_capture import workers
from fixture_capture.debug_options import run_debug_options_worker
from fixture_capture.json_golden import build_json_golden
from fixture_capture.programs import PROGRAM_FIXTURES
from fixture_capture.record import capture_program

REPO = workers.REPO


def main(argv=None) -> int:
    """The command line of ``tools/capture``; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="fixture ids to capture (default: all)")
    parser.add_argument("--out", default=os.path.join(REPO, "fixtures"), help="output directory")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", help=argparse.SUPPRESS)
    parser.add_argument("--command", default="tools/capture", help=argparse.SUPPRESS)
    parser.add_argument("--programs-only", action="store_true",
                        help="by default capture the program fixtures only (what --jax uses)")
    args = parser.parse_args(argv)

    if args.worker == "debug_options_fields":
        run_debug_options_worker(args.worker_out, args.command)
        return 0
    if args.worker:
        capture_program(args.worker, args.worker_out, args.command)
        return 0

    command = os.environ.get("CACHEKEY_CAPTURE_COMMAND") or (
        "tools/capture" + "".join(" " + a for a in (argv if argv is not None else sys.argv[1:])))
    extra = ["json_dumps_golden", "debug_options_fields"]
    wanted = args.ids or list(PROGRAM_FIXTURES) + ([] if args.programs_only else extra)
    unknown = [i for i in wanted if i not in PROGRAM_FIXTURES and i not in extra]
    if unknown:
        parser.error(f"unknown fixture ids: {unknown}")
    os.makedirs(args.out, exist_ok=True)
    for fixture_id in wanted:
        out_path = os.path.join(args.out, fixture_id + ".json")
        if fixture_id == "json_dumps_golden":
            build_json_golden(out_path, command)
        else:
            env = {k: v for k, v in os.environ.items()
                   if k not in ("XLA_FLAGS", "LIBTPU_INIT_ARGS", "JAX_PLATFORMS")}
            env["JAX_PLATFORMS"] = "cpu"
            env.update(PROGRAM_FIXTURES.get(fixture_id, {}).get("env", {}))
            workers.run_worker("fixture_capture", fixture_id, out_path, command, env,
                               check=True)
        print(f"wrote {os.path.relpath(out_path, REPO)} ({os.path.getsize(out_path)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
