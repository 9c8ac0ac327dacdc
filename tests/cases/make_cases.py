#!/usr/bin/env python3
"""Makes the cache-miss cases 20-29 with the real JAX: two runs of
tests/cases/program.py with one controlled change between them.

    tests/cases/make_cases.py [--py311 .venv/bin/python]
                              [--py312 /work/venvs/tpu-0.12.0.1/bin/python]
                              [--only 20-cpu-max-isa]

Each case folder gets the logs, a README.md (what changed, how it was made)
and expect.json, the answer `cachekey compare-logs` must give. The answer is
written here by hand from the change the case makes; before writing it, this
script reads the real logs itself (plain regular expressions, not the engine)
and checks which entries' own digests moved for which program, so a case
whose real log disagrees with its stated answer is not written. The tests
(tests/engine/CasesTest.cpp) compare the engine against expect.json.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ENTRIES = ["computation", "jax_lib version", "backend version", "XLA flags",
           "compile_options", "accelerator_config", "compression", "custom_hook"]
OWN = re.compile(r"get_cache_key hash of serialized (.+?): ([0-9a-f]{64})")
LOOKUP = re.compile(r"(PERSISTENT COMPILATION CACHE MISS|Persistent compilation "
                    r"cache hit) for '([^']+)' with key '([^']+)'")


def programs(log, tag=""):
    """{name: [(outcome, {entry: own digest})]} of the lines starting with tag."""
    out, own = {}, {}
    for line in log.read_text().splitlines():
        if not line.startswith(tag):
            continue
        m = OWN.search(line)
        if m:
            own[ENTRIES.index(m.group(1)) + 1] = m.group(2)
            continue
        m = LOOKUP.search(line)
        if m:
            outcome = "miss" if m.group(1).startswith("PERSISTENT") else "hit"
            out.setdefault(m.group(2), []).append((outcome, own))
            own = {}
    return out


def moved(log_a, log_b, name, tag=""):
    """The entries whose own digest differs for the first program `name`."""
    a, b = programs(log_a, tag)[name][0][1], programs(log_b, tag)[name][0][1]
    return sorted(e for e in range(1, 9) if a.get(e) != b.get(e))


def run(py, log, cache, env=None, wait=True):
    e = dict(os.environ, JAX_PLATFORMS="cpu", CK_LOG=str(log), CK_CACHE_DIR=str(cache))
    e.pop("XLA_FLAGS", None)
    e.update(env or {})
    p = subprocess.Popen([py, str(HERE / "program.py")], env=e)
    if wait and p.wait() != 0:
        sys.exit(f"{py} program.py failed for {log}")
    return p


def version(py):
    return subprocess.check_output(
        [py, "-c", "import sys, jax, jaxlib; print(jax.__version__, jaxlib.__version__, "
                   "'%d.%d.%d' % sys.version_info[:3])"], text=True).split()


class Case:
    def __init__(self, folder, title, story):
        self.dir = HERE / folder
        self.title, self.story = title, story
        self.made, self.expect, self.checks = [], [], []

    def begin(self):
        if self.dir.exists():
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True)
        self.tmp = Path(tempfile.mkdtemp(prefix="ckcase-"))

    def log(self, name):
        return self.dir / name

    def cache(self, name="cache"):
        return self.tmp / name

    def made_with(self, py, what):
        jax, jaxlib, python = version(py)
        self.made.append(f"- {what}: jax {jax}, jaxlib {jaxlib}, Python {python}")

    def check(self, a, b, name, entries, tag=""):
        got = moved(self.log(a), self.log(b), name, tag)
        if got != entries:
            sys.exit(f"{self.dir.name}: real JAX moved entries {got} for {name} "
                     f"({a} vs {b}), the case says {entries}")
        self.checks.append(f"- {name} ({a} vs {b}{', ' + tag.strip() if tag else ''}): "
                           f"own digests of entries {entries or 'none'} differ")

    def write(self):
        when = datetime.now(timezone.utc).strftime("%Y-%m-%d")
        readme = [f"# {self.dir.name}: {self.title}", "", self.story, "",
                  f"Made with the real JAX by tests/cases/make_cases.py on {when}:", "",
                  *self.made, "",
                  "Checked in the real logs (plain regular expressions) before "
                  "writing expect.json:", "", *self.checks, "",
                  "expect.json holds the answer `cachekey compare-logs` must give; "
                  "it comes from the change above, not from the engine.", ""]
        (self.dir / "README.md").write_text("\n".join(readme))
        (self.dir / "expect.json").write_text(json.dumps({"compare": self.expect}, indent=1) + "\n")
        shutil.rmtree(self.tmp, ignore_errors=True)


def two_runs(c, py, suffix, env1, env2, same_cache=True, what=""):
    a, b = f"run1{suffix}.log", f"run2{suffix}.log"
    run(py, c.log(a), c.cache("c" + suffix), env1)
    run(py, c.log(b), c.cache("c" + suffix if same_cache else "d" + suffix), env2)
    c.made_with(py, f"{a}, {b}{' (' + what + ')' if what else ''}")
    return a, b


def flag_case(py311, py312, case, flags, moved, expect):
    """Run 2 sets XLA_FLAGS=`flags`, on both jax versions; `moved` entries of
    jit_step must move in the real logs; `expect` is the answer."""
    case.begin()
    for py, sfx in ((py311, "_311"), (py312, "_312")):
        a, b = two_runs(case, py, sfx, {}, {"XLA_FLAGS": flags})
        case.check(a, b, "jit_step", moved)
        case.expect.append({"a": a, "b": b, "keys_differ": True, **expect})
    case.write()


def host_has_newer_than_avx2():
    """Whether this host's CPU has a feature XLA's AVX2 ceiling turns off
    (AVX-512 or AMX, xla/backends/cpu/codegen/cpu_features.cc), read from the
    kernel's own flags in /proc/cpuinfo, independently of the engine."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return True
    for line in text.splitlines():
        if line.startswith("flags"):
            return any(f.startswith(("avx512", "amx")) for f in line.split(":", 1)[1].split())
    return True


