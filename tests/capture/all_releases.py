#!/usr/bin/env python3
"""Capture tests/capture/program.py under every jax release that has a venv,
and check that the engine reproduces every captured key.

    python3 tests/capture/all_releases.py --cli build/native/bin/cachekey [--only 0.6.2,0.12.0.1]

Uses the oracle's per-release venvs ($CACHEKEY_VENV_ROOT, default
/var/cache/cachekey/venvs, one `jax-<VERSION>-py<X.Y>` each; tools/oracle
makes them).  Not part of CTest (about 5 s per release); prints one line per
release and a closing "N passed, N failed" line.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--only", help="comma-separated releases")
    args = parser.parse_args()
    root = os.environ.get("CACHEKEY_VENV_ROOT", "/var/cache/cachekey/venvs")
    venvs = sorted(glob.glob(os.path.join(root, "jax-*-py*/bin/python")))
    wanted = set(args.only.split(",")) if args.only else None
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="cachekey-releases-") as tmp:
        for py in venvs:
            release = os.path.basename(os.path.dirname(os.path.dirname(py)))[4:].rsplit("-py", 1)[0]
            if wanted and release not in wanted:
                continue
            out = os.path.join(tmp, release)
            env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "CK_VARIANT")}
            env.update(JAX_PLATFORMS="cpu", PYTHONPATH=os.path.join(REPO, "python"))
            r = subprocess.run([py, "-m", "cachekey.capture", "--quiet", "--out", out,
                                "--cache-dir", os.path.join(tmp, "cache-" + release), "--",
                                os.path.join(HERE, "program.py")],
                               env=env, capture_output=True, text=True, timeout=600)
            problems = []
            if r.returncode != 0:
                problems.append("capture failed: " + r.stderr.strip().splitlines()[-1])
            files = sorted(glob.glob(os.path.join(out, "0*.json")))
            if not files:
                problems.append("nothing captured")
            sources = set()
            for f in files:
                e = subprocess.run([args.cli, "explain", f], capture_output=True, text=True)
                if e.returncode != 0:
                    problems.append(f"{os.path.basename(f)}: {(e.stderr or e.stdout).strip()[-300:]}")
                with open(f, encoding="utf-8") as fh:
                    sources.add(json.load(fh)["capture"]["topology"].get("source", "?").split(",")[0])
            index = os.path.join(out, "index.json")
            notes = []
            if os.path.exists(index):
                with open(index, encoding="utf-8") as fh:
                    notes = [n for n in json.load(fh)["notes"] if "sidecars" not in n]
            status = "ok" if not problems else "FAIL"
            passed += not problems
            failed += bool(problems)
            print(f"{status:4} jax {release:10} {len(files)} programs; topology: "
                  f"{'; '.join(sorted(sources))}" + "".join(f"\n     {p}" for p in problems + notes))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
