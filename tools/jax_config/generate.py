"""Generates the JAX settings table of one jax release from the real jax.

Run inside a release's venv (``tools/jax-config-table --jax VERSION`` picks
it).  Every fact in the table is measured, none is written by hand:

1. **Which options exist.**  The registry of the installed
   ``jax/_src/config.py``, ``jax._src.config.config._value_holders`` (name ->
   holder: a ``State``/``_StateContextManager`` or a ``Flag``/``FlagHolder``),
   read at run time, so each release gives its own list.
2. **A non-default value** for each option, from the holder and its default:
   a bool is negated; an optional bool (default None) is set to True; an
   enum option (its parser's or validator's ``enum_values``, or the members
   of its ``enum_class``, read from the closure of the release's own
   function) gets its first allowed value other than the default; an int
   gets ``default + 1`` (``2`` when the default is negative: "unset"); a
   float ``default * 2`` (``1.0`` from 0).  Strings, paths and objects have
   no alternative whose meaning is known without reading the option's help,
   and the options that route the measurement itself
   (``jax_compilation_cache_dir``, ``jax_platforms``, ``jax_platform_name``)
   would change what is measured; these are recorded as skipped with the reason.
3. **Effect.**  Each value is set with ``jax.config.update`` in a fresh
   process (tools/jax_config/probe.py) that then compiles the probe set
   (unsharded elementwise, dot, random bits, a program sharded over 4
   host-platform devices, a program with donation, a program with a Python
   float constant) with the persistent cache on, in one directory for the
   whole run (its path reaches entry 5 in jax 0.10.2: see run_probe).  The per-entry digests JAX's cache_key.py logs ("get_cache_key
   hash of serialized ...") and the final key the compiler logs are compared,
   program by program, with those of a process that set nothing (measured
   twice: an entry that differs between the two baseline processes is
   unstable and reported, never counted as moved).  A value that
   ``jax.config.update`` refuses is skipped with JAX's error.

The output is JSON (``fixtures/jax_config/<jax>.json``, schema in
fixtures/jax_config/README.md) with provenance.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import enum
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tools/, for fixture_capture
from fixture_capture.provenance import run_provenance  # noqa: E402

PROBE = os.path.join(HERE, "probe.py")
DEVICES = 4
PROGRAMS = {
    "elementwise": "jnp.sin(x) * 2 + 1 on float32[8], unsharded",
    "dot": "a @ b on float32[8,8], unsharded",
    "random": "jax.random.bits(jax.random.PRNGKey(seed), (8,)) with an int32 seed argument",
    "sharded": "jnp.tanh(x) * 3 on float32[8] with NamedSharding(Mesh(4 CPU devices, ('x',)), P('x')) in and out",
    "donation": "x * 2 on float32[8] with donate_argnums=0",
    "float_constant": "x * c + 1.25 on float32[8], c = 2.5 a captured Python float",
}
# Options that route the measurement itself (where the cache is, which
# backend runs): changing them changes what is measured, not the key.
ROUTING = {
    "jax_compilation_cache_dir": "the probe sets it to an empty directory of its own",
    "jax_platforms": "the probe runs on the CPU backend (JAX_PLATFORMS=cpu)",
    "jax_platform_name": "the probe runs on the CPU backend (JAX_PLATFORMS=cpu)",
}


def closure_values(fn, names: tuple[str, ...]):
    """The value of the first free variable of `fn` named in `names`, else None."""
    code = getattr(fn, "__code__", None)
    if code is None or not fn.__closure__:
        return None
    for var, cell in zip(code.co_freevars, fn.__closure__):
        if var in names:
            try:
                return cell.cell_contents
            except ValueError:
                return None
    return None


def describe(name: str, holder) -> dict:
    """The option's holder class, type, default, allowed values (when the
    release's parser or validator names them) and the value to set, or the
    reason there is none."""
    default = holder.value
    out = {"holder": type(holder).__name__}
    fns = [getattr(holder, a, None) for a in ("_parser", "_validator")]
    enum_values = None
    enum_class = None
    for fn in fns:
        if fn is None:
            continue
        enum_values = enum_values or closure_values(fn, ("enum_values",))
        enum_class = enum_class or closure_values(fn, ("enum_class",))
    if isinstance(default, enum.Enum) or enum_class is not None:
        cls = enum_class or type(default)
        members = list(cls)
        out.update(type="enum_class", enum_class=cls.__name__,
                   allowed=[m.name for m in members],
                   default=None if default is None else default.name)
        other = [m for m in members if m is not default]
        if not other:
            return {**out, "skip": "the enum class has no member but the default"}
        return {**out, "value": {"enum": other[0].name}, "value_shown": other[0].name}
    if enum_values is not None:
        allowed = list(enum_values)
        out.update(type="enum", allowed=allowed, default=default)
        other = [v for v in allowed if v != default]
        if not other:
            return {**out, "skip": "the option allows no value but the default"}
        return {**out, "value": other[0], "value_shown": other[0]}
    if isinstance(default, bool):
        out.update(type="bool", default=default)
        return {**out, "value": not default, "value_shown": not default}
    if default is None:
        parser = getattr(holder, "_parser", None)
        pname = getattr(parser, "__qualname__", "") if parser else ""
        if pname.startswith("optional_bool_state"):
            out.update(type="optional_bool", default=None)
            return {**out, "value": True, "value_shown": True}
        out.update(type="optional", default=None, parser=pname.split(".")[0] or None)
        return {**out, "skip": "no default value to derive another from (a string, path or object option)"}
    if isinstance(default, int):
        v = default + 1 if default >= 0 else 2
        out.update(type="int", default=default)
        return {**out, "value": v, "value_shown": v}
    if isinstance(default, float):
        v = default * 2 if default else 1.0
        out.update(type="float", default=default)
        return {**out, "value": v, "value_shown": v}
    if isinstance(default, str):
        out.update(type="string", default=default)
        return {**out, "skip": "a string option: no other value whose meaning is known"}
    out.update(type=type(default).__name__, default=repr(default))
    return {**out, "skip": f"a {type(default).__name__} option: no other value whose meaning is known"}


def run_probe(python: str, cache: str, option: str | None, value, timeout: float) -> dict:
    """One fresh process of probe.py with the persistent cache in `cache`;
    its JSON, or {"ok": False, "error"}.

    Every process of a run gets the same `cache` path: jax 0.10.2 writes a
    path under it into DebugOptions (xla_gpu_per_fusion_autotune_cache_dir,
    jax_persistent_cache_enable_xla_caches) and hashes it into entry 5, so a
    directory per process would move entry 5 in every measurement."""
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={DEVICES}"
    for k in list(env):
        # A JAX_* setting inherited from the caller would move the baseline.
        if k.startswith("JAX_") and k != "JAX_PLATFORMS":
            del env[k]
    cmd = [python, PROBE, "--cache-dir", cache]
    if option:
        cmd += ["--option", option, "--value-json", json.dumps(value)]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout,
                           cwd=os.path.dirname(cache))
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"timed out after {timeout:.0f} s"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = (p.stderr or "").strip().splitlines()[-3:]
        return {"ok": False, "error": f"exit {p.returncode}: " + " | ".join(tail)[:400]}
    return json.loads(lines[-1])


def program_digests(prog: dict, module: str | None = None) -> dict | None:
    """One key computation of one program: entry names, per-entry digests,
    the final running digest and the key; None when none was made.  It is
    the last computation, or, when each logged a key, the last whose key's
    module is `module` (a probe's own program, "jit_<kind>")."""
    comps = prog.get("computations") or []
    if not comps:
        return None
    keys = prog.get("keys") or []
    i = len(comps) - 1
    if module and len(keys) == len(comps):
        own = [j for j, k in enumerate(keys) if module_of(k) == module]
        i = own[-1] if own else i
    c = comps[i]
    return {"names": [n for n, _ in c["entries"]], "digests": [d for _, d in c["entries"]],
            "running": c["running"][-1] if c["running"] else None,
            "key": keys[i] if len(keys) == len(comps) else (keys[-1] if keys else None),
            "computations": len(comps)}


def module_of(key: str) -> str:
    """The module name of a cache key "<module>-<64 hex>"."""
    return key.rsplit("-", 1)[0]


def compare(base: dict, got: dict, unstable: dict) -> dict:
    """Per program: outcome and the 1-based entries whose digest moved."""
    out = {}
    for kind in PROGRAMS:
        b = program_digests(base["programs"][kind], "jit_" + kind)
        g_prog = got["programs"].get(kind, {})
        g = program_digests(g_prog, "jit_" + kind) if g_prog else None
        if g_prog.get("error") and g is None:
            out[kind] = {"outcome": "error", "error": g_prog["error"]}
            continue
        if g is None:
            out[kind] = {"outcome": "no_key"}
            if g_prog.get("error"):
                out[kind]["error"] = g_prog["error"]
            continue
        modules = sorted({module_of(k) for k in g_prog.get("keys", [])})
        if b["key"] and modules and module_of(b["key"]) not in modules:
            # JAX compiled other programs in its place (e.g. op by op under
            # jax_disable_jit): their digests say nothing of this one's.
            out[kind] = {"outcome": "other_program", "modules": modules}
            continue
        if g["names"] != b["names"]:
            out[kind] = {"outcome": "entries_differ", "entries": g["names"]}
            continue
        moved = [i + 1 for i, (x, y) in enumerate(zip(b["digests"], g["digests"]))
                 if x != y and (i + 1) not in unstable.get(kind, [])]
        r = {"outcome": "key", "moved": moved, "key_moved": g["running"] != b["running"]}
        if moved:
            r["after"] = {str(i): g["digests"][i - 1] for i in moved}
        if g["computations"] != b["computations"]:
            r["computations"] = g["computations"]
        if g_prog.get("error"):
            r["error"] = g_prog["error"]
        out[kind] = r
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="tools/jax-config-table")
    ap.add_argument("--jobs", type=int, default=2, help="processes at once (default 2)")
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds per process")
    ap.add_argument("--only", nargs="*", help="measure only these options (a partial table, for tests)")
    args = ap.parse_args(argv)
    t0 = time.time()
    import jax
    import jaxlib
    from jax._src import config as jconfig

    log = sys.stderr
    holders = dict(sorted(jconfig.config._value_holders.items()))
    options = {}
    for name, holder in holders.items():
        if args.only and name not in args.only:
            continue
        d = describe(name, holder)
        if name in ROUTING:
            d.pop("value", None)
            d.pop("value_shown", None)
            d["skip"] = ROUTING[name]
        options[name] = d
    python = sys.executable
    work = tempfile.mkdtemp(prefix="jax-config-table-")
    cache = os.path.join(work, "cache")
    try:
        base, unstable = run(args, python, cache, options, log)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return write(args, t0, jax, jaxlib, holders, options, base, unstable)


