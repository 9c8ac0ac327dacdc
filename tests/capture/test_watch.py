"""Real JAX runs under `python -m cachekey.watch`, each with one change the test made.

Run by CTest (tests/capture/CMakeLists.txt):

    python tests/capture/test_watch.py --cli build/native/bin/cachekey

What is expected comes from the change each test made (it set
--xla_cpu_enable_fast_math=true, so the miss must name entry 4 and that
flag; it removed nothing, so the third run must hit), or from real JAX run
without the watch (the keys: the file names JAX wrote into a cache
directory, for a plain run and a watched run of the same program in the
same directory).  Never from the watch's own output.

Needs the project's .venv (jax 0.10.2); the release tests also use the
oracle's venvs for jax 0.4.30 and 0.12.0.1 ($CACHEKEY_VENV_ROOT, default
/var/cache/cachekey/venvs) and are skipped, saying so, without them.
Exits 77 (CTest: skipped) when the .venv is missing.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROGRAM = os.path.join(HERE, "program.py")
LOGS_ITSELF = os.path.join(HERE, "logs_itself.py")
VENV_PY = os.path.join(REPO, ".venv", "bin", "python")
VENV_ROOT = os.environ.get("CACHEKEY_VENV_ROOT", "/var/cache/cachekey/venvs")
RELEASES = [("0.4.30", os.path.join(VENV_ROOT, "jax-0.4.30-py3.11", "bin", "python")),
            ("0.12.0.1", os.path.join(VENV_ROOT, "jax-0.12.0.1-py3.12", "bin", "python"))]
FLAG = "--xla_cpu_enable_fast_math=true"
CLI = None
TMP = None


def env_for(extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("XLA_FLAGS", "LIBTPU_INIT_ARGS") and not k.startswith(("CK_", "JAX_"))}
    env.update(JAX_PLATFORMS="cpu", PYTHONPATH=os.path.join(REPO, "python"),
               CACHEKEY_ENGINE=CLI, XDG_CACHE_HOME=os.path.join(TMP, "xdg"))
    env.update(extra or {})
    return env


def run(cache: str, *, xdg: str = "xdg", tool: str | None = "watch", python: str = VENV_PY, env: dict | None = None,
        tool_args: list[str] | None = None, script: str = PROGRAM,
        script_args: list[str] | None = None) -> subprocess.CompletedProcess:
    """Runs ``script`` with JAX's cache in ``cache``: plainly (tool None) or under a tool."""
    cmd = [python]
    if tool:
        cmd += ["-m", f"cachekey.{tool}"] + (tool_args or []) + ["--"]
    cmd += [script] + (script_args or [])
    proc = subprocess.run(cmd, env=env_for(dict(env or {}, JAX_COMPILATION_CACHE_DIR=cache,
                                                XDG_CACHE_HOME=os.path.join(TMP, xdg))),
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc


def misses(stderr: str) -> dict[str, str]:
    """Each warning of the watch, by program name (the warning's first line names it)."""
    out, current = {}, None
    for line in stderr.splitlines():
        m = re.match(r"persistent-cache miss: (\S+) ", line)
        if m:
            current = m.group(1)
            out[current] = line
        elif current and line.startswith("  "):
            out[current] += "\n" + line
        else:
            current = None
    return out


def summary(stderr: str) -> tuple[int, int]:
    m = re.search(r"(\d+) hits?, (\d+) miss(?:es)? \(hit rate", stderr)
    if not m:
        raise AssertionError(f"no summary in:\n{stderr[-2000:]}")
    return int(m.group(1)), int(m.group(2))


def keys_in(cache: str) -> list[str]:
    """The keys JAX wrote into a cache directory (its file names)."""
    return sorted(re.sub(r"-(cache|atime)$", "", n) for n in os.listdir(cache)
                  if not n.endswith("-atime"))


class WatchRunsTest(unittest.TestCase):
    """Run 1 fills a cache; run 2 with one flag changed names entry 4 and the
    flag at each miss; run 3, unchanged from run 2, hits only; each ends with
    its summary.  Then one change at a time on the same cache and index."""

    def test_runs(self):
        cache = os.path.join(TMP, "c1")
        r1 = run(cache, xdg="xdg-runs")
        self.assertEqual(summary(r1.stderr), (0, 4))
        first = misses(r1.stderr)
        self.assertEqual(sorted(first), ["jit_broadcast_in_dim", "jit_convert_element_type",
                                         "jit_other", "jit_scaled"])
        self.assertIn("no earlier entry of jit_scaled", first["jit_scaled"])
        # The index is beside the cache, never in it: JAX's files only.
        self.assertTrue(all(n.endswith(("-cache", "-atime")) for n in os.listdir(cache)),
                        os.listdir(cache))
        index_dirs = glob.glob(os.path.join(TMP, "xdg-runs", "cachekey", "watch", "*", "entries"))
        self.assertEqual(len(index_dirs), 1)
        self.assertEqual(len(os.listdir(index_dirs[0])), 4)

        r2 = run(cache, xdg="xdg-runs", env={"XLA_FLAGS": FLAG})
        self.assertEqual(summary(r2.stderr), (0, 4))
        m2 = misses(r2.stderr)
        self.assertEqual(len(m2), 4)
        for name, text in m2.items():
            self.assertIn("entry 4 (XLA flags)", text, name)
            self.assertIn(FLAG, text, name)
            self.assertIn("nearest earlier entry (same name and input shapes)", text)
            self.assertIn("what to do:", text)

        r3 = run(cache, xdg="xdg-runs", env={"XLA_FLAGS": FLAG})
        self.assertEqual(summary(r3.stderr), (4, 0))
        self.assertEqual(misses(r3.stderr), {})
        # The same from code: cachekey.watch() at the top of a script.
        code = ("import cachekey, runpy, sys; cachekey.watch(); sys.argv = [sys.argv[1]]; "
                "runpy.run_path(sys.argv[0], run_name='__main__')")
        r3b = subprocess.run([VENV_PY, "-c", code, PROGRAM], capture_output=True, text=True,
                             timeout=300, env=env_for({"JAX_COMPILATION_CACHE_DIR": cache,
                                                       "XDG_CACHE_HOME": os.path.join(TMP, "xdg-runs"),
                                                       "XLA_FLAGS": FLAG}))
        self.assertEqual(r3b.returncode, 0, r3b.stderr[-2000:])
        self.assertEqual(summary(r3b.stderr), (4, 0))

        # A compile option (entry 5) of one function: that function misses,
        # the others hit.
        r4 = run(cache, xdg="xdg-runs", env={"XLA_FLAGS": FLAG, "CK_VARIANT": "options",
                             "CK_OPTION": "xla_embed_ir_in_executable", "CK_VALUE": "true"})
        m4 = misses(r4.stderr)
        self.assertEqual(sorted(m4), ["jit_scaled"])
        self.assertIn("entry 5", m4["jit_scaled"])
        self.assertIn("xla_embed_ir_in_executable", m4["jit_scaled"])
        self.assertEqual(summary(r4.stderr), (3, 1))

        # A shape: the nearest entry is found by name; the shapes are named.
        r5 = run(cache, xdg="xdg-runs", env={"XLA_FLAGS": FLAG, "CK_VARIANT": "shape"})
        m5 = misses(r5.stderr)
        self.assertIn("jit_scaled", m5)
        self.assertIn("nearest earlier entry (same name)", m5["jit_scaled"])
        self.assertIn("tensor<4x8xf32>, tensor<4x8xf32> → tensor<8x8xf32>, tensor<8x8xf32>",
                      m5["jit_scaled"])
        self.assertIn("entry 1", m5["jit_scaled"])
        # The index keeps entry 1 as a digest: no byte sizes or offsets to give.
        self.assertNotIn("first difference at byte", m5["jit_scaled"])

        # A damaged entry: the test overwrites jit_other's file in the cache.
        hit_keys = [k for k in keys_in(cache) if k.startswith("jit_other-")]
        for k in hit_keys:
            with open(os.path.join(cache, k + "-cache"), "wb") as f:
                f.write(b"not an executable")
        r6 = run(cache, xdg="xdg-runs", env={"XLA_FLAGS": FLAG})
        m6 = misses(r6.stderr)
        self.assertEqual(sorted(m6), ["jit_other"])
        self.assertIn("a damaged entry", m6["jit_other"])
        # JAX compiled again and left the test's bytes in place (lru_cache.py
        # put keeps an existing file): the advice is to delete the file, one
        # of those the test wrote over.
        for k in hit_keys:
            with open(os.path.join(cache, k + "-cache"), "rb") as f:
                self.assertEqual(f.read(), b"not an executable")
        self.assertEqual(sum(f"delete its file ({k}-cache)" in m6["jit_other"] for k in hit_keys), 1,
                         m6["jit_other"])

    def test_never_written_evicted_and_another_directory(self):
        # Never written: a minimum compile time no program reaches.
        cache = os.path.join(TMP, "c-min")
        run(cache, env={"CK_MIN_SECS": "1000"})
        r = run(cache, env={"CK_MIN_SECS": "1000"})
        m = misses(r.stderr)
        self.assertEqual(len(m), 4)
        for text in m.values():
            self.assertIn("never written", text)
            self.assertIn("jax_persistent_cache_min_compile_time_secs (1000.00 s)", text)

        # Evicted.  STAND-IN for JAX's LRU eviction (jax_compilation_cache_max_size
        # needs the filelock package, which the .venv lacks): the test removes
        # one entry's files as lru_cache.py's eviction does (<key>-cache and
        # <key>-atime).
        evicting = os.path.join(TMP, "c-evict")
        run(evicting)
        for n in os.listdir(evicting):
            if n.startswith("jit_scaled-"):
                os.remove(os.path.join(evicting, n))
        r = run(evicting)
        m = misses(r.stderr)
        self.assertEqual(sorted(m), ["jit_scaled"])
        self.assertIn("evicted", m["jit_scaled"])

        # Another directory: a new cache directory has an index of its own;
        # the nearest entry is the other directory's (on jax 0.10.2 the cache
        # directory is in entry 5: xla_gpu_per_fusion_autotune_cache_dir).
        other = os.path.join(TMP, "c-other")
        r = run(other)
        m = misses(r.stderr)
        self.assertIn("in the index of another cache directory", m["jit_scaled"])
        self.assertIn("xla_gpu_per_fusion_autotune_cache_dir", m["jit_scaled"])

    def test_check_contents(self):
        # jax_compilation_cache_check_contents, turned on by the test: run 2
        # finds every entry run 1 wrote, and JAX compiles each once anyway.
        cache = os.path.join(TMP, "c-check")
        run(cache)
        r = run(cache, env={"JAX_COMPILATION_CACHE_CHECK_CONTENTS": "true"})
        m = misses(r.stderr)
        self.assertEqual(len(m), 4)
        for text in m.values():
            self.assertIn("jax_compilation_cache_check_contents is on", text)
            self.assertNotIn("damaged", text)
        # The same cache without it: every program hits.
        self.assertEqual(summary(run(cache).stderr)[1], 0)


class PlainKeysTest(unittest.TestCase):
    """The keys JAX writes under the watch and under the capture are those of
    a plain run of the same program in the same directory, with metadata in
    the key (locations: the tools' frames must not be in them) and without."""

    def test_keys_equal_a_plain_run(self):
        for metadata in ("false", "true"):
            env = {"JAX_COMPILATION_CACHE_INCLUDE_METADATA_IN_KEY": metadata}
            cache = os.path.join(TMP, f"keys-{metadata}")
            run(cache, tool=None, env=env)
            plain = keys_in(cache)
            self.assertEqual(len(plain), 4)
            for tool, args in (("watch", []),
                               ("capture", ["--out", os.path.join(TMP, f"cap-{metadata}")])):
                with self.subTest(metadata=metadata, tool=tool):
                    shutil.rmtree(cache)
                    run(cache, tool=tool, env=env, tool_args=args)
                    self.assertEqual(keys_in(cache), plain)

    def test_first_log_record_reaches_the_program(self):
        # logs_itself.py with CK_LOG_FIRST=1 configures logging at DEBUG
        # before `import jax`; a plain run's log is the expectation.
        env = {"CK_LOG_FIRST": "1"}
        cache = os.path.join(TMP, "first-log")
        plain = run(cache, tool=None, env=env, script=LOGS_ITSELF, script_args=[cache]).stdout
        self.assertIn("jax._src.path", plain)  # real JAX logs it while importing
        times = re.compile(r"\d+\.\d+(?:e-?\d+)?")
        want = [times.sub("N", x) for x in plain.splitlines()]
        for tool, args in (("watch", ["--quiet"]),
                           ("capture", ["--quiet", "--out", os.path.join(TMP, "cap-first")])):
            with self.subTest(tool=tool):
                shutil.rmtree(cache)
                out = run(cache, tool=tool, env=env, tool_args=args, script=LOGS_ITSELF,
                          script_args=[cache]).stdout
                got, skip = [], False
                for x in out.splitlines():  # the watch's own records, at WARNING
                    if x.startswith("cachekey.watch "):
                        skip = True
                        continue
                    if skip and x.startswith("  "):
                        continue
                    skip = False
                    got.append(times.sub("N", x))
                self.assertEqual(got, want)


class IndexTest(unittest.TestCase):
    def test_killed_while_writing(self):
        # The test hook stops the first record half-way and waits; the test
        # kills the run there, then the next run reads what is there.
        cache, index = os.path.join(TMP, "c-kill"), os.path.join(TMP, "i-kill")
        marker = os.path.join(TMP, "kill-marker")
        env = env_for({"JAX_COMPILATION_CACHE_DIR": cache,
                       "CACHEKEY_WATCH_TEST_HOLD_WRITE": marker})
        proc = subprocess.Popen([VENV_PY, "-m", "cachekey.watch", "--index", index, "--",
                                 PROGRAM], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        deadline = time.monotonic() + 240
        while not os.path.exists(marker):
            if proc.poll() is not None:
                raise AssertionError("the run ended before writing: " + proc.stderr.read().decode())
            if time.monotonic() > deadline:
                proc.kill()
                raise AssertionError("the run never reached the index write")
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        partial = [n for n in os.listdir(os.path.join(index, "entries")) if n.endswith(".tmp")]
        self.assertEqual(len(partial), 1)
        in_cache = len(keys_in(cache))  # what JAX wrote before the kill: hits next time
        r = run(cache, tool_args=["--index", index])
        self.assertIn("skipped and removed 1 record half-written by a run that ended while "
                      "writing", r.stderr)
        names = os.listdir(os.path.join(index, "entries"))
        self.assertFalse([n for n in names if n.endswith(".tmp")], names)
        self.assertEqual(len(names), 4 - in_cache)

    def test_a_failure_is_one_warning(self):
        # An index folder that cannot be made (a file is in the way): one
        # warning, the program runs on and JAX writes its entries.
        blocker = os.path.join(TMP, "a-file")
        with open(blocker, "w") as f:
            f.write("x")
        cache = os.path.join(TMP, "c-fail")
        r = run(cache, tool_args=["--index", os.path.join(blocker, "index")])
        self.assertEqual(r.stderr.count("cachekey.watch failed"), 1, r.stderr)
        self.assertEqual(len(keys_in(cache)), 4)
        self.assertEqual(summary(r.stderr), (0, 4))

    def test_bounded(self):
        sys.path.insert(0, os.path.join(REPO, "python"))
        from cachekey import watch_index
        idx = watch_index.Index(os.path.join(TMP, "i-bound"), "/nowhere", max_entries=3)
        for i in range(5):
            key = f"jit_f-{i:064x}"
            idx.record({"expected": {"key": key, "entries": []},
                        "capture": {"program": "jit_f"}},
                       {"time": f"2026-01-01T00:00:0{i}", "outcome": "written"})
            os.utime(os.path.join(idx.entries_dir, watch_index.record_name(key)), (i, i))
        self.assertEqual(len(os.listdir(idx.entries_dir)), 3)
        self.assertEqual(idx.evicted, 2)
        again = watch_index.Index(idx.path, "/nowhere").load()
        self.assertEqual(sorted(again.records), [f"jit_f-{i:064x}" for i in (2, 3, 4)])


class ReleasesTest(unittest.TestCase):
    """Run 1, 2 (the flag), 3 (unchanged) under jax 0.4.30 and 0.12.0.1."""

    def test_releases(self):
        for release, python in RELEASES:
            with self.subTest(release=release):
                if not os.path.exists(python):
                    self.skipTest(f"no jax {release} venv at {python}")
                cache = os.path.join(TMP, f"rel-{release}")
                index = ["--index", os.path.join(TMP, f"rel-index-{release}")]
                r1 = run(cache, python=python, tool_args=index)
                n = summary(r1.stderr)[1]
                self.assertGreater(n, 0)
                r2 = run(cache, python=python, tool_args=index, env={"XLA_FLAGS": FLAG})
                m2 = misses(r2.stderr)
                self.assertIn("jit_scaled", m2)
                self.assertIn("entry 4 (XLA flags)", m2["jit_scaled"])
                self.assertIn(FLAG, m2["jit_scaled"])
                r3 = run(cache, python=python, tool_args=index, env={"XLA_FLAGS": FLAG})
                self.assertEqual(summary(r3.stderr), (n, 0))


def main() -> int:
    global CLI, TMP
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()
    CLI = os.path.abspath(args.cli)
    if not os.path.exists(VENV_PY):
        print(f"skipped: no project .venv at {VENV_PY} (scripts/setup-python makes it)")
        return 77
    TMP = tempfile.mkdtemp(prefix="cachekey-watch-test-")
    try:
        result = unittest.main(argv=[sys.argv[0]] + args.rest, exit=False, verbosity=2).result
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
