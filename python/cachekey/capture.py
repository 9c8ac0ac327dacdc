"""Capture every compilation's cache-key ingredients from a real JAX run.

Command line::

    python -m cachekey.capture --out DIR [--no-module-text] [--no-entry1-bytes]
                               [--cache-dir CACHE] [--force] -- SCRIPT [ARGS...]

From code::

    import cachekey.capture
    cap = cachekey.capture.start("DIR")   # before the first compilation
    ...                                    # run JAX
    cap.stop()                             # also done at interpreter exit

How it works.  JAX computes a key only for compilations that go through the
persistent compilation cache (``jax_compilation_cache_dir`` set), by calling
``jax._src.cache_key.get``.  ``start`` replaces that module attribute with a
wrapper that records the arguments JAX passed, then calls the real ``get``
with the module's ``hashlib`` swapped for a recorder, so that every byte fed
to the running SHA-256 is kept; ``_log_cache_key_hash`` (called by ``get``
after each entry) is wrapped too, to learn where each entry ends and the
running digest after it.  Nothing here computes a key: the key, the entry
names, the entry bytes and the running digests are JAX's own.  The outcome of
each compilation (persistent-cache hit, miss, written, not written and why)
is read from the log records of ``jax._src.compiler`` and
``jax._src.compilation_cache`` at every level, matched on JAX's own message
formats of each release from 0.4.30 on (``cachekey.outcomes``).  The program's
logging is left as it configures it, at any time: each record reaches the
program's handlers exactly when it would without the capture.  The capture
compiles nothing through JAX (the jaxlib 0.10 CPU topology probe goes to the
PjRt client directly), so the program's log holds only its own compilations.

Output: one scenario per program (``docs/scenario.md``, schema 1), named
``NNNN-<sym_name>.json`` in compilation order, with sidecars
``NNNN-<sym_name>.entry1`` (``.entry1.zst`` when compressed) for an entry 1
larger than ``INLINE_ENTRY1_BYTES`` and ``NNNN-<sym_name>.mlir`` for the
module text without locations (with ``NNNN-<sym_name>.generic.mlir``, the
same module in MLIR's generic form, which ``cachekey diff`` reads for its
structural module diff); and ``index.json`` listing every program,
its key and outcome.  The real key is under ``"expected"``, what only the
capture knows under ``"capture"`` (annotation keys the engine ignores).
``DIR`` must be new or empty: a directory that already holds files is refused,
since an earlier run's programs left next to this run's would be read as
this run's.  ``--force`` (``force=True``) removes an earlier capture's own
files (``index.json`` and ``NNNN-*.json``/``.entry1``/``.entry1.zst``/``.mlir``)
first and leaves any other file alone.

Privacy: a capture contains the program (its MLIR bytecode and text).
``--no-entry1-bytes`` and ``--no-module-text`` keep only their digests.

Tested with jax 0.4.30, 0.10.2 (Python 3.11) and 0.12.0.1 (Python 3.12); release
differences are feature-detected (the sixth parameter of ``get``,
``DeviceTopology.serialize``, ``backend.runtime_type``).
"""

from __future__ import annotations

import argparse
import atexit
import base64
import datetime
import hashlib
import inspect
import json
import logging
import os
import platform as _platform
import re
import sys
import threading
import time

from cachekey import _run, ref
from cachekey.outcomes import OutcomeTracker
from cachekey.scenario import argv_flags, make_scenario

FORMAT = 1
INLINE_ENTRY1_BYTES = 64 * 1024
INDEX_EVERY_SECONDS = 2.0
PRIVACY_NOTE = ("a capture contains your program: its MLIR module as bytecode "
                "(entry 1) and as text; --no-entry1-bytes and --no-module-text "
                "keep only their SHA-256 digests")

_active = None  # the running Capture, if any

# The files a capture writes into its directory (and their temporary names).
_OWN_FILE = re.compile(r"(index\.json|\d{4,}-[A-Za-z0-9_.-]+\.(json|entry1|entry1\.zst|mlir))(\.tmp)?")


def _zstd_compress():
    """A zstd ``compress(bytes) -> bytes`` function and its name, or (None, why).

    Tries the ``zstandard`` package, then Python 3.14's ``compression.zstd``.
    """
    try:
        import zstandard  # type: ignore
        return zstandard.ZstdCompressor(level=3).compress, "zstandard " + zstandard.__version__
    except ImportError:
        pass
    try:
        from compression import zstd  # type: ignore  (Python 3.14+)
        return zstd.compress, "compression.zstd"
    except ImportError:
        return None, "neither the zstandard package nor compression.zstd is importable"


