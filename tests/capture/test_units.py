"""Unit tests of python/cachekey that need no compilation.

* the outcome tracker attributes JAX's log records to programs (jax 0.4.30's
  formats too) and leaves what the program's own handlers see unchanged, as
  the program configures logging at any time;
* each message format it matches is in the installed jax's source exactly
  when its release range says so (jax 0.10.2 in the project's .venv; CTest
  also runs these under jax 0.4.30 and 0.12.0.1), read as text, not imported;
* a capture refuses a directory holding files unless forced, and then
  removes only an earlier capture's own files;
* the fixtures' capture package (tools/fixture_capture) knows every
  program the committed fixtures were captured from, and its wrappers run;
* tools/ckref.py is the package's module, not a copy;
* the package installs with pip (setuptools only, no network).

Exits 77 (CTest: skipped) when the interpreter has no jax installed.
"""

from __future__ import annotations

import ast
import glob
import importlib.util
import io
import json
import logging
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python"))

from cachekey import outcomes  # noqa: E402


def jax_source(name: str) -> str:
    spec = importlib.util.find_spec("jax")
    path = os.path.join(os.path.dirname(spec.origin), "_src", name)
    with open(path, encoding="utf-8") as f:
        return f.read()


def jax_version() -> str:
    spec = importlib.util.find_spec("jax")
    ns: dict = {}
    with open(os.path.join(os.path.dirname(spec.origin), "version.py"), encoding="utf-8") as f:
        exec(compile(f.read(), "version.py", "exec"), ns)  # only assigns _version
    return ns["_version"]


class OutcomeTrackerTest(unittest.TestCase):
    def setUp(self):
        self.compiler = logging.getLogger("jax._src.compiler")
        self.cache = logging.getLogger("jax._src.compilation_cache")
        self.stream = io.StringIO()
        self.user = logging.StreamHandler(self.stream)
        root = logging.getLogger()
        self.saved_root = (root.level, list(root.handlers))
        root.handlers = [self.user]
        root.setLevel(logging.WARNING)

    def tearDown(self):
        root = logging.getLogger()
        root.handlers = self.saved_root[1]
        root.setLevel(self.saved_root[0])

    def test_attribution_and_user_view(self):
        t = outcomes.OutcomeTracker()
        t.attach()
        try:
            a = t.expect("jit_f-aa", "jit_f")
            self.compiler.debug("PERSISTENT COMPILATION CACHE MISS for '%s' with key %r",
                                "jit_f", "jit_f-aa")
            self.compiler.debug("Not writing persistent cache entry for '%s' because it took "
                                "< %.2f seconds to compile (%.2fs)", "jit_f", 1.0, 0.25)
            b = t.expect("jit_g-bb", "jit_g")
            self.cache.warning("Writing %s to persistent compilation cache with key %r",
                               "jit_g", "jit_g-bb")
            c = t.expect("jit_f-aa", "jit_f")
            self.compiler.debug("Persistent compilation cache hit for '%s' with key %r",
                                "jit_f", "jit_f-aa")
            d = t.expect("jit_h-cc", "jit_h")
            self.compiler.debug("Not writing persistent cache entry with key %r since its size "
                                "(%d bytes) is less than threshold (%d bytes)", "jit_h-cc", 10, 99)
        finally:
            t.detach()
        self.assertEqual(t.outcome_of("jit_f-aa", "jit_f", a)["outcome"], "not written")
        self.assertIn("took < 1.00 seconds to compile (0.25s)",
                      t.outcome_of("jit_f-aa", "jit_f", a)["reason"])
        self.assertEqual(t.outcome_of("jit_g-bb", "jit_g", b)["outcome"], "written")
        self.assertEqual(t.outcome_of("jit_f-aa", "jit_f", c)["outcome"], "hit")
        self.assertIn("its size (10 bytes) is less than threshold (99 bytes)",
                      t.outcome_of("jit_h-cc", "jit_h", d)["reason"])
        # The program's root handler saw the WARNING and none of the DEBUG lines.
        seen = self.stream.getvalue()
        self.assertIn("Writing jit_g", seen)
        self.assertNotIn("MISS", seen)
        # Detached: the loggers were never changed.
        self.assertEqual(self.compiler.level, logging.NOTSET)
        self.assertTrue(self.compiler.propagate)
        self.assertEqual(self.compiler.handlers, [])


