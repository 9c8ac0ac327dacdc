"""Tests of tools/build_progress.py (the progress of scripts/run's slow builds
and the page's build-status.json).

The command under watch is a small stand-in written here (a Python child
that names its logs the way scripts/lib/wasm-common.sh's ck_log does and
writes ninja's ``[n/N]`` lines into them); every expected value is one this
test wrote. The child waits for what it needs to be read: it goes on only
when the status file shows what it just wrote, so no step depends on timing.

Usage: test_build_progress.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "tools" / "build_progress.py"

# The stand-in build: configure (its log named), then build (ninja lines),
# waiting each time until the status file says the step it is in.
CHILD = textwrap.dedent(r"""
    import json, os, sys, time
    out, status = sys.argv[1], sys.argv[2]
    def wait_for(pred):
        while True:
            try:
                with open(status) as f:
                    s = json.load(f)
                if pred(s):
                    return s
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
    print("[mlir-wasm] configuring (log: %s/configure.log)" % out, file=sys.stderr, flush=True)
    open(out + "/configure.log", "w").write("-- The C compiler\n" * 10)
    wait_for(lambda s: s["step"] == "configure")
    print("[mlir-wasm] building X with ninja -j2 (log: %s/build.log)" % out, file=sys.stderr, flush=True)
    with open(out + "/build.log", "w") as f:
        f.write("ninja: Entering directory\n[1/50] Building a\n[2/50] Building b\n")
    wait_for(lambda s: s["step"] == "build" and s["done"] == 2)
    print(out)
    sys.exit(int(sys.argv[3]))
""")


def run(tmp: Path, rc: int, reference: str | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    child = tmp / "child.py"
    child.write_text(CHILD)
    status = tmp / "status.json"
    cmd = [sys.executable, str(TOOL), "--label", "t", "--status", str(status), "--every", "0.2",
           "--log", str(tmp / "tee.log"), "--after", "100"]
    if reference:
        cmd += ["--reference", reference]
    cmd += ["--", sys.executable, str(child), str(tmp), str(status), str(rc)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p, json.loads(status.read_text())


class BuildProgress(unittest.TestCase):
    def test_steps_counts_and_estimate(self):
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            p, s = run(tmp, 0)
            self.assertEqual(p.returncode, 0, p.stderr)
            # stdout passes through whole: its last line is the child's.
            self.assertEqual(p.stdout.strip().splitlines()[-1], str(tmp))
            # stderr passes through, and is teed into --log.
            self.assertIn("(log: %s/build.log)" % tmp, p.stderr)
            self.assertIn("(log: %s/build.log)" % tmp, (tmp / "tee.log").read_text())
            self.assertEqual((s["schema"], s["state"], s["step"], s["done"], s["total"]), (1, "building", "build", 2, 50))
            # 2 of 50 is under 5%: the estimate is the default build time
            # left (48/50 of DEFAULTS' 728 s) plus --after.
            self.assertEqual(s["basis"], "default")
            self.assertEqual(s["eta_s"], int(728 * (1 - 2 / 50) + 100))

    def test_reference_build_and_exit_status(self):
        with tempfile.TemporaryDirectory() as d:
            tmp = Path(d)
            ref = tmp / "ref" / "mlir-wasm-1-abc"
            ref.mkdir(parents=True)
            (ref / "timings.txt").write_text("fetch_seconds=2\nextract_seconds=3\nconfigure_seconds=50\nbuild_seconds=400\n")
            (ref / "build.log").write_text("[39/40] x\n[40/40] y\n")
            (ref / "configure.log").write_text("x" * 1000)
            (ref / ".complete").write_text("done\n")
            work = tmp / "work"
            work.mkdir()
            p, s = run(work, 7, reference=str(tmp / "ref" / "mlir-wasm-*"))
            self.assertEqual(p.returncode, 7, "the command's exit status")
            self.assertEqual(s["basis"], "reference")
            self.assertEqual(s["eta_s"], int(400 * (1 - 2 / 50) + 100))

    def test_no_command(self):
        p = subprocess.run([sys.executable, str(TOOL), "--label", "t", "--"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no command given", p.stderr)


if __name__ == "__main__":
    unittest.main()