def _utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def prepare_out_dir(out_dir: str, force: bool = False) -> list[str]:
    """Makes ``out_dir`` ready for a capture and returns the files removed.

    A missing directory is created; an empty one is used as it is.  One that
    holds files raises ``FileExistsError`` naming the directory and a few of
    its files, unless ``force``: then the files an earlier capture wrote
    (``index.json``, ``NNNN-<name>.json``, ``.entry1``, ``.entry1.zst``,
    ``.mlir`` and their ``.tmp`` forms) are removed, and other files are
    kept (``cachekey diff`` reads only what ``index.json`` lists).
    """
    if not os.path.isdir(out_dir):
        os.makedirs(out_dir)
        return []
    names = sorted(os.listdir(out_dir))
    if not names:
        return []
    if not force:
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        raise FileExistsError(
            f"{out_dir} is not empty ({shown}); capture into a new or empty directory, "
            "or give --force (force=True) to replace the capture files in it")
    removed = [n for n in names if _OWN_FILE.fullmatch(n)
               and os.path.isfile(os.path.join(out_dir, n))]
    for n in removed:
        os.remove(os.path.join(out_dir, n))
    return removed


def _safe_name(name: str) -> str:
    return (re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "module")[:80]


class _HashlibShim:
    """Stands in for the ``hashlib`` module inside ``jax._src.cache_key``.

    ``sha256()`` returns a ``ref.RecordingSha256`` (a real SHA-256 that also
    keeps every chunk it is fed); every other attribute is hashlib's.
    """

    def __init__(self):
        self.made: list[ref.RecordingSha256] = []

    def sha256(self, *args):
        h = ref.RecordingSha256(hashlib)
        for chunk in args:
            h.update(chunk)
        self.made.append(h)
        return h

    def __getattr__(self, name):
        return getattr(hashlib, name)


