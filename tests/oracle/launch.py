#!/usr/bin/env python3
"""Front end of ``tools/oracle``: picks the jax the oracle runs against.

    tools/oracle [ORACLE ARGS]                      # the project's .venv (jax 0.10.2)
    tools/oracle --jax VERSION [ORACLE ARGS]        # a venv of that release (built on first use)
    tools/oracle --all-releases [--count N] [--seed S] [--real-only] [--sweep-doc PATH]
    tools/oracle --jax VERSION --topology-check     # what entry 6 hashes on that release's CPU
    tools/oracle --tpu [--jax VERSION] [--libtpu L] [ORACLE ARGS]
                                                    # TPU recipes on libtpu's deviceless topologies
    tools/oracle --gpu [--jax VERSION] [ORACLE ARGS]
                                                    # GPU recipes on the CUDA plugin's compile-only client

Standard library only.  ``--jax`` builds (once) a venv for the release under
/var/cache/cachekey/venvs (see ``venvs.py``) and runs ``oracle.py`` in it with
the remaining arguments.  When the release's Python is not installed here the
run is skipped: a message, the line "0 passed, 0 failed, 1 skipped", exit 0.

``--tpu`` runs oracle.py with ``--tpu`` in a venv of the release (default
0.10.2) that also has libtpu (``--libtpu L``, default the build
``releases.json`` names for the release; ``venvs.ensure(..., libtpu=L)``
downloads the wheels once into /var/cache/cachekey/wheels).

``--gpu`` runs oracle.py with ``--gpu`` in a venv of the release (default
0.12.0.1) that also has the CUDA plugin ``releases.json`` names for it
(``venvs.ensure(..., cuda=C)``, wheels cached the same way).

``--all-releases`` runs the oracle for every release, one after the other
(installs are sequential), and writes ``docs/oracle-sweep.md``: one table row
per release (profile, Python, passed, failed, date) and every release that
could not be installed or run, with the reason.  The release list is the
engine's (``cachekey profiles --json``) when it has one, else
``tests/oracle/releases.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import venvs  # noqa: E402

DEFAULT_ENGINE = os.path.join(REPO, "build", "native", "bin", "cachekey")
SWEEP_DOC = os.path.join(REPO, "docs", "oracle-sweep.md")
NOTES_MARKER = "<!-- notes: kept by tools/oracle --all-releases -->"
LAST_LINE = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")


def project_python() -> str:
    """The interpreter of the project's .venv (jax 0.10.2)."""
    return os.path.join(REPO, ".venv", "bin", "python")


def oracle_command(python: str, rest: list[str]) -> list[str]:
    """The command line that runs oracle.py under ``python``."""
    return [python, os.path.join(HERE, "oracle.py"), *rest]


def run_release(version: str, rest: list[str], capture: bool = False, libtpu: str | None = None,
                cuda: str | None = None):
    """Run oracle.py under release ``version`` (in its venv with libtpu
    ``libtpu``, or with the CUDA plugin ``cuda``, when given).

    Returns (exit status, last line, marker or None, stdout+stderr text or
    None, reason when skipped or not installable).
    """
    try:
        marker = venvs.ensure(version, libtpu=libtpu, cuda=cuda)
    except venvs.Skip as e:
        return 0, "0 passed, 0 failed, 1 skipped", None, None, f"skipped: {e}"
    except venvs.InstallError as e:
        return 1, "0 passed, 1 failed", None, None, f"not installable: {e}"
    cmd = oracle_command(marker["python"], rest)
    if not capture:
        return subprocess.call(cmd), None, marker, None, None
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    text = proc.stdout.decode("utf-8", "replace")
    lines = text.strip().splitlines()
    return proc.returncode, lines[-1] if lines else "", marker, text, None


def sweep_releases(engine: str) -> tuple[list[str], str]:
    """(release list, where it came from)."""
    sys.path.insert(0, HERE)
    import oracle  # stdlib-only at import time
    profiles = oracle.engine_profiles(engine) if os.access(engine, os.X_OK) else None
    listed = oracle.engine_releases(profiles)
    if listed:
        return sorted(listed, key=venvs.version_tuple), "cachekey profiles --json"
    return [r["jax"] for r in venvs.load_releases()], "tests/oracle/releases.json"


