"""One measurement of tools/jax-config-table: compiles the probe programs in
this fresh process, optionally after setting one JAX option, and prints what
JAX's own cache_key.py logged for each program as JSON on stdout.

Run by tools/jax_config/generate.py inside a release's venv, never by hand::

    python probe.py --cache-dir DIR [--option NAME --value-json JSON]

The environment must already hold ``JAX_PLATFORMS=cpu`` and
``XLA_FLAGS=--xla_force_host_platform_device_count=N`` (the sharded probe
needs several host-platform devices).

What is recorded comes from log records only, as a user's DEBUG log shows
them: the records of logger ``jax._src.cache_key`` whose format is
``"get_cache_key hash of serialized %s: %s"`` (the entry's name and the
SHA-256 of that entry alone) and ``"get_cache_key hash after serializing
%s: %s"`` (the running digest), and, from logger ``jax._src.compiler``, the
argument of a record that has the form ``<module name>-<64 hex digits>``
(the final cache key of "PERSISTENT COMPILATION CACHE MISS for '%s' with key
%r" and its hit twin). The records' arguments are read, not their
sentences.

Output (one JSON object)::

    {"ok": true, "jax": "...", "option": NAME|null, "value": ...,
     "set_error": "..."|null,               # config.update refused the value
     "programs": {KIND: {"computations": [{"entries": [[name, digest], ...],
                                            "running": [digest, ...]}],
                         "keys": ["jit_x-<hex>", ...],
                         "error": "..."|null}}}
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import traceback

# The checkout this probe runs from. JAX's errors name the traced function's
# file ("re-tracing function elementwise at …/probe.py:93"); the table keeps
# that place relative to the repository, not the machine's path to it.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def error_text(e: BaseException) -> str:
    """`e` as "Type: message", at most 400 characters, with this checkout's
    absolute path dropped from the places it names."""
    return f"{type(e).__name__}: {e}".replace(REPO, "")[:400]

KEY_ARG = re.compile(r"^[\w.\-]+-[0-9a-f]{64}$")
ENTRY_FORMAT = "get_cache_key hash of serialized %s: %s"
RUNNING_FORMAT = "get_cache_key hash after serializing %s: %s"


class Recorder(logging.Handler):
    """Keeps (logger name, format string, args) of every record it sees."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.records: list[tuple[str, str, tuple]] = []

    def emit(self, record):
        args = record.args if isinstance(record.args, tuple) else (record.args,)
        self.records.append((record.name, str(record.msg), args))


def computations(records) -> tuple[list[dict], list[str]]:
    """Groups the cache_key records into key computations (a new one starts
    at each entry named like the first entry of the first computation) and
    collects the final keys the compiler logged."""
    comps: list[dict] = []
    keys: list[str] = []
    first_name = None
    for name, fmt, args in records:
        if name.endswith("cache_key") and fmt == ENTRY_FORMAT and len(args) == 2:
            entry, digest = str(args[0]), str(args[1])
            if first_name is None:
                first_name = entry
            if entry == first_name or not comps:
                comps.append({"entries": [], "running": []})
            comps[-1]["entries"].append([entry, digest])
        elif name.endswith("cache_key") and fmt == RUNNING_FORMAT and len(args) == 2 and comps:
            comps[-1]["running"].append(str(args[1]))
        elif name.endswith("compiler"):
            for a in args:
                if isinstance(a, str) and KEY_ARG.match(a) and a not in keys[-1:]:
                    keys.append(a)
    return comps, keys


def programs(jax, np):
    """The probe set: kind -> a function that compiles (and runs) it.

    Inputs are NumPy arrays, so that no eager JAX operation compiles a
    program of its own between the probes."""
    jnp = jax.numpy
    x8 = np.arange(8, dtype=np.float32)
    m8 = np.arange(64, dtype=np.float32).reshape(8, 8) / 64

    def elementwise():
        def elementwise(x):
            return jnp.sin(x) * 2 + 1
        return jax.jit(elementwise)(x8)

    def dot():
        def dot(a, b):
            return a @ b
        return jax.jit(dot)(m8, m8)

    def random():
        def random(seed):
            return jax.random.bits(jax.random.PRNGKey(seed), (8,))
        return jax.jit(random)(np.int32(0))

    def sharded():
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        devices = np.array(jax.devices()[:4])
        mesh = Mesh(devices, ("x",))
        s = NamedSharding(mesh, P("x"))
        xs = jax.device_put(x8, s)

        def sharded(x):
            return jnp.tanh(x) * 3
        return jax.jit(sharded, in_shardings=s, out_shardings=s)(xs)

    def donation():
        def donation(x):
            return x * 2
        return jax.jit(donation, donate_argnums=0)(jax.device_put(x8))

    def float_constant():
        c = 2.5

        def float_constant(x):
            return x * c + 1.25
        return jax.jit(float_constant)(x8)

    return {"elementwise": elementwise, "dot": dot, "random": random, "sharded": sharded,
            "donation": donation, "float_constant": float_constant}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache-dir", required=True)
    ap.add_argument("--option")
    ap.add_argument("--value-json", help="the value as JSON; an enum class member is {\"enum\": NAME}")
    args = ap.parse_args(argv)
    import numpy as np
    import jax
    from jax._src import config as jconfig

    out = {"ok": True, "jax": jax.__version__, "option": args.option, "value": None,
           "set_error": None, "programs": {}}
    jax.config.update("jax_compilation_cache_dir", args.cache_dir)
    if args.option:
        value = json.loads(args.value_json)
        if isinstance(value, dict) and "enum" in value:
            holder = jconfig.config._value_holders[args.option]
            value = type(holder.value)[value["enum"]] if holder.value is not None else value["enum"]
        out["value"] = json.loads(args.value_json)
        try:
            jax.config.update(args.option, value)
        except Exception as e:  # the release refused the value: recorded, not fatal
            out["set_error"] = error_text(e)
            print(json.dumps(out))
            return 0
    rec = Recorder()
    for name in ("jax._src.cache_key", "jax._src.compiler"):
        lg = logging.getLogger(name)
        lg.setLevel(logging.DEBUG)
        lg.addHandler(rec)
    for kind, fn in programs(jax, np).items():
        start = len(rec.records)
        err = None
        try:
            jax.block_until_ready(fn())
        except Exception as e:
            err = error_text(e)
        comps, keys = computations(rec.records[start:])
        out["programs"][kind] = {"computations": comps, "keys": keys, "error": err}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        print(json.dumps({"ok": False, "error": traceback.format_exc().replace(REPO, "")[-2000:]}))
        sys.exit(0)