class Capture:
    """One capture session writing into ``out_dir``.

    ``module_text``: write the module text without locations (a sidecar
    ``.mlir``); otherwise only its SHA-256.  ``entry1_bytes``: keep the exact
    entry-1 bytes (inline base64 up to ``INLINE_ENTRY1_BYTES``, else a
    sidecar, zstd-compressed when a zstd module imports); otherwise only
    their SHA-256 and length.  ``force``: capture into a directory that
    holds files, replacing an earlier capture's (``prepare_out_dir``).
    ``cache_dir``: set ``jax_compilation_cache_dir``
    when starting (JAX computes no key without a persistent cache).
    ``quiet``: no messages on stderr.

    Raises ``RuntimeError`` from ``start`` when another capture is running or
    when the installed jax has no ``jax._src.cache_key.get``, and
    ``FileExistsError`` when ``out_dir`` holds files and ``force`` is off.
    """

    def __init__(self, out_dir: str, *, module_text: bool = True, entry1_bytes: bool = True,
                 cache_dir: str | None = None, quiet: bool = False, command: list[str] | None = None,
                 force: bool = False):
        self.out_dir = os.path.abspath(out_dir) if out_dir is not None else None
        self.force = force
        self.module_text = module_text
        self.entry1_bytes = entry1_bytes
        self.cache_dir = cache_dir
        self.quiet = quiet
        self.command = command if command is not None else list(sys.argv)
        self.programs: list[dict] = []      # index rows, in compilation order
        self.notes: list[str] = []
        self.started = _utc_now()
        self._lock = threading.RLock()
        self._local = threading.local()
        self._occurrences: dict[str, int] = {}
        self._topologies: dict[int, tuple] = {}
        self._pending_cpu: dict[int, tuple] = {}
        self._compress, self._compress_name = _zstd_compress()
        self._running = False
        self._attached = False
        self._jax = None
        # Seconds inside the real cache_key.get, and spent by the capture
        # itself around it (reading arguments, text, files): the capture's
        # cost to a compilation is the second, plus the recorder's share of
        # the first.
        self.seconds_in_get = 0.0
        self.seconds_capturing = 0.0
        self._index_written = 0.0

    # -- life cycle -------------------------------------------------------

    def start(self, *, wait_for_jax: bool = False) -> "Capture":
        """Prepares ``out_dir``, then patches ``jax._src.cache_key`` and taps
        the compiler's loggers.

        ``wait_for_jax``: when jax is not imported yet, patch right after the
        program's own ``import jax`` has finished (``_run.after_import``)
        instead of importing it now, so that the program configures logging
        before jax logs its first record (``jax._src.path``, while it
        imports).  Either way the tool's frames are put on JAX's exclusion
        list (``_run.exclude_tool_frames``), so that locations, and keys with
        metadata in them, are a plain run's.
        """
        global _active
        if _active is not None:
            raise RuntimeError("a cachekey capture is already running in this process")
        if self.out_dir is not None:
            removed = prepare_out_dir(self.out_dir, self.force)
            if removed:
                self.notes.append(f"--force: removed {len(removed)} files of an earlier capture "
                                  "from this directory")
        _active = self
        atexit.register(self.stop)
        self._running = True
        if wait_for_jax:
            _run.after_import("jax", self._attach_safely)
        else:
            try:
                self._attach()
            except BaseException:
                self._running = False
                _active = None
                atexit.unregister(self.stop)
                raise
        return self

    def _attach_safely(self) -> None:
        """``_attach`` from an import hook: a failure becomes a note, never the program's."""
        try:
            self._attach()
        except Exception as exc:
            self._failed(f"could not attach to jax: {type(exc).__name__}: {exc}")

    def _failed(self, message: str) -> None:
        """The tool could not do something; the program goes on. Overridden by watch."""
        self.notes.append(message)

    def _attach(self) -> None:
        """Patches ``jax._src.cache_key.get`` (jax imported now if it is not)."""
        import jax
        from jax._src import cache_key
        if not callable(getattr(cache_key, "get", None)):
            raise RuntimeError(f"jax {jax.__version__}: jax._src.cache_key.get not found")
        _run.exclude_tool_frames()
        self._jax = jax
        self._cache_key = cache_key
        self._real_get = cache_key.get
        self._real_log = getattr(cache_key, "_log_cache_key_hash", None)
        if self._real_log is None:
            self.notes.append(f"jax {jax.__version__} has no cache_key._log_cache_key_hash: "
                              "entry boundaries are unknown, only the key is captured")
        self._params = list(inspect.signature(self._real_get).parameters)
        if self.cache_dir:
            jax.config.update("jax_compilation_cache_dir", os.path.abspath(self.cache_dir))
        self._outcomes = OutcomeTracker()
        self._outcomes.attach()
        cache_key.get = self._get
        self._attached = True
        if self._compress is None and self.entry1_bytes:
            self.notes.append("entry-1 sidecars are written uncompressed: " + self._compress_name)
        self._say(f"capturing into {self.out_dir}; {PRIVACY_NOTE}")

    def stop(self) -> None:
        """Restores JAX, writes ``index.json`` and prints a summary. Idempotent."""
        global _active
        if not self._running:
            return
        self._running = False
        if not self._attached:  # the program never imported jax
            self._jax = None
        else:
            if self._cache_key.get is self._get:
                self._cache_key.get = self._real_get
            self._outcomes.detach()
            self._rebuild_cpu_topologies()
        if self._attached:
            self.notes += [f"log record of no captured program: {m}" for m in self._outcomes.unmatched]
        if _active is self:
            _active = None
        self.write_index()
        counts: dict[str, int] = {}
        for p in self.programs:
            counts[p["outcome"]] = counts.get(p["outcome"], 0) + 1
        summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        self._say(f"wrote {len(self.programs)} program(s) to {self.out_dir}"
                  + (f" ({summary})" if summary else "") + f"; {PRIVACY_NOTE}")
        if not self.programs:
            self._say("no compilation went through the persistent compilation cache, so JAX "
                      "computed no key: set jax_compilation_cache_dir in the program or pass "
                      "--cache-dir DIR")
        for note in self.notes:
            self._say("note: " + note)

    def write_index(self) -> None:
        """Writes ``index.json``: every program, its key and outcome so far."""
        self._index_written = time.monotonic()
        jax = self._jax
        for row in self.programs:
            row.update(self._outcomes.outcome_of(row["key"], row["program"], row["_token"]))
        doc = {
            "format": FORMAT,
            "tool": "cachekey.capture",
            "privacy": PRIVACY_NOTE,
            "command": self.command,
            "started": self.started,
            "finished": _utc_now(),
            "jax": jax.__version__ if jax is not None else None,
            "python": _platform.python_version(),
            "options": {"module_text": self.module_text, "entry1_bytes": self.entry1_bytes,
                        "entry1_sidecar_compression": (self._compress_name if self._compress
                                                       else "none: " + self._compress_name)},
            "programs": [{k: v for k, v in row.items() if not k.startswith("_")}
                         for row in self.programs],
            "timing": {"seconds_in_cache_key_get": round(self.seconds_in_get, 4),
                       "seconds_capturing_around_it": round(self.seconds_capturing, 4)},
            "notes": self.notes,
        }
        _write_json(os.path.join(self.out_dir, "index.json"), doc)

    def _say(self, message: str) -> None:
        if not self.quiet:
            print("cachekey.capture: " + message, file=sys.stderr)

    # -- the wrapper ------------------------------------------------------

    def _get(self, *args, **kwargs):
        """Calls the real ``cache_key.get`` and records what it hashed."""
        if getattr(self._local, "busy", False) or not self._running:
            return self._real_get(*args, **kwargs)
        self._local.busy = True
        t0 = time.perf_counter()
        before = self.seconds_in_get
        try:
            with self._lock:
                return self._record(args, kwargs)
        finally:
            self._local.busy = False
            self.seconds_capturing += time.perf_counter() - t0 - (self.seconds_in_get - before)

    def _record(self, args, kwargs):
        cache_key = self._cache_key
        sig = inspect.signature(self._real_get)
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        a = bound.arguments
        names = self._params
        module, devices, compile_options, backend = (a[n] for n in names[:4])
        compression = a[names[4]] if len(names) > 4 else None
        callbacks = (names[5], a[names[5]]) if len(names) > 5 else None

        # Inputs as JAX passed them, read before the call.
        co_bytes = compile_options.SerializeAsString()
        env = {k: os.environ.get(k) for k in ("XLA_FLAGS", "LIBTPU_INIT_ARGS")}
        argv = list(sys.argv)
        prefixes = list(cache_key.get_flag_prefixes()) if hasattr(cache_key, "get_flag_prefixes") else []
        hook = cache_key.custom_hook() if hasattr(cache_key, "custom_hook") else ""
        with module.context:
            from jax._src.lib.mlir import ir
            sym_name = ir.StringAttr(module.operation.attributes["sym_name"]).value
            # The text always feeds the digest; it is written only when asked.
            text = module.operation.get_asm(enable_debug_info=False)
            # The same module in generic form, for the engine's module diff:
            # its MLIR reads this with JAX's dialects unregistered, while
            # jaxlib's entry-1 bytecode (a newer MLIR's) it cannot.
            generic = (module.operation.get_asm(enable_debug_info=False,
                                                print_generic_op_form=True)
                       if self.module_text else None)
            inputs = _input_types(module, ir)

        shim = _HashlibShim()
        bounds: list[tuple[str, int, str]] = []

        def log_hook(hash_obj, name, hashfn, *rest):
            if shim.made and hash_obj is shim.made[0]:
                bounds.append((name, len(hash_obj.fed), hash_obj.hexdigest()))
            return self._real_log(hash_obj, name, hashfn, *rest)

        real_hashlib = cache_key.hashlib
        cache_key.hashlib = shim
        if self._real_log is not None:
            cache_key._log_cache_key_hash = log_hook
        t0 = time.perf_counter()
        try:
            key = self._real_get(*args, **kwargs)
        finally:
            self.seconds_in_get += time.perf_counter() - t0
            cache_key.hashlib = real_hashlib
            if self._real_log is not None:
                cache_key._log_cache_key_hash = self._real_log
        try:
            self._write_program(key, sym_name, text, shim, bounds, module, devices, co_bytes,
                                backend, compression, callbacks, env, argv, prefixes, hook,
                                inputs, generic)
        except Exception as exc:  # never break the user's compilation
            self._failed(f"{sym_name}: not captured: {type(exc).__name__}: {exc}")
        return key

    def _write_program(self, key, sym_name, text, shim, bounds, module, devices, co_bytes,
                       backend, compression, callbacks, env, argv, prefixes, hook, inputs=None,
                       generic=None):
        jax = self._jax
        from jax._src import config as jax_config
        occurrence = self._occurrences.get(sym_name, 0) + 1
        self._occurrences[sym_name] = occurrence
        seq = len(self.programs) + 1
        stem = f"{seq:04d}-{_safe_name(sym_name)}"

        # Entry bytes: the running hash's feed, cut where JAX logged each entry.
        entries, entry_bytes = [], []
        if bounds and shim.made:
            fed = shim.made[0].fed
            start = 0
            for name, end, running in bounds:
                data = b"".join(fed[start:end])
                start = end
                entry_bytes.append(data)
                entries.append({"name": name, "bytes": len(data),
                                "digest": hashlib.sha256(data).hexdigest(), "running": running})
            if key.rsplit("-", 1)[-1] != bounds[-1][2]:
                raise RuntimeError("the last running digest is not the key's")
        if not entry_bytes:
            raise RuntimeError("no entry boundaries were seen (this jax has no "
                               "cache_key._log_cache_key_hash)")
        entry1 = entry_bytes[0]
        names = [e["name"] for e in entries]

        capture: dict = {"format": FORMAT, "program": sym_name, "sequence": seq,
                         "occurrence": occurrence, "time": _utc_now()}
        if inputs is not None:
            capture["inputs"] = inputs
        module_obj: dict = {"sym_name": sym_name}
        info = {"bytes": len(entry1), "sha256": hashlib.sha256(entry1).hexdigest()}
        if not self.entry1_bytes:
            info["storage"] = "omitted"
        elif len(entry1) <= INLINE_ENTRY1_BYTES:
            info["storage"] = "inline"
            module_obj["entry1_b64"] = base64.b64encode(entry1).decode("ascii")
        else:
            if self._compress is not None:
                info.update(storage="sidecar", file=stem + ".entry1.zst", encoding="zstd")
                payload = self._compress(entry1)
            else:
                info.update(storage="sidecar", file=stem + ".entry1", encoding="raw",
                            note="uncompressed: " + self._compress_name)
                payload = entry1
            with open(os.path.join(self.out_dir, info["file"]), "wb") as f:
                f.write(payload)
        capture["entry1"] = info
        include_metadata = getattr(jax_config, "compilation_cache_include_metadata_in_key", None)
        module_obj["include_metadata"] = bool(include_metadata.value) if include_metadata is not None else False
        if callbacks is not None:
            _, value = callbacks
            if hasattr(value, "name"):          # IgnoreCallbacks (0.4.36-0.10.x)
                module_obj["ignore_callbacks"] = value.name
            else:                               # bool (0.11+)
                module_obj["ignore_custom_partitioning"] = bool(value)
        else:
            flag = getattr(jax_config, "remove_custom_partitioning_ptr_from_cache_key", None)
            module_obj["ignore_custom_partitioning"] = bool(flag.value) if flag is not None else False

        text_info: dict = {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                           "lines": text.count("\n"), "locations": "none (enable_debug_info=False)"}
        if self.module_text:
            text_info.update(storage="sidecar", file=stem + ".mlir")
            with open(os.path.join(self.out_dir, text_info["file"]), "w", encoding="utf-8") as f:
                f.write(text)
            if generic is not None:
                text_info["generic_file"] = stem + ".generic.mlir"
                with open(os.path.join(self.out_dir, text_info["generic_file"]), "w",
                          encoding="utf-8") as f:
                    f.write(generic)
        else:
            text_info["storage"] = "omitted"
        capture["module_text"] = text_info

        backend_obj = {"platform": backend.platform, "platform_version": backend.platform_version}
        if getattr(backend, "runtime_type", None) is not None:
            backend_obj["runtime_type"] = backend.runtime_type
        jaxlib_version = (entry_bytes[1].decode("utf-8") if len(entry_bytes) > 1
                          else _jaxlib_version())

        accelerator, topology = self._topology(
            devices, backend, entry_bytes[names.index("accelerator_config")]
            if "accelerator_config" in names else None)
        capture["topology"] = topology
        capture["devices"] = [{"id": int(d.id), "process_index": int(d.process_index),
                               "device_kind": d.device_kind} for d in devices.flat]
        capture["entries"] = entries
        capture["flag_sources"] = {
            "XLA_FLAGS": "environment", "LIBTPU_INIT_ARGS": "environment",
            "argv": "sys.argv elements starting with --xla or an extra prefix",
            "extra_prefixes": "cache_key.add_flag_prefixes"}
        capture["python"] = _platform.python_version()
        capture["settings"] = _program_settings(jax_config)

        scenario = make_scenario(
            id=stem,
            title=f"{sym_name} (#{occurrence} of that name) captured from a real run",
            profile=jax.__version__,
            module=module_obj,
            jaxlib_version=jaxlib_version,
            backend=backend_obj,
            xla_flags=env["XLA_FLAGS"], libtpu_init_args=env["LIBTPU_INIT_ARGS"],
            argv=argv_flags(argv, prefixes), extra_prefixes=prefixes,
            compile_options_b64=base64.b64encode(co_bytes).decode("ascii"),
            accelerator=accelerator,
            compression=compression if compression is not None else "zstandard",
            custom_hook=hook,
            capture=capture,
            expected={"key": key,
                      "entries": [{k: e[k] for k in ("name", "digest", "running")}
                                  for e in entries]},
        )
        token = self._outcomes.expect(key, sym_name)
        self._keep(stem, scenario, {"file": stem + ".json", "program": sym_name,
                                    "occurrence": occurrence, "key": key, "_token": token,
                                    "_client": id(next(iter(devices.flat)).client)})

    def _keep(self, stem: str, scenario: dict, row: dict) -> None:
        """Writes one program's scenario and lists it (``cachekey.watch`` keeps it instead)."""
        _write_json(os.path.join(self.out_dir, stem + ".json"), scenario)
        self.programs.append(row)
        # Keep index.json current should the process end without stop()
        # (os._exit, a crash); at most every INDEX_EVERY_SECONDS.
        if time.monotonic() - self._index_written >= INDEX_EVERY_SECONDS:
            self.write_index()

    # -- entry 6 ----------------------------------------------------------

    def _topology(self, devices, backend, entry6: bytes | None):
        """The accelerator object for the scenario and a description for ``capture``.

        ``entry6`` is what JAX fed for entry 6 in this very call; it decides
        which form JAX hashed: the 8-byte big-endian ``fingerprint()``
        (jaxlib >= 0.10), the bytes of ``serialize()`` (older jaxlib), or the
        devices' ``device_kind`` fallback (when the runtime raised).  On CPU
        the ``CpuTopologyProto`` fields are recovered from ``serialize()`` or,
        without it, rebuilt at ``stop()`` from the client's devices and a
        serialized executable's target machine; they are used only when they
        give exactly what JAX hashed (its bytes, or their FarmHash
        Fingerprint64).  Elsewhere the fingerprint is kept.
        """
        from jax._src.lib import xla_client
        devs = list(devices.flat)
        client = devs[0].client
        cached = self._topologies.get(id(client))
        if cached is not None:
            return cached
        kinds = [d.device_kind for d in devs]
        try:
            topo = xla_client.get_topology_for_devices(devs)
        except Exception as exc:  # JAX hashed the device kinds instead
            return ({"device_kinds": kinds, "error": str(exc), "error_type": str(type(exc))},
                    {"source": "device_kind fallback (the runtime has no topology)",
                     "error": f"{type(exc).__name__}: {exc}"})
        fingerprint = serialized = None
        try:
            fingerprint = int(topo.fingerprint())
        except Exception:
            pass
        try:
            serialized = bytes(topo.serialize())
        except Exception:
            pass
        description: dict = {"device_count": len(client.devices())}
        if fingerprint is not None:
            description["fingerprint_hex"] = f"{fingerprint:016x}"
        if fingerprint is not None and entry6 == fingerprint.to_bytes(8, "big"):
            description["hashed"] = "fingerprint()"
        elif serialized is not None and entry6 == serialized:
            description["hashed"] = "serialize()"
        else:
            description["hashed"] = "neither fingerprint() nor serialize(): the device_kind fallback"
            return ({"device_kinds": kinds},
                    dict(description, source="device_kind fallback (what entry 6 fed)"))
        accelerator, how = None, None
        if backend.platform == "cpu":
            accelerator, how = self._cpu_topology(serialized, client, fingerprint,
                                                  description["hashed"] == "serialize()")
        elif serialized is not None:  # GPU: GpuTopologyProto, when it gives what JAX hashed
            accelerator, how = _gpu_topology(serialized, fingerprint,
                                             description["hashed"] == "serialize()")
        if accelerator is None and description["hashed"] == "fingerprint()":
            accelerator = {"fingerprint": {"value": description["fingerprint_hex"],
                                           "provenance": "DeviceTopology.fingerprint() of the real run",
                                           "stand_in": False}}
            how = how or "fingerprint only (the runtime exposes no fields)"
        if accelerator is None:
            # serialize() bytes the scenario format cannot describe.
            self.notes.append("entry 6 hashed a serialized topology the scenario format cannot "
                              "describe; the engine will not reproduce these keys")
            accelerator = {"device_kinds": kinds}
            how = "not describable: serialize() of a form the engine does not write"
            description["serialized_b64"] = base64.b64encode(serialized).decode("ascii")
            try:  # jaxlib < 0.9.1 on CPU: devices and one string per host feature
                parts = ref.cpu_topology_parts(ref.unwrap_cpu_topology_proto(serialized))
                description["cpu_topology_parts"] = parts
            except Exception:
                pass
        description["source"] = how
        result = (accelerator, description)
        self._topologies[id(client)] = result
        return result

    def _cpu_topology(self, serialized, client, fingerprint, hashed_serialized: bool):
        """CpuTopologyProto fields from ``serialize()``, or None (then rebuilt at stop)."""
        if serialized is not None:
            try:
                data = ref.unwrap_cpu_topology_proto(serialized)
                parts = ref.cpu_topology_parts(data)
                hashed_ok = (data == serialized if hashed_serialized
                             else ref.fingerprint64(data) == fingerprint)
                # jaxlib 0.9.1 on: devices and a target machine; before:
                # devices and one machine_attributes string per host feature.
                encoded = None
                if parts["target_machine"] and not parts["machine_attributes"]:
                    topo = {"devices": parts["devices"], "target_machine": parts["target_machine"]}
                    encoded, form = ref.cpu_topology_proto(**topo), ""
                elif parts["machine_attributes"] and not parts["target_machine"]:
                    topo = {"devices": parts["devices"], "machine_attributes": parts["machine_attributes"]}
                    encoded, form = ref.cpu_topology_proto_with_attributes(**topo), " (machine_attributes form)"
                if encoded == data and not parts["other_fields"] and hashed_ok:
                    return ({"cpu_topology": topo},
                            f"DeviceTopology.serialize(){form}, checked against what entry 6 fed")
            except Exception as exc:
                self.notes.append(f"CPU topology from serialize() not used: {exc}")
            if hashed_serialized:
                return None, None
        if fingerprint is None:
            return None, None
        # jaxlib 0.10: rebuilt at stop(), once per client, from the
        # serialized executable of a probe the client compiles itself.
        self._pending_cpu[id(client)] = (client, fingerprint)
        return None, "fingerprint only (CPU fields not recovered)"

    def _rebuild_cpu_topologies(self) -> None:
        """Replaces fingerprint-only CPU accelerators by the rebuilt topology.

        Has each such client compile ``ref.PROBE_MODULE`` itself (not through
        ``jax.jit``: JAX logs nothing, and neither the program's log nor its
        persistent cache sees a compilation the program did not make) to read
        the LLVM target machine jaxlib embeds in a serialized executable; the
        rebuilt ``CpuTopologyProto`` is used only when its Fingerprint64
        equals jaxlib's.
        """
        if not self._pending_cpu:
            return
        rebuilt = {}
        for cid, (client, fingerprint) in self._pending_cpu.items():
            try:
                candidates = ref.cpu_target_machine_candidates_of_client(client)
                rebuilt[cid], _ = ref.describe_cpu_topology(client.devices(), candidates,
                                                            fingerprint)
            except Exception as exc:
                self.notes.append(f"CPU topology not rebuilt ({type(exc).__name__}: "
                                  f"{str(exc)[:200]}); the fingerprint is kept")
        source = ("rebuilt from the client's devices and an executable's target machine, "
                  "checked against fingerprint()")
        for row in self.programs:
            topo = rebuilt.get(row["_client"])
            if topo is None:
                continue
            path = os.path.join(self.out_dir, row["file"])
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            doc["accelerator"] = {"cpu_topology": topo}
            doc["capture"]["topology"]["source"] = source
            _write_json(path, doc)


