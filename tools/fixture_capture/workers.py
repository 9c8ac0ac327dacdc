"""Worker processes: each capture runs in a fresh interpreter.

A program's environment (``XLA_FLAGS`` with a forced host device count,
``JAX_PLATFORMS``) must be in place before JAX starts, and one capture must
not see another's compilations, so the orchestrators start one child per
program: ``python -m <module> --worker ID --worker-out PATH --command C``.
"""

from __future__ import annotations

import os
import subprocess
import sys

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(TOOLS)


def child_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` with this package (tools/) and the ``cachekey`` package
    (python/) first on ``PYTHONPATH``, so that the child imports this
    checkout's code, not an installed copy."""
    paths = [TOOLS, os.path.join(REPO, "python")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    return {**env, "PYTHONPATH": os.pathsep.join(paths)}


def worker_command(module: str, worker: str, out_path: str, command: str) -> list[str]:
    """The command line of one worker of ``module`` under this interpreter."""
    return [sys.executable, "-m", module, "--worker", worker,
            "--worker-out", out_path, "--command", command]


def run_worker(module: str, worker: str, out_path: str, command: str,
               env: dict[str, str], **kwargs) -> subprocess.CompletedProcess:
    """Runs one worker to completion (``subprocess.run`` keyword arguments
    pass through) and returns the completed process."""
    return subprocess.run(worker_command(module, worker, out_path, command),
                          env=child_env(env), **kwargs)
