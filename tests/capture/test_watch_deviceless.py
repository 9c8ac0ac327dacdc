"""Real deviceless (ahead-of-time) compiles under `python -m cachekey.watch`.

Run by CTest (tests/capture/CMakeLists.txt, ``capture.watch_deviceless``):

    python tests/capture/test_watch_deviceless.py --cli build/native/bin/cachekey

tests/capture/deviceless_program.py compiles two single-device programs for
a compile-only client: libtpu's deviceless v5e topology (jax 0.10.2 with
libtpu 0.0.42.1, jax 0.12.0.1 with libtpu 0.0.50.1) and the CUDA plugin's
compile-only client for its embedded NVIDIA H100 target config (jax
0.12.0.1 with jax-cuda12-plugin 0.12.0.1).  No TPU, no GPU, no driver.
The venvs are the oracle's (tests/oracle/venvs.py ``ensure``, as
tools/diag-oracle builds them; $CACHEKEY_VENV_ROOT and $CACHEKEY_WHEEL_CACHE
as in .ci/run); a release whose venv cannot be built is skipped, saying why.

What is expected comes from real JAX or from the change the test made,
never from the watch's output:

* JAX's own counts (jax.monitoring: compile requests that use the cache,
  hits) give the summary's hits and misses;
* JAX's own warnings give the runs in which a compile-only client found
  its entries and could not load them ("Error reading persistent
  compilation cache entry", counted by the program): there each miss must
  be ``compile_only_client``, never ``damaged``, and the entry files must
  be the bytes run A wrote (the test compares them);
* the test changed the topology (v5e:2x2 → v5e:2x4: entry 6,
  accelerator_config, holds the topology's fingerprint) or the release
  (0.10.2 → 0.12.0.1: entry 2, the jaxlib version, and entry 3, libtpu's
  platform_version);
* a plain run of the same program into the same, emptied, cache directory
  gives the keys.

The watch's facts are read from ``record.cachekey`` (codes, the engine's
``cause``), which the program collects; the text is checked only for the
entry it must name and for advice it must not give.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
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
PROGRAM = os.path.join(HERE, "deviceless_program.py")
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))
import venvs  # noqa: E402  (standard library only)

TPU_2X2, TPU_2X4 = "tpu:v5e:2x2", "tpu:v5e:2x4"
GPU_H100 = "gpu:NVIDIA H100 80GB HBM3:1x1x1"
READ_ERROR = "Error reading persistent compilation cache entry"  # JAX's warning, compiler.py
CLI = None
TMP = None
_pythons: dict[tuple, str | Exception] = {}


def python_for(release: str, accel: str) -> str:
    """The interpreter of ``release``'s TPU or GPU venv (built on first use, as
    tools/diag-oracle's python_for does); skips the test when it cannot be built."""
    key = (release, accel)
    if key not in _pythons:
        try:
            if accel == "tpu":
                libtpu = venvs.libtpu_for(release)
                if not libtpu:
                    raise venvs.Skip(f"tests/oracle/releases.json names no libtpu for jax {release}")
                _pythons[key] = venvs.ensure(release, libtpu=libtpu)["python"]
            else:
                cuda = venvs.cuda_for(release)
                if not cuda:
                    raise venvs.Skip(f"tests/oracle/releases.json names no CUDA plugin for jax {release}")
                _pythons[key] = venvs.ensure(release, cuda=cuda[0])["python"]
        except (venvs.Skip, venvs.InstallError) as e:
            _pythons[key] = e
    found = _pythons[key]
    if isinstance(found, Exception):
        raise unittest.SkipTest(f"no {accel.upper()} venv for jax {release} "
                                f"({type(found).__name__}): {found}")
    return found