def _gpu_topology(serialized: bytes, fingerprint: int | None, hashed_serialized: bool):
    """(accelerator, source) for a serialized GpuTopologyProto, or (None, None).

    Used only for a release whose entry 6 hashed ``serialize()`` (before jax
    0.10.0), and only when the fields re-encode to exactly those bytes.  From
    0.10.0 entry 6 is a fingerprint, which the capture keeps as it is: the
    engine accepts only a measured GPU fingerprint there (the GPU runtime's
    GpuTopologyProto also carries the target config, which ``gpu_topology``
    cannot describe).  ``fingerprint`` is unused and kept for callers.
    """
    if not hashed_serialized:
        return None, None
    data = ref.unwrap_topology_proto(serialized, "GpuTopologyProto")
    fields = ref.gpu_topology_fields(data)
    if fields is None:
        return None, None
    if data == serialized:
        return ({"gpu_topology": fields},
                "DeviceTopology.serialize() (GpuTopologyProto), checked against what entry 6 fed")
    return None, None


#: JAX options that change the lowered program of every jit (its dtypes, its
#: dot precision, its partitioner, its random bits, its locations) while no
#: entry names them: recorded with each program, read where JAX reads them
#: (``jax/_src/config.py`` holders, each one's ``.value`` in this thread), so
#: ``cachekey diff`` can say which one moved rather than infer it.
PROGRAM_SETTINGS = ("enable_x64", "default_matmul_precision", "use_shardy_partitioner",
                    "threefry_partitionable", "default_prng_impl",
                    "compilation_cache_include_metadata_in_key")


