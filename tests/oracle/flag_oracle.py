"""The flag oracle: real JAX started under XLA_FLAGS=F against the engine's
key for "the captured program, with XLA_FLAGS=F added".

Run by ``tools/flag-oracle --jax VERSION`` inside that release's venv.

1. A child process with no XLA_FLAGS compiles ``x + y`` on ``float32[1,1]``
   (the add_1x1 program) through ``fixture_capture.record.capture_program``:
   the real scenario (entry-1 bytes, CompileOptionsProto, CPU topology) and
   the real key.  That scenario is the base.
2. For each flag of this jaxlib's table (fixtures/xla_flags/<jaxlib>.json)
   with an accepted sample value that differs from XLA's default, a child
   forked from one parent (jax imported, no backend started) sets
   ``XLA_FLAGS=--name=value`` and compiles the same program with the
   persistent cache on; the key real ``cache_key.get`` returns is recorded.
   A child that dies (the flag breaks compilation) is skipped, and counted.
   A table flag with no such sample is reported as not sampled, with why
   (``not_sampled``): every flag of the table is either run or named.
3. The engine gets the base with ``flags.XLA_FLAGS = F`` and
   ``compile_options.xla_flags`` = the base's (none): it must give the real
   key.  The table's device-count and ``--xla_cpu_max_isa`` samples are in
   the set.

The expected keys come from real JAX only; the engine never sees them.
A key the engine itself labels as perhaps not JAX's (``fidelity.jax_key``
false, with its codes) is counted as labelled: neither a pass nor a failure.
Last line: ``N passed, M failed, K skipped, L labelled, U not sampled``.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
sys.path.insert(0, os.path.join(REPO, "python"))

CACHE_DIR = "/tmp/jax-cache-key-capture"  # the same as fixture_capture.record's


def sample_flags(table: dict, limit: int | None) -> list[str]:
    """One non-default accepted sample per flag, in name order; with
    ``limit``, an even spread over the list plus every topology flag."""
    out = []
    for name, f in sorted(table["flags"].items()):
        default = f.get("default")
        for o in f["observations"]:
            v = o["value"]
            if not o["accepted"] or v == default or v in ("", None) or not o.get("fields") and f["effect"] != "none":
                continue
            if f["type"] == "bool" and v not in ("true", "false"):
                continue
            out.append(f"--{name}={v}")
            break
        else:
            if f["effect"] == "none" and f["type"] == "bool":
                out.append(f"--{name}={'false' if default == 'true' else 'true'}")
    keep = [x for x in out if x.split("=")[0][2:] in table.get("topology", {})]
    # The device count, and every ISA ceiling XLA accepts (each moves the CPU
    # target of entry 6 differently on this host's CPU model).
    extra = ["--xla_force_host_platform_device_count=3"]
    isa = table["flags"].get("xla_cpu_max_isa", {})
    extra += [f"--xla_cpu_max_isa={o['value']}" for o in isa.get("observations", [])
              if o.get("accepted") and o.get("value")]
    if limit is not None and len(out) > limit:
        step = len(out) / limit
        out = [out[int(i * step)] for i in range(limit)]
    for x in keep + extra:
        if x not in out and x.split("=")[0][2:] in table["flags"]:
            out.append(x)
    return out


def not_sampled(table: dict, flags: list[str]) -> dict[str, str]:
    """Table flags without a sample in ``flags``: name -> why, read from the
    table's observations (what XLA accepted and what that changed)."""
    run = {x.split("=")[0][2:] for x in flags}
    out = {}
    for name, f in sorted(table["flags"].items()):
        if name in run:
            continue
        obs = f["observations"]
        default = f.get("default")
        accepted = [o for o in obs if o["accepted"]]
        other = [o for o in accepted if o["value"] not in ("", None, default)]
        tried = len(obs)
        if not accepted:
            why = f"XLA refused all {tried} sample values"
        elif not other:
            vals = ", ".join(repr(o["value"]) for o in accepted)
            why = (f"XLA accepted only {vals} of {tried} sample values, which "
                   f"{'is' if len(accepted) == 1 else 'are'} its default")
        elif not any(o.get("fields") for o in other):
            vals = ", ".join(repr(o["value"]) for o in other[:3])
            refused = [o for o in obs if not o["accepted"]]
            why = (f"XLA accepted only values ({vals}) that leave DebugOptions as without flags "
                   f"(its default) and refused the other {len(refused)} of {tried} sample values"
                   + (f" ({', '.join(repr(o['value']) for o in refused[:4])}: "
                      f"{refused[0]['refused']})" if refused else ""))
        else:
            why = "no accepted non-default sample picked (see sample_flags)"
        out[name] = why
    return out


