"""The engine the wheel carries: the native ``cachekey`` CLI.

The wheel (built with scikit-build-core from the repository's CMake, MLIR off)
installs the executable itself as the ``cachekey`` command (the scripts
directory, ``<prefix>/bin``) and the fixtures it resolves scenario ids against
in ``<prefix>/share/cachekey/fixtures``, which it finds from its own path.
``compare_logs`` and ``diff`` run that executable with ``--json`` and return
its parsed JSON.
"""

from __future__ import annotations

import json as _json
import os
import subprocess
import sysconfig
from typing import Any, Iterable, Optional, Sequence


class EngineError(Exception):
    """The engine refused its input.

    ``code``, ``path`` and ``message`` are the engine's own error fields (its
    ``{"error": {code, path, message, source?}}`` under ``--json``): ``code``
    is one of the engine's error codes ("io", "usage", "parse", ...), ``path``
    the JSON path inside the input it concerns ("" when none), ``message``
    what went wrong, and ``source`` the file it concerns ("" when none).
    ``status`` is the CLI's exit status and ``stderr`` what it wrote there.
    """

    def __init__(self, code: str, path: str, message: str, status: int = 2, stderr: str = "",
                 source: str = ""):
        self.code, self.path, self.message, self.source = code, path, message, source
        self.status, self.stderr = status, stderr
        where = ": ".join(x for x in (source, path) if x)
        super().__init__(f"cachekey engine: {code}: " + (f"{where}: " if where else "") + message)


def _installed_command() -> Optional[str]:
    """The ``cachekey`` executable this distribution installed, from its RECORD."""
    try:
        from importlib import metadata
        dist = metadata.distribution("cachekey")
    except Exception:  # not installed as a distribution (a source checkout)
        return None
    for f in dist.files or []:
        parts = f.parts
        if parts[-1] == "cachekey" and len(parts) >= 2 and parts[-2] == "bin":
            return os.path.normpath(str(dist.locate_file(f)))
    return None


def binary() -> str:
    """Path of the wheel's ``cachekey`` executable.

    ``$CACHEKEY_ENGINE`` when set (a source checkout: ``build/native/bin/cachekey``);
    else found through this distribution's install record (so a ``--user`` or
    venv install finds its own), else in the interpreter's scripts directory.
    Raises ``EngineError`` (code "no-engine") when there is none.
    """
    candidates = [os.environ.get("CACHEKEY_ENGINE"), _installed_command(),
                  os.path.join(sysconfig.get_path("scripts"), "cachekey")]
    for path in candidates:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise EngineError("no-engine", "",
                      "no cachekey executable was installed with this cachekey package; install "
                      "the cachekey wheel (scripts/build-wheel in the repository), or use "
                      "build/native/bin/cachekey")


def run(args: Sequence[str], *, check_json: bool = True, stdin: Optional[bytes] = None) -> Any:
    """Runs the bundled CLI with ``args`` (which should include ``--json``).

    ``stdin``: bytes for its standard input (a scenario argument of ``-``).

    Returns the parsed JSON it wrote to stdout when it exits 0 or 1 (1 means
    "the keys differ", a finding, not an error).  Raises ``EngineError`` with
    the engine's {code, path, message} when it exits 2 (its JSON error), or
    code "engine-failed" for any other exit or output that is not JSON.
    """
    exe = binary()
    p = subprocess.run([exe, *args], input=stdin if stdin is not None else b"",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
                          p.returncode, err, str(e.get("source", "")))
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
    fixtures the wheel installed, or ``$CACHEKEY_FIXTURES``), or two directories
    written by ``python -m cachekey.capture``.
    Returns the engine's ``diff --json`` document as a dict: both keys and the
    findings (``{code, fields, text}``) for what differs between them.
    Raises ``EngineError`` (the engine's {code, path, message}) when a side
    cannot be read or is not a valid scenario or capture.
    """
    return run(["diff", os.fspath(a), os.fspath(b), "--json"])
