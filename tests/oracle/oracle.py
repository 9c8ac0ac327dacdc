#!/usr/bin/env python3
"""Differential oracle: the real jax 0.10.2 cache key against the engine CLI.

Usage (through the wrapper, which uses the project's .venv):

    tools/oracle --seed S --count N [--engine PATH] [--only I ...]

For each case ``0 .. N-1`` (or each ``--only`` index) a seeded recipe
(``generator.make_recipe``) is run through the real ``jax._src.cache_key.get``
(``realjax.RealJax``), which also yields the matching engine scenario.  All
scenarios then go, as JSON Lines, through one ``cachekey batch`` process.
A case passes when the engine's key, its eight per-entry digests (fresh and
running) and its trace lines all equal the real ones.

A failing case is shrunk (perturbations reset one group at a time while the
failure persists) and written to ``build/oracle-failures/<seed>-<index>.json``
with the original and minimal recipes, the engine scenario, the real result
and the engine output; the minimal scenario alone goes to
``<seed>-<index>.scenario.json`` (``cachekey explain`` reads it directly).

Only the first ``--shrink-limit`` failures are shrunk, to keep a bad run short.
The last line printed is always ``N passed, M failed``; the exit status is 0
only when nothing failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import generator  # noqa: E402

DEFAULT_ENGINE = os.path.join(REPO, "build", "native", "bin", "cachekey")
DEFAULT_FAILURES = os.path.join(REPO, "build", "oracle-failures")

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
    ["module.program"],
    ["module.include_metadata"],
    ["module.ignore_callbacks"],
    ["jaxlib_version"],
    ["backend.platform"],
    ["backend.platform_version"],
    ["compression"],
    ["custom_hook"],
]


def start_jax():
    """Import JAX with 4 host devices, then hand back a RealJax harness."""
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ.pop("LIBTPU_INIT_ARGS", None)
    import realjax
    harness = realjax.RealJax()
    os.environ.pop("XLA_FLAGS", None)
    return harness


def run_engine(engine: str, scenarios: list[dict], ensure_ascii: list[bool]) -> list[dict]:
    """Send scenarios to one ``cachekey batch`` process; one result per line."""
    lines = [json.dumps(s, ensure_ascii=a, allow_nan=False) for s, a in zip(scenarios, ensure_ascii)]
    proc = subprocess.run([engine, "batch", "--fixtures", os.path.join(REPO, "fixtures")],
                          input=("\n".join(lines) + "\n").encode("utf-8"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    out = proc.stdout.decode("utf-8").splitlines()
    if proc.returncode != 0 or len(out) != len(scenarios):
        raise RuntimeError(f"cachekey batch exited {proc.returncode} with {len(out)} lines for "
                           f"{len(scenarios)} scenarios: {proc.stderr.decode('utf-8', 'replace')[:2000]}")
    return [json.loads(line) for line in out]


def compare(real: dict, engine: dict) -> list[str]:
    """Human-readable differences between the real result and the engine's."""
    if "error" in engine:
        err = engine["error"]
        return [f"engine error at {err.get('path')}: {err.get('message')}"]
    problems = []
    if engine.get("key") != real["key"]:
        problems.append(f"key: real {real['key']} engine {engine.get('key')}")
    entries = engine.get("entries") or []
    if len(entries) != 8:
        problems.append(f"engine returned {len(entries)} entries")
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


def shrink(harness, engine: str, recipe: dict, case_id: str, max_tries: int = 60):
    """Reset perturbation groups to neutral while the case still fails."""
    current = json.loads(json.dumps(recipe))
    tries = 0
    changed = True
    while changed and tries < max_tries:
        changed = False
        for group in SHRINK_GROUPS:
            if all(generator.get_path(current, p) == generator.NEUTRAL[p] for p in group):
                continue
            candidate = json.loads(json.dumps(current))
            for p in group:
                generator.set_path(candidate, p, json.loads(json.dumps(generator.NEUTRAL[p])))
            tries += 1
            try:
                scenario, real = harness.run(candidate, case_id)
                result = run_engine(engine, [scenario], [True])[0]
            except Exception:  # a reset that real JAX rejects is not a simplification
                continue
            if compare(real, result):
                current = candidate
                changed = True
            if tries >= max_tries:
                break
    scenario, real = harness.run(current, case_id)
    result = run_engine(engine, [scenario], [True])[0]
    return current, scenario, real, result


def main(argv=None) -> int:
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
    args = parser.parse_args(argv)

    indices = args.only if args.only else list(range(args.count))
    if not os.path.isfile(args.engine) or not os.access(args.engine, os.X_OK):
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

    t0 = time.monotonic()
    harness = start_jax()
    t1 = time.monotonic()
    recipes, scenarios, reals = [], [], []
    for i in indices:
        recipe = generator.make_recipe(args.seed, i)
        scenario, real = harness.run(recipe, f"oracle-{args.seed}-{i}")
        recipes.append(recipe)
        scenarios.append(scenario)
        reals.append(real)
    t2 = time.monotonic()
    results = run_engine(args.engine, scenarios, [i % 2 == 0 for i in indices])
    t3 = time.monotonic()

    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as f:
            for s, r in zip(scenarios, reals):
                f.write(json.dumps({"scenario": s, "real": r}) + "\n")

    passed = failed = 0
    for i, recipe, scenario, real, result in zip(indices, recipes, scenarios, reals, results):
        problems = compare(real, result)
        if not problems:
            passed += 1
            continue
        failed += 1
        case_id = f"oracle-{args.seed}-{i}"
        report = {
            "seed": args.seed, "index": i,
            "rerun": f"tools/oracle --seed {args.seed} --only {i}",
            "mismatches": problems,
            "recipe": recipe,
        }
        if args.no_shrink or failed > args.shrink_limit:
            report.update(scenario=scenario, real=real, engine=result)
        else:
            minimal, m_scenario, m_real, m_result = shrink(harness, args.engine, recipe, case_id)
            report.update(minimal_recipe=minimal, minimal_mismatches=compare(m_real, m_result),
                          scenario=m_scenario, real=m_real, engine=m_result,
                          original_scenario=scenario)
        os.makedirs(args.failures_dir, exist_ok=True)
        path = os.path.join(args.failures_dir, f"{args.seed}-{i}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, ensure_ascii=False)
        with open(os.path.join(args.failures_dir, f"{args.seed}-{i}.scenario.json"), "w",
                  encoding="utf-8") as f:
            json.dump(report["scenario"], f, indent=1, ensure_ascii=False)
        print(f"FAIL case {i}: {problems[0]} ({len(problems)} differences) -> "
              f"{os.path.relpath(path, REPO)}", file=sys.stderr)

    print(f"oracle: seed {args.seed}, {len(indices)} cases; start-up {t1 - t0:.1f}s, "
          f"real JAX {t2 - t1:.1f}s, engine {t3 - t2:.1f}s", file=sys.stderr)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
