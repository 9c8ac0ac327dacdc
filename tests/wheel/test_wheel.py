#!/usr/bin/env python3
"""The pip wheel in clean venvs: the installed `cachekey` against the native CLI.

Builds build/wheel/cachekey-*.whl with scripts/build-wheel unless the one
there is newer than its sources, checks its budget (at most 15 MB), then for
Python 3.11 and 3.12 (found as tests/oracle/venvs.py finds them; a missing one
is skipped with a message) makes a fresh venv, installs the wheel from the
local file with no index and with PATH holding only the venv's bin (no
compiler, no cmake; under 10 s), and runs:

- `cachekey profiles --json`;
- `cachekey compare-logs` (text and --json) on every pair of logs that
  tests/cases/*/expect.json compares, and `cachekey diff` (text and --json) on
  every pair of scenarios it diffs, plus fixtures and a derived preset (which
  resolves its base against the fixtures in the wheel): exit status, stdout
  and stderr must be those of build/native/bin/cachekey on the same files; the
  exit status must also say what expect.json says (1 when the keys differ);
- the CLI table (tests/cli/cases.json, but its rows that need MLIR) and the
  case tests (tests/cases/*/expect.json) against the installed command, by
  the CMake scripts CTest runs them with;
- errors: a missing file under --json, the same as the native CLI, and
  `canonicalize` saying this build has no MLIR;
- the command is the native executable, naming no path of this tree, with the
  fixtures installed beside it;
- the Python API: cachekey.compare_logs / cachekey.diff return the native
  CLI's --json document, and cachekey.EngineError carries its error fields;
- `python -m cachekey.capture --help`, and, where the oracle's cached jax
  wheels for that Python are (scripts/setup), a capture of two real JAX runs
  of tests/capture/program.py (the second with its code changed) and the
  installed `cachekey diff` of them (the native CLI's output, keys differ) and
  `cachekey explain` of each program (the key real JAX computed); then two
  runs under `python -m cachekey.watch` (the second with one XLA flag added:
  its misses must name entry 4 and the flag, in the installed engine's words).

Prints one line per check and closes with "N passed, N failed, N skipped".
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
import venvs  # noqa: E402  (find_python)

NATIVE = os.path.join(ROOT, "build", "native", "bin", "cachekey")
WHEEL_DIR = os.path.join(ROOT, "build", "wheel")
SOURCES = ["CMakeLists.txt", "cmake", "engine", "fixtures", "python", "scripts/build-wheel"]
MAX_WHEEL_BYTES = 15 * 1000 * 1000
MAX_INSTALL_S = 10.0

passed = failed = skipped = 0


def check(ok: bool, what: str, detail: str = "") -> bool:
    global passed, failed
    if ok:
        passed += 1
        print(f"ok    {what}")
    else:
        failed += 1
        print(f"FAIL  {what}" + (f"\n      {detail}" if detail else ""))
    return ok


def skip(what: str, why: str) -> None:
    global skipped
    skipped += 1
    print(f"skip  {what}: {why}")


def newest_source_mtime() -> float:
    newest = 0.0
    for s in SOURCES:
        p = os.path.join(ROOT, s)
        if os.path.isfile(p):
            newest = max(newest, os.path.getmtime(p))
        for d, dirs, files in os.walk(p):
            dirs[:] = [x for x in dirs if x not in ("__pycache__", "build") and not x.endswith(".egg-info")]
            for f in files:
                # lstat: the fixtures hold dangling symlinks on purpose.
                newest = max(newest, os.lstat(os.path.join(d, f)).st_mtime)
    return newest


def the_wheel() -> str:
    found = sorted(glob.glob(os.path.join(WHEEL_DIR, "cachekey-*.whl")))
    if len(found) == 1 and os.path.getmtime(found[0]) > newest_source_mtime():
        print(f"wheel: reusing {os.path.relpath(found[0], ROOT)} (newer than its sources)")
        return found[0]
    print("wheel: scripts/build-wheel (the one in build/wheel is missing or older than its sources)")
    subprocess.run([os.path.join(ROOT, "scripts", "build-wheel")], check=True)
    found = sorted(glob.glob(os.path.join(WHEEL_DIR, "cachekey-*.whl")))
    if len(found) != 1:
        raise SystemExit(f"test-wheel: scripts/build-wheel left {len(found)} wheels in build/wheel")
    return found[0]


def run(argv, env=None, cwd=None):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def native_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "CACHEKEY_FIXTURES"}
    return env


def case_pairs():
    """(label, argv tail, expected exit status or None) for every case pair."""
    rows = []
    for exp in sorted(glob.glob(os.path.join(ROOT, "tests", "cases", "*", "expect.json"))):
        case = os.path.dirname(exp)
        name = os.path.basename(case)
        doc = json.load(open(exp))
        for c in doc.get("compare", []):
            files = [os.path.join(case, c["a"]), os.path.join(case, c["b"])]
            # 1 when a key differs or run b logged a miss (a plain match of
            # JAX's miss lines, as tests/cli/log_case.cmake reads them).
            with open(files[1], "rb") as f:
                missed = any(m in f.read() for m in (b"PERSISTENT COMPILATION CACHE MISS for",
                                                       b"Cache miss for key: "))
            want = None if "keys_differ" not in c else (1 if c["keys_differ"] or missed else 0)
            rows.append((f"{name}: compare-logs {c['a']} {c['b']}", ["compare-logs", *files], want))
        for d in doc.get("diff", []) if isinstance(doc.get("diff"), list) else []:
            files = [os.path.join(case, d["a"]), os.path.join(case, d["b"])]
            rows.append((f"{name}: diff {d['a']} {d['b']}", ["diff", *files], None))
    fx = os.path.join(ROOT, "fixtures")
    rows.append(("fixtures: diff add_1x1 mul_2x2", ["diff", f"{fx}/add_1x1.json", f"{fx}/mul_2x2.json"], 1))
    rows.append(("fixtures: diff add_1x1 add_1x1", ["diff", f"{fx}/add_1x1.json", f"{fx}/add_1x1.json"], 0))
    rows.append(("fixtures: diff add_1x1 derived/flags_ab (base resolved in the wheel's fixtures)",
                 ["diff", f"{fx}/add_1x1.json", f"{fx}/derived/flags_ab.json"], 1))
    rows.append(("error: diff of a missing file",
                 ["diff", f"{fx}/add_1x1.json", os.path.join(ROOT, "no-such-scenario.json")], 2))
    return rows


def in_venv(minor: str, wheel: str, work: str) -> None:
    py = venvs.find_python(minor)
    if not py:
        skip(f"python {minor}", f"no Python {minor} here (python{minor} on PATH, pyenv root versions/{minor}*, /usr/bin)")
        return
    print(f"=== Python {minor}: {py}")
    venv = os.path.join(work, f"venv-{minor}")
    subprocess.run([py, "-m", "venv", venv], check=True)
    bindir = os.path.join(venv, "bin")
    # Only the venv on PATH: no compiler, no cmake, no ninja.
    env = {"PATH": bindir, "HOME": work, "LANG": "C.UTF-8", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    t0 = time.monotonic()
    rc, out, err = run([os.path.join(bindir, "pip"), "install", "-q", "--no-index", "--no-deps", wheel], env=env)
    took = time.monotonic() - t0
    if not check(rc == 0, f"py{minor}: pip install of the wheel (PATH={bindir} only)", err[-2000:]):
        return
    check(took < MAX_INSTALL_S, f"py{minor}: install took {took:.1f} s (budget {MAX_INSTALL_S:.0f} s)")
    cli = os.path.join(bindir, "cachekey")
    check(os.access(cli, os.X_OK), f"py{minor}: pip put a cachekey command in {bindir}")
    # The command is the engine itself (no Python in between), and it names
    # no path of this tree: fixture ids resolve only through the fixtures the
    # wheel installed (venv/share/cachekey/fixtures).
    head = open(cli, "rb").read() if os.path.isfile(cli) else b""
    check(head[:4] == b"\x7fELF", f"py{minor}: the cachekey command is the native executable")
    check(ROOT.encode() not in head, f"py{minor}: the engine names no path of this tree ({ROOT})")
    check(os.path.isfile(os.path.join(venv, "share", "cachekey", "fixtures", "add_1x1.json")),
          f"py{minor}: the fixtures are installed in {venv}/share/cachekey/fixtures")
    # Run away from the repository, so nothing resolves through the tree.
    cwd = os.path.join(work, f"cwd-{minor}")
    os.makedirs(cwd, exist_ok=True)

    def same(label, tail, want=None):
        n = run([NATIVE, *tail], env=native_env(), cwd=cwd)
        w = run([cli, *tail], env=env, cwd=cwd)
        ok = w == n and (want is None or n[0] == want)
        detail = ""
        if w[0] != n[0]:
            detail = f"exit {w[0]} from the wheel, {n[0]} native"
        elif w != n:
            detail = "stdout or stderr differs from the native CLI's"
        elif not ok:
            detail = f"exit {n[0]}, expect.json says {want}"
        check(ok, f"py{minor}: {label}", detail)
        return n

    same("cachekey profiles --json", ["profiles", "--json"], 0)
    for label, tail, want in case_pairs():
        same(label, tail, want)
        same(label + " --json", tail + ["--json"], want)

    # The CLI's own contract against the installed command: every row of
    # tests/cli/cases.json (but those that need MLIR) and every case's
    # expect.json, by the same CMake scripts CTest runs them with.
    cmake = shutil.which("cmake")
    if not cmake:
        skip(f"py{minor}: the CLI table and the case tests", "no cmake on PATH to run tests/cli/*.cmake")
    else:
        table = os.path.join(ROOT, "tests", "cli", "cases.json")
        rows = json.load(open(table))["cases"]
        bad = []
        ran = 0
        for i, row in enumerate(rows):
            if row.get("needs_mlir"):
                continue
            ran += 1
            rc, out, err = run([cmake, f"-DCLI={cli}", f"-DSRC={ROOT}", f"-DTMP={work}/cli-{minor}/{row['name']}",
                                f"-DTABLE={table}", f"-DINDEX={i}", "-P",
                                os.path.join(ROOT, "tests", "cli", "run_case.cmake")])
            if rc != 0:
                bad.append(f"{row['name']}: {(out + err).strip()[-600:]}")
        check(not bad, f"py{minor}: the CLI table, {ran} rows (tests/cli/cases.json, those without needs_mlir)",
              "\n      ".join(bad))
        bad = []
        cases = sorted(os.path.dirname(e) for e in glob.glob(os.path.join(ROOT, "tests", "cases", "*", "expect.json")))
        for case in cases:
            rc, out, err = run([cmake, f"-DCLI={cli}", f"-DCASE={case}", "-P",
                                os.path.join(ROOT, "tests", "cli", "log_case.cmake")])
            if rc != 0:
                bad.append(f"{os.path.basename(case)}: {(out + err).strip()[-600:]}")
        check(not bad, f"py{minor}: the case tests, {len(cases)} cases (tests/cases/*/expect.json)", "\n      ".join(bad))

    rc, out, err = run([cli, "canonicalize", os.path.join(ROOT, "tests", "fuzz", "corpus", "fuzz_canonicalize", "add_1x1.mlir")],
                       env=env, cwd=cwd)
    check(rc == 2 and "this build has no MLIR" in err,
          f"py{minor}: canonicalize says this build has no MLIR", f"exit {rc}: {err.strip()}")

    # The Python API against the native CLI's --json.
    case = os.path.join(ROOT, "tests", "cases", "09-jax-upgrade")
    logs = [os.path.join(case, "before_upgrade.log"), os.path.join(case, "after_upgrade.log")]
    fx = os.path.join(ROOT, "fixtures")
    missing = os.path.join(ROOT, "no-such-scenario.json")
    _, n_cmp, _ = run([NATIVE, "compare-logs", *logs, "--json"], env=native_env())
    _, n_diff, _ = run([NATIVE, "diff", f"{fx}/add_1x1.json", f"{fx}/derived/flags_ab.json", "--json"], env=native_env())
    _, n_err, _ = run([NATIVE, "diff", f"{fx}/add_1x1.json", missing, "--json"], env=native_env())
    prog = (
        "import json, sys, cachekey\n"
        "a = sys.argv[1:]\n"
        "out = {'cmp': cachekey.compare_logs(a[0:2]), 'diff': cachekey.diff(a[2], a[3])}\n"
        "try:\n"
        "    cachekey.diff(a[2], a[4]); out['err'] = None\n"
        "except cachekey.EngineError as e:\n"
        "    out['err'] = {'code': e.code, 'path': e.path, 'message': e.message, 'source': e.source}\n"
        "print(json.dumps(out))\n")
    rc, out, err = run([os.path.join(bindir, "python"), "-c", prog, *logs, f"{fx}/add_1x1.json",
                        f"{fx}/derived/flags_ab.json", missing], env=env, cwd=cwd)
    if check(rc == 0, f"py{minor}: the Python API runs", err[-2000:]):
        got = json.loads(out)
        check(got["cmp"] == json.loads(n_cmp), f"py{minor}: cachekey.compare_logs(...) is compare-logs --json")
        check(got["diff"] == json.loads(n_diff), f"py{minor}: cachekey.diff(...) is diff --json")
        want_err = json.loads(n_err)["error"]
        check(got["err"] == {k: want_err.get(k, "") for k in ("code", "path", "message", "source")}
              and want_err.get("source") == missing,
              f"py{minor}: cachekey.EngineError carries the engine's {{code, path, message, source}}",
              f"{got['err']} vs {want_err}")

    rc, out, err = run([os.path.join(bindir, "python"), "-m", "cachekey.capture", "--help"], env=env, cwd=cwd)
    check(rc == 0 and out.startswith("usage: python -m cachekey.capture"),
          f"py{minor}: python -m cachekey.capture --help", f"exit {rc}: {err.strip()[-500:]}")
    capture_then_diff(minor, venv, env, cli, work)


def capture_then_diff(minor: str, venv: str, env: dict, cli: str, work: str) -> None:
    """python -m cachekey.capture on a real JAX run, then the installed diff.

    JAX comes from the oracle's cached wheels for this Python (scripts/setup
    downloads them: tests/oracle/venvs.py), installed with --no-index; without
    them this part is skipped and says so.
    """
    what = f"py{minor}: capture a real JAX run, then cachekey diff / explain on it"
    sets = sorted(d for d in glob.glob(os.path.join(venvs.wheel_root(), f"jax-*-py{minor}-*"))
                  if os.path.exists(os.path.join(d, venvs.WHEELS_MARKER)))
    if not sets:
        skip(what, f"no cached jax wheels for Python {minor} in {venvs.wheel_root()} (scripts/setup makes them)")
        return
    rc, out, err = run([os.path.join(venv, "bin", "pip"), "install", "-q", "--no-index", "--find-links", sets[-1],
                        "jax", "jaxlib"], env=env)
    if not check(rc == 0, f"py{minor}: pip install jax jaxlib from {sets[-1]} (no index)", err[-1500:]):
        return
    program = os.path.join(ROOT, "tests", "capture", "program.py")
    runs = []
    for name, variant in (("run1", ""), ("run2", "code")):
        out_dir = os.path.join(work, f"capture-{minor}", name)
        cenv = dict(env, JAX_PLATFORMS="cpu", CK_VARIANT=variant)
        rc, out, err = run([os.path.join(venv, "bin", "python"), "-m", "cachekey.capture", "--out", out_dir,
                            "--cache-dir", os.path.join(work, f"capture-{minor}", "cache"), "--", program],
                           env=cenv, cwd=work)
        if not check(rc == 0 and os.path.exists(os.path.join(out_dir, "index.json")),
                     f"py{minor}: python -m cachekey.capture ({name}{', CK_VARIANT=' + variant if variant else ''})",
                     err[-1500:]):
            return
        runs.append(out_dir)
    for tail in (["diff", *runs], ["diff", *runs, "--json"]):
        # The wheel has no MLIR, so it names no change inside the program
        # (it says so); the native CLI is run without its MLIR plugin to
        # answer as the wheel must.
        n = run([NATIVE, *tail], env=dict(native_env(), CACHEKEY_MLIR_PLUGIN=os.path.join(work, "no-mlir-plugin.so")),
                cwd=work)
        w = run([cli, *tail], env=env, cwd=work)
        # run2 changed the program's code: its key must differ (exit 1).
        check(w == n and n[0] == 1, f"py{minor}: cachekey {' '.join(tail[:1] + tail[3:])} of the two captures "
              "is the native CLI's, and says the keys differ", f"exit {w[0]} wheel, {n[0]} native")
    scen = sorted(f for f in glob.glob(os.path.join(runs[0], "*.json")) if not f.endswith("index.json"))
    ok = bool(scen)
    for f in scen:
        rc, out, err = run([cli, "explain", f], env=env, cwd=work)
        # The capture holds the key real JAX computed; explain checks the
        # engine's against it.
        ok = ok and rc == 0 and "equals the key real JAX computed" in out
    check(ok, f"py{minor}: cachekey explain reproduces the key real JAX computed, for all {len(scen)} captured programs")
    watch_two_runs(minor, venv, env, work, program)


def watch_two_runs(minor: str, venv: str, env: dict, work: str, program: str) -> None:
    """python -m cachekey.watch from the wheel: run 1 fills a cache, run 2 with
    one flag added (the change this test makes) must name entry 4 and that
    flag, in the words of the engine the wheel installed (found through the
    distribution's record: CACHEKEY_ENGINE is not set)."""
    flag = "--xla_cpu_enable_fast_math=true"
    wenv = {k: v for k, v in env.items() if k != "CACHEKEY_ENGINE"}
    wenv.update(JAX_PLATFORMS="cpu", CK_VARIANT="",
                JAX_COMPILATION_CACHE_DIR=os.path.join(work, f"watch-{minor}", "cache"))
    index = os.path.join(work, f"watch-{minor}", "index")
    errs = []
    for extra in ({}, {"XLA_FLAGS": flag}):
        rc, out, err = run([os.path.join(venv, "bin", "python"), "-m", "cachekey.watch", "--index", index,
                            "--", program], env=dict(wenv, **extra), cwd=work)
        if not check(rc == 0, f"py{minor}: python -m cachekey.watch ({'XLA_FLAGS=' + flag if extra else 'run 1'})",
                     err[-1500:]):
            return
        errs.append(err)
    check("entry 4 (XLA flags)" in errs[1] and flag in errs[1] and "hit rate" in errs[1],
          f"py{minor}: the watched run 2 names entry 4 and {flag} at its misses, and ends with its summary",
          errs[1][-1500:])


def main() -> int:
    if not os.access(NATIVE, os.X_OK):
        print(f"test-wheel: {NATIVE} is missing: build it first (scripts/build, or "
              "cmake --preset native && cmake --build --preset native)", file=sys.stderr)
        return 1
    wheel = the_wheel()
    size = os.path.getsize(wheel)
    check(size <= MAX_WHEEL_BYTES, f"wheel {os.path.basename(wheel)}: {size / 1e6:.1f} MB "
          f"(budget {MAX_WHEEL_BYTES / 1e6:.0f} MB)")
    check("manylinux" in os.path.basename(wheel), "the wheel has a manylinux tag (auditwheel repair)")
    work = tempfile.mkdtemp(prefix="cachekey-wheel-")
    try:
        found = 0
        for minor in ("3.11", "3.12"):
            before = passed + failed
            in_venv(minor, wheel, work)
            found += passed + failed > before
        if not found:
            check(False, "a Python 3.11 or 3.12 to install the wheel into")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
