"""Explain each persistent-cache miss as it happens: ``cachekey.watch``.

Command line::

    python -m cachekey.watch [--index DIR] [--quiet] -- SCRIPT [ARGS...]

From code, at the top of a script (before or after ``import jax``)::

    import cachekey
    cachekey.watch()            # or cachekey.watch(index="DIR")

At each persistent-cache miss the watch logs one WARNING on the logger
``cachekey.watch`` (its facts under ``record.cachekey``: ``{code, ...,
text}``): the program and its key; the nearest earlier entry of the same
program in the *ingredients index* (same name and input shapes, else same
name; the fewest entries moved, then the newest) with when, by which process and into which cache
directory it was written; the first entry that moved and how, in the
engine's words (``cachekey diff --json`` of that entry's record and this
key's: ``sentence``, ``advice``); and what to do.  A miss whose key *is*
in the index is explained too: never written (JAX's reason: minimum compile
time, entry size, host callbacks, process id), damaged (JAX could not read
it), evicted (written, and its file is gone), another directory, or present
and not read.  At exit it prints a summary to stderr: programs, hits,
misses, hit rate, seconds compiling on misses, and the causes with counts.

The index (``cachekey.watch_index``) gets one record per miss: the key's
ingredients (the capture scenario, entry 1 as a digest) and what became of
it.  By default it lives in ``$XDG_CACHE_HOME/cachekey/watch/<sha of the
cache directory>``, never inside the JAX cache directory.

How: the watch is a ``cachekey.capture.Capture`` that keeps its scenarios in
memory (no entry-1 bytes, no module text).  It attaches right after the
program's own ``import jax`` (``_run.after_import``), so the program's
logging sees every record, the first one included; it puts its own frames
and ``<frozen runpy>`` on JAX's exclusion list, so locations, and keys with
``JAX_COMPILATION_CACHE_INCLUDE_METADATA_IN_KEY=true``, are a plain run's.
Besides ``cache_key.get`` it wraps, in ``jax._src.compiler``,
``_cache_read`` (hit or miss, at the moment JAX knows it) and
``compile_or_get_cached`` (the compile time, and the outcome once JAX has
written or skipped the entry), both present with these parameters from jax
0.4.30 to 0.12.0.1.  Nothing the watch does can fail the program: any
exception inside it becomes one warning and the run goes on.
"""

from __future__ import annotations

import argparse
import atexit
import collections
import json
import logging
import os
import queue
import socket
import sys
import threading
import time
import types

from cachekey import _engine, _run, watch_index, watch_words
from cachekey.capture import Capture, _utc_now

LOGGER = "cachekey.watch"
log = logging.getLogger(LOGGER)

_active = None  # the running Watch