class ProgramLoggingTest(unittest.TestCase):
    """The program configures logging while the tracker is attached: what its
    handlers receive is decided when each record is made."""

    def setUp(self):
        self.compiler = logging.getLogger("jax._src.compiler")
        root = logging.getLogger()
        self.saved = (root.level, list(root.handlers), self.compiler.level,
                      list(self.compiler.handlers), self.compiler.propagate)
        root.handlers = []
        root.setLevel(logging.WARNING)

    def tearDown(self):
        root = logging.getLogger()
        root.setLevel(self.saved[0])
        root.handlers = self.saved[1]
        self.compiler.setLevel(self.saved[2])
        self.compiler.handlers = self.saved[3]
        self.compiler.propagate = self.saved[4]
        logging.disable(logging.NOTSET)

    def test_configured_after_attach(self):
        miss = "PERSISTENT COMPILATION CACHE MISS for '%s' with key %r"
        t = outcomes.OutcomeTracker()
        t.attach()
        root_seen, own_seen = io.StringIO(), io.StringIO()
        try:
            a = t.expect("jit_f-aa", "jit_f")
            self.compiler.debug(miss, "jit_f", "jit_f-aa")        # root at WARNING: not shown
            logging.basicConfig(level=logging.DEBUG, stream=root_seen, format="%(message)s")
            b = t.expect("jit_g-bb", "jit_g")
            self.compiler.debug(miss, "jit_g", "jit_g-bb")        # root now at DEBUG: shown
            own = logging.StreamHandler(own_seen)
            self.compiler.addHandler(own)
            self.compiler.setLevel(logging.INFO)
            self.compiler.debug(miss, "jit_h", "jit_h-cc")        # logger at INFO: not shown
            self.compiler.info("an INFO line of the program's own")
            logging.disable(logging.INFO)
            self.compiler.info("disabled by logging.disable")
        finally:
            t.detach()
        self.assertEqual(root_seen.getvalue().splitlines(),
                         ["PERSISTENT COMPILATION CACHE MISS for 'jit_g' with key 'jit_g-bb'",
                          "an INFO line of the program's own"])
        self.assertEqual(own_seen.getvalue().splitlines(), ["an INFO line of the program's own"])
        # The tracker saw the records the program did not show.
        self.assertEqual(t.outcome_of("jit_f-aa", "jit_f", a)["outcome"], "miss")
        self.assertEqual(t.outcome_of("jit_g-bb", "jit_g", b)["outcome"], "miss")
        # Detached: the logger is as the program left it, with the class's methods.
        self.assertEqual(self.compiler.level, logging.INFO)
        self.assertIn(own, self.compiler.handlers)
        self.assertNotIn("isEnabledFor", vars(self.compiler))
        self.assertNotIn("handle", vars(self.compiler))

    def test_jax_0_4_30_lines(self):
        # jax 0.4.30's own formats (its compiler.py / compilation_cache.py):
        # a hit names no key, a write formats the key with %s and ends in a
        # full stop, and the write-side "disabled" line names nothing.
        cache = logging.getLogger("jax._src.compilation_cache")
        t = outcomes.OutcomeTracker()
        t.attach()
        try:
            a = t.expect("jit_f-aa", "jit_f")
            cache.info("Writing %s to persistent compilation cache with key %s.", "jit_f", "jit_f-aa")
            b = t.expect("jit_f-aa", "jit_f")
            self.compiler.debug("Persistent compilation cache hit for '%s'", "jit_f")
            c = t.expect("jit_g-bb", "jit_g")
            cache.info("Not writing cache entry with key %s since its size (%d bytes) is less "
                       "than threshold (%d bytes)", "jit_g-bb", 10, 99)
            d = t.expect("jit_h-cc", "jit_h")
            cache.debug("put_executable_and_time: cache is disabled/not initialized")
        finally:
            t.detach()
        self.assertEqual(t.outcome_of("jit_f-aa", "jit_f", a)["outcome"], "written")
        self.assertEqual(t.outcome_of("jit_f-aa", "jit_f", b)["outcome"], "hit")
        self.assertEqual(t.outcome_of("jit_g-bb", "jit_g", c)["outcome"], "not written")
        self.assertIn("its size (10 bytes)", t.outcome_of("jit_g-bb", "jit_g", c)["reason"])
        self.assertEqual(t.outcome_of("jit_h-cc", "jit_h", d)["reason"],
                         "put_executable_and_time: cache is disabled/not initialized")


