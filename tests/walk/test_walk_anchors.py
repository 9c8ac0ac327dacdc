"""Tests of tools/walk_anchors.py on a real cache_key.py.

The file is the one in the project's .venv (the real jax 0.10.2 wheel,
installed by scripts/setup); the profile (entry names, which are hashed) is
the engine's, from ``cachekey profiles --json``. Expected line numbers are
found here by plain text search in that file, independently of the tool's
``ast`` anchoring. The failure cases edit a copy of the file or of the
annotations, and check that the tool fails with a message naming the anchor
or the release.

Usage: test_walk_anchors.py --cli build/native/bin/cachekey
Exits 77 (CTest: skipped) when .venv has no jax 0.10.2.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOOL = os.path.join(REPO, "tools", "walk_anchors.py")
ANNOTATIONS = os.path.join(REPO, "tools", "walk_annotations.json")
CLI = None
SOURCE = None  # the real jax 0.10.2 cache_key.py


def find_source():
    for site in glob.glob(os.path.join(REPO, ".venv", "lib", "python*", "site-packages")):
        if os.path.isdir(os.path.join(site, "jax-0.10.2.dist-info")):
            return os.path.join(site, "jax", "_src", "cache_key.py")
    return None


def profile_for(release: str) -> dict:
    out = subprocess.run([CLI, "profiles", "--json"], check=True, capture_output=True, text=True).stdout
    for p in json.loads(out)["profiles"]:
        if release in p["releases"]:
            return {"profiles": [{**p, "releases": [release]}]}
    raise AssertionError(f"the engine has no profile for {release}")


class WalkAnchors(unittest.TestCase):
    def run_tool(self, profiles: dict, source: str | None = SOURCE, annotations: dict | None = None,
                 release: str = "0.10.2", env: dict | None = None, extra: list | None = None):
        tmp = tempfile.mkdtemp()
        pj = os.path.join(tmp, "profiles.json")
        Path(pj).write_text(json.dumps(profiles))
        args = [sys.executable, TOOL, "--profiles", pj, "--out", os.path.join(tmp, "out"),
                "--venvs", os.path.join(tmp, "no-venvs"), "--wheels", os.path.join(tmp, "wheels")]
        if source:
            args += ["--source", f"{release}={source}"]
        if annotations is not None:
            aj = os.path.join(tmp, "annotations.json")
            Path(aj).write_text(json.dumps(annotations))
            args += ["--annotations", aj]
        args += extra or []
        p = subprocess.run(args, capture_output=True, text=True, env={**os.environ, **(env or {})})
        return p, os.path.join(tmp, "out")

    def edited(self, old: str, new: str) -> str:
        text = Path(SOURCE).read_text(encoding="utf-8")
        self.assertIn(old, text)
        path = os.path.join(tempfile.mkdtemp(), "cache_key.py")
        Path(path).write_text(text.replace(old, new), encoding="utf-8")
        return path

    def test_real_file_anchors_and_entries(self):
        p, out = self.run_tool(profile_for("0.10.2"))
        self.assertEqual(p.returncode, 0, p.stderr)
        index = json.loads(Path(out, "index.json").read_text())
        doc = json.loads(Path(out, index["releases"]["0.10.2"] + ".json").read_text())
        text = Path(SOURCE).read_text(encoding="utf-8")
        self.assertEqual("\n".join(doc["lines"]) + "\n", text, "the whole file, unchanged")
        lines = text.split("\n")

        def line_of(needle):
            hits = [i + 1 for i, l in enumerate(lines) if needle in l]
            self.assertEqual(len(hits), 1, needle)
            return hits[0]

        anchors = {a["id"]: a for a in doc["anchors"]}

        def lit(anchor_id):
            return {n for s, e in anchors[anchor_id]["lit"] for n in range(s, e + 1)}

        # entry 5's four edits, each anchored to the statement that does it
        self.assertIn(line_of("copy.deepcopy(compile_options_obj)"), lit("co-copy"))
        self.assertIn(line_of('debug_options.xla_dump_to = ""'), lit("co-zero"))
        self.assertIn(line_of('debug_options.xla_gpu_cuda_data_dir = ""'), lit("co-zero"))
        self.assertIn(line_of("if flag_value[0] not in env_override_flags_to_exclude_from_cache_key"), lit("co-overrides"))
        self.assertIn(line_of("xla_client.DeviceAssignment.create("), lit("co-gpu"))
        for a in ("co-copy", "co-zero", "co-overrides", "co-gpu", "co-serialize"):
            self.assertEqual(anchors[a]["entries"], [5], a)
        # entries derived from the call graph
        self.assertEqual(anchors["hash-string"]["entries"], [3, 4, 6, 7, 8])
        self.assertEqual(anchors["exclusions"]["entries"], [4, 5], "the list feeds entry 4 and, stripped, entry 5")
        self.assertEqual(anchors["platform"]["entries"], [3])
        self.assertEqual(anchors["custom-hook"]["entries"], [8])
        self.assertEqual(anchors["log"]["entries"], [], "the trace feeds no entry")
        self.assertEqual(anchors["flags-sort"]["entries"], [4])
        self.assertIn(line_of('for flag in sorted(xla_flags):'), lit("flags-sort"))
        # a line maps to its innermost anchor
        n = line_of("if flag.split(\"=\")[0] in xla_flags_to_exclude_from_cache_key:")
        self.assertEqual(doc["anchors"][doc["line_anchor"][n - 1]]["id"], "flags-sort")
        self.assertEqual(doc["line_anchor"][0], -1, "the licence header is not annotated")
        # a frame lights only its signature
        self.assertEqual(lit("compile-options"), {line_of("def _hash_serialized_compile_options("), line_of("strip_device_assignment=False):")})
        # absent in 0.10.2, as marked
        self.assertEqual([a["id"] for a in doc["absent"]], ["mosaic"])

    def test_each_entry_links_to_what_its_lambda_calls(self):
        """links.json's entry_sources (the annotations' "source_of"): the
        anchor each entry's row links to. Expected lines: found here by text
        search in the real file, what each entry's lambda in get() calls, or
        for entries 2 and 7, which get() hashes inline, their own tuple."""
        p, out = self.run_tool(profile_for("0.10.2"))
        self.assertEqual(p.returncode, 0, p.stderr)
        links = json.loads(Path(out, "links.json").read_text())
        index = json.loads(Path(out, "index.json").read_text())
        doc = json.loads(Path(out, index["releases"]["0.10.2"] + ".json").read_text())
        anchors = {a["id"]: a for a in doc["anchors"]}
        lines = Path(SOURCE).read_text(encoding="utf-8").split("\n")

        def line_of(needle):
            hits = [i + 1 for i, l in enumerate(lines) if needle in l]
            self.assertEqual(len(hits), 1, needle)
            return hits[0]

        sources = links["entry_sources"]
        self.assertEqual(len(sources), 8, sources)
        for n, needle in {1: "def _hash_computation(", 3: "def _hash_platform(", 4: "def _hash_xla_flags(",
                          5: "def _hash_serialized_compile_options(", 6: "def _hash_accelerator_config(",
                          8: "def custom_hook("}.items():
            self.assertEqual(links["releases"]["0.10.2"][sources[n - 1]], line_of(needle), f"entry {n}")
        for n, needle in {2: '"jax_lib version",', 7: '"compression",'}.items():
            a = anchors[sources[n - 1]]
            self.assertTrue(a["start"] <= line_of(needle) <= a["end"], f"entry {n}: {a['id']}")

    def test_a_source_that_does_not_feed_its_entry_fails(self):
        ann = json.loads(Path(ANNOTATIONS).read_text())
        for a in ann["anchors"]:
            if a["id"] == "compile-options":
                del a["source_of"]
            if a["id"] == "log":
                a["source_of"] = 5  # the trace: it feeds no entry
        p, _ = self.run_tool(profile_for("0.10.2"), annotations=ann)
        self.assertEqual(p.returncode, 1)
        self.assertIn("anchor log: named the source of entry 5, but in jax 0.10.2 it feeds no entry", p.stderr)

    def test_one_source_per_entry(self):
        ann = json.loads(Path(ANNOTATIONS).read_text())
        for a in ann["anchors"]:
            if a["id"] == "flags-sort":
                a["source_of"] = 4
            if a["id"] == "custom-hook":
                del a["source_of"]
        p, _ = self.run_tool(profile_for("0.10.2"), annotations=ann)
        self.assertEqual(p.returncode, 1)
        self.assertIn("entry 4: 2 anchors name themselves its source", p.stderr)
        self.assertIn("entry 8: 0 anchors name themselves its source", p.stderr)

    def test_renamed_function_fails_loudly(self):
        src = self.edited("def _hash_xla_flags(", "def _hash_the_flags(")
        p, _ = self.run_tool(profile_for("0.10.2"), source=src)
        self.assertEqual(p.returncode, 1)
        self.assertIn("anchor flags:", p.stderr)
        self.assertIn("matched 0 places", p.stderr)
        self.assertIn("jax 0.10.2", p.stderr)

    def test_a_second_match_fails(self):
        src = self.edited("  compile_options_copy = copy.deepcopy(compile_options_obj)",
                          "  compile_options_copy = copy.deepcopy(compile_options_obj)\n  compile_options_copy = copy.deepcopy(compile_options_copy)")
        p, _ = self.run_tool(profile_for("0.10.2"), source=src)
        self.assertEqual(p.returncode, 1)
        self.assertIn("anchor co-copy:", p.stderr)
        self.assertIn("matched 2 places", p.stderr)

    def test_marked_absent_but_found_fails(self):
        ann = json.loads(Path(ANNOTATIONS).read_text())
        for a in ann["anchors"]:
            if a["id"] == "callbacks":
                a["absent"] = {"before": "1.0", "why": "test"}
        p, _ = self.run_tool(profile_for("0.10.2"), annotations=ann)
        self.assertEqual(p.returncode, 1)
        self.assertIn("anchor callbacks: marked absent", p.stderr)

    def test_engine_and_annotations_must_agree_on_entry_3(self):
        prof = profile_for("0.10.2")
        for e in prof["profiles"][0]["entries"]:
            if e["index"] == 3:
                e["hashed"] = False
        p, _ = self.run_tool(prof)
        self.assertEqual(p.returncode, 1)
        self.assertIn("entry 3 is not hashed", p.stderr)

    def test_offline_without_a_source_fails_naming_the_release(self):
        prof = profile_for("0.4.31")
        p, _ = self.run_tool(prof, source=None, release="0.4.31",
                             env={"PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_NO_CACHE_DIR": "1",
                                  "PIP_RETRIES": "0", "PIP_TIMEOUT": "2", "PIP_FIND_LINKS": ""})
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("jax 0.4.31: cache_key.py is not available", p.stderr)
        self.assertIn("pip download jax==0.4.31", p.stderr)
        self.assertIn("--python-version 3.11", p.stderr, "the target Python is named")

    def test_cold_source_step_fetches_a_312_only_release_from_a_311_interpreter(self):
        """The fresh-machine failure (issue 19): with empty wheel and venv
        caches and pip's cache off, the source step for jax 0.11.0 (whose
        wheel says Requires-Python >=3.12) must fetch the wheel even though
        the tool runs under Python 3.11. The expected text is read here from
        the downloaded wheel itself, not from the tool's output."""
        py311 = os.path.join(REPO, ".venv", "bin", "python")
        if not os.path.exists(py311):
            self.skipTest(".venv is missing (run scripts/setup)")
        minor = subprocess.run([py311, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True).stdout.strip()
        self.assertEqual(minor, "3.11", "the point of the test is an interpreter older than the release needs")
        tmp = tempfile.mkdtemp()
        pj = os.path.join(tmp, "profiles.json")
        Path(pj).write_text(json.dumps(profile_for("0.11.0")))
        wheels = os.path.join(tmp, "wheels")
        p = subprocess.run([py311, TOOL, "--profiles", pj, "--out", os.path.join(tmp, "out"),
                            "--venvs", os.path.join(tmp, "no-venvs"), "--wheels", wheels],
                           capture_output=True, text=True,
                           env={**os.environ, "PIP_NO_CACHE_DIR": "1", "PIP_FIND_LINKS": ""})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("pip download jax==0.11.0 (wheel for Python 3.12)", p.stderr, "it says what it fetches")
        got = sorted(Path(wheels).glob("jax-0.11.0-*.whl"))
        self.assertEqual(len(got), 1, os.listdir(wheels))
        import zipfile
        with zipfile.ZipFile(got[0]) as z:
            meta = z.read("jax-0.11.0.dist-info/METADATA").decode()
            real = z.read("jax/_src/cache_key.py").decode()
        self.assertIn("Requires-Python: >=3.12", meta, "a wheel a 3.11 pip would not pick by itself")
        index = json.loads(Path(tmp, "out", "index.json").read_text())
        doc = json.loads(Path(tmp, "out", index["releases"]["0.11.0"] + ".json").read_text())
        self.assertEqual("\n".join(doc["lines"]) + "\n", real)


def main() -> int:
    global CLI, SOURCE
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    args, rest = ap.parse_known_args()
    CLI = args.cli
    SOURCE = find_source()
    if not SOURCE:
        print("skipped: .venv has no jax 0.10.2 (run scripts/setup)")
        return 77
    WalkAnchors.run_tool.__defaults__ = (SOURCE, None, "0.10.2", None, None)
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False)
    return 0 if prog.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