def run(args, python: str, cache: str, options: dict, log) -> tuple[dict, dict]:
    """Measures every option of `options` that has a value (in place);
    returns the baseline process's output and the unstable entries."""
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        bases = list(pool.map(lambda _: run_probe(python, cache, None, None, args.timeout), range(2)))
        for b in bases:
            if not b.get("ok"):
                raise SystemExit(f"jax-config-table: the baseline process failed: {b.get('error')}")
        unstable = {}
        for kind in PROGRAMS:
            d0, d1 = (program_digests(b["programs"][kind]) for b in bases)
            if d0 is None or d1 is None:
                raise SystemExit(f"jax-config-table: the baseline made no key for {kind!r}")
            bad = [i + 1 for i, (x, y) in enumerate(zip(d0["digests"], d1["digests"])) if x != y]
            if bad:
                unstable[kind] = bad
        base = bases[0]
        todo = [n for n, d in options.items() if "skip" not in d]
        futures = {n: pool.submit(run_probe, python, cache, n, options[n]["value"], args.timeout)
                   for n in todo}
        for n in todo:
            res = futures[n].result()
            d = options[n]
            d["value"] = d.pop("value_shown")
            if not res.get("ok"):
                d["status"] = "failed"
                d["reason"] = res.get("error")
            elif res.get("set_error"):
                d["status"] = "skipped"
                d["reason"] = "jax.config.update refused the value: " + res["set_error"]
            else:
                d["status"] = "measured"
                d["programs"] = compare(base, res, unstable)
                moved = sorted({e for p in d["programs"].values() for e in p.get("moved", [])})
                d["moves"] = moved
                for outcome in ("no_key", "error", "other_program", "entries_differ"):
                    kinds = [k for k, p in d["programs"].items() if p["outcome"] == outcome]
                    if kinds:
                        d[outcome] = kinds
            print(f"{n}: {d['status']} {d.get('moves', d.get('reason', ''))}", file=log)
    return base, unstable