def _program_settings(jax_config) -> dict:
    """``{"jax_<name>": value}`` for each of PROGRAM_SETTINGS this release has.

    Values are JSON as they are (bool, None, str, int); any other value is
    its ``str()``. A release without a holder leaves its name out."""
    out = {}
    for name in PROGRAM_SETTINGS:
        holder = getattr(jax_config, name, None)
        if holder is None or not hasattr(holder, "value"):
            continue
        try:
            v = holder.value
        except Exception:  # a holder that cannot be read here: leave it out
            continue
        out["jax_" + name] = v if v is None or isinstance(v, (bool, int, str)) else str(v)
    return out


def _input_types(module, ir) -> list[str] | None:
    """The argument types of the module's public ``main`` function, as MLIR prints
    them (``"tensor<4x8xf32>"``), or None when there is no such function."""
    for op in module.body.operations:
        if op.operation.name != "func.func":
            continue
        attrs = op.operation.attributes
        if ir.StringAttr(attrs["sym_name"]).value != "main":
            continue
        ftype = ir.FunctionType(ir.TypeAttr(attrs["function_type"]).value)
        return [str(t) for t in ftype.inputs]
    return None


def _jaxlib_version() -> str:
    from jax._src.lib import version_str
    return version_str


def _write_json(path: str, obj) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