class WarningsTest(unittest.TestCase):
    def test_warnings_of_the_compiler_are_kept_and_shown_as_before(self):
        import warnings
        compiler = importlib.import_module("jax._src.compiler")
        real = compiler.warnings
        t = outcomes.OutcomeTracker()
        t.attach()
        try:
            a = t.expect("jit_f-aa", "jit_f")
            # As JAX does: "Writing ..." is logged, then the put fails.
            logging.getLogger("jax._src.compilation_cache").debug(
                "Writing %s to persistent compilation cache with key %r", "jit_f", "jit_f-aa")
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                line = sys._getframe().f_lineno + 1
                compiler.warnings.warn("Error reading persistent compilation cache entry for 'jit_f': x")
                compiler.warnings.warn("Error writing persistent compilation cache entry for 'jit_f': y")
                compiler.warnings.warn("some other warning", DeprecationWarning)
        finally:
            t.detach()
        self.assertIs(compiler.warnings, real)
        # Shown as without the stand-in: the caller's file and line, the category.
        self.assertEqual([(w.filename, w.lineno, w.category) for w in seen],
                         [(__file__, line, UserWarning), (__file__, line + 1, UserWarning),
                          (__file__, line + 2, DeprecationWarning)])
        got = t.outcome_of("jit_f-aa", "jit_f", a)
        self.assertEqual(got["outcome"], "not written")
        self.assertEqual(got["reason"], "Error writing persistent compilation cache entry for 'jit_f': y")
        self.assertEqual(got["read_error"], "Error reading persistent compilation cache entry for 'jit_f': x")
        self.assertEqual(len(got["log"]), 3)