def write(args, t0, jax, jaxlib, holders: dict, options: dict, base: dict, unstable: dict) -> int:
    """Writes the table to args.out."""
    for n, d in options.items():
        if "skip" in d:
            d["status"] = "skipped"
            d["reason"] = d.pop("skip")
    first = program_digests(base["programs"]["elementwise"])
    table = {
        "description": ("JAX options as this jax release reads them, each set to a non-default value in a "
                        "fresh process, and which cache-key entries moved in which probe programs, measured "
                        "by tools/jax_config/generate.py (module docstring; schema in "
                        "fixtures/jax_config/README.md)."),
        "provenance": run_provenance(
            args.command, jax.__version__, jaxlib.__version__,
            backend="cpu",
            xla_flags=f"--xla_force_host_platform_device_count={DEVICES}",
            cache_dir="one empty directory for every process of the run, removed after it",
            jobs=args.jobs,
            options_in_registry=len(holders),
            measured=sum(1 for d in options.values() if d["status"] == "measured"),
            skipped=sum(1 for d in options.values() if d["status"] == "skipped"),
            failed=sum(1 for d in options.values() if d["status"] == "failed"),
            partial=bool(args.only),
            seconds=round(time.time() - t0, 1)),
        "jax": jax.__version__,
        "entries": first["names"],
        "programs": {k: {"description": v, "key": program_digests(base["programs"][k])["key"],
                         "digests": program_digests(base["programs"][k])["digests"]}
                     for k, v in PROGRAMS.items()},
        "unstable": unstable,
        "options": options,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(table, fh, indent=1)
        fh.write("\n")
    moving = [n for n, d in options.items() if d.get("moves")]
    print(f"{len(options)} options: {table['provenance']['measured']} measured "
          f"({len(moving)} move an entry), {table['provenance']['skipped']} skipped, "
          f"{table['provenance']['failed']} failed, in {time.time() - t0:.0f} s -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