def start(out_dir: str, **options) -> Capture:
    """Starts capturing into ``out_dir`` and returns the ``Capture``.

    Call before the compilations to capture (after ``import jax`` is fine;
    JAX's backends start lazily).  Options are ``Capture``'s keyword
    arguments.  The capture stops, and ``index.json`` is written, at
    ``Capture.stop()`` or at interpreter exit.
    """
    return Capture(out_dir, **options).start()


def main(argv: list[str] | None = None) -> int:
    """``python -m cachekey.capture``: runs SCRIPT under a capture.

    Returns the script's exit status (``SystemExit`` code), 0 when it
    returns normally; 2 for bad usage.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="python -m cachekey.capture",
        description="Run a JAX program and write every compilation's cache-key scenario. "
                    + PRIVACY_NOTE[0].upper() + PRIVACY_NOTE[1:] + ".",
        usage="%(prog)s --out DIR [--no-module-text] [--no-entry1-bytes] "
              "[--cache-dir CACHE] [--force] -- SCRIPT [ARGS...]")
    parser.add_argument("--out", required=True, help="directory for the scenarios and index.json")
    parser.add_argument("--no-module-text", action="store_true",
                        help="keep only the SHA-256 of the module text")
    parser.add_argument("--no-entry1-bytes", action="store_true",
                        help="keep only the SHA-256 and length of entry 1's bytes")
    parser.add_argument("--cache-dir", help="set jax_compilation_cache_dir (JAX computes no "
                                            "key without a persistent cache)")
    parser.add_argument("--quiet", action="store_true", help="no messages on stderr")
    parser.add_argument("--force", action="store_true",
                        help="capture into a directory that holds files, removing an earlier "
                             "capture's files from it (others are kept)")
    args, path, script_args = _run.parse_tool_argv(parser, argv)
    try:
        cap = Capture(args.out, module_text=not args.no_module_text,
                      entry1_bytes=not args.no_entry1_bytes, cache_dir=args.cache_dir,
                      quiet=args.quiet, force=args.force,
                      command=["python", "-m", "cachekey.capture"] + argv
                      ).start(wait_for_jax=True)
    except FileExistsError as exc:
        parser.error(str(exc))
    try:
        return _run.run_script(path, script_args)
    finally:
        cap.stop()


if __name__ == "__main__":
    # The logic lives in the module cachekey.capture, not in this __main__
    # (which the script's own __main__ replaces while it runs).
    from cachekey.capture import main as _main
    sys.exit(_main())