def sweep(args, rest: list[str]) -> int:
    """Run every release; write the sweep document; return the exit status."""
    releases, source = sweep_releases(args.engine)
    rows, problems = [], []
    total_failed = 0
    for version in releases:
        t0 = time.monotonic()
        summary_path = os.path.join(REPO, "build", "oracle-sweep", f"{version}.json")
        os.makedirs(os.path.dirname(summary_path), exist_ok=True)
        if os.path.exists(summary_path):
            os.remove(summary_path)
        # A release the engine has no profile for still proves its install and
        # real-JAX side: it runs with --real-only and says so in the table.
        extra = []
        if not args.real_only and os.access(args.engine, os.X_OK):
            import oracle
            if oracle.EngineTarget(args.engine, version).profile is None:
                extra = ["--real-only"]
        failures = os.path.join(REPO, "build", "oracle-failures", version)
        status, last, marker, text, reason = run_release(
            version, rest + extra + ["--summary-json", summary_path, "--failures-dir", failures],
            capture=True)
        seconds = time.monotonic() - t0
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        if reason:
            problems.append((version, reason))
            print(f"{version}: {reason.splitlines()[0]}", flush=True)
            if reason.startswith("not installable"):
                total_failed += 1
            continue
        m = LAST_LINE.match(last or "")
        summary = {}
        if os.path.exists(summary_path):
            with open(summary_path, encoding="utf-8") as f:
                summary = json.load(f)
        if not m:
            tail = "\n".join((text or "").strip().splitlines()[-6:])
            problems.append((version, f"the oracle did not finish (exit {status}):\n{tail}"))
            total_failed += 1
            print(f"{version}: oracle did not finish (exit {status})", flush=True)
            continue
        passed, failed, skipped = int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)
        total_failed += failed
        rows.append({"release": version, "jaxlib": marker["jaxlib"], "python": marker["python_version"],
                     "profile": summary.get("engine_profile") or (
                         "(real JAX only)" if args.real_only else "none: real JAX only"),
                     "passed": passed, "failed": failed, "skipped": skipped,
                     "unreadable": summary.get("unreadable_by_mlir19", 0),
                     "mosaic": summary.get("mosaic_cases", 0), "raised": summary.get("real_jax_raised", 0),
                     "features": summary.get("features", {}),
                     "failure_kinds": summary.get("failure_kinds", {}),
                     "seconds": round(seconds, 1), "install_seconds": marker.get("install_seconds"),
                     "date": date})
        print(f"{version}: {last} ({seconds:.0f}s)", flush=True)
    write_sweep_doc(args, releases, source, rows, problems)
    total_passed = sum(r["passed"] for r in rows)
    total_skipped = sum(r["skipped"] for r in rows) + sum(1 for _, r in problems if r.startswith("skipped"))
    print(f"oracle sweep: {len(rows)} of {len(releases)} releases ran; {os.path.relpath(args.sweep_doc, REPO)} "
          f"written", file=sys.stderr)
    print(f"{total_passed} passed, {total_failed} failed" + (f", {total_skipped} skipped" if total_skipped else ""))
    return 0 if total_failed == 0 else 1