class Watch(Capture):
    """One watched run (see the module doc).

    ``index``: the index folder, or None for the default per cache
    directory.  ``quiet``: no summary on stderr (the warnings are logged
    regardless).  ``max_entries``/``max_bytes``: the index's bounds.
    """

    def __init__(self, index: str | None = None, *, quiet: bool = False,
                 max_entries: int = watch_index.MAX_ENTRIES,
                 max_bytes: int = watch_index.MAX_BYTES, command: list[str] | None = None):
        super().__init__(None, module_text=False, entry1_bytes=False, quiet=True,
                         command=command)
        self.index_arg = os.path.abspath(index) if index else None
        self.show_summary = not quiet
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self._indexes: dict[str, watch_index.Index] = {}
        self._pending = threading.local()
        self._seen: set[str] = set()
        self._failed_where: set[str] = set()
        self.hits = self.misses = 0
        self.compile_seconds_on_misses = 0.0
        self.causes: collections.Counter = collections.Counter()
        self.findings: list[dict] = []
        self.failures = 0
        self.last_index: str | None = None
        self._queue = None
        self._others: dict[str, watch_index.Index] = {}  # other directories' indexes, read
        self._worker = None
        self._count_lock = threading.Lock()

    # -- life cycle -------------------------------------------------------

    def start(self, *, wait_for_jax: bool = True) -> "Watch":
        """Starts watching: now when jax is imported, else right after the program imports it."""
        global _active
        if _active is not None:
            raise RuntimeError("cachekey.watch is already running in this process")
        _active = self
        super().start(wait_for_jax=wait_for_jax)
        return self

    def _attach(self) -> None:
        super()._attach()
        from jax._src import compiler
        self._compiler = compiler
        self._real_read = compiler._cache_read
        self._real_compile = compiler.compile_or_get_cached
        compiler._cache_read = self._cache_read
        compiler.compile_or_get_cached = self._compile_or_get_cached

    def stop(self) -> None:
        """Restores JAX and prints the summary (unless quiet). Idempotent."""
        global _active
        if not self._running:
            return
        self._running = False
        if self._attached:
            c = self._compiler
            if c._cache_read == self._cache_read:
                c._cache_read = self._real_read
            if c.compile_or_get_cached == self._compile_or_get_cached:
                c.compile_or_get_cached = self._real_compile
            if self._cache_key.get == self._get:
                self._cache_key.get = self._real_get
            self._outcomes.detach()
        if _active is self:
            _active = None
        if self._worker is not None:  # the misses still being explained
            self._queue.put(None)
            self._worker.join(timeout=120)
        if self.show_summary:
            try:
                print(watch_words.summary_text(self.summary()), file=sys.stderr)
            except Exception as exc:  # never fail the exit
                print(f"cachekey.watch: no summary: {type(exc).__name__}: {exc}", file=sys.stderr)

    def summary(self) -> dict:
        """The run's figures: programs, compilations, hits, misses, compile
        seconds on misses, causes ``[(label, count)]`` (most first), the index."""
        idx = self._indexes.get(self.last_index) if self.last_index else None
        return {"programs": len(self._seen), "compilations": self.hits + self.misses,
                "hits": self.hits, "misses": self.misses,
                "compile_seconds_on_misses": round(self.compile_seconds_on_misses, 3),
                "causes": self.causes.most_common(), "failures": self.failures,
                "index": idx.path if idx else (self.index_arg or "(none used)"),
                "index_records": idx.count() if idx else 0,
                "index_evicted": idx.evicted if idx else 0}

    # -- what Capture calls -----------------------------------------------

    def _keep(self, stem: str, scenario: dict, row: dict) -> None:
        pend = getattr(self._pending, "by_key", None)
        if pend is None:
            pend = self._pending.by_key = {}
        # Whether JAX's file for the key is there now, before JAX looks it up:
        # asked only when that can explain a miss (the contents check is on),
        # not at every compile.
        row["_on_disk"] = _check_contents() and _entry_present(self._cache_dir(), row["key"])
        pend[row["key"]] = (scenario, row)

    def _failed(self, message: str, where: str = "capture") -> None:
        self.failures += 1
        if where in self._failed_where:
            return
        self._failed_where.add(where)
        try:
            log.warning("%s", watch_words.failure_text(where, message),
                        extra={"cachekey": {"code": "watch_failed", "where": where,
                                            "error": message}})
        except Exception:
            pass

    def _say(self, message: str) -> None:
        pass

    def _rebuild_cpu_topologies(self) -> None:
        pass  # entry 6 is kept as JAX's fingerprint; the watch compiles nothing

    def write_index(self) -> None:
        pass

    # -- the wrappers -----------------------------------------------------

    def _compile_or_get_cached(self, *args, **kwargs):
        stack = getattr(self._pending, "stack", None)
        if stack is None:
            stack = self._pending.stack = []
        frame = {"misses": []}
        stack.append(frame)
        t0 = time.perf_counter()
        try:
            return self._real_compile(*args, **kwargs)
        finally:
            elapsed = time.perf_counter() - t0
            stack.pop()
            if self._running and frame["misses"]:
                try:
                    self._compiled(frame, elapsed)
                except Exception as exc:
                    self._failed(f"{type(exc).__name__}: {exc}", "recording the entry")

    def _cache_read(self, module_name, cache_key, *args, **kwargs):
        result = self._real_read(module_name, cache_key, *args, **kwargs)
        if self._running:
            try:
                self._read(module_name, cache_key, result)
            except Exception as exc:
                self._failed(f"{type(exc).__name__}: {exc}", "explaining a miss")
        return result

    def _read(self, module_name: str, key: str, result) -> None:
        pend = getattr(self._pending, "by_key", {})
        scenario, row = pend.pop(key, (None, None))
        self._seen.add(module_name)
        executable = result[0] if isinstance(result, tuple) else result
        if executable is not None:
            self.hits += 1
            index = self._index()
            if index is not None:
                index.touch(key)
            return
        self.misses += 1
        if scenario is None:
            self.causes["not captured"] += 1
            return
        stack = getattr(self._pending, "stack", None)
        if stack:  # recorded in the index once JAX has written (or skipped) the entry
            stack[-1]["misses"].append((scenario, row))
        index = self._index()
        finding = self.explain(scenario, row, index)
        if finding.pop("_diff", None) is not None:
            self._diffs().put((finding, scenario))  # the engine runs beside the compile
        else:
            self._tell(finding)

    def _tell(self, finding: dict) -> None:
        """Logs the miss's one warning and counts its cause."""
        finding["text"] = watch_words.miss_text(finding)
        with self._count_lock:
            self.findings.append(finding)
            self.causes[watch_words.cause_label(finding)] += 1
        log.warning("%s", finding["text"], extra={"cachekey": finding})

    def _diffs(self):
        """The queue of the thread that runs ``cachekey diff`` for misses (started once)."""
        if self._queue is None:
            self._queue = queue.Queue()
            self._worker = threading.Thread(target=self._diff_loop, name="cachekey.watch",
                                            daemon=True)
            self._worker.start()
        return self._queue

    def _diff_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            finding, scenario = item
            try:
                self._engine_diff(finding, finding["record"], scenario)
                self._tell(finding)
            except Exception as exc:
                self._failed(f"{type(exc).__name__}: {exc}", "explaining a miss")

    def _compiled(self, frame: dict, elapsed: float) -> None:
        self.compile_seconds_on_misses += elapsed
        index = self._index()
        for scenario, row in frame["misses"]:
            out = self._outcomes.outcome_of(row["key"], row["program"], row["_token"])
            if out["outcome"] not in ("written", "not written") or index is None:
                continue
            if out.get("read_error") and index.lookup(row["key"]) is not None:
                # JAX found the entry and could not load it: lru_cache.py's put
                # leaves an existing file as it is, so the record of the run
                # that wrote it stays (used now).
                index.touch(row["key"])
                continue
            meta = {"time": _utc_now(), "outcome": out["outcome"], "pid": os.getpid(),
                    "host": socket.gethostname(), "argv": list(sys.argv),
                    "cache_dir": self._cache_dir(), "compile_seconds": round(elapsed, 3),
                    "jax": self._jax.__version__}
            for k in ("reason", "reason_code", "reason_values"):
                if k in out:
                    meta[k] = out[k]
            index.record(scenario, meta)

    # -- the index --------------------------------------------------------

    def _cache_dir(self) -> str | None:
        from jax._src import config
        value = getattr(config, "compilation_cache_dir", None)
        path = value.value if value is not None else None
        return os.path.abspath(path) if path and "://" not in path else path

    def _index(self) -> watch_index.Index | None:
        cache_dir = self._cache_dir()
        if cache_dir is None:
            return None
        path = self.index_arg or watch_index.default_dir(cache_dir)
        idx = self._indexes.get(path)
        if idx is None:
            idx = watch_index.Index(path, cache_dir, max_entries=self.max_entries,
                                    max_bytes=self.max_bytes).load()
            self._indexes[path] = idx
            if idx.skipped:
                log.warning("%s", watch_words.skipped_text(idx.path, idx.skipped),
                            extra={"cachekey": {"code": "index_skipped", "index": idx.path,
                                                "skipped": idx.skipped}})
        self.last_index = path
        return idx

    # -- the analysis -----------------------------------------------------

    def explain(self, scenario: dict, row: dict, index: watch_index.Index | None) -> dict:
        """Why this key missed, as facts: ``{code, program, key, cache_dir, ...}``.

        Codes: ``compile_only_client`` (JAX found the entry and the run's
        client, ``runtime_type`` compile_only_runtime, cannot load any:
        ``read_error``, ``platform``; the entry is whole), ``damaged``
        (another read error; ``entry_present``), ``check_contents`` (the
        entry was there when JAX looked the key up and
        jax_compilation_cache_check_contents is on), ``never_written`` (``reason_code``,
        ``reason_values``, ``reason``), ``evicted``, ``another_directory``,
        ``present_not_read`` (the key is known), ``key_moved`` (``record``:
        the nearest earlier entry; ``matched_by``; the engine's ``cause``,
        ``cause_name``, ``sentence``, ``advice``; or ``first_moved`` and
        ``engine_error`` without the engine) and ``new_program``.
        """
        key, program = row["key"], row["program"]
        cache_dir = self._cache_dir()
        f = {"code": "", "program": program, "key": key, "cache_dir": cache_dir}
        out = self._outcomes.outcome_of(key, program, row["_token"])
        rec = index.lookup(key) if index is not None else None
        if out.get("read_error"):
            backend = scenario.get("backend") or {}
            runtime = backend.get("runtime_type")
            if runtime == COMPILE_ONLY_RUNTIME or (runtime is None
                                                   and COMPILE_ONLY_READ in out["read_error"]):
                # A deviceless (ahead-of-time) compile: the client that found
                # the entry cannot load any executable; the entry is whole.
                f.update(code="compile_only_client", read_error=out["read_error"], record=rec,
                         platform=backend.get("platform"), runtime_type=runtime,
                         entry_present=_entry_present(cache_dir, key))
            else:
                f.update(code="damaged", read_error=out["read_error"], record=rec,
                         entry_present=_entry_present(cache_dir, key))
            return f
        if row.get("_on_disk") and _check_contents():
            # The file was there at the lookup and read without an error, yet
            # JAX compiled: compilation_cache.py's VerificationCache returns
            # nothing the first time a process sees a key, to check the entry.
            f.update(code="check_contents", record=rec)
            return f
        if rec is not None:
            w = rec["watch"]
            f["record"] = rec
            if rec["outcome"] == "not written":
                f.update(code="never_written", reason_code=w.get("reason_code", "other"),
                         reason_values=w.get("reason_values", {}), reason=w.get("reason"))
            elif w.get("cache_dir") != cache_dir:
                f.update(code="another_directory")
            elif _entry_present(cache_dir, key) is False:
                f.update(code="evicted")
            else:
                f.update(code="present_not_read")
            return f
        others = []
        if index is not None and not self.index_arg:
            for folder in watch_index.siblings(index.path):
                full = os.path.join(folder, "entries", watch_index.record_name(key))
                if os.path.isfile(full):
                    other = watch_index.Index(folder, watch_index.cache_dir_of(folder) or "")
                    found = other.lookup(key)
                    if found is not None and found["outcome"] == "written":
                        f.update(code="another_directory", record=found)
                        return f
                others.append(folder)
        inputs = scenario["capture"].get("inputs")
        digests = [e["digest"] for e in scenario["expected"]["entries"]]
        nearest, other_dir = self._nearest(index, program, inputs, others, digests)
        if nearest is None:
            f.update(code="new_program", index_records=index.count() if index else 0)
            return f
        f.update(code="key_moved", record=nearest,
                 matched_by="name_and_inputs" if nearest.get("inputs") == inputs else "name",
                 inputs_before=nearest.get("inputs"), inputs_after=inputs)
        if other_dir:
            f["other_directory"] = watch_index.cache_dir_of(other_dir) or other_dir
        f["_diff"] = True  # the engine's words are added by _engine_diff
        return f

    def _nearest(self, index, program, inputs, others, digests):
        """The record of ``program`` with the same input shapes, else of that name,
        whose entry digests differ from ``digests`` in the fewest entries (the
        newest of those); in this index first, then in the other directories'
        indexes.  (After runs on two topologies and an upgrade, the record of the
        same topology, not the newest, is the one that differs by the upgrade alone.)"""
        pools = [(index, None)] if index is not None else []
        for folder in others[:20]:
            pools.append((None, folder))
        for idx, folder in pools:
            if idx is None:  # read once per run
                idx = self._others.get(folder)
                if idx is None:
                    idx = watch_index.Index(folder, watch_index.cache_dir_of(folder) or "").load()
                    self._others[folder] = idx
            found = idx.candidates(program)
            if found:
                same = [r for r in found if r.get("inputs") == inputs]
                # min keeps the first of equals: found is newest first.
                return min(same or found, key=lambda r: _moved_count(r["digests"], digests)), folder
        return None, None

    def _engine_diff(self, f: dict, nearest: dict, scenario: dict) -> None:
        """Fills ``f`` from ``cachekey diff RECORD NEW --json`` (the engine's words)."""
        moved = [i + 1 for i, (a, b) in enumerate(zip(nearest["digests"],
                 (e["digest"] for e in scenario["expected"]["entries"]))) if a != b]
        f["first_moved"] = moved[0] if moved else None
        f["first_moved_name"] = nearest["names"][moved[0] - 1] if moved else None
        try:  # the new side on the engine's stdin ("-")
            doc = _engine.run(["diff", nearest["file"], "-", "--json"],
                              stdin=json.dumps(scenario).encode("utf-8"))
        except _engine.EngineError as exc:
            f["engine_error"] = str(exc)
            return
        f["cause"], f["cause_name"] = doc.get("cause"), doc.get("cause_name")
        f["sentence"] = doc.get("sentence")
        advice = doc.get("advice") or {}
        f["advice"] = advice.get("text")
        f["advice_code"] = advice.get("code")
        f["details"] = (doc.get("findings") or {}).get("details", [])