class FormatsInJaxSourceTest(unittest.TestCase):
    def test_formats_are_jax_own(self):
        # Every string constant of the two files (implicit concatenations are
        # one constant in the syntax tree).  A format is in the installed
        # release's source exactly when its release range says so.
        constants = set()
        for name in ("compiler.py", "compilation_cache.py"):
            for node in ast.walk(ast.parse(jax_source(name))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    constants.add(node.value)
        version = tuple(int(p) for p in jax_version().split(".")[:3])
        compiler_constants = {node.value for node in ast.walk(ast.parse(jax_source("compiler.py")))
                              if isinstance(node, ast.Constant) and isinstance(node.value, str)}
        for kind, start, releases in outcomes.WARNINGS:
            # The f-string's first constant part (implicit concatenation
            # joins it with the next part's leading text).
            found = any(c.startswith(start) for c in compiler_constants)
            self.assertEqual(found, outcomes.logged_by(releases, version),
                             f"{kind}: {start!r} in jax {version}'s compiler.py")
        for outcome, fmt, _, releases in outcomes.FORMATS:
            if outcomes.logged_by(releases, version):
                self.assertIn(fmt, constants, f"{outcome}: not a format of jax {version}")
            else:
                self.assertNotIn(fmt, constants, f"{outcome}: jax {version} has it, "
                                                 f"outside its range {releases}")


class OutDirTest(unittest.TestCase):
    def test_new_or_empty_directories_are_used(self):
        from cachekey.capture import prepare_out_dir
        with tempfile.TemporaryDirectory() as tmp:
            new = os.path.join(tmp, "a", "b")
            self.assertEqual(prepare_out_dir(new), [])
            self.assertTrue(os.path.isdir(new))
            self.assertEqual(prepare_out_dir(new), [])  # empty: fine again

    def test_files_are_refused_unless_forced(self):
        from cachekey.capture import prepare_out_dir
        with tempfile.TemporaryDirectory() as tmp:
            own = ["index.json", "0001-jit_f.json", "0001-jit_f.entry1.zst",
                   "0002-jit_g.entry1", "0002-jit_g.mlir", "0002-jit_g.generic.mlir",
                   "0003-jit_h.json.tmp",
                   "12345-jit_many.json"]
            other = ["notes.txt", "12-jit_short.json", "0004-jit_i.json.bak"]
            for name in own + other:
                with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
                    f.write("x")
            os.mkdir(os.path.join(tmp, "0005-jit_dir.json"))  # a directory: never removed
            with self.assertRaises(FileExistsError) as ctx:
                prepare_out_dir(tmp)
            self.assertIn(tmp, str(ctx.exception))
            self.assertIn("0001-jit_f.entry1.zst", str(ctx.exception))
            self.assertEqual(len(os.listdir(tmp)), len(own) + len(other) + 1)
            removed = prepare_out_dir(tmp, force=True)
            self.assertEqual(sorted(removed), sorted(own))
            self.assertEqual(sorted(os.listdir(tmp)), sorted(other + ["0005-jit_dir.json"]))


class ToolArgvTest(unittest.TestCase):
    """_run.parse_tool_argv, the command line both capture and watch take."""

    def parser(self):
        import argparse
        p = argparse.ArgumentParser(prog="tool")
        p.add_argument("--out")
        p.add_argument("--quiet", action="store_true")
        return p

    def test_split_at_the_first_double_dash(self):
        from cachekey import _run
        with tempfile.NamedTemporaryFile(suffix=".py") as script:
            opts, path, args = _run.parse_tool_argv(
                self.parser(), ["--out", "d", "--quiet", "--", script.name, "--out", "--", "x"])
            self.assertEqual((opts.out, opts.quiet), ("d", True))
            self.assertEqual(path, script.name)
            # The script's own arguments pass untouched, a second -- among them.
            self.assertEqual(args, ["--out", "--", "x"])

    def test_errors_name_the_problem(self):
        from cachekey import _run
        cases = [(["--out", "d"], "give the program after --"),
                 (["--out", "d", "--"], "give the program after --"),
                 (["--", "/nonexistent/train.py"], "'/nonexistent/train.py': no such file")]
        for argv, words in cases:
            err = io.StringIO()
            with self.subTest(argv=argv), self.assertRaises(SystemExit) as ctx:
                import contextlib
                with contextlib.redirect_stderr(err):
                    _run.parse_tool_argv(self.parser(), argv)
            self.assertEqual(ctx.exception.code, 2)
            self.assertIn(words, err.getvalue())


class FixtureCaptureTest(unittest.TestCase):
    """tools/fixture_capture against the fixtures it wrote (no compilation)."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(REPO, "tools"))

    @classmethod
    def tearDownClass(cls):
        sys.path.remove(os.path.join(REPO, "tools"))

    def test_cpu_programs_are_the_captured_fixtures(self):
        from fixture_capture.programs import PROGRAM_FIXTURES
        captured = {}
        for path in glob.glob(os.path.join(REPO, "fixtures", "*.json")):
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            if "capture" in doc:
                captured[doc["id"]] = doc["title"]
        self.assertEqual(set(PROGRAM_FIXTURES), set(captured))
        for fixture_id, title in captured.items():
            self.assertEqual(PROGRAM_FIXTURES[fixture_id]["title"], title)

    def test_tpu_programs_cover_the_tpu_fixtures(self):
        from fixture_capture.tpu.programs import PROGRAMS
        paths = glob.glob(os.path.join(REPO, "fixtures", "tpu", "*.json"))
        self.assertTrue(paths)
        for path in paths:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            program = doc["provenance"]["capture_file"].split("__")[0]
            self.assertIn(program, PROGRAMS, path)
            self.assertTrue(doc["title"].startswith(PROGRAMS[program]["title"] + " (jax "), path)

    def test_the_scenario_document_is_written_once(self):
        """make_scenario rebuilds every committed fixture member for member, in order.

        The fixtures were written by the capture code before it used
        make_scenario (real jax runs: their provenance), so they are the
        expected documents.
        """
        from cachekey.scenario import argv_flags, make_scenario
        paths = [p for p in glob.glob(os.path.join(REPO, "fixtures", "*.json"))
                 + glob.glob(os.path.join(REPO, "fixtures", "tpu", "*.json"))]
        checked = 0
        for path in paths:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            if "capture" not in doc or doc.get("schema") != 1:
                continue
            flags = doc["flags"]
            head = ("schema", "id", "title", "profile", "module", "jaxlib_version", "backend",
                    "flags", "compile_options", "accelerator", "compression", "custom_hook")
            rebuilt = make_scenario(
                id=doc["id"], title=doc["title"], profile=doc["profile"], module=doc["module"],
                jaxlib_version=doc["jaxlib_version"], backend=doc["backend"],
                xla_flags=flags["XLA_FLAGS"], libtpu_init_args=flags["LIBTPU_INIT_ARGS"],
                argv=argv_flags(flags["argv"], flags["extra_prefixes"]),
                extra_prefixes=flags["extra_prefixes"],
                compile_options_b64=doc["compile_options"]["proto_b64"],
                accelerator=doc["accelerator"], compression=doc["compression"],
                custom_hook=doc["custom_hook"],
                **{k: v for k, v in doc.items() if k not in head})
            self.assertEqual(json.dumps(rebuilt), json.dumps(doc), path)
            checked += 1
        self.assertGreater(checked, 10)

    def test_argv_flags_is_jax_rule(self):
        # jax/_src/cache_key.py _hash_xla_flags: sys.argv elements starting
        # with "--xla" or an extra prefix, in order.
        from cachekey.scenario import argv_flags
        self.assertEqual(argv_flags(["prog.py", "--xla_a=1", "--other", "--my_x", "xla_b", "--xla"],
                                    ["--my"]),
                         ["--xla_a=1", "--my_x", "--xla"])
        self.assertEqual(argv_flags(["--my_x"], []), [])

    def test_one_source_for_entry_names_and_the_argv_rule(self):
        """ENTRY_NAMES lives in cachekey.ref, the argv rule in cachekey.scenario."""
        found = {"ENTRY_NAMES = ": [], 'startswith("--xla")': []}
        # The repository's own files: a build tree (python/build/, ignored)
        # holds copies.
        tracked = subprocess.run(["git", "-C", REPO, "ls-files", "--", "python/*.py", "tools/*.py"],
                                 capture_output=True, text=True, check=True).stdout.split()
        for rel in tracked:
            path = os.path.join(REPO, rel)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for needle in found:
                    if needle in text:
                        found[needle].append(os.path.relpath(path, REPO))
        self.assertEqual(found["ENTRY_NAMES = "], ["python/cachekey/ref.py"])
        self.assertEqual(found['startswith("--xla")'], ["python/cachekey/scenario.py"])

    def test_the_wrappers_run_the_package(self):
        for wrapper, says in (("capture", "fixture ids to capture"),
                              ("capture-tpu", "Usage: tools/capture-tpu")):
            r = subprocess.run([os.path.join(REPO, "tools", wrapper), "--help"],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(says, r.stdout)


class PackagingTest(unittest.TestCase):
    def test_ckref_is_the_package_module(self):
        sys.path.insert(0, os.path.join(REPO, "tools"))
        try:
            import ckref
            from cachekey import ref
            self.assertIs(ckref, ref)
        finally:
            sys.path.remove(os.path.join(REPO, "tools"))

    def test_pip_installs(self):
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                                "--disable-pip-version-check",
                                "--target", tmp, os.path.join(REPO, "python")],
                               capture_output=True, text=True, timeout=1800)  # a hang guard, not a budget: pip builds the engine
            self.assertEqual(r.returncode, 0, r.stderr)
            r = subprocess.run([sys.executable, "-c",
                                "import cachekey.capture, cachekey.ref; print(cachekey.capture.__file__)"],
                               env=dict(os.environ, PYTHONPATH=tmp), capture_output=True,
                               text=True, cwd=tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith(tmp), r.stdout)


if __name__ == "__main__":
    if importlib.util.find_spec("jax") is None:
        print("SKIPPED: this interpreter has no jax (scripts/setup-python makes the .venv)")
        sys.exit(77)
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