def write_sweep_doc(args, releases, source, rows, problems) -> None:
    """docs/oracle-sweep.md: the table and the releases that did not run.

    Everything from the NOTES_MARKER line on (hand-written findings) is kept."""
    mode = "real JAX only (scenarios built and self-checked, no engine)" if args.real_only else \
        f"engine `{os.path.relpath(args.engine, REPO)}`"
    lines = [
        "# Oracle sweep: every jax release against its own wheel",
        "",
        "Written by `tools/oracle --all-releases` "
        f"(`--seed {args.seed} --count {args.count}`, {mode}). Release list from {source}. "
        "Each release runs in its own venv (Python 3.11 up to 0.10.2, 3.12 from 0.11.0) under "
        f"`{venvs.venv_root()}`.",
        "",
        "| release | jaxlib | profile | python | passed | failed | skipped | Mosaic cases (JAX raised) | "
        "runtime error class | date |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        skipped = str(r["skipped"]) + (f" ({r['unreadable']} unreadable-by-MLIR19)" if r["unreadable"] else "")
        lines.append(f"| {r['release']} | {r['jaxlib']} | {r['profile']} | {r['python']} | {r['passed']} | "
                     f"{r['failed']} | {skipped} | {r['mosaic']} ({r['raised']}) | "
                     f"`{r['features'].get('runtime_error', '?')}` | {r['date']} |")
    failing = [r for r in rows if r["failure_kinds"]]
    if failing:
        lines += ["", "## What failed, per release", "",
                  "The first difference of each failed case (other than the key itself), counted. "
                  "Reports: `build/oracle-failures/<release>/`.", ""]
        for r in failing:
            lines.append(f"- **{r['release']}**: " + "; ".join(
                f"{n} × {k}" for k, n in r["failure_kinds"].items()))
    lines += ["", "## Releases that did not run", ""]
    if problems:
        for version, reason in problems:
            lines.append(f"- **{version}**: " + reason.replace("\n", "\n  "))
    else:
        lines.append("None: every release installed and ran.")
    missing = [v for v in releases if v not in {r["release"] for r in rows} and v not in {p[0] for p in problems}]
    if missing:
        lines.append(f"- not attempted: {', '.join(missing)}")
    lines += ["", "## Harness features found per release", "",
              "| release | callbacks argument | fingerprint/serialize | make_cpu_client(num_devices) | "
              "sharding_rule |",
              "|---|---|---|---|---|"]
    for r in rows:
        f = r["features"]
        lines.append(f"| {r['release']} | {f.get('callbacks', '?')} | {f.get('topology', '?')} | "
                     f"{f.get('make_cpu_client_num_devices', '?')} | {f.get('sharding_rule', '?')} |")
    notes = ""
    if os.path.exists(args.sweep_doc):
        with open(args.sweep_doc, encoding="utf-8") as fh:
            old = fh.read()
        if NOTES_MARKER in old:
            notes = old[old.index(NOTES_MARKER):]
    with open(args.sweep_doc, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n" + ("\n" + notes if notes else ""))


def topology_check(version: str) -> int:
    """Print topology_check.py's report for 1 and 4 devices under ``version``."""
    try:
        marker = venvs.ensure(version)
    except venvs.Skip as e:
        print(f"oracle: {e}")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    status = 0
    for n in (1, 4):
        status |= subprocess.call([marker["python"], os.path.join(HERE, "topology_check.py"),
                                   "--devices", str(n)])
    return status


def main(argv=None) -> int:
    """Dispatch ``tools/oracle``'s arguments; return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--jax")
    parser.add_argument("--all-releases", action="store_true")
    parser.add_argument("--topology-check", action="store_true")
    parser.add_argument("--sweep-doc", default=SWEEP_DOC)
    parser.add_argument("--tpu", action="store_true")
    parser.add_argument("--libtpu")
    parser.add_argument("--gpu", action="store_true")
    args, rest = parser.parse_known_args(argv)
    # Options the sweep reads too (they stay in ``rest`` for oracle.py).
    peek = argparse.ArgumentParser(add_help=False)
    peek.add_argument("--seed", type=int, default=0)
    peek.add_argument("--count", type=int, default=500)
    peek.add_argument("--engine", default=os.environ.get("CACHEKEY_BIN", DEFAULT_ENGINE))
    peek.add_argument("--real-only", action="store_true")
    known, _ = peek.parse_known_args(rest)
    args.seed, args.count, args.engine, args.real_only = known.seed, known.count, known.engine, known.real_only

    if args.tpu:
        if args.all_releases or args.topology_check:
            print("oracle: --tpu runs one release (--jax VERSION); it does not combine with "
                  "--all-releases or --topology-check", file=sys.stderr)
            return 2
        version = args.jax or "0.10.2"
        libtpu = args.libtpu or venvs.libtpu_for(version)
        if libtpu is None:
            print(f"oracle: tests/oracle/releases.json names no libtpu build for jax {version}; "
                  f"give one with --libtpu VERSION (the jax wheel's 'tpu' extra says which)", file=sys.stderr)
            print("0 passed, 1 failed")
            return 2
        status, last, _, _, reason = run_release(version, rest + ["--tpu"], libtpu=libtpu)
        if reason:
            print(f"oracle: jax {version} with libtpu {libtpu} {reason}", file=sys.stderr)
            print(last)
        return status
    if args.gpu:
        if args.all_releases or args.topology_check:
            print("oracle: --gpu runs one release (--jax VERSION); it does not combine with "
                  "--all-releases or --topology-check", file=sys.stderr)
            return 2
        version = args.jax or "0.12.0.1"
        cuda = venvs.cuda_for(version)
        if cuda is None:
            print(f"oracle: tests/oracle/releases.json names no CUDA plugin build for jax {version}",
                  file=sys.stderr)
            print("0 passed, 1 failed")
            return 2
        status, last, _, _, reason = run_release(version, rest + ["--gpu"], cuda=cuda[0])
        if reason:
            print(f"oracle: jax {version} with jax-cuda12-plugin {cuda[0]} {reason}", file=sys.stderr)
            print(last)
        return status
    if args.all_releases:
        return sweep(args, rest)
    if args.jax and args.topology_check:
        return topology_check(args.jax)
    if args.jax:
        status, last, _, _, reason = run_release(args.jax, rest)
        if reason:
            print(f"oracle: jax {args.jax} {reason}", file=sys.stderr)
            print(last)
        return status
    python = project_python()
    if not os.path.exists(python):
        print(f"oracle: {python} is missing; run scripts/setup-python", file=sys.stderr)
        print("0 passed, 1 failed")
        return 2
    os.execv(python, oracle_command(python, rest))
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