#: ``backend.runtime_type`` of a compile-only client: libtpu's deviceless
#: topologies (jax.experimental.topologies.get_topology_desc) and the CUDA
#: plugin's compile-only client (jax 0.10.2 and 0.12.0.1).
COMPILE_ONLY_RUNTIME = "compile_only_runtime"
#: XLA's error when a compile-only client is asked to load an executable,
#: inside JAX's read warning (engine/lib/logs/LogLines.h kCompileOnlyRead);
#: used only for a client that has no ``runtime_type``.
COMPILE_ONLY_READ = "PjRtCompiler must be constructed with a Client"


def _moved_count(before: list[str], after: list[str]) -> int:
    """How many entries' own digests differ (an entry missing on one side counts)."""
    return sum(a != b for a, b in zip(before, after)) + abs(len(before) - len(after))


def _check_contents() -> bool:
    """Whether jax_compilation_cache_check_contents is on (config.py): then
    compilation_cache.py's VerificationCache makes each process compile every
    key once, its entry or not, and compares the executable with the entry."""
    from jax._src import config
    value = getattr(config, "compilation_cache_check_contents", None)
    return bool(value is not None and value.value)


def _entry_present(cache_dir: str | None, key: str):
    """Whether JAX's file for ``key`` is in ``cache_dir`` (``<key>-cache`` from the
    LRU cache of jax 0.4.3x on, ``<key>`` before); None when it cannot be told."""
    if not cache_dir or "://" in cache_dir:
        return None
    return any(os.path.exists(os.path.join(cache_dir, key + suffix)) for suffix in ("-cache", ""))