def case_cpu_max_isa(py311, py312):
    # The ceiling moves the CPU target (entry 6) only when the host has a
    # feature above it: on a host without AVX-512 (LLVM znver3, haswell),
    # --xla_cpu_max_isa=AVX2 turns nothing off and entry 6 stays.
    target_moves = host_has_newer_than_avx2()
    story = ("Run 2 sets `XLA_FLAGS=--xla_cpu_max_isa=AVX2`. JAX keeps the flag in "
             "entry 4; XLA also parses it into DebugOptions (entry 5) and builds the CPU "
             "target with it (entry 6). One cause, seen in three entries."
             if target_moves else
             "Run 2 sets `XLA_FLAGS=--xla_cpu_max_isa=AVX2`. JAX keeps the flag in "
             "entry 4 and XLA also parses it into DebugOptions (entry 5); this host has "
             "nothing above AVX2, so the CPU target (entry 6) stays. One cause, seen in "
             "two entries.")
    flag_case(py311, py312, Case(
        "20-cpu-max-isa", "a flag that also changes DebugOptions and the CPU target", story),
        "--xla_cpu_max_isa=AVX2", [4, 5, 6] if target_moves else [4, 5],
        {"cause": 4, "with_cause": [5, 6] if target_moves else [5], "also_changed": [],
         "sentence_contains": ["added flag --xla_cpu_max_isa=AVX2",
                               "DebugOptions.xla_cpu_max_isa", "one change"]
                              + (["CPU target"] if target_moves else []),
         "sentence_lacks": ["Another ingredient moved too"],
         "summary_contains": ["another key"]})


def case_device_count(py311, py312):
    flag_case(py311, py312, Case(
        "21-device-count", "an excluded flag that changes the devices",
        "Run 2 sets `XLA_FLAGS=--xla_force_host_platform_device_count=4`. The flag "
        "is on JAX's exclusion list, so entry 4 does not move, but the CPU client "
        "then has four devices and the topology fingerprint (entry 6) covers them."),
        "--xla_force_host_platform_device_count=4", [6],
        {"cause": 6, "with_cause": [], "also_changed": [],
         "sentence_contains": ["device count changed",
                               "--xla_force_host_platform_device_count=4"]})


