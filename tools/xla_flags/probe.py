"""Runs XLA's own XLA_FLAGS parser in forked children of one jaxlib process.

XLA parses ``XLA_FLAGS`` once, the first time a process asks for
``DebugOptions`` from flags (``GetDebugOptionsFromFlags`` in
xla/debug_options_flags.cc, reached when ``CompileOptions`` is built), and
aborts the process on a flag it does not know or a value it cannot parse
(``ParseFlagsFromEnvAndDieIfUnknown``, xla/parse_flags_from_env.cc).  So each
probe is a fork of a parent that imported jax but never built compile
options: the child sets ``XLA_FLAGS``, builds compile options the way JAX
does (``jax._src.compiler.get_compile_options(1, 1)``) and sends back the
serialized bytes and DebugOptions' text format, or dies; the parent reads
why from the child's stderr.

Measured here (jaxlib 0.10.2 and 0.12.0.1, CPU): importing jax does not parse
XLA_FLAGS, and a fork costs about 30 ms.
"""

from __future__ import annotations

import os
import pickle
import re

# XLA's two ways of refusing XLA_FLAGS, as its log lines spell them.
UNKNOWN_RE = re.compile(r"Unknown flags? in XLA_FLAGS: (.*)")
BAD_VALUE_MARK = "Flag parsing failed"


class Prober:
    """One jaxlib process; ``probe(flags)`` forks a child per call."""

    def __init__(self, with_topology: bool = False):
        import jax  # noqa: F401 - imported before forking, backend not started
        from jax._src import compiler

        self.compiler = compiler
        self.with_topology = with_topology

    def _child(self, flags: str, w: int) -> None:
        os.environ["XLA_FLAGS"] = flags
        options = self.compiler.get_compile_options(1, 1)
        dbg = options.executable_build_options.debug_options
        out = {"bytes": options.SerializeAsString(), "text": str(dbg)}
        if self.with_topology:
            out["topology"] = cpu_topology()
        os.write(w, pickle.dumps(out))

    def probe(self, flags: str) -> dict:
        """{"ok": True, "bytes", "text"[, "topology"]} or {"ok": False,
        "reason": "unknown" | "bad_value" | "died", "message"}."""
        r, w = os.pipe()
        er, ew = os.pipe()
        pid = os.fork()
        if pid == 0:  # child
            try:
                os.close(r)
                os.close(er)
                os.dup2(ew, 2)
                self._child(flags, w)
            finally:
                os._exit(0)
        os.close(w)
        os.close(ew)
        data = _read_all(r)
        err = _read_all(er).decode("utf-8", "replace")
        _, status = os.waitpid(pid, 0)
        if status == 0 and data:
            out = pickle.loads(data)
            out["ok"] = True
            return out
        m = UNKNOWN_RE.search(err)
        if m:
            return {"ok": False, "reason": "unknown", "message": m.group(0).strip()}
        if BAD_VALUE_MARK in err:
            return {"ok": False, "reason": "bad_value", "message": _first_line(err)}
        return {"ok": False, "reason": "died", "message": _first_line(err)}


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        c = os.read(fd, 1 << 16)
        if not c:
            break
        chunks.append(c)
    os.close(fd)
    return b"".join(chunks)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


def cpu_topology() -> dict:
    """The CPU client's topology as jaxlib hashes it (entry 6): devices and
    the LLVM target machine, rebuilt and checked against ``fingerprint()``
    (cachekey.ref.describe_cpu_topology)."""
    import jax
    import jax.numpy as jnp
    from cachekey import ref as ckref
    from jax._src.lib import xla_client

    devices = jax.devices()
    topology = xla_client.get_topology_for_devices(devices)
    fingerprint = int(topology.fingerprint())
    candidates = ckref.cpu_target_machine_candidates(jax, jnp)
    topo, _ = ckref.describe_cpu_topology(devices[0].client.devices(), candidates, fingerprint)
    return topo


def usage_listing(prober: Prober) -> tuple[list[dict], bool]:
    """The flags XLA's usage text lists (``XLA_FLAGS=--help``), each
    {"name", "type", "default"}, and whether the text was cut.

    tsl's ``Flags::Usage`` (tsl/util/command_line_flags.cc) writes one line
    per flag, ``\\t--name=default\\ttype\\thelp``; XLA logs it in one LOG
    message, which absl cuts at its buffer size (about 15,000 bytes), so the
    listing is the first part of the list only and its last line may be cut.
    """
    r, w = os.pipe()
    er, ew = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            os.close(er)
            os.dup2(ew, 2)
            prober._child("--help", w)
        finally:
            os._exit(0)
    os.close(w)
    os.close(ew)
    _read_all(r)
    err = _read_all(er).decode("utf-8", "replace")
    os.waitpid(pid, 0)
    flags = []
    lines = err.splitlines()
    cut = not lines or not lines[-1].startswith("\t--") or lines[-1].count("\t") < 3
    for line in lines:
        m = re.match(r"^\t--([A-Za-z0-9_]+)=(.*?)\s*\t(bool|int32|int64|float|string)\t(.*)", line)
        if m:
            default = m.group(2)
            if m.group(3) == "string" and len(default) >= 2 and default[0] == default[-1] == '"':
                default = default[1:-1]
            flags.append({"name": m.group(1), "type": m.group(3), "default": default, "help": m.group(4)})
    return flags, cut