def start(index: str | None = None, **options) -> Watch:
    """Starts watching this process (see the module doc) and returns the ``Watch``.

    ``index``: the index folder (default: per cache directory under the
    user's cache home).  Options: ``quiet``, ``max_entries``, ``max_bytes``.
    Stops, with its summary, at ``Watch.stop()`` or at interpreter exit.
    Raises ``RuntimeError`` when a watch is already running.
    """
    return Watch(index, **options).start(wait_for_jax=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m cachekey.watch``: runs SCRIPT watched; returns its exit status (2: bad usage)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="python -m cachekey.watch",
        description="Run a JAX program and explain each persistent-cache miss as it happens.",
        usage="%(prog)s [--index DIR] [--quiet] -- SCRIPT [ARGS...]")
    parser.add_argument("--index", help="the ingredients index folder (default: "
                                        "$XDG_CACHE_HOME/cachekey/watch/<cache directory's sha>)")
    parser.add_argument("--quiet", action="store_true", help="no summary at exit")
    args, path, script_args = _run.parse_tool_argv(parser, argv)
    w = start(args.index, quiet=args.quiet, command=["python", "-m", "cachekey.watch"] + argv)
    try:
        return _run.run_script(path, script_args)
    finally:
        w.stop()


class _CallableModule(types.ModuleType):
    """Makes ``cachekey.watch()`` (the module called) start a watch."""

    def __call__(self, index: str | None = None, **options) -> Watch:
        return start(index, **options)


if __name__ == "__main__":
    # The logic lives in the module cachekey.watch, not in this __main__
    # (which the script's own __main__ replaces while it runs).
    from cachekey.watch import main as _main
    sys.exit(_main())
else:
    sys.modules[__name__].__class__ = _CallableModule