def case_excluded_into_debug_options(py311, py312):
    flag_case(py311, py312, Case(
        "22-excluded-flag-reaches-entry-5",
        "an excluded dump flag that still reaches DebugOptions",
        "Run 2 sets `XLA_FLAGS=--xla_dump_include_timestamp`. JAX excludes the "
        "flag from entry 4 but does not zero the DebugOptions field XLA parses it "
        "into (field 131), so entry 5 moves and nothing else."),
        "--xla_dump_include_timestamp", [5],
        {"cause": 5, "with_cause": [], "also_changed": [],
         "sentence_contains": ["--xla_dump_include_timestamp is excluded from entry 4",
                               "(field 131)"]})


def case_program_changed(py311, py312):
    c = Case("23-one-program-changed", "one program's body changed, the others did not",
             "Run 2 multiplies where run 1 adds, in `step` only. Its key moves at entry 1; "
             "JAX's own small programs keep their keys and hit.")
    c.begin()
    a, b = two_runs(c, py311, "", {}, {"CK_VARIANT": "mul"})
    c.check(a, b, "jit_step", [1])
    c.check(a, b, "jit_broadcast_in_dim", [])
    c.expect.append({"a": a, "b": b, "keys_differ": True, "cause": 1,
                     "explained": "jit_step", "with_cause": [], "also_changed": [],
                     "pairs": {"jit_step": {"keys": "differ", "outcome_b_contains": "missed"},
                               "jit_broadcast_in_dim": {"keys": "equal", "outcome_b": "hit"}},
                     "sentence_contains": ["the program itself changed"],
                     "summary_contains": ["jit_step has another key: the program changed"]})
    c.write()


def case_host_callbacks(py311, py312):
    c = Case("24-host-callbacks", "a program with jax.debug.print is never written",
             "Both runs are the same; `step` calls `jax.debug.print`. jax 0.10.2 does not "
             "write programs with host callbacks to the cache, so run 2 misses `step` "
             "again with an equal key. jax 0.12.0.1 writes them, and run 2 hits.")
    c.begin()
    env = {"CK_CALLBACK": "1"}
    a, b = two_runs(c, py311, "_311", env, env)
    c.check(a, b, "jit_step", [])
    c.expect.append({"a": a, "b": b, "keys_differ": False, "cause": 0,
                     "pairs": {"jit_step": {"keys": "equal",
                                            "outcome_b_contains": "host callbacks"}},
                     "summary_contains": ["jit_step has the same key as in run1_311.log, "
                                          "which never wrote it", "host callbacks"]})
    a, b = two_runs(c, py312, "_312", env, env)
    c.check(a, b, "jit_step", [])
    c.expect.append({"a": a, "b": b, "keys_differ": False, "cause": 0,
                     "pairs": {"jit_step": {"keys": "equal", "outcome_b": "hit"}},
                     "summary_contains": ["programs hit."]})
    c.write()


def case_entry_size(py311, py312):
    c = Case("25-min-entry-size", "entries under the minimum size are never written",
             "Both runs set `jax_persistent_cache_min_entry_size_bytes` to 100 MB, so "
             "JAX writes nothing and run 2 misses every program with equal keys.")
    c.begin()
    env = {"CK_MIN_ENTRY": "100000000"}
    a, b = two_runs(c, py311, "", env, env)
    c.check(a, b, "jit_step", [])
    c.expect.append({"a": a, "b": b, "keys_differ": False, "cause": 0,
                     "pairs": {"jit_step": {"keys": "equal",
                                            "outcome_b_contains": "jax_persistent_cache_min_entry_size_bytes"}},
                     "summary_contains": ["0 of", "which never wrote them",
                                          "jax_persistent_cache_min_entry_size_bytes"]})
    c.write()


def interleave(parts, out, seed):
    """Merges the lines of several logs, each log's order kept, a few lines
    at a time from one then another, as processes appending to one file do."""
    import random
    rng = random.Random(seed)
    lines = [p.read_text().splitlines(keepends=True) for p in parts]
    merged = []
    while any(lines):
        src = rng.choice([l for l in lines if l])
        take = rng.randint(1, 3)
        merged += src[:take]
        del src[:take]
    out.write_text("".join(merged))


