"""What every capture records about itself, and how its JSON is written.

A fixture's ``provenance`` says when, where and by what it was captured: the
date (UTC), the Python and package versions, the machine, the command, and,
for captures whose keys can depend on this code's own source (module
locations), a digest of that code.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform


def utc_now() -> str:
    """The current UTC time, ISO 8601 to the second (``2026-11-30T22:08:40+00:00``)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def run_provenance(command: str, jax_version: str, jaxlib_version: str, **extra) -> dict:
    """The provenance every captured file starts with: the command, the time,
    Python, jax and jaxlib versions and the machine, then ``extra`` in order."""
    return {"command": command, "date": utc_now(), "python": platform.python_version(),
            "jax": jax_version, "jaxlib": jaxlib_version, "platform": " ".join(platform.uname()),
            **extra}


def host_cpu_note() -> str:
    """Model name from /proc/cpuinfo (the LLVM CPU name is in the topology)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def versions() -> dict:
    """Python's version, the versions of the packages a capture depends on
    (None when not installed) and ``uname``."""
    from importlib import metadata
    out = {"python": platform.python_version()}
    for dist in ("jax", "jaxlib", "libtpu", "numpy", "ml_dtypes", "zstandard"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    out["platform"] = " ".join(platform.uname())
    return out


def code_sha256(directory: str) -> str:
    """SHA-256 over the ``*.py`` files of ``directory`` (not recursive), in
    name order, each as its name, a NUL byte, its length in decimal, a NUL
    byte and its bytes: one digest of the code that made a capture."""
    h = hashlib.sha256()
    for name in sorted(n for n in os.listdir(directory) if n.endswith(".py")):
        with open(os.path.join(directory, name), "rb") as f:
            data = f.read()
        h.update(name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()


def write_json(path: str, obj) -> None:
    """Writes ``obj`` as UTF-8 JSON (indent 1, non-ASCII kept) and a newline,
    creating the parent directory."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write("\n")
