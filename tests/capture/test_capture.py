"""Captures of real JAX runs under one controlled change each, and `cachekey diff`.

Run by CTest (tests/capture/CMakeLists.txt):

    python tests/capture/test_capture.py --cli build/native/bin/cachekey

Each test captures tests/capture/program.py twice (python -m cachekey.capture,
from python/ in this tree) with exactly one thing changed, then checks that
`cachekey diff DIR_A DIR_B` names that change.  The expected strings come
from the change the test made (it knows it set xla_gpu_autotune_level from 4
to 1), never from the engine's output.  Every captured file is also checked
with `cachekey explain` (the engine must reproduce the key real JAX computed).

Needs the project's .venv (jax 0.10.2); the jaxlib-version test also needs a
jax 0.12.0.1 venv (the oracle's layout: $CACHEKEY_VENV_ROOT, default
/var/cache/cachekey/venvs, /jax-0.12.0.1-py3.12).  Exits 77 (CTest: skipped)
with a message when the .venv is missing; the jax 0.12 test alone is skipped
when only that venv is missing.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROGRAM = os.path.join(HERE, "program.py")
VENV_PY = os.path.join(REPO, ".venv", "bin", "python")
VENV_ROOT = os.environ.get("CACHEKEY_VENV_ROOT", "/var/cache/cachekey/venvs")
JAX012_PY = os.path.join(VENV_ROOT, "jax-0.12.0.1-py3.12", "bin", "python")
JAX0430_PY = os.path.join(VENV_ROOT, "jax-0.4.30-py3.11", "bin", "python")
LOGS_ITSELF = os.path.join(HERE, "logs_itself.py")
# The releases a script-logging and outcome test runs under: the .venv, then
# the oracle's venvs when scripts/setup-python made them.
RELEASES = [("0.10.2", VENV_PY), ("0.12.0.1", JAX012_PY), ("0.4.30", JAX0430_PY)]
CLI = None  # set from --cli
TMP = None


_captured: dict[str, str] = {}


def read_json(path: str):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def run_capture(out: str, *, python: str = VENV_PY, env: dict | None = None,
                cache: str = "cache", extra: list[str] | None = None) -> subprocess.CompletedProcess:
    """Runs ``python -m cachekey.capture`` on program.py into ``out``."""
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("XLA_FLAGS", "LIBTPU_INIT_ARGS", "CK_VARIANT")}
    full_env.update(JAX_PLATFORMS="cpu", PYTHONPATH=os.path.join(REPO, "python"))
    full_env.update(env or {})
    cmd = [python, "-m", "cachekey.capture", "--out", out,
           "--cache-dir", os.path.join(TMP, cache)] + (extra or []) + ["--", PROGRAM]
    return subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=300)


def capture(name: str, *, python: str = VENV_PY, env: dict | None = None,
            cache: str = "cache", extra: list[str] | None = None) -> str:
    """Captures program.py into TMP/name (once per name) and returns that directory."""
    out = os.path.join(TMP, name)
    if name in _captured:
        return out
    proc = run_capture(out, python=python, env=env, cache=cache, extra=extra)
    if proc.returncode != 0:
        raise AssertionError(f"capture {name} failed:\n{proc.stderr}")
    if "a capture contains your program" not in proc.stderr:
        raise AssertionError("the CLI must say that a capture contains the program")
    _captured[name] = out
    return out


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=120)


def diff(a: str, b: str) -> tuple[int, str, dict]:
    text = cli("diff", a, b)
    js = cli("diff", a, b, "--json")
    if text.returncode == 2 or js.returncode == 2:
        raise AssertionError(f"diff failed: {text.stderr}{js.stderr}")
    return text.returncode, text.stdout, json.loads(js.stdout)


def differing(report: dict, program: str) -> dict:
    found = [d for d in report["differing"] if d["program"] == program]
    if len(found) != 1:
        raise AssertionError(f"expected one differing {program}, got {report}")
    return found[0]


class CaptureTest(unittest.TestCase):
    base: str

    @classmethod
    def setUpClass(cls):
        cls.base = capture("base")

    def assert_explained(self, directory: str):
        """The engine reproduces every key this capture holds."""
        files = sorted(glob.glob(os.path.join(directory, "0*.json")))
        self.assertTrue(files, f"nothing captured in {directory}")
        for f in files:
            r = cli("explain", f)
            self.assertEqual(r.returncode, 0, f"{f}: {r.stdout[-500:]}{r.stderr}")
            self.assertIn("check: The engine's key equals the key real JAX computed.", r.stdout)

    def test_base_capture(self):
        index = read_json(os.path.join(self.base, "index.json"))
        programs = [p["program"] for p in index["programs"]]
        self.assertIn("jit_scaled", programs)
        self.assertIn("jit_other", programs)
        # min compile time 0 and a fresh cache directory: every program is written.
        for p in index["programs"]:
            self.assertEqual(p["outcome"], "written", p)
        self.assert_explained(self.base)
        status, out, report = diff(self.base, self.base)
        self.assertEqual(status, 0, out)
        self.assertEqual(report["differing"], [])

    def test_a_used_directory_is_refused_unless_forced(self):
        # Files of an earlier run left next to this run's would be read as
        # this run's programs.
        out = os.path.join(TMP, "used")
        shutil.copytree(self.base, out)
        stale = os.path.join(out, "0099-jit_stale.json")
        mine = os.path.join(out, "notes.txt")
        for path in (stale, mine):
            with open(path, "w", encoding="utf-8") as f:
                f.write("{}")
        refused = run_capture(out)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn(f"{out} is not empty", refused.stderr)
        self.assertTrue(os.path.exists(stale))
        forced = run_capture(out, extra=["--force"])
        self.assertEqual(forced.returncode, 0, forced.stderr)
        self.assertFalse(os.path.exists(stale))
        self.assertTrue(os.path.exists(mine))  # not a capture's file: kept
        index = read_json(os.path.join(out, "index.json"))
        listed = sorted(p["file"] for p in index["programs"])
        on_disk = sorted(os.path.basename(f) for f in glob.glob(os.path.join(out, "0*.json")))
        self.assertEqual(listed, on_disk)
        self.assert_explained(out)

    def test_second_run_hits(self):
        again = capture("again")  # same cache directory as base
        index = read_json(os.path.join(again, "index.json"))
        self.assertEqual({p["outcome"] for p in index["programs"]}, {"hit"})

    def autotune_pair(self):
        """The same program with XLA_FLAGS --xla_gpu_autotune_level=4, then =1."""
        return (capture("flag_a", env={"XLA_FLAGS": "--xla_gpu_autotune_level=4"}),
                capture("flag_b", env={"XLA_FLAGS": "--xla_gpu_autotune_level=1"}))

    def test_flag(self):
        a, b = self.autotune_pair()
        status, out, report = diff(a, b)
        self.assertEqual(status, 1)
        d = differing(report, "jit_scaled")
        self.assertEqual(d["comparison"]["cause"], 4)
        self.assertIn("flag --xla_gpu_autotune_level=1 replaced --xla_gpu_autotune_level=4",
                      d["comparison"]["sentence"])
        self.assertIn("xla_gpu_autotune_level=1 replaced", out)
        self.assert_explained(b)

    def test_debug_options_field_from_xla_flags(self):
        # jaxlib also parses XLA_FLAGS into DebugOptions: entry 5 moves too,
        # as part of the same cause (the one flag), not as a second change.
        a, b = self.autotune_pair()
        _, out, report = diff(a, b)
        d = differing(report, "jit_scaled")
        self.assertIn(5, d["comparison"]["with_cause"])
        self.assertNotIn(5, d["comparison"]["also_changed"])
        self.assertIn("entry 5: DebugOptions.xla_gpu_autotune_level (field 123) 4 → 1",
                      details_of(d))

    def test_compiler_options(self):
        # jax.jit(..., compiler_options=...) reaches the key as env_option_overrides.
        env = {"CK_VARIANT": "options", "CK_OPTION": "xla_cpu_enable_fast_min_max"}
        a = capture("opt_a", env=dict(env, CK_VALUE="true"))
        b = capture("opt_b", env=dict(env, CK_VALUE="false"))
        _, out, report = diff(a, b)
        d = differing(report, "jit_scaled")
        self.assertEqual(d["comparison"]["cause"], 5, out)
        self.assertIn('env_option_overrides["xla_cpu_enable_fast_min_max"] true → false',
                      d["comparison"]["sentence"])
        self.assertEqual([x["program"] for x in report["differing"]], ["jit_scaled"])
        self.assert_explained(b)

    def test_function_code(self):
        b = capture("code", env={"CK_VARIANT": "code"})
        status, out, report = diff(self.base, b)
        self.assertEqual(status, 1)
        d = differing(report, "jit_scaled")
        self.assertEqual(d["comparison"]["cause"], 1)
        # The text diff shows the constant the test changed (1.0 -> 2.0).
        self.assertRegex(d["text_diff"], r"\n-.*1\.000000e\+00")
        self.assertRegex(d["text_diff"], r"\n\+.*2\.000000e\+00")
        self.assertEqual(d["module_text"]["code"], "diff")
        # The engine's own words name it too: the structural diff of the
        # .generic.mlir texts finds the constant, 1.0 then 2.0, and the
        # advice is the baked-in constant's, not a generic one.
        found = [f["finding"] for f in d["comparison"]["findings"]["details"]
                 if f["code"] == "module_finding"]
        self.assertTrue(found, out)
        self.assertEqual(found[0]["code"], "baked_constant", out)
        changed = [(c.get("before", ""), c.get("after", "")) for c in found[0]["changes"]]
        self.assertTrue(any("1.0" in x and "2.0" in y for x, y in changed), changed)
        self.assertEqual(d["comparison"]["advice"]["module_finding"], "baked_constant", out)
        self.assertIn("traced argument", d["comparison"]["advice"]["text"], out)
        self.assertEqual([x["program"] for x in report["differing"]], ["jit_scaled"])
        self.assert_explained(b)

    def test_program_on_one_side(self):
        b = capture("extra", env={"CK_VARIANT": "extra"})
        status, out, report = diff(self.base, b)
        self.assertEqual(status, 1)
        self.assertEqual([u["program"] for u in report["only_b"]], ["jit_only_here"])
        self.assertIn("Only in B: jit_only_here", out)
        self.assertEqual(report["differing"], [])

    def test_settings_recorded(self):
        # The capture records the options JAX read at each compile: the run
        # the test made sets JAX_DEFAULT_MATMUL_PRECISION=highest, the base
        # run leaves it unset (None). jax_enable_x64 is left at its default.
        b = capture("precision", env={"JAX_DEFAULT_MATMUL_PRECISION": "highest"})
        for run, want in ((self.base, None), (b, "highest")):
            docs = [read_json(f) for f in sorted(glob.glob(os.path.join(run, "0*.json")))]
            self.assertTrue(docs)
            for doc in docs:
                settings = doc["capture"]["settings"]
                self.assertIs(settings["jax_enable_x64"], False)
                self.assertEqual(settings["jax_default_matmul_precision"], want, run)

    def test_digests_only(self):
        opts = ["--no-entry1-bytes", "--no-module-text"]
        a = capture("dig_a", extra=opts)
        b = capture("dig_b", env={"CK_VARIANT": "code"}, extra=opts)
        for f in glob.glob(os.path.join(a, "0*")):
            self.assertTrue(f.endswith(".json"), f"{f}: only digests should be kept")
        doc = read_json(glob.glob(os.path.join(a, "*jit_scaled.json"))[0])
        self.assertNotIn("entry1_b64", doc["module"])
        status, out, report = diff(a, b)
        self.assertEqual(status, 1)
        d = differing(report, "jit_scaled")
        self.assertEqual(d["comparison"]["cause"], 1)
        self.assertIn("captured as digests only", d["comparison"]["sentence"])
        self.assertIn("not captured (--no-module-text)", d["text_diff"])
        self.assertEqual(d["module_text"]["code"], "not_captured")
        self.assertEqual((d["module_text"]["captured_a"], d["module_text"]["captured_b"]), (False, False))
        for f in sorted(glob.glob(os.path.join(b, "0*.json"))):
            r = cli("explain", f)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("entries 2–8 equal JAX's", r.stdout)

    def test_device_count(self):
        # JAX leaves --xla_force_host_platform_device_count out of entry 4; the
        # device count reaches the key through the topology (entry 6).
        b = capture("devices", env={"XLA_FLAGS": "--xla_force_host_platform_device_count=4"})
        _, out, report = diff(self.base, b)
        d = differing(report, "jit_scaled")
        self.assertEqual(d["comparison"]["cause"], 6, out)
        # The device count is one of entry 6's own findings (as in a diff of
        # two scenarios), not said again among the also-findings.
        self.assertIn((1, 4), [(f["devices_before"], f["devices_after"])
                               for f in d["comparison"]["findings"]["details"]
                               if f["code"] == "device_count"])
        self.assertNotIn(6, [f.get("entry") for f in d["also_findings"]])
        self.assertIn("a flag JAX leaves out of the key (entry 4 does not hash it): "
                      "added flag --xla_force_host_platform_device_count=4", also_of(d))
        self.assert_explained(b)

    def test_device_assignment(self):
        # The same program with its arguments on device 0, then on device 1.
        two = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
        a = capture("dev0", env=two)
        b = capture("dev1", env=dict(two, CK_VARIANT="device1"))
        _, out, report = diff(a, b)
        d = differing(report, "jit_scaled")
        details = details_of(d) + also_of(d)
        self.assertTrue(any(x.endswith("device assignment [[0]] → [[1]]") for x in details), out)
        self.assert_explained(b)

    def test_cache_directory(self):
        b = capture("cachedir", cache="other-cache")
        _, out, report = diff(self.base, b)
        d = differing(report, "jit_scaled")
        self.assertEqual(d["comparison"]["cause"], 5)
        # jax 0.10.2 puts <cache dir>/xla_gpu_per_fusion_autotune_cache_dir in DebugOptions.
        # The sentence names the field (long values are shortened there); the
        # details give both paths whole.
        self.assertIn("xla_gpu_per_fusion_autotune_cache_dir", d["comparison"]["sentence"])
        details = "\n".join(details_of(d))
        self.assertIn(os.path.join(TMP, "cache"), details)
        self.assertIn(os.path.join(TMP, "other-cache"), details)

    @unittest.skipUnless(os.path.exists(JAX012_PY), f"no jax 0.12.0.1 venv at {JAX012_PY}")
    def test_jaxlib_version(self):
        b = capture("jax012", python=JAX012_PY, cache="cache012")
        index = read_json(os.path.join(b, "index.json"))
        self.assertEqual(index["jax"], "0.12.0.1")
        self.assert_explained(b)
        _, out, report = diff(self.base, b)
        d = differing(report, "jit_scaled")
        self.assertIn("The profile changed", d["comparison"]["sentence"])
        everything = d["comparison"]["sentence"] + "\n" + "\n".join(also_of(d))
        self.assertIn("jaxlib version '0.10.2' → '0.12.0.1'", everything)


def details_of(d: dict) -> list[str]:
    """The texts of a differing program's findings.details (cachekey diff --json)."""
    return [f["text"] for f in d["comparison"]["findings"]["details"]]