def case_interleaved(py311, py312):
    c = Case("26-two-processes-one-log",
             "two processes write one log; one of them changed a flag",
             "Each run is two processes, every line tagged `[rank0] ` or `[rank1] ` as a "
             "launcher would, their lines interleaved in one log (each process logged to "
             "its own file; the files were merged a few lines at a time, each process's "
             "order kept, with a fixed seed). In run 2 only rank 1 sets "
             "`XLA_FLAGS=--xla_cpu_enable_fast_math=true`. Programs are paired per process "
             "and name; only rank 1's keys move.")
    c.begin()
    for i, flags in ((1, None), (2, "--xla_cpu_enable_fast_math=true")):
        parts = []
        for rank in (0, 1):
            part = c.tmp / f"run{i}_rank{rank}.log"
            env = {"CK_TAG": f"[rank{rank}] "}
            if flags and rank == 1:
                env["XLA_FLAGS"] = flags
            run(py311, part, c.cache(), env)
            parts.append(part)
        interleave(parts, c.log(f"run{i}.log"), seed=i)
    c.made_with(py311, "run1.log, run2.log (two processes each, merged)")
    c.check("run1.log", "run2.log", "jit_step", [], "[rank0]")
    c.check("run1.log", "run2.log", "jit_step", [4, 5], "[rank1]")
    c.expect.append({"a": "run1.log", "b": "run2.log", "keys_differ": True, "cause": 4,
                     "with_cause": [5], "paired_by": "process and name",
                     "pairs": {"jit_step [rank0]": {"keys": "equal", "outcome_b": "hit"},
                               "jit_step [rank1]": {"keys": "differ"}},
                     "sentence_contains": ["added flag --xla_cpu_enable_fast_math=true"]})
    c.write()


def case_formats(py311, py312):
    c = Case("27-log-formats", "the same program logged in other formats",
             "Run 1 logs in the absl/glog style (`I1130 20:20:12.452000 140234 "
             "cache_key.py:157] …`); run 2 in colour (ANSI codes around the level) and "
             "its file was then given Windows line ends. Nothing changed but the format, "
             "so every key is equal and run 2 hits.")
    c.begin()
    a, b = two_runs(c, py311, "", {"CK_FORMAT": "absl"}, {"CK_FORMAT": "ansi"})
    text = c.log(b).read_bytes().replace(b"\n", b"\r\n")
    c.log(b).write_bytes(text)
    c.made_with(py311, "run2.log then converted to CRLF line ends")
    c.check(a, b, "jit_step", [])
    c.expect.append({"a": a, "b": b, "keys_differ": False, "cause": 0,
                     "pairs": {"jit_step": {"keys": "equal", "outcome_b": "hit"}},
                     "summary_contains": ["programs hit."]})
    c.write()


def case_upgrade_and_flag(py311, py312):
    c = Case("28-upgrade-and-flag", "a jaxlib upgrade and, independently, a new flag",
             "Run 1 is jax 0.10.2; run 2 is jax 0.12.0.1 with "
             "`XLA_FLAGS=--xla_cpu_enable_fast_math=true`. The upgrade is the root cause "
             "(entries 1, 5, 6 move with it); the flag is a second, independent change "
             "(entry 4).")
    c.begin()
    a, b = "run1.log", "run2.log"
    run(py311, c.log(a), c.cache())
    run(py312, c.log(b), c.cache(), {"XLA_FLAGS": "--xla_cpu_enable_fast_math=true"})
    c.made_with(py311, a)
    c.made_with(py312, b)
    c.check(a, b, "jit_step", [1, 2, 4, 5, 6])
    c.expect.append({"a": a, "b": b, "keys_differ": True, "cause": 2,
                     "with_cause": [1, 5, 6], "also_changed": [4],
                     "decoded": {"2": ["jaxlib 0.10.2", "jaxlib 0.12.0.1"]},
                     "sentence_contains": ["jaxlib 0.10.2 \u2192 0.12.0.1",
                                           "Another ingredient moved too: entry 4 (XLA flags)",
                                           "--xla_cpu_enable_fast_math=true"]})
    c.write()


CASES = [case_cpu_max_isa, case_device_count, case_excluded_into_debug_options,
         case_program_changed, case_host_callbacks, case_entry_size, case_interleaved,
         case_formats, case_upgrade_and_flag]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--py311", default=str(ROOT / ".venv/bin/python"))
    ap.add_argument("--py312", default="/work/venvs/tpu-0.12.0.1/bin/python")
    ap.add_argument("--only", action="append", default=[])
    args = ap.parse_args()
    for make in CASES:
        name = make.__name__
        if args.only and not any(o in name for o in args.only):
            continue
        print("making", name, flush=True)
        make(args.py311, args.py312)


if __name__ == "__main__":
    main()