def real_keys(flags: list[str]) -> dict[str, dict]:
    """Real JAX's key for add_1x1 under each XLA_FLAGS value (forked children)."""
    import jax  # noqa: F401 - before forking; no backend is started here
    import jax.numpy as jnp  # noqa: F401

    results = {}
    for flag in flags:
        r, w = os.pipe()
        er, ew = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                os.close(er)
                os.dup2(ew, 2)
                os.environ["XLA_FLAGS"] = flag
                os.write(w, pickle.dumps(_child_key()))
            finally:
                os._exit(0)
        os.close(w)
        os.close(ew)
        data = _read(r)
        err = _read(er).decode("utf-8", "replace")
        os.waitpid(pid, 0)
        if data:
            results[flag] = {"key": pickle.loads(data)}
        else:
            lines = [ln for ln in err.splitlines() if ln.strip()]
            results[flag] = {"error": (lines[-1] if lines else "child died")[:300]}
    return results


def _child_key() -> str:
    import jax
    import jax.numpy as jnp
    from jax._src import cache_key

    jax.config.update("jax_compilation_cache_dir", CACHE_DIR)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    x = jnp.ones((1, 1), jnp.float32)
    y = jnp.ones((1, 1), jnp.float32)
    keys = []
    real_get = cache_key.get

    def recording_get(*args, **kwargs):
        keys.append(real_get(*args, **kwargs))
        return keys[-1]

    cache_key.get = recording_get
    try:
        jax.jit(lambda a, b: a + b)(x, y).block_until_ready()
    finally:
        cache_key.get = real_get
    if len(keys) != 1:
        raise RuntimeError(f"{len(keys)} cache_key.get calls")
    return keys[0]


def _read(fd: int) -> bytes:
    chunks = []
    while True:
        c = os.read(fd, 1 << 16)
        if not c:
            break
        chunks.append(c)
    os.close(fd)
    return b"".join(chunks)