def also_of(d: dict) -> list[str]:
    """The texts of a differing program's also_findings."""
    return [f["text"] for f in d["also_findings"]]


def script_env(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("XLA_FLAGS", "LIBTPU_INIT_ARGS", "CK_VARIANT", "CK_LOGGING", "CK_MIN_SECS")
           and not k.startswith("JAX_")}
    env.update(JAX_PLATFORMS="cpu", PYTHONPATH=os.path.join(REPO, "python"))
    env.update(extra or {})
    return env


def run_logs_itself(python: str, cache: str, *, out: str | None = None,
                    env: dict | None = None) -> subprocess.CompletedProcess:
    """logs_itself.py with its cache at ``cache``: plain, or under a capture into ``out``."""
    cmd = [python] + (["-m", "cachekey.capture", "--out", out, "--"] if out else []) + [LOGS_ITSELF, cache]
    proc = subprocess.run(cmd, env=script_env(env), capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return proc


_TIMES = re.compile(r"\d+\.\d+(?:e-?\d+)?")


def normalized(log: str) -> list[str]:
    """The lines of a log with every decimal number (compile and trace times) as N."""
    return [_TIMES.sub("N", line) for line in log.splitlines()]


class ScriptLoggingTest(unittest.TestCase):
    """A program that configures logging itself, after `import jax`, logs the
    same lines under a capture as without one: its own jax._src.compiler and
    jax._src.compilation_cache lines are all there, and the capture adds no
    line (no compilation) of its own.  The expectation is real JAX's log of
    the same program in the same cache directory, run without the capture."""

    def compare(self, release: str, python: str, mode: str, env: dict | None = None,
                stream: str = "stdout"):
        if not os.path.exists(python):
            self.skipTest(f"no jax {release} venv at {python}")
        env = dict(env or {}, CK_LOGGING=mode)
        name = f"logs-{release}-{mode}{'-' + '-'.join(sorted(env)) if len(env) > 1 else ''}"
        cache = os.path.join(TMP, name + "-cache")
        plain = run_logs_itself(python, cache, env=env)
        shutil.rmtree(cache)  # the same path, empty again: the same keys, the same misses
        captured = run_logs_itself(python, cache, out=os.path.join(TMP, name), env=env)
        want = normalized(getattr(plain, stream))
        got = [x for x in normalized(getattr(captured, stream))
               if not x.startswith("cachekey.capture: ")]  # the capture's own messages (stderr)
        own = [x for x in want if "jax._src.compiler " in x or "jax._src.compilation_cache " in x]
        compiles = [x for x in want if "Compiling " in x]
        # Not vacuous: real JAX logged the program's own function (jit_f,
        # jit(f); jax 0.4.30's compile line says "Compiling f with").
        self.assertTrue(any(re.search(r"\bjit[_(]f\b|Compiling f ", x) for x in own + compiles),
                        f"jax {release}: {want[:20]}")
        self.assertEqual([x for x in got if x in own or "jax._src.compil" in x], own,
                         f"jax {release}, {mode}: the program's own cache lines")
        self.assertEqual(len([x for x in got if "Compiling " in x]), len(compiles),
                         f"jax {release}, {mode}: compile lines")
        self.assertEqual(got, want, f"jax {release}, {mode}: the whole log")

    def test_root_logger_at_debug(self):
        for release, python in RELEASES:
            with self.subTest(release=release):
                self.compare(release, python, "root")

    def test_the_two_loggers_configured(self):
        for release, python in RELEASES:
            with self.subTest(release=release):
                self.compare(release, python, "module")

    def test_log_compiles(self):
        # JAX_LOG_COMPILES=1, logging untouched: JAX's WARNING lines go to
        # stderr ("Compiling jit(f) ..."); a compilation the capture made
        # would add its own.
        for release, python in RELEASES:
            with self.subTest(release=release):
                self.compare(release, python, "none", env={"JAX_LOG_COMPILES": "1"}, stream="stderr")


class OutcomeTest(unittest.TestCase):
    """Every program's outcome, on every release with a venv here, from the
    change the test made: a new cache directory and a minimum compile time of
    0 s (every program written), the same directory again (every program a
    hit), a new directory and a minimum of 1000 s (no program written, for
    that reason)."""

    def outcomes(self, release: str, python: str, name: str, cache: str,
                 env: dict | None = None) -> list[dict]:
        out = os.path.join(TMP, f"outcome-{release}-{name}")
        run_logs_itself(python, os.path.join(TMP, cache), out=out, env=dict(env or {}, CK_LOGGING="none"))
        index = read_json(os.path.join(out, "index.json"))
        self.assertEqual(index["jax"], release)
        self.assertIn("jit_f", [p["program"] for p in index["programs"]])
        return index["programs"]

    def test_written_hit_not_written(self):
        for release, python in RELEASES:
            with self.subTest(release=release):
                if not os.path.exists(python):
                    self.skipTest(f"no jax {release} venv at {python}")
                cache = f"outcome-{release}-cache"
                first = self.outcomes(release, python, "first", cache)
                self.assertEqual({p["outcome"] for p in first}, {"written"}, first)
                again = self.outcomes(release, python, "again", cache)
                self.assertEqual([(p["program"], p["outcome"]) for p in again],
                                 [(p["program"], "hit") for p in first])
                slow = self.outcomes(release, python, "slow", f"outcome-{release}-slow",
                                     env={"CK_MIN_SECS": "1000"})
                self.assertEqual({p["outcome"] for p in slow}, {"not written"}, slow)
                for p in slow:
                    self.assertRegex(p["reason"], rf"^Not writing persistent cache entry for "
                                                  rf"'{p['program']}' because it took < 1000\.00 "
                                                  r"seconds to compile \(\d+\.\d+s\)$")


class DamagedEntryTest(unittest.TestCase):
    """Every entry of a cache cut to half its size (the change the test
    made): JAX warns "Error reading persistent compilation cache entry for
    '<program or key>'" (a warnings.warn in jax._src.compiler, every release
    0.4.30 .. 0.12.0.1), compiles again and writes.  The capture records the
    warning with the program, and the program's stderr is the same as
    without the capture (each warning attributed to the same line of JAX)."""

    def test_read_errors(self):
        for release, python in RELEASES:
            with self.subTest(release=release):
                if not os.path.exists(python):
                    self.skipTest(f"no jax {release} venv at {python}")
                cache = os.path.join(TMP, f"damaged-{release}-cache")
                env = {"CK_LOGGING": "none"}
                run_logs_itself(python, cache, env=env)
                damaged = os.path.join(TMP, f"damaged-{release}-copy")
                shutil.copytree(cache, damaged)
                # The four programs' entries: <key>-cache beside <key>-atime
                # (the LRU cache), or <key> alone (jax 0.4.30's file cache).
                entries = [f for f in os.listdir(damaged) if f.startswith("jit_")
                           and not f.endswith("-atime") and os.path.isfile(os.path.join(damaged, f))]
                self.assertEqual(len(entries), 4, entries)
                for f in entries:
                    with open(os.path.join(damaged, f), "r+b") as fh:
                        fh.truncate(os.path.getsize(os.path.join(damaged, f)) // 2)
                shutil.rmtree(cache)
                shutil.copytree(damaged, cache)
                plain = run_logs_itself(python, cache, env=env)
                shutil.rmtree(cache)
                shutil.copytree(damaged, cache)
                out = os.path.join(TMP, f"damaged-{release}")
                captured = run_logs_itself(python, cache, out=out, env=env)
                got = [x for x in normalized(captured.stderr) if not x.startswith("cachekey.capture: ")]
                self.assertEqual(got, normalized(plain.stderr))
                self.assertIn("Error reading persistent compilation cache entry", plain.stderr)
                programs = read_json(os.path.join(out, "index.json"))["programs"]
                self.assertEqual(len(programs), 4)
                for p in programs:
                    self.assertEqual(p["outcome"], "written", p)
                    self.assertRegex(p.get("read_error", ""),
                                     rf"^Error reading persistent compilation cache entry for "
                                     rf"'{re.escape(p['program'])}(-[0-9a-f]{{64}})?': ")


class GpuTopologyTest(unittest.TestCase):
    """No GPU here: a GpuTopologyProto as an older jaxlib's serialize()
    returns it is described by the capture, and the engine feeds exactly
    those bytes; on a release that hashes the fingerprint the capture keeps
    the fingerprint (the engine refuses gpu_topology there)."""

    def test_description_round_trips_through_the_engine(self):
        sys.path.insert(0, os.path.join(REPO, "python"))
        from cachekey import capture as cap, ref
        data = (ref.encode_len_field(3, b"12.3") + ref.encode_varint_field(4, 1)
                + ref.encode_varint_field(5, 1) + ref.encode_varint_field(6, 8))
        wrapped = (ref.encode_varint_field(1, 7) + ref.encode_len_field(2, b"cuda")
                   + ref.encode_len_field(9, ref.encode_len_field(1, b"type.googleapis.com/xla.GpuTopologyProto")
                                          + ref.encode_len_field(2, data)))
        fp = ref.fingerprint64(data)
        # Fingerprint releases: never described, even when the fields give fp.
        self.assertEqual(cap._gpu_topology(wrapped, fp, hashed_serialized=False), (None, None))
        accelerator, _ = cap._gpu_topology(data, None, hashed_serialized=True)
        self.assertEqual(accelerator, {"gpu_topology": {
            "platform_version": "12.3", "num_partitions": 1, "num_hosts_per_partition": 1,
            "num_devices_per_host": 8}})
        # Wrapped bytes are not what the fields re-encode to: not described.
        self.assertEqual(cap._gpu_topology(wrapped, None, hashed_serialized=True), (None, None))
        # A field the engine's gpu_topology cannot carry: not described.
        extra = data + ref.encode_varint_field(7, 1)
        self.assertEqual(cap._gpu_topology(extra, None, True), (None, None))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "gpu.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"schema": 1, "base": "add_1x1", "profile": "0.9.2",
                           "accelerator": accelerator}, f)
            r = cli("explain", path, "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            entry6 = json.loads(r.stdout)["entries"][5]
            self.assertEqual(entry6["preview_hex"], data.hex()[:len(entry6["preview_hex"])])
            # The same description under a fingerprint release is refused.
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"schema": 1, "base": "add_1x1", "profile": "0.12.0.1",
                           "accelerator": accelerator}, f)
            r = cli("explain", path, "--json")
            self.assertNotEqual(r.returncode, 0, r.stdout)
            self.assertIn("gpu_topology", r.stdout + r.stderr)


def main() -> int:
    global CLI, TMP
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    args, rest = parser.parse_known_args()
    CLI = os.path.abspath(args.cli)
    if not os.path.exists(VENV_PY):
        print(f"SKIPPED: no project venv at {VENV_PY} (scripts/setup-python makes it)")
        return 77
    with tempfile.TemporaryDirectory(prefix="cachekey-capture-") as tmp:
        TMP = tmp
        result = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2).result
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
