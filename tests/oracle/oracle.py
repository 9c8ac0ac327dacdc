#!/usr/bin/env python3
"""Differential oracle: the cache key of the installed real jax against the engine CLI.

Usage (through the wrapper ``tools/oracle``, which picks the interpreter:
the project's .venv, or with ``--jax VERSION`` a venv of that release)::

    tools/oracle --seed S --count N [--jax VERSION] [--engine PATH] [--only I ...]

For each case ``0 .. N-1`` (or each ``--only`` index) a seeded recipe
(``generator.make_recipe``) is run through the real ``jax._src.cache_key.get``
(``realjax.RealJax``), which also yields the matching engine scenario, whose
``"profile"`` is the installed ``jax.__version__``.  All scenarios then go, as
JSON Lines, through one ``cachekey batch`` process.  A case passes when the
engine's key, every per-entry digest (fresh and running; 7 entries before jax
0.6.0, 8 from it) and every trace line equal the real ones.

Mosaic cases (``tpu_custom_call`` ops) are also sent as module text, which
the engine canonicalises live: where real JAX raises, the engine must return
an error that names the same exception; where it does not, the engine must
not fail, its entries 2..N must equal the real ones, and each rewritten
``backend_config`` (read back from ``cachekey canonicalize``) must equal the
real one, kernel bodies compared as jax's MLIR prints them.  A kernel body
that real JAX rewrote and the engine left untouched because it is jaxlib
bytecode is counted as "unreadable-by-MLIR19", not as a failure.

The engine's profiles come from ``cachekey profiles --json``.  An engine
without that command knows only "0.10.2" (jax 0.10.0-0.10.2) and "main"
(0.11.1, 0.11.2) and no ``backend.runtime_type``; other releases are then
skipped.  ``--real-only`` runs real JAX alone (the scenarios are built and
self-checked, nothing is compared).

With ``--tpu`` (in a venv with libtpu: ``tools/oracle --tpu``) the recipes
are TPU ones (``generator.make_tpu_recipe``) on libtpu's deviceless
topologies (``tpu.py``), and every topology of fixtures/tpu_topologies.json
is first compared with what libtpu says now (one passed or failed item each).

A failing case is shrunk (perturbations reset one group at a time while the
failure persists) and written to ``build/oracle-failures/<seed>-<index>.json``
with the original and minimal recipes, the engine scenario, the real result
and the engine output; the minimal scenario alone goes to
``<seed>-<index>.scenario.json`` (``cachekey explain`` reads it directly).

The last line printed is always ``N passed, M failed`` (with ``, K skipped``
when some cases were not compared); the exit status is 0 only when nothing
failed.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

sys.path.insert(0, os.path.join(REPO, "tools"))

import ckref  # noqa: E402
import generator  # noqa: E402

DEFAULT_ENGINE = os.path.join(REPO, "build", "native", "bin", "cachekey")
DEFAULT_FAILURES = os.path.join(REPO, "build", "oracle-failures")

# What an engine without ``profiles`` supports: profile id per jax release.
LEGACY_PROFILES = {"0.10.0": "0.10.2", "0.10.1": "0.10.2", "0.10.2": "0.10.2",
                   "0.11.1": "main", "0.11.2": "main"}

# Perturbation groups the shrinker resets together (coupled knobs share one).
SHRINK_GROUPS = [
    ["accelerator.mode", "accelerator.client_devices", "accelerator.device_shape",
     "accelerator.engine_form", "accelerator.device_kinds", "accelerator.error"],
    ["compile_options.encoding"],
    ["flags.XLA_FLAGS"],
    ["flags.LIBTPU_INIT_ARGS"],
    ["flags.argv"],
    ["flags.extra_prefixes"],
    ["compile_options.debug_options"],
    ["compile_options.env_overrides", "compile_options.overrides_via"],
    ["compile_options.device_assignment"],
    ["compile_options.num_replicas", "compile_options.num_partitions"],
    ["compile_options.fdo_profile_b64"],
    ["module.program", "mosaic"],
    ["module.include_metadata"],
    ["module.ignore_callbacks"],
    ["jaxlib_version"],
    ["backend.platform"],
    ["backend.platform_version"],
    ["backend.runtime_type"],
    ["compression"],
    ["custom_hook"],
    # TPU recipes only (generator.TPU_NEUTRAL)
    ["tpu.mixed_with"],
    ["tpu.backend"],
    ["tpu.compile_options"],
    ["tpu.pick"],
    ["tpu.layout"],
    # GPU recipes only (generator.GPU_NEUTRAL)
    ["gpu.mixed_with"],
    ["gpu.backend"],
    ["gpu.compile_options"],
    ["gpu.pick"],
    ["gpu.layout"],
]


def start_jax(tpu: bool = False, gpu: bool = False):
    """Import JAX with 4 host devices, then hand back a RealJax harness
    (with libtpu's deviceless topologies attached when ``tpu``, the CUDA
    plugin's compile-only client when ``gpu``)."""
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ.pop("LIBTPU_INIT_ARGS", None)
    import realjax
    harness = realjax.RealJax(tpu=tpu, gpu=gpu)
    os.environ.pop("XLA_FLAGS", None)
    return harness


# -- the engine ------------------------------------------------------------

def engine_profiles(engine: str):
    """The engine's profile list (``cachekey profiles --json``), or None for an
    engine without that command."""
    try:
        proc = subprocess.run([engine, "profiles", "--json"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    data = json.loads(proc.stdout.decode("utf-8"))
    return data["profiles"] if isinstance(data, dict) else data


def engine_releases(profiles) -> list[str]:
    """Every jax release the engine's profiles name."""
    out = []
    for p in profiles or []:
        for r in p.get("releases", []):
            if r not in out:
                out.append(r)
    return out


class EngineTarget:
    """How scenarios of one jax release are adapted to the engine at hand."""

    def __init__(self, engine: str, version: str, forced_profile: str | None = None):
        self.engine = engine
        self.version = version
        self.profiles = engine_profiles(engine)
        self.legacy = self.profiles is None
        self.forced = forced_profile is not None
        if self.forced:
            self.profile = forced_profile
        elif self.legacy:
            self.profile = LEGACY_PROFILES.get(version)
        else:
            self.profile = version if version in engine_releases(self.profiles) else None

    def adapt(self, scenario: dict) -> dict:
        """The scenario as this engine reads it."""
        if not self.legacy and not self.forced:
            return scenario
        out = json.loads(json.dumps(scenario))
        out["profile"] = self.profile
        if self.legacy:
            out["backend"].pop("runtime_type", None)
        return out


def run_engine(target: EngineTarget, scenarios: list[dict], ensure_ascii: list[bool]) -> list[dict]:
    """Send scenarios to one ``cachekey batch`` process; one result per line."""
    lines = [json.dumps(target.adapt(s), ensure_ascii=a, allow_nan=False)
             for s, a in zip(scenarios, ensure_ascii)]
    proc = subprocess.run([target.engine, "batch", "--fixtures", os.path.join(REPO, "fixtures")],
                          input=("\n".join(lines) + "\n").encode("utf-8"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    out = proc.stdout.decode("utf-8").splitlines()
    if proc.returncode != 0 or len(out) != len(scenarios):
        raise RuntimeError(f"cachekey batch exited {proc.returncode} with {len(out)} lines for "
                           f"{len(scenarios)} scenarios: {proc.stderr.decode('utf-8', 'replace')[:2000]}")
    return [json.loads(line) for line in out]


def engine_canonicalize(target: EngineTarget, scenario: dict):
    """(entry-1 bytes, None) from ``cachekey canonicalize`` of a text scenario,
    or (None, error text)."""
    module = scenario["module"]
    args = [target.engine, "canonicalize", "-", "--profile", target.adapt(scenario)["profile"]]
    if module.get("include_metadata"):
        args.append("--include-metadata")
    if module.get("ignore_custom_partitioning") or module.get("ignore_callbacks", "NO") != "NO":
        args.append("--ignore-custom-partitioning")
    proc = subprocess.run(args, input=module["text"].encode("utf-8"), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        return None, proc.stderr.decode("utf-8", "replace").strip()
    return proc.stdout, None


# -- comparisons -----------------------------------------------------------

def hashed_entries(engine: dict) -> list[dict]:
    """The engine's entries that its profile hashes (it also lists, with
    ``"hashed": false``, an entry a release does not have)."""
    return [e for e in engine.get("entries") or [] if e.get("hashed", True) is not False]


def compare(real: dict, engine: dict) -> list[str]:
    """Human-readable differences between the real result and the engine's."""
    if "error" in engine:
        err = engine["error"]
        return [f"engine error at {err.get('path')}: {err.get('message')}"]
    problems = []
    if engine.get("key") != real["key"]:
        problems.append(f"key: real {real['key']} engine {engine.get('key')}")
    entries = hashed_entries(engine)
    if len(entries) != len(real["entries"]):
        problems.append(f"engine returned {len(entries)} entries, real JAX {len(real['entries'])}")
    for i, (r, e) in enumerate(zip(real["entries"], entries), start=1):
        for field in ("name", "digest", "running"):
            if e.get(field) != r[field]:
                problems.append(f"entry {i} ({r['name']}) {field}: real {r[field]} engine {e.get(field)}")
    trace = engine.get("trace") or []
    if trace != real["trace"]:
        for j in range(max(len(trace), len(real["trace"]))):
            a = real["trace"][j] if j < len(real["trace"]) else "<none>"
            b = trace[j] if j < len(trace) else "<none>"
            if a != b:
                problems.append(f"trace line {j + 1}: real {a!r} engine {b!r}")
                break
    return problems


def _split_body(config):
    """(JSON text with the kernel body replaced by a marker, body) or (config, None)."""
    if config is None:
        return None, None
    try:
        bc = json.loads(config)
        body = bc["custom_call_config"]["body"]
    except (ValueError, KeyError, TypeError):
        return config, None
    if not isinstance(body, str):
        return config, None
    marker = "\u0000KERNEL-BODY\u0000"
    bc["custom_call_config"]["body"] = marker
    return json.dumps(bc, separators=(",", ":")), body


def compare_mosaic_text(harness, target: EngineTarget, recipe: dict, scenario: dict, real: dict,
                        engine: dict):
    """Checks of a Mosaic case sent as module text: (problems, unreadable op count)."""
    if "error" in real:
        names = real["error"]["names"]
        if "error" not in engine:
            return [f"real JAX raises {' from '.join(names)} ({real['error']['message'].splitlines()[-1][:160]!r}); "
                    f"the engine returned key {engine.get('key')}"], 0
        message = engine["error"].get("message", "")
        missing = [n for n in names if n not in message]
        if missing:
            return [f"real JAX raises {' from '.join(names)}; the engine's error does not name "
                    f"{' or '.join(missing)}: {message[:300]!r}"], 0
        return [], 0
    if "error" in engine:
        err = engine["error"]
        return [f"text form: engine error at {err.get('path')}: {err.get('message')}"], 0
    problems = []
    entries = hashed_entries(engine)
    if [e.get("name") for e in entries] != [e["name"] for e in real["entries"]]:
        problems.append(f"text form: entry names {[e.get('name') for e in entries]}")
    else:
        for i, (r, e) in enumerate(zip(real["entries"][1:], entries[1:]), start=2):
            if r["digest"] != e.get("digest"):
                problems.append(f"text form: entry {i} ({r['name']}) digest: real {r['digest']} "
                                f"engine {e.get('digest')}")
    data, err = engine_canonicalize(target, scenario)
    if err is not None:
        return problems + [f"cachekey canonicalize failed: {err[:300]}"], 0
    # The engine's bytecode comes from another MLIR than jaxlib's, which may
    # not read it: compare string tables (a backend_config is one string).
    try:
        engine_strings = set(ckref.mlir_bytecode_strings(data))
        real_strings = set(ckref.mlir_bytecode_strings(base64.b64decode(real["entry_bytes_b64"][0])))
    except ValueError as e:
        return problems + [f"cannot read the string table of entry-1 bytecode: {e}"], 0
    engine_only = [s.decode("utf-8", "surrogateescape") for s in engine_strings - real_strings]
    theirs = real["backend_configs"]
    if theirs is None:
        # jax's MLIR cannot read back the bytes real JAX hashed (realjax
        # tpu_backend_configs): the entries above are all that is compared.
        return problems, 0
    original = real["original_backend_configs"]
    specs = [op for op in recipe["mosaic"]["ops"] if op.get("target", "tpu_custom_call") == "tpu_custom_call"]
    unreadable = 0
    for i, r in enumerate(theirs):
        if r is None or r.encode("utf-8") in engine_strings:
            continue
        o = original[i] if i < len(original) else None
        spec = specs[i] if i < len(specs) else {}
        r_rest, r_body = _split_body(r)
        if (o is not None and o != r and o.encode("utf-8") in engine_strings
                and spec.get("body") in ("kernel_bytecode", "pallas") and _split_body(o)[0] == r_rest):
            unreadable += 1  # real JAX stripped jaxlib bytecode; the engine left it as it was
            continue
        if r_body is not None and any(
                _split_body(c)[0] == r_rest and same_kernel(harness, r_body, _split_body(c)[1])
                for c in engine_only):
            continue
        problems.append(f"tpu_custom_call {i}: real JAX's backend_config {r[:160]!r} is not in the "
                        f"engine's entry 1 (engine-only strings: {[c[:120] for c in engine_only][:3]!r})")
    notice = (engine.get("fidelity") or {}).get("unreadable_kernels")
    if notice is not None and notice != unreadable:
        problems.append(f"the engine reports {notice} kernel(s) its MLIR cannot read; the oracle found "
                        f"{unreadable} body(ies) real JAX stripped and the engine left as they were")
    return problems, unreadable


def same_kernel(harness, a_b64, b_b64) -> bool:
    """Whether two stripped kernel bodies (base64) hold the same module: as
    jax's MLIR prints them, or, where it cannot read one, by their bytecode
    string tables (op, attribute and location names)."""
    if not isinstance(a_b64, str) or not isinstance(b_b64, str):
        return False
    a, b = harness.kernel_text(a_b64), harness.kernel_text(b_b64)
    if a is not None and b is not None:
        return a == b
    try:
        return (set(ckref.mlir_bytecode_strings(base64.b64decode(a_b64)))
                == set(ckref.mlir_bytecode_strings(base64.b64decode(b_b64))))
    except ValueError:
        return False


def failure_kind(problems: list[str]) -> str:
    """A short class of a failed case for summaries: its first difference
    other than the key, up to the first colon ("entry 5 (compile_options)
    digest", "engine error at $.accelerator...", "real JAX raises ...")."""
    first = next((p for p in problems if not p.startswith("key:")), problems[0])
    if first.startswith("real JAX raises"):
        return first.split(":")[0]
    return first.split(": ")[0]


# -- one run ---------------------------------------------------------------

class Case:
    """One recipe with its real result and the scenarios sent to the engine."""

    def __init__(self, index, recipe, scenario, real, harness):
        self.index, self.recipe, self.scenario, self.real = index, recipe, scenario, real
        self.mosaic = recipe["module"]["program"] == "mosaic"
        self.bytes_scenario = None
        if not self.mosaic:
            self.bytes_scenario = scenario
        elif "error" not in real:
            self.bytes_scenario = harness.bytes_scenario(scenario, real)
        self.text_scenario = scenario if self.mosaic else None
        self.bytes_result = self.text_result = None

    def check(self, harness, target: EngineTarget):
        """(problems, unreadable count)."""
        problems, unreadable = [], 0
        if self.bytes_scenario is not None:
            problems += compare(self.real, self.bytes_result)
        if self.text_scenario is not None:
            p, unreadable = compare_mosaic_text(harness, target, self.recipe, self.text_scenario,
                                                self.real, self.text_result)
            problems += p
        return problems, unreadable


def evaluate(harness, target: EngineTarget, cases: list[Case]) -> None:
    """Send every scenario of ``cases`` to the engine in one batch."""
    batch, slots = [], []
    for c in cases:
        if c.bytes_scenario is not None:
            batch.append(c.bytes_scenario)
            slots.append((c, "bytes_result"))
        if c.text_scenario is not None:
            batch.append(c.text_scenario)
            slots.append((c, "text_result"))
    results = run_engine(target, batch, [c.index % 2 == 0 for c, _ in slots]) if batch else []
    for (c, attr), r in zip(slots, results):
        setattr(c, attr, r)


def check_release_fixtures(target: EngineTarget, version: str):
    """(count, [(file, problems)]) for the fixtures captured under this release
    (fixtures/<version>/*.json, written by ``tools/capture --jax``): the engine
    must reproduce each one's ``expected`` key, entries and trace.  None when
    the release has no such directory."""
    directory = os.path.join(REPO, "fixtures", version)
    if not os.path.isdir(directory):
        return None
    names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    docs = []
    for n in names:
        with open(os.path.join(directory, n), encoding="utf-8") as f:
            docs.append(json.load(f))
    results = run_engine(target, docs, [True] * len(docs))
    bad = []
    for n, doc, result in zip(names, docs, results):
        problems = compare(doc["expected"], result)
        if problems:
            bad.append((n, problems))
    return len(names), bad


def make_case(harness, seed: int, index: int, recipe: dict | None = None) -> Case:
    """Run one recipe (by default case ``index`` of ``seed``, a TPU recipe
    when the harness has the TPU side) through real JAX."""
    if recipe is None:
        if harness.tpu is not None:
            recipe = generator.make_tpu_recipe(seed, index, harness.tpu.usable_ids())
        elif harness.gpu is not None:
            recipe = generator.make_gpu_recipe(seed, index, harness.gpu.usable_ids())
        else:
            recipe = generator.make_recipe(seed, index)
    scenario, real = harness.run(recipe, f"oracle-{seed}-{index}")
    return Case(index, recipe, scenario, real, harness)


def shrink(harness, target: EngineTarget, case: Case, seed: int, max_tries: int = 60) -> Case:
    """Reset perturbation groups to neutral while the case still fails."""
    current = case
    tries = 0
    changed = True
    while changed and tries < max_tries:
        changed = False
        for group in SHRINK_GROUPS:
            group = [p for p in group if generator.has_path(current.recipe, p)]
            if all(generator.get_path(current.recipe, p) == generator.neutral_value(current.recipe, p)
                   for p in group):
                continue
            candidate = json.loads(json.dumps(current.recipe))
            for p in group:
                generator.set_path(candidate, p, generator.neutral_value(candidate, p))
            tries += 1
            try:
                trial = make_case(harness, seed, case.index, candidate)
                evaluate(harness, target, [trial])
                problems, _ = trial.check(harness, target)
            except Exception:  # a reset that real JAX rejects is not a simplification
                continue
            if problems:
                current = trial
                changed = True
            if tries >= max_tries:
                break
    return current


def write_failure(args, harness, target, case: Case, problems: list[str], shrink_it: bool) -> str:
    """Write the failure report of ``case``; return its path."""
    report = {
        "seed": args.seed, "index": case.index, "jax": harness.version,
        "rerun": (f"tools/oracle {'--tpu ' if args.tpu else ''}{'--gpu ' if args.gpu else ''}--jax {harness.version} --seed {args.seed} "
                  f"--only {case.index}"),
        "mismatches": problems,
        "recipe": case.recipe,
    }
    final = case
    if shrink_it:
        final = shrink(harness, target, case, args.seed)
        m_problems, _ = final.check(harness, target)
        report.update(minimal_recipe=final.recipe, minimal_mismatches=m_problems,
                      original_scenario=case.scenario)
    report.update(scenario=final.scenario, real=final.real,
                  engine=final.bytes_result if final.bytes_result is not None else final.text_result,
                  engine_text_form=final.text_result)
    os.makedirs(args.failures_dir, exist_ok=True)
    path = os.path.join(args.failures_dir, f"{args.seed}-{case.index}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(args.failures_dir, f"{args.seed}-{case.index}.scenario.json"), "w",
              encoding="utf-8") as f:
        json.dump(target.adapt(final.bytes_scenario or final.scenario), f, indent=1)
    return path


def main(argv=None) -> int:
    """Run the oracle on the installed jax; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--only", type=int, nargs="*", help="run only these case indices")
    parser.add_argument("--engine", default=os.environ.get("CACHEKEY_BIN", DEFAULT_ENGINE))
    parser.add_argument("--failures-dir", default=DEFAULT_FAILURES)
    parser.add_argument("--no-shrink", action="store_true", help="write failures without shrinking")
    parser.add_argument("--shrink-limit", type=int, default=5,
                        help="shrink at most this many failures (the rest are written as found)")
    parser.add_argument("--dump", help="also write every (scenario, real) pair as JSON Lines here")
    parser.add_argument("--real-only", action="store_true",
                        help="run real JAX only: build and self-check the scenarios, compare nothing")
    parser.add_argument("--summary-json", help="also write the counts and release facts here")
    parser.add_argument("--tpu", action="store_true",
                        help="TPU recipes on libtpu's deviceless topologies (needs a venv with libtpu: "
                             "run through tools/oracle --tpu)")
    parser.add_argument("--gpu", action="store_true",
                        help="GPU recipes on the CUDA plugin's compile-only client (needs a venv with "
                             "jax-cuda12-plugin: run through tools/oracle --gpu)")
    parser.add_argument("--engine-profile",
                        help="send this profile instead of the release's (to see how far another "
                             "profile is from a release)")
    args = parser.parse_args(argv)

    indices = args.only if args.only else list(range(args.count))
    if not args.real_only and not (os.path.isfile(args.engine) and os.access(args.engine, os.X_OK)):
        print(f"oracle: engine binary not found at {args.engine}; build it first "
              f"(cmake --preset native && cmake --build --preset native) or pass --engine",
              file=sys.stderr)
        print(f"0 passed, {len(indices)} failed")
        return 2

    # Reports of an earlier run of these same cases are stale now.
    for i in indices:
        for suffix in (".json", ".scenario.json"):
            stale = os.path.join(args.failures_dir, f"{args.seed}-{i}{suffix}")
            if os.path.exists(stale):
                os.remove(stale)

    if args.tpu:
        import tpu
        if tpu.libtpu_version() is None:
            print(f"oracle: --tpu needs libtpu, and {sys.executable} has none; run it as "
                  f"tools/oracle --tpu [--jax VERSION], which builds a venv with libtpu", file=sys.stderr)
            print(f"0 passed, {len(indices)} failed")
            return 2

    if args.gpu:
        import gpu
        if args.tpu or gpu.plugin_version() is None:
            print(f"oracle: --gpu needs jax-cuda12-plugin (and not --tpu), and {sys.executable} has none; "
                  f"run it as tools/oracle --gpu [--jax VERSION], which builds a venv with it", file=sys.stderr)
            print(f"0 passed, {len(indices)} failed")
            return 2

    t0 = time.monotonic()
    harness = start_jax(tpu=args.tpu, gpu=args.gpu)
    side = harness.tpu or harness.gpu
    topology_check = side.check_fixture_topologies() if side is not None and not args.only else None
    t1 = time.monotonic()
    cases = [make_case(harness, args.seed, i) for i in indices]
    t2 = time.monotonic()
    raised = sum(1 for c in cases if "error" in c.real)
    unverifiable = sum(1 for c in cases if c.mosaic and "error" not in c.real
                       and c.real.get("backend_configs") is None)
    summary = {"jax": harness.version, "jaxlib": harness.jaxlib_version,
               "python": sys.version.split()[0], "features": harness.features,
               "cases": len(cases), "mosaic_cases": sum(c.mosaic for c in cases),
               "real_jax_raised": raised, "mosaic_bytes_jax_cannot_read": unverifiable}
    if harness.tpu is not None:
        summary["libtpu"] = harness.tpu.libtpu
        summary["tpu_fallback_cases"] = sum(c.recipe["accelerator"]["mode"] == "tpu_fallback" for c in cases)
        summary["tpu_jit_cases"] = sum(c.recipe["module"]["program"].startswith("tpu_") for c in cases)
        summary["tpu_topologies_used"] = len({c.recipe["tpu"]["topology"] for c in cases})
    if harness.gpu is not None:
        summary["cuda_plugin"] = harness.gpu.cuda_plugin
        summary["host_cpu"] = harness.gpu.host_cpu
        summary["gpu_fallback_cases"] = sum(c.recipe["accelerator"]["mode"] == "gpu_fallback" for c in cases)
        summary["gpu_jit_cases"] = sum(c.recipe["module"]["program"].startswith("gpu_") for c in cases)
        summary["gpu_topologies_used"] = len({c.recipe["gpu"]["topology"] for c in cases})
        summary["gpu_device_assignment_cases"] = sum(
            c.recipe["gpu"]["compile_options"] == "ids" for c in cases)
    print(f"oracle: jax {harness.version} / jaxlib {harness.jaxlib_version} on Python "
          f"{summary['python']}; features {json.dumps(harness.features)}", file=sys.stderr)

    def finish(passed, failed, skipped, extra=""):
        summary.update(passed=passed, failed=failed, skipped=skipped)
        if args.summary_json:
            with open(args.summary_json, "w", encoding="utf-8") as f:
                json.dump(summary, f, indent=1)
        if extra:
            print(extra, file=sys.stderr)
        print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
        return 0 if failed == 0 else 1

    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            for c in cases:
                f.write(json.dumps({"recipe": c.recipe, "scenario": c.scenario, "real": c.real}) + "\n")

    if args.real_only:
        return finish(len(cases), 0, 0, f"oracle: real JAX only: {len(cases)} scenarios built "
                                        f"({summary['mosaic_cases']} Mosaic, {raised} where JAX raises) "
                                        f"in {t2 - t1:.1f}s; nothing compared")

    target = EngineTarget(args.engine, harness.version, args.engine_profile)
    summary["engine_profile"] = target.profile
    summary["engine_legacy"] = target.legacy
    if target.profile is None:
        if target.legacy:
            return finish(0, 0, len(cases),
                          f"oracle: this engine has no 'profiles' command and no profile for jax "
                          f"{harness.version}; every case is skipped")
        print(f"oracle: the engine lists no profile for jax {harness.version}", file=sys.stderr)
        return finish(0, len(cases), 0)

    evaluate(harness, target, cases)
    t3 = time.monotonic()

    fixture_failures = (check_release_fixtures(target, harness.version)
                        if not args.only and not args.tpu and not args.gpu else None)

    passed = failed = unreadable = 0
    kinds: dict = {}
    for c in cases:
        problems, u = c.check(harness, target)
        if problems:
            kind = failure_kind(problems)
            kinds[kind] = kinds.get(kind, 0) + 1
        if not problems:
            if u:
                unreadable += 1
            else:
                passed += 1
            continue
        failed += 1
        shrink_it = not args.no_shrink and failed <= args.shrink_limit
        path = write_failure(args, harness, target, c, problems, shrink_it)
        print(f"FAIL case {c.index}: {problems[0]} ({len(problems)} differences) -> "
              f"{os.path.relpath(path, REPO)}", file=sys.stderr)

    if fixture_failures is not None:
        checked, bad = fixture_failures
        summary["fixtures_checked"] = checked
        for name, problems in bad:
            print(f"FAIL fixture fixtures/{harness.version}/{name}: {problems[0]}", file=sys.stderr)
        print(f"oracle: fixtures/{harness.version}: {checked - len(bad)} of {checked} captured keys "
              f"reproduced", file=sys.stderr)
        passed += checked - len(bad)
        failed += len(bad)
    if topology_check is not None and harness.gpu is not None:
        checked, bad = topology_check
        summary["gpu_topologies_checked"] = checked
        for tid, problems in bad:
            print(f"FAIL fixtures/gpu_topologies.json {tid}: {'; '.join(problems)}", file=sys.stderr)
        same = harness.gpu.same_host
        print(f"oracle: fixtures/gpu_topologies.json: {checked - len(bad)} of {checked} topologies equal "
              f"jax-cuda12-plugin {harness.gpu.cuda_plugin}'s (devices, processes, device_kind, platform, "
              f"platform_version, runtime_type, target config text"
              + (", fingerprint)" if same else f"; fingerprint not compared: measured on host "
                 f"{harness.gpu.table['provenance']['host_cpu']!r} "
                 f"{harness.gpu.table['provenance'].get('host_target')}, this is {harness.gpu.host_cpu!r} "
                 f"{harness.gpu.host_target})"),
              file=sys.stderr)
        passed += checked - len(bad)
        failed += len(bad)
        topology_check = None
    if topology_check is not None:
        checked, bad = topology_check
        summary["tpu_topologies_checked"] = checked
        for tid, problems in bad:
            print(f"FAIL fixtures/tpu_topologies.json {tid}: {'; '.join(problems)}", file=sys.stderr)
        print(f"oracle: fixtures/tpu_topologies.json: {checked - len(bad)} of {checked} topologies equal "
              f"libtpu {harness.tpu.libtpu}'s (fingerprint, devices, device_kind, processes, "
              f"platform_version where recorded for this build)", file=sys.stderr)
        passed += checked - len(bad)
        failed += len(bad)
    summary["unreadable_by_mlir19"] = unreadable
    summary["failure_kinds"] = dict(sorted(kinds.items(), key=lambda kv: -kv[1]))
    print(f"oracle: jax {harness.version} (engine profile {target.profile}), seed {args.seed}, "
          f"{len(indices)} cases ({summary['mosaic_cases']} Mosaic, {raised} where real JAX raises); "
          f"start-up {t1 - t0:.1f}s, real JAX {t2 - t1:.1f}s, engine {t3 - t2:.1f}s", file=sys.stderr)
    if unverifiable:
        print(f"oracle: {unverifiable} Mosaic case(s) whose hashed entry 1 jax's MLIR refuses to read back "
              f"(a typed-FFI call whose backend_config JAX set to \"REMOVED\"): their backend_configs "
              f"were not compared, everything else was", file=sys.stderr)
    extra = (f"oracle: {unreadable} skipped as unreadable-by-MLIR19 (a kernel body real JAX stripped "
             f"that the engine's MLIR cannot read)") if unreadable else ""
    return finish(passed, failed, unreadable, extra)


if __name__ == "__main__":
    sys.exit(main())