def base_scenario(tmp: str) -> dict:
    """The add_1x1 scenario captured now, without XLA_FLAGS, in a forked child
    (no backend is started in this process, and under ``--qemu`` the child
    runs on the same emulated CPU as the flag children)."""
    out = os.path.join(tmp, "base.json")
    saved = os.environ.pop("XLA_FLAGS", None)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            from fixture_capture.record import capture_program
            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 1)
            capture_program("add_1x1", out, "tests/oracle/flag_oracle.py")
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if saved is not None:
        os.environ["XLA_FLAGS"] = saved
    if status != 0:
        raise RuntimeError(f"the base capture failed (wait status {status})")
    with open(out) as fh:
        return json.load(fh)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default=os.environ.get("CACHEKEY_BIN", os.path.join(REPO, "build/native/bin/cachekey")))
    ap.add_argument("--limit", type=int, default=None, help="flags to run (spread over the table)")
    ap.add_argument("--engine-without-table", action="store_true",
                    help="send no compile_options.xla_flags (the engine before issue 23: entry 4 only)")
    ap.add_argument("--real-keys", help="keep real JAX's keys in this JSON file and reuse them "
                    "(the engine side can then be re-run alone)")
    args = ap.parse_args(argv)
    args.engine = os.path.abspath(args.engine)
    if args.real_keys:
        args.real_keys = os.path.abspath(args.real_keys)
    # Dump flags make real JAX write files under relative paths: the children
    # run in a directory of their own, removed at exit, never the caller's.
    import atexit, shutil, tempfile
    work = tempfile.mkdtemp(prefix="flag-oracle-")
    atexit.register(shutil.rmtree, work, True)
    os.chdir(work)
    import jaxlib

    table_path = os.path.join(REPO, "fixtures", "xla_flags", f"{jaxlib.__version__}.json")
    with open(table_path) as fh:
        table = json.load(fh)
    if not os.path.exists(args.engine) and not args.real_keys:
        print(f"engine binary missing: {args.engine}")
        return 2
    flags = sample_flags(table, args.limit)
    unsampled = not_sampled(table, sample_flags(table, None))
    left_out = len(table["flags"]) - len(unsampled) - len({x.split("=")[0][2:] for x in flags})
    cached = None
    if args.real_keys and os.path.exists(args.real_keys):
        with open(args.real_keys) as fh:
            cached = json.load(fh)
        if cached.get("jaxlib") != jaxlib.__version__ or not set(flags) <= set(cached["real"]):
            cached = None
    if cached:
        base, real = cached["base"], cached["real"]
    else:
        with tempfile.TemporaryDirectory() as tmp:
            base = base_scenario(tmp)
        real = real_keys([""] + flags)
        if args.real_keys:
            with open(args.real_keys, "w") as fh:
                json.dump({"jaxlib": jaxlib.__version__, "base": base, "real": real}, fh)
    base_key = base["expected"]["key"]
    if not os.path.exists(args.engine):
        print(f"real keys kept in {args.real_keys}; engine binary missing: {args.engine}")
        return 2
    if real[""].get("key") != base_key:
        print(f"the forked run without flags gives {real[''].get('key') or real[''].get('error')}, "
              f"the capture {base_key}: the two real paths disagree")
        return 1
    order = [f for f in flags if "key" in real[f]]

    def engine_keys(parse_flags: bool) -> list[dict] | None:
        scenarios = []
        for flag in order:
            s = {k: v for k, v in base.items() if k not in ("expected", "provenance", "title", "id")}
            s = json.loads(json.dumps(s))
            s["flags"]["XLA_FLAGS"] = flag
            if parse_flags:
                s["compile_options"]["xla_flags"] = base["flags"]["XLA_FLAGS"]
            scenarios.append(json.dumps(s))
        proc = subprocess.run([args.engine, "batch"], input=("\n".join(scenarios) + "\n").encode(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        out = proc.stdout.decode().splitlines()
        if len(out) != len(order):
            print(f"cachekey batch gave {len(out)} lines for {len(order)}: {proc.stderr.decode()[:500]}")
            return None
        return [json.loads(x) for x in out]

    results = engine_keys(not args.engine_without_table)
    if results is None:
        return 1
    # The same real keys against the scenario without compile_options.xla_flags
    # (XLA_FLAGS reaching entry 4 only, the engine before issue 23).
    entry4_only = engine_keys(False) if not args.engine_without_table else None
    passed = failed = 0
    labelled: dict[str, list[str]] = {}
    skipped = [f for f in flags if "key" not in real[f]]
    for flag, res in zip(order, results):
        got = res.get("key")
        want = real[flag]["key"]
        moved = "moves the key" if want != base_key else "leaves the key"
        caveats = labels(res)
        if caveats:
            # The engine itself says this key may not be JAX's: neither a
            # pass nor a failure, counted and named by its codes.
            labelled[flag] = caveats
            same = "equal to" if got == want else "not"
            print(f"labelled {flag} (real JAX {moved}; engine's key {same} real JAX's): "
                  f"{', '.join(caveats)}")
        elif got == want:
            passed += 1
        else:
            failed += 1
            why = res.get("error", {}).get("message") if "error" in res else got
            print(f"FAIL {flag} (real JAX {moved}): engine {why}, real {want}")
    for f in skipped:
        print(f"skip {f}: real JAX did not compile: {real[f]['error']}")
    for name, why in unsampled.items():
        print(f"not sampled --{name}: {why}")
    if left_out > 0:
        print(f"{left_out} sampled flags left out by --limit {args.limit}")
    print(f"table: {len(table['flags'])} flags, {len(table['flags']) - len(unsampled)} with a sample, "
          f"{len(unsampled)} not sampled")
    print(f"jax {table['provenance']['jax']}: {len(flags)} flags, "
          f"{sum(1 for f in order if real[f]['key'] != base_key)} of them move the real key")
    if entry4_only is not None:
        same = sum(1 for f, r in zip(order, entry4_only) if r.get("key") == real[f]["key"])
        print(f"without XLA's parse (entry 4 only): {same} of {len(order)} keys equal real JAX's")
    isa_labelled = [f for f in labelled if f.startswith("--xla_cpu_max_isa")]
    if isa_labelled:
        print(f"{len(isa_labelled)} --xla_cpu_max_isa values labelled: the engine could not "
              f"apply XLA's ceiling rule to this host's captured target")
    print(f"{passed} passed, {failed} failed, {len(skipped)} skipped, "
          f"{len(labelled)} labelled, {len(unsampled)} not sampled")
    return 1 if failed else 0


def labels(result: dict) -> list[str]:
    """The codes of the caveats with which the engine's result says its key
    may not be JAX's (``fidelity.jax_key`` false; Key.h resultToJson)."""
    fidelity = result.get("fidelity") or {}
    if fidelity.get("jax_key", True):
        return []
    codes = [c.get("code", "?") for c in fidelity.get("xla_flags", [])]
    if fidelity.get("unreadable_kernels"):
        codes.append("unreadable_kernels")
    return codes or ["not_jax_key"]


if __name__ == "__main__":
    sys.exit(main())