def run(python: str, cache: str, index: str | None, deviceless: str, *, tag: str,
        metadata: bool = False) -> tuple[str, dict]:
    """One run of the program (watched when ``index``; ``metadata``: with
    JAX_COMPILATION_CACHE_INCLUDE_METADATA_IN_KEY=true); returns (stderr, the program's facts)."""
    facts = os.path.join(TMP, f"facts-{tag}.json")
    env = {k: v for k, v in os.environ.items()
           if k not in ("XLA_FLAGS", "LIBTPU_INIT_ARGS") and not k.startswith(("CK_", "JAX_"))}
    env.update(JAX_PLATFORMS="cpu", PYTHONPATH=os.path.join(REPO, "python"), CACHEKEY_ENGINE=CLI,
               XDG_CACHE_HOME=os.path.join(TMP, "xdg"), JAX_COMPILATION_CACHE_DIR=cache,
               CK_DEVICELESS=deviceless, CK_FACTS=facts,
               # libtpu takes /tmp/libtpu_lockfile for the whole process unless told
               # otherwise; a deviceless topology uses no TPU (as tests/diag_oracle).
               ALLOW_MULTIPLE_LIBTPU_LOAD="1")
    if metadata:
        env["JAX_COMPILATION_CACHE_INCLUDE_METADATA_IN_KEY"] = "true"
    cmd = [python] + (["-m", "cachekey.watch", "--index", index, "--"] if index else []) + [PROGRAM]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    with open(facts, encoding="utf-8") as f:
        return proc.stderr, json.load(f)


def summary(stderr: str) -> tuple[int, int]:
    m = re.search(r"(\d+) hits?, (\d+) miss(?:es)? \(hit rate", stderr)
    if not m:
        raise AssertionError(f"no summary in:\n{stderr[-2000:]}")
    return int(m.group(1)), int(m.group(2))


def files_in(cache: str) -> dict[str, str]:
    """JAX's files in a cache directory and the SHA-256 of each."""
    out = {}
    for n in sorted(os.listdir(cache)):
        with open(os.path.join(cache, n), "rb") as f:
            out[n] = hashlib.sha256(f.read()).hexdigest()
    return out


def keys_in(cache: str) -> list[str]:
    return sorted(re.sub(r"-cache$", "", n) for n in os.listdir(cache) if not n.endswith("-atime"))


