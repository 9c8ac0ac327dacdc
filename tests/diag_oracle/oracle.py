#!/usr/bin/env python3
"""The diagnosis oracle: real JAX runs of every catalogued kind of cache miss,
judged by the codes of ``cachekey compare-logs --json``.

    tools/diag-oracle --sample            # the kinds marked sample (scripts/test)
    tools/diag-oracle --all [--write-doc] # every kind on every release it lists
    tools/diag-oracle --only cache/damaged [--release 0.10.2]
    tools/diag-oracle --all --reuse --engine OTHER  # the same real runs, another engine

For each (kind, release) of tests/diag_oracle/catalogue.py it runs
tests/diag_oracle/program.py under that release's real jax (the venvs of
tests/oracle/venvs.py, found with tests/oracle/release-python), once per run
of the kind, in a work dir of its own (``--work``, default
build/diag-oracle/<release>/<kind>): the runs' logs (their stderr), their
``jax.monitoring`` counts (facts-*.json), their cache folders. It then runs
``cachekey compare-logs LOGS --json`` (two logs or N) and ``cachekey
cache-dir DIR --json`` on the kind's cache folder, and compares codes only:
the root cause entry, each pair's verdict and outcomes, the set of
``what_to_do`` codes, and each log's program and hit counts against what
JAX itself counted. It never reads a sentence.

Prints one line per (kind, release), ``PASS`` or ``FAIL`` with every
mismatch, then ``N passed, M failed, K skipped (P% of N+M)``; exits 0 only
when nothing failed (2 when the engine is missing). ``--write-doc`` writes
docs/diag-oracle.md, the table of every kind and its last result.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import os
import shutil
import subprocess
import sys
import socket
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import catalogue  # noqa: E402

PROGRAM = os.path.join(HERE, "program.py")
RELEASE_PYTHON = os.path.join(ROOT, "tests", "oracle", "release-python")
DOC = os.path.join(ROOT, "docs", "diag-oracle.md")
SAMPLE_RELEASES = ["0.10.2", "0.12.0.1"]
# Environment the runs must not inherit: each kind sets what it changes.
CLEARED = ("XLA_FLAGS", "LIBTPU_INIT_ARGS", "JAX_LOGGING_LEVEL", "JAX_DEBUG_LOG_MODULES",
           "JAX_ENABLE_X64", "JAX_COMPILATION_CACHE_DIR", "JAX_PLATFORMS", "PYTHONPATH")


class Skip(Exception):
    """The release cannot run here (no interpreter or venv); the message says why."""


_pythons: dict[str, str] = {}


def python_for(release: str, minor: str | None = None, accel: str | None = None) -> str:
    """The interpreter of ``release``'s venv (tests/oracle/release-python builds it on first use);
    with ``minor`` ("3.13"), of a venv of that release on that Python (tests/oracle/venvs.py);
    with ``accel`` ("tpu" or "gpu", a run with a ``deviceless`` spec), of the release's TPU venv
    (jax with the libtpu tests/oracle/releases.json names) or GPU venv (jax with the CUDA
    plugin's compile-only client, jax-cuda12-pjrt and jax-cuda12-plugin), as tools/oracle
    --tpu / --gpu build them."""
    if accel or minor:
        key = f"{release}+{accel}" if accel else f"{release}@{minor}"
        if key not in _pythons:
            sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
            import venvs  # noqa: E402  (standard library only)
            if accel == "tpu":
                build = {"libtpu": venvs.libtpu_for(release)}
                if not build["libtpu"]:
                    raise Skip(f"tests/oracle/releases.json names no libtpu for jax {release}")
                what = f"no TPU venv for jax {release}"
            elif accel == "gpu":
                cuda = venvs.cuda_for(release)
                if not cuda:
                    raise Skip(f"tests/oracle/releases.json names no CUDA plugin for jax {release}")
                build = {"cuda": cuda[0]}
                what = f"no GPU venv for jax {release}"
            elif accel:
                raise ValueError(f"unknown deviceless platform {accel!r}")
            else:
                build = {"python_minor": minor}
                what = f"no venv for jax {release} on Python {minor}"
            try:
                _pythons[key] = venvs.ensure(release, **build)["python"]
            except (venvs.Skip, venvs.InstallError) as e:
                raise Skip(f"{what}: {e}") from e
        return _pythons[key]
    if release not in _pythons:
        out = subprocess.run([RELEASE_PYTHON, release], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, check=False)
        py = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
        if out.returncode != 0 or not os.path.exists(py):
            raise Skip(f"no venv for jax {release}: {out.stderr.strip()[-300:]}")
        _pythons[release] = py
    return _pythons[release]


def _subst(value, paths):
    if isinstance(value, str):
        for k, v in paths.items():
            value = value.replace(k, v)
        return value
    if isinstance(value, list):
        return [_subst(v, paths) for v in value]
    if isinstance(value, dict):
        return {k: _subst(v, paths) for k, v in value.items()}
    return value


def _before(action: str, cache: str, cache2: str = "") -> None:
    """Changes the kind's cache folder between runs: ``empty``, ``truncate``,
    ``drop_atime`` (delete every ``-atime`` file, keep the entries: orphan
    entries), ``copy_r`` / ``copy_a`` (replace the second cache folder by a
    copy of the first made with ``cp -r`` (new times) or ``cp -a`` (times
    kept), as a user copies a cache to another machine or job)."""
    if not os.path.isdir(cache):
        return
    if action in ("copy_r", "copy_a"):
        shutil.rmtree(cache2, ignore_errors=True)
        subprocess.run(["cp", "-r" if action == "copy_r" else "-a", cache, cache2], check=True)
        return
    for name in os.listdir(cache):
        path = os.path.join(cache, name)
        if not os.path.isfile(path):
            continue
        if action == "empty":
            os.remove(path)
        elif action == "truncate" and not name.endswith("-atime"):
            with open(path, "r+b") as f:
                f.truncate(10)
        elif action == "drop_atime":
            if name.endswith("-atime"):
                os.remove(path)
        elif action != "truncate":
            raise ValueError(f"unknown before action {action!r}")


def _run_env(spec: dict, home: str) -> dict:
    """The environment of one run of program.py: the driver's, without the
    variables a kind sets itself (CLEARED), on CPU, with its own HOME, the
    spec and the facts file."""
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env.update({"JAX_PLATFORMS": "cpu", "HOME": home, "CK_SPEC": json.dumps(spec),
                "CK_FACTS": os.path.join(home, "facts.json"), "PYTHONUNBUFFERED": "1"})
    return env


def _cap_for_one_entry(kind: dict, release: str, work: str) -> int:
    """A jax_compilation_cache_max_size (bytes) that holds the largest entry
    the kind's first run writes alone and not with the smallest: the first
    run made once without a cap into a probe folder, its entries measured on
    disk (``-atime`` files left out, as lru_cache.py counts only entries),
    then the largest plus half the smallest. Entry sizes move with the
    release and with the versions of its venv's packages, so a fixed cap
    does not keep that meaning."""
    probe = os.path.join(work, "probe-cache")
    os.makedirs(probe, mode=0o755)
    spec = {k: v for k, v in kind["runs"][0]["spec"].items() if k != "max_size"}
    spec["cache"] = probe
    py = python_for(release)
    home = os.path.join(work, "home-probe")
    os.makedirs(home)
    env = _run_env(spec, home)
    overlay = pip_overlay(kind, release, py)
    if overlay:
        env["PYTHONPATH"] = overlay
    out = subprocess.run([py, PROGRAM], env=env, cwd=work, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, timeout=600, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"probe run exited {out.returncode}: {out.stderr[-600:]}")
    sizes = sorted(os.path.getsize(os.path.join(probe, n)) for n in os.listdir(probe)
                   if not n.endswith("-atime") and os.path.isfile(os.path.join(probe, n)))
    shutil.rmtree(probe)
    if len(sizes) < 2:
        raise RuntimeError(f"probe run wrote {len(sizes)} entries, expected at least 2")
    return sizes[-1] + sizes[0] // 2


def make_runs(kind: dict, release: str, work: str) -> dict:
    """Runs every run of ``kind`` under ``release`` (a run's own ``release``
    where it names one); returns {log name: [facts]}."""
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(work)
    os.chmod(work, 0o755)
    paths = {"$CACHE2": os.path.join(work, "cache2"), "$CACHE": os.path.join(work, "cache"),
             "$WORK": work, **kind.get("vars", {}).get(release, {})}
    for p in ("cache", "cache2"):
        os.makedirs(paths["$" + p.upper()], mode=0o755)
    if kind.get("cap") == "one_entry":
        paths["$MAXSIZE"] = str(_cap_for_one_entry(kind, release, work))
    facts: dict[str, list] = {}
    letters = "abcdefgh"
    runs = list(enumerate(kind["runs"]))
    port = _free_port()
    while runs:
        # Runs of one "together" group (the processes of one multi-process
        # run) start at once; the others one after another.
        group = [runs.pop(0)]
        tag = group[0][1].get("together")
        while tag is not None and runs and runs[0][1].get("together") == tag:
            group.append(runs.pop(0))
        procs = []
        for i, r in group:
            spec = _subst(r["spec"], paths)
            if "distributed" in spec:
                spec["distributed"]["port"] = port
            log = r.get("log", letters[i])
            home = os.path.join(work, f"home-{i}")
            os.makedirs(home)
            os.chmod(home, 0o777)
            cwd = os.path.join(work, r.get("cwd", "."))
            os.makedirs(cwd, exist_ok=True)
            os.chmod(cwd, 0o777)
            if r.get("before"):
                _before(r["before"], paths["$CACHE"], paths["$CACHE2"])
            env = _run_env(spec, home)
            env.update(_subst(r.get("env", {}), paths))
            if (spec.get("deviceless") or {}).get("platform") == "tpu":
                # libtpu takes /tmp/libtpu_lockfile for the whole process unless told
                # otherwise (its "Internal error when accessing libtpu multi-process
                # lockfile" when two oracle jobs, or another TPU oracle, start at once);
                # a deviceless topology uses no TPU, so many may load it, as JAX's own
                # test_multiprocess.py allows.
                env["ALLOW_MULTIPLE_LIBTPU_LOAD"] = "1"
            run_release = r.get("release", release)
            py = python_for(run_release, r.get("python"), (spec.get("deviceless") or {}).get("platform"))
            overlay = pip_overlay(kind, run_release, py)
            if overlay:
                env["PYTHONPATH"] = overlay
            program = PROGRAM
            if r.get("script") == "copy":
                # A copy of the program in the run's working directory,
                # started by its relative path (python program.py).
                shutil.copy(PROGRAM, os.path.join(cwd, "program.py"))
                program = "program.py"
            cmd = [py, program, *_subst(r.get("argv", []), paths)]
            if kind.get("capture"):
                # The run under the project's capture tool (python/cachekey/capture.py):
                # every compilation's ingredients, for `cachekey diff`.
                env["PYTHONPATH"] = os.pathsep.join(
                    [os.path.join(ROOT, "python")] + ([overlay] if overlay else []))
                cmd = [py, "-m", "cachekey.capture", "--out", os.path.join(work, "capture-" + log),
                       "--", program, *_subst(r.get("argv", []), paths)]
            if r.get("readonly_cache"):
                # The cache folder mounted read-only for this run alone (a
                # private mount namespace): every write fails with EROFS.
                if os.geteuid() != 0 or not shutil.which("unshare"):
                    raise Skip(f"run {i} needs a read-only mount: root and unshare(1)")
                cmd = ["unshare", "--mount", "sh", "-c",
                       'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"',
                       paths["$CACHE"]] + cmd
            # ``stdout``: the run's stdout goes into its log too (2>&1).
            if r.get("stdout"):
                p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
            else:
                p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
            procs.append((i, r, log, env, p))
        port += 1
        lock = threading.Lock()
        tails: dict[int, list] = {}

        def pump(i, r, log, p):
            # Each line as it comes, with the run's launcher prefix, appended
            # to its log: processes sharing a log interleave as under srun.
            with open(os.path.join(work, log + ".log"), "a", encoding="utf-8") as f:
                for raw in (p.stderr if p.stderr is not None else p.stdout):
                    line = raw.decode("utf-8", "replace")
                    tails.setdefault(i, []).append(line)
                    with lock:
                        f.write(r.get("label", "") + line)
                        f.flush()

        threads = [threading.Thread(target=pump, args=(i, r, log, p)) for i, r, log, _, p in procs]
        for t in threads:
            t.start()
        for (i, r, log, env, p), t in zip(procs, threads):
            try:
                p.wait(timeout=600)
            except subprocess.TimeoutExpired:
                for *_, q in procs:
                    q.kill()
                raise
            t.join()
            if p.returncode != 0:
                raise RuntimeError(f"run {i} ({log}.log) exited {p.returncode}: "
                                   + "".join(tails.get(i, []))[-600:])
            if not os.path.exists(env["CK_FACTS"]):
                raise RuntimeError(f"run {i} ({log}.log) wrote no facts: "
                                   + "".join(tails.get(i, []))[-600:])
            with open(env["CK_FACTS"], encoding="utf-8") as f:
                facts.setdefault(log, []).append(json.load(f))
    return facts


OVERLAY_ROOT = os.environ.get("CACHEKEY_OVERLAY_ROOT", "/var/cache/cachekey/overlays")
_overlay_lock = threading.Lock()


def pip_overlay(kind: dict, release: str, py: str) -> str:
    """The folder of the kind's ``pip`` packages for ``release``'s Python
    (``pip install --target``, once, from PyPI), put on the run's PYTHONPATH:
    the release venv itself stays as it is. Empty when the kind needs none."""
    pkgs = kind.get("pip")
    if not pkgs:
        return ""
    out = subprocess.run([py, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    path = os.path.join(OVERLAY_ROOT, f"py{out}-" + "-".join(sorted(pkgs)))
    with _overlay_lock:
        if not os.path.exists(os.path.join(path, ".complete")):
            shutil.rmtree(path, ignore_errors=True)
            proc = subprocess.run([py, "-m", "pip", "install", "--quiet", "--target", path, *pkgs],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if proc.returncode != 0:
                raise Skip(f"pip install {' '.join(pkgs)} failed: {proc.stdout[-300:]}")
            open(os.path.join(path, ".complete"), "w").close()
    return path


def _free_port() -> int:
    """A TCP port free on 127.0.0.1 now (for jax.distributed's coordinator)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reused(kind: dict, work: str):
    """The facts of runs an earlier call left in ``work`` (``--reuse``), or None
    when a run's facts, log or capture are missing: then the runs are made again."""
    letters = "abcdefgh"
    facts: dict[str, list] = {}
    for i, r in enumerate(kind["runs"]):
        log = r.get("log", letters[i])
        path = os.path.join(work, f"home-{i}", "facts.json")
        if not os.path.exists(path) or not os.path.exists(os.path.join(work, log + ".log")):
            return None
        if kind.get("capture") and not os.path.isdir(os.path.join(work, "capture-" + log)):
            return None
        with open(path, encoding="utf-8") as f:
            facts.setdefault(log, []).append(json.load(f))
    return facts


def engine_json(engine: str, args: list[str], work: str, name: str):
    """Runs ``cachekey ARGS --json`` in ``work``; (exit status, parsed JSON or None, stderr)."""
    proc = subprocess.run([engine, *args, "--json"], cwd=work, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=300, check=False)
    with open(os.path.join(work, name), "wb") as f:
        f.write(proc.stdout)
    try:
        doc = json.loads(proc.stdout)
    except ValueError:
        doc = None
    return proc.returncode, doc, proc.stderr.decode("utf-8", "replace")


def expectation(kind: dict, release: str) -> dict:
    """The kind's expectations on ``release`` (``by_release`` members replace the rest)."""
    exp = {k: v for k, v in kind["expect"].items() if k != "by_release"}
    exp.update(kind["expect"].get("by_release", {}).get(release, {}))
    return exp


def _pattern(table: dict, name: str, label: str):
    """The code ``table`` expects of a pair: by its name, else by a key that
    is part of its label (a process tag such as ``[rank1]``), else "*"."""
    if name in table:
        return table[name]
    for key, code in table.items():
        if key != "*" and key in label:
            return code
    return table.get("*")


def check(kind: dict, release: str, doc, status: int, facts: dict, logs: list[str]) -> list[str]:
    """Every way the comparison's codes differ from the kind's expectations (empty: pass)."""
    exp = expectation(kind, release)
    bad = []
    if doc is None:
        return [f"compare-logs gave no JSON (exit {status})"]
    if exp.get("error") is not None or "error" in doc:
        want = exp.get("error")
        got = doc.get("error")
        if want is None:
            return [f"compare-logs refused the logs: {got.get('code')} in {got.get('path')}"]
        if got is None:
            return [f"compare-logs compared the logs; expected the error {want}"]
        if got.get("code") != want["code"] or os.path.basename(got.get("path", "")) != want["path"]:
            return [f"error {got.get('code')} in {got.get('path')}, expected {want['code']} in {want['path']}"]
        if want.get("subject") is not None and got.get("subject") != want["subject"]:
            return [f"error subject {got.get('subject')!r}, expected {want['subject']!r}"]
        if status != 2:
            return [f"error exit status {status}, expected 2"]
        return []
    many = len(logs) > 2
    # Each log's counts against what JAX counted (jax.monitoring events).
    for i, log in enumerate(logs):
        got = doc["logs"][i] if i < len(doc.get("logs", [])) else None
        if got is None:
            bad.append(f"{log}.log: not in the result")
            continue
        got = got.get("stats", got)  # N logs: {"name", "stats"}
        want = exp.get("programs", {}).get(log)
        if want is None:
            want = sum(f["compile_requests_use_cache"] for f in facts[log])
            hits = sum(f["cache_hits"] for f in facts[log])
            if got.get("hits") != hits:
                bad.append(f"{log}.log: hits {got.get('hits')}, JAX counted {hits}")
        if got.get("programs") != want:
            bad.append(f"{log}.log: programs {got.get('programs')}, expected {want}")
    advice = [a["code"] for a in doc.get("what_to_do", [])]
    if exp.get("advice_any") and not set(advice) & set(exp["advice_any"]):
        bad.append(f"advice {sorted(set(advice))} has none of {exp['advice_any']}")
    if exp.get("advice") is not None and sorted(set(advice)) != sorted(set(exp["advice"])):
        bad.append(f"advice {sorted(set(advice))}, expected {sorted(exp['advice'])}")
    for code in exp.get("advice_has", []):
        if code not in advice:
            bad.append(f"advice {sorted(set(advice))} lacks {code}")
    for code in exp.get("advice_lacks", []):
        if code in advice:
            bad.append(f"advice {sorted(set(advice))} has {code}")
    for code, n in exp.get("advice_items", {}).items():
        if advice.count(code) != n:
            bad.append(f"advice {code}: {advice.count(code)} items, expected {n}")
    for code, entry in exp.get("advice_entry", {}).items():
        entries = sorted({a.get("entry") for a in doc.get("what_to_do", []) if a["code"] == code})
        if entries != [entry]:
            bad.append(f"advice {code} entries {entries}, expected [{entry}]")
    if many:
        # The N-run verdict (ManyLogVerdict): its code.
        got = (doc.get("verdict") or {}).get("code")
        if exp.get("many_verdict") and got != exp["many_verdict"]:
            bad.append(f"verdict {got}, expected {exp['many_verdict']}")
        return bad
    # The exit status a script reads: 1 when some pair's keys differ or run B
    # missed, by JAX's own counts (compile requests that used the cache less
    # its hits; its "cache_misses" event counts writes, not misses), else 0.
    # Not where the kind says the log shows other programs than JAX counted
    # ("programs").
    b = logs[-1]
    if exp.get("programs", {}).get(b) is None:
        missed = sum(f["compile_requests_use_cache"] - f["cache_hits"] for f in facts[b])
        differ = any(p.get("keys") == "differ" for p in doc.get("pairs", []))
        want = 1 if differ or missed > 0 else 0
        if status != want:
            bad.append(f"exit status {status}, expected {want} (keys differ: {differ}; "
                       f"JAX counted {missed} misses in {b}.log)")
    # The root cause's findings (the comparison's details and other_details):
    # codes that must be among them (e.g. backend_decoded: entry 3 read back).
    found = doc.get("findings") or {}
    detail_codes = [f.get("code") for f in found.get("details", []) + found.get("other_details", [])]
    for code in exp.get("details_has", []):
        if code not in detail_codes:
            bad.append(f"findings {detail_codes} lack {code}")
    if "flag_kinds" in exp:
        kinds = sorted({(f.get("flag") or {}).get("kind") for f in found.get("details", []) + found.get("other_details", [])
                        if isinstance(f.get("flag"), dict)} - {None})
        if kinds != sorted(exp["flag_kinds"]):
            bad.append(f"flag kinds {kinds}, expected {sorted(exp['flag_kinds'])}")
    if "cause" in exp and (doc.get("cause") or 0) != exp["cause"]:
        bad.append(f"cause {doc.get('cause')}, expected {exp['cause']}")
    for member, key in (("verdict", "verdict"), ("move", "move"), ("miss", "miss"),
                        ("outcome_a", "outcome_a"), ("outcome_b", "outcome_b")):
        table = exp.get(member)
        if not table:
            continue
        for p in doc.get("pairs", []):
            want = _pattern(table, p.get("name") or "", p.get("label") or "")
            if (member == "outcome_a" and p.get("in") == "b") or (member == "outcome_b" and p.get("in") == "a"):
                continue  # no outcome in a run the program is not in
            f = (p.get("findings") or {}).get(key)
            got = f.get("code") if isinstance(f, dict) else None
            if want is not None and got != want:
                bad.append(f"{p.get('label')}: {member} {got}, expected {want}")
        if not doc.get("pairs"):
            bad.append(f"no pairs to check {member} on")
    # A program only in run B: whether run A compiled its name with these
    # argument shapes (the verdict's shapes_in_a, absent for other codes).
    for p in doc.get("pairs", []) if exp.get("shapes_in_a") else []:
        want = _pattern(exp["shapes_in_a"], p.get("name") or "", p.get("label") or "")
        got = ((p.get("findings") or {}).get("verdict") or {}).get("shapes_in_a")
        if want is not None and got != want:
            bad.append(f"{p.get('label')}: shapes_in_a {got}, expected {want}")
    # A program only in run B that may be one of run A's under a new name
    # (the verdict's renamed_from: that program's label).
    for p in doc.get("pairs", []) if exp.get("renamed_from") else []:
        want = exp["renamed_from"].get(p.get("name") or "")
        got = ((p.get("findings") or {}).get("verdict") or {}).get("renamed_from")
        if want is not None and got != want:
            bad.append(f"{p.get('label')}: renamed_from {got}, expected {want}")
    return bad


def check_diff(exp: dict, doc, status: int, err: str) -> list[str]:
    """The codes of ``cachekey diff capture-a capture-b --json`` against ``exp``:
    ``cause`` (every differing program's root-cause entry) and ``field`` (a
    detail of each, of its cause or of another moved entry, names that
    CompileOptionsProto / DebugOptions field)."""
    if doc is None:
        return [f"diff gave no JSON (exit {status}): {err.strip()[-200:]}"]
    bad = []
    differing = doc.get("differing", [])
    if "cause" in exp and not differing:
        bad.append("diff: no program differs")
    for d in differing:
        c = d.get("comparison", {})
        if "cause" in exp and c.get("cause") != exp["cause"]:
            bad.append(f"diff {d.get('program')}: cause {c.get('cause')}, expected {exp['cause']}")
        if "field" in exp:
            found = c.get("findings", {})
            names = [(f.get("field") or {}).get("name")
                     for f in found.get("details", []) + found.get("other_details", [])]
            if exp["field"] not in names:
                bad.append(f"diff {d.get('program')}: fields {names}, expected {exp['field']}")
    return bad


def run_kind(kind: dict, release: str, args) -> tuple[str, list[str], float]:
    """Makes ``kind``'s runs on ``release`` and checks them: ("pass"/"fail"/"skip", problems, seconds)."""
    t0 = time.time()
    work = os.path.join(args.work, release, kind["id"].replace("/", "-"))
    if release in kind.get("skip", {}):
        return "skip", [kind["skip"][release]], 0.0
    try:
        facts = reused(kind, work) if args.reuse else None
        if facts is None:
            facts = make_runs(kind, release, work)
    except Skip as e:
        return "skip", [str(e)], time.time() - t0
    except (RuntimeError, OSError, ValueError, subprocess.TimeoutExpired) as e:
        return "fail", [f"the real run failed: {e}"], time.time() - t0
    logs = kind.get("compare", ["a", "b"])
    status, doc, err = engine_json(args.engine, ["compare-logs", *[l + ".log" for l in logs]],
                                   work, "compare-logs.json")
    bad = check(kind, release, doc, status, facts, logs)
    if doc is None and err.strip():
        bad.append("stderr: " + err.strip()[-300:])
    if kind.get("capture"):
        dstatus, ddoc, derr = engine_json(args.engine, ["diff", "capture-a", "capture-b"], work,
                                          "diff.json")
        bad += check_diff(expectation(kind, release).get("diff", {}), ddoc, dstatus, derr)
    cstatus, cdoc, cerr = engine_json(args.engine, ["cache-dir", "cache"], work, "cache-dir.json")
    if cdoc is None:
        bad.append(f"cache-dir gave no JSON (exit {cstatus}): {cerr.strip()[-200:]}")
    return ("fail" if bad else "pass"), bad, time.time() - t0


def write_doc(results: list, elapsed: float, reused: bool = False, before: str = "") -> None:
    """docs/diag-oracle.md: every kind, its releases and its last result."""
    by_kind: dict[str, dict] = {}
    for kind, release, verdict, problems, _ in results:
        by_kind.setdefault(kind["id"], {})[release] = (verdict, problems)
    passed = sum(1 for r in results if r[2] == "pass")
    failed = sum(1 for r in results if r[2] == "fail")
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# The diagnosis oracle: every kind of miss, made real",
        "",
        "`tools/diag-oracle` runs each kind of `tests/diag_oracle/catalogue.py` with the real",
        "jax of each release it lists (tests/oracle/venvs.py's venvs), then checks the codes of",
        "`cachekey compare-logs --json` (root cause, each pair's verdict and outcomes, the",
        "`what_to_do` codes, each log's program and hit counts against JAX's own",
        "`jax.monitoring` counts) and that `cachekey cache-dir --json` reads the kind's cache folder.",
        "Expectations come from each kind's change and JAX's behaviour (its `why`), never from the tool.",
        "",
        "```sh",
        "tools/diag-oracle --sample            # scripts/test: the kinds marked sample",
        "tools/diag-oracle --all --write-doc   # every kind; rewrites this file",
        "tools/diag-oracle --all --reuse --write-doc --engine BIN  # the same runs, another engine",
        "tools/diag-oracle --only cache/damaged --release 0.10.2",
        "```",
        "",
        f"Last full run ({when}, generated by `tools/diag-oracle --all --write-doc`, {elapsed:.0f} s on the",
        f"shared 2-core machine{'; the real runs made by an earlier call, checked again with --reuse' if reused else ''}):"
        f" **{passed} passed, {failed} failed**"
        + (f" ({100.0 * passed / (passed + failed):.1f}%)" if passed + failed else "") + "."
        + (f" {before}" if before else ""),
        "",
        "| kind | sample | " + " | ".join(catalogue.ALL) + " | what changes |",
        "|---|---|" + "---|" * len(catalogue.ALL) + "---|",
    ]
    for kind in catalogue.KINDS:
        cells = []
        for rel in catalogue.ALL:
            if rel not in kind["releases"]:
                cells.append("–")
                continue
            verdict, problems = by_kind.get(kind["id"], {}).get(rel, ("not run", []))
            if verdict == "fail":
                known = kind.get("known", {}).get(rel) or kind.get("known", {}).get("*")
                cell = "**fail**: " + "; ".join(problems)[:300].replace("|", "/")
                cells.append(cell + (f" (why: {known})" if known else ""))
            elif verdict == "skip" and problems:
                cells.append("skip: " + "; ".join(problems)[:300].replace("|", "/"))
            else:
                cells.append(verdict)
        lines.append(f"| `{kind['id']}` | {'yes' if kind.get('sample') else ''} | " + " | ".join(cells)
                     + f" | {kind['why'].replace('|', '/')} |")
    lines += [
        "",
        "## Not in the catalogue yet",
        "",
        "Kinds of issue 34 this catalogue does not make real yet, each a catalogue entry to add:",
        "jax_enable_pgle (its second, profile-guided lookup), and a move between a TPU and a GPU",
        "backend in one cache folder (no venv holds both libtpu and the CUDA plugin).",
        "",
    ]
    with open(DOC, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--sample", action="store_true", help="the kinds marked sample (scripts/test)")
    g.add_argument("--all", action="store_true", help="every kind on every release it lists")
    g.add_argument("--only", nargs="+", metavar="KIND", help="these kinds (ids of catalogue.py)")
    ap.add_argument("--release", action="append", help="only these releases (repeatable)")
    ap.add_argument("--engine", default=os.environ.get("CACHEKEY_BIN",
                                                       os.path.join(ROOT, "build", "native", "bin", "cachekey")))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "diag-oracle"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--reuse", action="store_true",
                    help="check the runs an earlier call left in --work again (no JAX runs "
                         "where every run's log and facts are there): the same real logs "
                         "against another engine")
    ap.add_argument("--write-doc", action="store_true", help="write docs/diag-oracle.md")
    ap.add_argument("--doc-note", default="", help="a sentence added after the result in the doc")
    args = ap.parse_args(argv)
    if not os.access(args.engine, os.X_OK):
        print(f"diag-oracle: no engine at {args.engine} (build it, or --engine PATH)", file=sys.stderr)
        return 2
    args.work = os.path.abspath(args.work)
    kinds = [k for k in catalogue.KINDS
             if args.all or (args.sample and k.get("sample")) or (args.only and k["id"] in args.only)]
    if args.only:
        unknown = set(args.only) - {k["id"] for k in kinds}
        if unknown:
            print(f"diag-oracle: unknown kinds {sorted(unknown)}", file=sys.stderr)
            return 2
    # The sample runs the two releases scripts/test sets up (.venv's 0.10.2
    # and the 0.12.0.1 venv); --release or --all widen it.
    releases = args.release or (SAMPLE_RELEASES if args.sample else None)
    jobs = [(k, rel) for k in kinds for rel in k["releases"]
            if not releases or rel in releases]
    # Build (or find) each venv once, before the parallel runs.
    for rel in sorted({rel for _, rel in jobs}):
        try:
            python_for(rel)
        except Skip as e:
            print(f"diag-oracle: {e}", file=sys.stderr)
    t0 = time.time()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_kind, k, rel, args): (k, rel) for k, rel in jobs}
        for fut in concurrent.futures.as_completed(futures):
            k, rel = futures[fut]
            verdict, problems, secs = fut.result()
            results.append((k, rel, verdict, problems, secs))
            print(f"{verdict.upper():4} {k['id']} [jax {rel}] ({secs:.1f} s)"
                  + "".join(f"\n       {p}" for p in problems), flush=True)
    passed = sum(1 for r in results if r[2] == "pass")
    failed = sum(1 for r in results if r[2] == "fail")
    skipped = sum(1 for r in results if r[2] == "skip")
    elapsed = time.time() - t0
    pct = 100.0 * passed / (passed + failed) if passed + failed else 0.0
    if args.write_doc:
        write_doc(results, elapsed, args.reuse, args.doc_note)
    print(f"{passed} passed, {failed} failed, {skipped} skipped ({pct:.1f}% of {passed + failed}) "
          f"in {elapsed:.0f} s")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
