"""The engine carried by the wheel: the native ``cachekey`` CLI and its fixtures.

The wheel (built with scikit-build-core from the repository's CMake, MLIR off)
puts the executable at ``cachekey/_bin/cachekey`` and the fixtures it resolves
scenario ids against at ``cachekey/fixtures``.  ``main`` is the ``cachekey``
command that ``pip install`` puts on PATH; ``compare_logs`` and ``diff`` run
the same executable with ``--json`` and return its parsed JSON.
"""

from __future__ import annotations

import json as _json
import os
import subprocess
import sys
from typing import Any, Iterable, Sequence

_HERE = os.path.dirname(os.path.abspath(__file__))


class EngineError(Exception):
    """The engine refused its input.

    ``code``, ``path`` and ``message`` are the engine's own error fields (its
    ``{"error": {code, path, message}}`` under ``--json``): ``code`` is one of
    the engine's error codes ("io", "usage", "parse", ...), ``path`` the JSON
    path or file it concerns ("" when none), ``message`` what went wrong.
    ``status`` is the CLI's exit status and ``stderr`` what it wrote there.
    """

    def __init__(self, code: str, path: str, message: str, status: int = 2, stderr: str = ""):
        self.code, self.path, self.message = code, path, message
        self.status, self.stderr = status, stderr
        where = f" ({path})" if path else ""
        super().__init__(f"cachekey engine: {code}{where}: {message}")


def binary() -> str:
    """Path of the bundled ``cachekey`` executable.

    Raises ``EngineError`` (code "no-engine") when this install has none, as a
    ``pip install`` of a source tree without a C++ build would.
    """
    path = os.path.join(_HERE, "_bin", "cachekey")
    if not os.access(path, os.X_OK):
        raise EngineError("no-engine", path,
                          "this cachekey install carries no engine executable; install the "
                          "cachekey wheel (scripts/build-wheel) or use build/native/bin/cachekey")
    return path


def _env() -> dict:
    env = dict(os.environ)
    fixtures = os.path.join(_HERE, "fixtures")
    if "CACHEKEY_FIXTURES" not in env and os.path.isdir(fixtures):
        env["CACHEKEY_FIXTURES"] = fixtures
    return env


def main() -> None:
    """The ``cachekey`` command: replaces this process with the bundled CLI."""
    try:
        exe = binary()
    except EngineError as e:
        print(f"cachekey: {e.message}", file=sys.stderr)
        sys.exit(2)
    os.execve(exe, [exe] + sys.argv[1:], _env())


def run(args: Sequence[str], *, check_json: bool = True) -> Any:
    """Runs the bundled CLI with ``args`` (which should include ``--json``).

    Returns the parsed JSON it wrote to stdout when it exits 0 or 1 (1 means
    "the keys differ", a finding, not an error).  Raises ``EngineError`` with
    the engine's {code, path, message} when it exits 2 (its JSON error), or
    code "engine-failed" for any other exit or output that is not JSON.
    """
    exe = binary()
    p = subprocess.run([exe, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    if not check_json:
        if p.returncode not in (0, 1):
            raise EngineError("engine-failed", "", err.strip() or f"exit status {p.returncode}",
                              p.returncode, err)
        return out
    try:
        doc = _json.loads(out)
    except ValueError:
        raise EngineError("engine-failed", "",
                          f"exit status {p.returncode} without JSON on stdout: {err.strip()}",
                          p.returncode, err) from None
    if p.returncode == 2 and isinstance(doc, dict) and isinstance(doc.get("error"), dict):
        e = doc["error"]
        raise EngineError(str(e.get("code", "")), str(e.get("path", "")), str(e.get("message", "")),
                          p.returncode, err)
    if p.returncode not in (0, 1):
        raise EngineError("engine-failed", "", f"exit status {p.returncode}: {err.strip()}",
                          p.returncode, err)
    return doc


def compare_logs(paths: Iterable[str], *, json: bool = True) -> Any:
    """Compares two JAX logs (``JAX_DEBUG_LOG_MODULES=jax._src.cache_key`` runs).

    ``paths``: the two log files, earlier run first (``os.PathLike`` too).
    Returns the engine's ``compare-logs --json`` document as a dict: its
    programs paired across the runs, each with the engine's findings
    (``{code, fields, text}``) for the cache-key entries that changed.  With
    ``json=False`` returns the engine's text report (a str) instead.
    Raises ``EngineError`` (the engine's {code, path, message}) for an
    unreadable or unparseable log, and ``ValueError`` unless two paths are given.
    """
    files = [os.fspath(p) for p in paths]
    if len(files) != 2:
        raise ValueError(f"compare_logs takes two log paths, got {len(files)}")
    if not json:
        return run(["compare-logs", *files], check_json=False)
    return run(["compare-logs", *files, "--json"])


def diff(a: str, b: str) -> dict:
    """Diffs two scenarios (JSON files), or two captured runs (directories).

    ``a``, ``b``: scenario files (fixture ids inside resolve against the
    fixtures in the wheel, or ``$CACHEKEY_FIXTURES``), or two directories
    written by ``python -m cachekey.capture``.
    Returns the engine's ``diff --json`` document as a dict: both keys and the
    findings (``{code, fields, text}``) for what differs between them.
    Raises ``EngineError`` (the engine's {code, path, message}) when a side
    cannot be read or is not a valid scenario or capture.
    """
    return run(["diff", os.fspath(a), os.fspath(b), "--json"])