class DevicelessTest(unittest.TestCase):
    maxDiff = None

    def check_jax_counts(self, stderr: str, facts: dict) -> None:
        """The summary's hits and misses are JAX's own counts."""
        requests, hits = facts["compile_requests_use_cache"], facts["cache_hits"]
        self.assertEqual(requests, 2)  # the program compiles two programs through the cache
        self.assertEqual(summary(stderr), (hits, requests - hits))
        self.assertEqual(len(facts["watch"]), requests - hits)  # one warning per miss

    def same_program_twice(self, python: str, deviceless: str, tag: str, metadata: bool = False) -> str:
        """A plain run, then runs A and B of the same program watched, on one
        cache directory (emptied after the plain run: on jax 0.10 the
        directory is in the key); returns the cache."""
        cache, index = os.path.join(TMP, f"c-{tag}"), os.path.join(TMP, f"i-{tag}")
        run(python, cache, None, deviceless, tag=f"{tag}-plain", metadata=metadata)
        plain = keys_in(cache)
        self.assertEqual(len(plain), 2)
        shutil.rmtree(cache)
        err_a, a = run(python, cache, index, deviceless, tag=f"{tag}-a", metadata=metadata)
        self.assertEqual(keys_in(cache), plain)  # the watch changes no key
        self.assertEqual(a["runtime_type"], "compile_only_runtime")  # JAX's client: compile-only
        self.check_jax_counts(err_a, a)
        self.assertEqual(a["read_errors"], 0)
        self.assertEqual([w["code"] for w in a["watch"]], ["new_program"] * 2)
        written = files_in(cache)
        self.assertEqual(len(written), 2)

        err_b, b = run(python, cache, index, deviceless, tag=f"{tag}-b", metadata=metadata)
        self.check_jax_counts(err_b, b)
        # Real JAX: run B found each entry and its compile-only client could not load it.
        self.assertEqual(b["cache_hits"], 0)
        self.assertEqual(b["read_errors"], 2)
        self.assertEqual(files_in(cache), written)  # the entries are run A's bytes: whole
        for w in b["watch"]:
            with self.subTest(program=w["program"]):
                self.assertEqual(w["code"], "compile_only_client")
                self.assertEqual(w["runtime_type"], "compile_only_runtime")
                self.assertNotIn("damaged entry", w["text"])
                self.assertNotIn("delete its file", w["text"])
                self.assertIn("not damaged", w["text"])
                self.assertIn(READ_ERROR, w["text"])  # JAX's warning, quoted
        self.assertNotIn("damaged entry", err_b)
        # JAX left run A's files as they were (lru_cache.py put keeps an existing
        # entry), so the index keeps run A's records: written by run A's process.
        records = glob.glob(os.path.join(index, "entries", "*.json"))
        self.assertEqual(len(records), 2)
        for path in records:
            with open(path, encoding="utf-8") as f:
                self.assertEqual(json.load(f)["capture"]["watch"]["pid"], a["pid"], path)
        self.assertIn("2 × found, but a compile-only client cannot load entries", err_b)
        return cache

    # Keys with metadata in the key on 0.12.0.1, without on 0.10.2.
    def test_tpu_0_10_2(self):
        self.tpu("0.10.2", metadata=False)

    def test_tpu_0_12_0_1(self):
        self.tpu("0.12.0.1", metadata=True)

    def tpu(self, release: str, metadata: bool) -> None:
        python = python_for(release, "tpu")
        tag = f"tpu-{release}"
        cache = self.same_program_twice(python, TPU_2X2, tag, metadata)
        # The topology: v5e:2x2 (4 chips) → v5e:2x4 (8 chips), programs on device 0.
        err_c, c = run(python, cache, os.path.join(TMP, f"i-{tag}"), TPU_2X4, tag=f"{tag}-c",
                       metadata=metadata)
        self.check_jax_counts(err_c, c)
        self.assertEqual((c["cache_hits"], c["read_errors"]), (0, 0))  # new keys: nothing found
        for w in c["watch"]:
            with self.subTest(program=w["program"]):
                self.assertEqual(w["code"], "key_moved")
                self.assertEqual(w["cause"], 6)
                self.assertEqual(w["matched_by"], "name_and_inputs")
                self.assertIn("entry 6 (accelerator_config)", w["text"])
        self.assertIn("2 × entry 6 (accelerator_config) moved", err_c)

    def test_tpu_upgrade(self):
        # Run A with jax 0.10.2 + libtpu 0.0.42.1 on v5e:2x2, then on v5e:2x4
        # (a newer record of each program), then run B with 0.12.0.1 + libtpu
        # 0.0.50.1 on v5e:2x2, on one cache and index (tests/diag_oracle kind
        # cache/deviceless-tpu-upgrade): entry 2 and entry 3 move, and entry 6
        # (the topology) is run A's on 2x2, so it must not be named.
        old, new = python_for("0.10.2", "tpu"), python_for("0.12.0.1", "tpu")
        cache, index = os.path.join(TMP, "c-upgrade"), os.path.join(TMP, "i-upgrade")
        run(old, cache, index, TPU_2X2, tag="upgrade-a")
        run(old, cache, index, TPU_2X4, tag="upgrade-a2")
        err_b, b = run(new, cache, index, TPU_2X2, tag="upgrade-b")
        self.check_jax_counts(err_b, b)
        self.assertEqual((b["cache_hits"], b["read_errors"]), (0, 0))
        for w in b["watch"]:
            with self.subTest(program=w["program"]):
                self.assertEqual(w["code"], "key_moved")
                self.assertEqual(w["cause"], 2)
                self.assertIn("'0.10.2' → '0.12.0.1'", w["text"])
                self.assertIn("entry 3 (backend version)", w["text"])
                self.assertNotIn("entry 6", w["text"])
                # Entry 1 moves with the upgrade; the index keeps it as a digest.
                self.assertNotIn("first difference at byte", w["text"])

    def test_gpu_0_12_0_1(self):
        python = python_for("0.12.0.1", "gpu")
        self.same_program_twice(python, GPU_H100, "gpu-0.12.0.1", metadata=True)


def main() -> int:
    global CLI, TMP
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()
    CLI = os.path.abspath(args.cli)
    TMP = tempfile.mkdtemp(prefix="cachekey-watch-deviceless-")
    try:
        result = unittest.main(argv=[sys.argv[0]] + args.rest, exit=False, verbosity=2).result
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    if result.wasSuccessful() and len(result.skipped) == result.testsRun:
        return 77  # every release skipped: CTest reports the test as skipped
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
