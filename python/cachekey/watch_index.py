"""The ingredients index of ``cachekey.watch``: what each cache entry was made of.

JAX's persistent cache keeps, per key, an executable; it does not keep what
the key was computed from.  The watch keeps that beside the cache: for every
compilation that went through the cache and missed, one *record*: the
scenario of its key (``docs/scenario.md``, schema 1, entry 1 kept as its
digest only, no module text), and under ``capture.watch`` when and where it
was made and what became of it (written, or not written and JAX's reason).
``cachekey diff RECORD NEW`` then says what moved between an earlier entry
and a new key.

Layout (``docs/watch.md``)::

    DIR/index.json                 {"format": 1, "tool": "cachekey.watch", "cache_dir": ...}
    DIR/entries/<h>.json           one record per key; <h> = first 32 hex digits of
                                   SHA-256(key), so a key's file is found without a listing
    DIR/entries/.<h>.<pid>.<n>.tmp a record being written

The default ``DIR`` is ``$XDG_CACHE_HOME/cachekey/watch/<d>`` (``~/.cache``
without ``XDG_CACHE_HOME``), ``<d>`` the first 16 hex digits of SHA-256 of
the cache directory's absolute path: one folder per JAX cache directory,
never inside it.  Other folders there are the indexes of other cache
directories (``siblings``).

Concurrent writers: a record is written to its own temporary file, then
moved into place with ``os.replace`` (atomic on POSIX), so a reader sees a
whole record or none.  A run killed while writing leaves a ``.tmp`` file and
no record; the next ``load`` skips it, removes it when its writer (the pid in
its name) is gone, and reports it.  A record that does not parse (written by
something else, or a disk that filled) is skipped, removed and reported too.

Bounded: at most ``max_entries`` records and ``max_bytes`` bytes; when a
write goes over either, the least recently used records go first (``mtime``:
a record's write, and every hit on its key touches it).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import socket
import threading
import time

FORMAT = 1
MAX_ENTRIES = 2000
MAX_BYTES = 32 * 1024 * 1024

#: Test hook: when set to a path, the next record written stops half-way
#: through its temporary file, creates that path, and waits to be killed
#: (tests/watch kills it there to check that the next run recovers).
HOLD_ENV = "CACHEKEY_WATCH_TEST_HOLD_WRITE"

_counter = itertools.count()


def default_root() -> str:
    """``$XDG_CACHE_HOME/cachekey/watch`` (``~/.cache/cachekey/watch`` without it)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "cachekey", "watch")


def default_dir(cache_dir: str) -> str:
    """The default index folder of JAX cache directory ``cache_dir`` (see the module doc)."""
    digest = hashlib.sha256(os.path.abspath(cache_dir).encode("utf-8")).hexdigest()[:16]
    return os.path.join(default_root(), digest)


def record_name(key: str) -> str:
    """The file name of ``key``'s record: 32 hex digits of SHA-256(key) + ``.json``."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32] + ".json"


class Index:
    """One index folder (see the module doc).

    ``path``: the folder (created on the first write).  ``cache_dir``: the
    JAX cache directory it describes (kept in ``index.json``).  ``load()``
    reads every record's summary once; ``lookup(key)`` and ``candidates``
    then answer from memory, ``record`` writes one.  ``skipped`` lists, as
    ``{code, file, ...}`` facts, what ``load`` could not read.  Nothing here
    raises for a damaged folder; ``OSError`` from writing propagates (the
    watch turns it into its one warning).
    """

    def __init__(self, path: str, cache_dir: str, *, max_entries: int = MAX_ENTRIES,
                 max_bytes: int = MAX_BYTES):
        self.path = os.path.abspath(path)
        self.entries_dir = os.path.join(self.path, "entries")
        self.cache_dir = cache_dir
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.records: dict[str, dict] = {}   # key -> summary (see _summary)
        self.skipped: list[dict] = []
        self.evicted = 0
        self._sizes: dict[str, int] = {}
        self._lock = threading.Lock()
        self._loaded = False

    # -- reading ----------------------------------------------------------

    def load(self) -> "Index":
        """Reads every record's summary; reports and removes what cannot be read."""
        if self._loaded:
            return self
        self._loaded = True
        try:
            names = sorted(os.listdir(self.entries_dir))
        except OSError:  # none yet (or not a folder: writing will say so)
            return self
        for name in names:
            full = os.path.join(self.entries_dir, name)
            if name.endswith(".tmp"):
                writer = _writer_alive(name)
                if writer is False:
                    self.skipped.append({"code": "partial_write", "file": full,
                                         "bytes": _size(full)})
                    _remove(full)
                continue
            if not name.endswith(".json"):
                continue
            try:
                with open(full, encoding="utf-8") as f:
                    doc = json.load(f)
                summary = _summary(doc)
            except FileNotFoundError:  # pruned by another run meanwhile
                continue
            except (OSError, ValueError, KeyError, TypeError) as exc:
                self.skipped.append({"code": "unreadable_record", "file": full,
                                     "bytes": _size(full), "error": f"{type(exc).__name__}: {exc}"})
                _remove(full)
                continue
            summary["file"] = full
            self.records[summary["key"]] = summary
            self._sizes[full] = _size(full)
        return self

    def lookup(self, key: str) -> dict | None:
        """The summary of ``key``'s record, or None (read from disk when another
        run wrote it since ``load``)."""
        found = self.records.get(key)
        if found is not None:
            return found
        full = os.path.join(self.entries_dir, record_name(key))
        try:
            with open(full, encoding="utf-8") as f:
                summary = _summary(json.load(f))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if summary["key"] != key:
            return None
        summary["file"] = full
        self.records[key] = summary
        return summary

    def candidates(self, program: str) -> list[dict]:
        """The summaries of ``program``'s records, newest first."""
        return sorted((r for r in self.records.values() if r["program"] == program),
                      key=lambda r: r["time"], reverse=True)

    def touch(self, key: str) -> None:
        """Marks ``key``'s record as used now (for the LRU bound); no error if absent."""
        rec = self.records.get(key)
        if rec is not None:
            try:
                os.utime(rec["file"])
            except OSError:
                pass

    # -- writing ----------------------------------------------------------

    def record(self, scenario: dict, watch: dict) -> str:
        """Writes ``scenario`` (``capture.watch`` = ``watch``) as its key's record.

        ``watch`` holds ``time`` (ISO 8601 UTC), ``outcome`` and the rest the
        watch knows (see ``docs/watch.md``).  Returns the record's path.
        Raises ``OSError`` when the folder cannot be written.
        """
        key = scenario["expected"]["key"]
        doc = dict(scenario)
        doc["capture"] = dict(scenario.get("capture", {}), watch=watch)
        data = (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        os.makedirs(self.entries_dir, exist_ok=True)
        self._write_meta()
        name = record_name(key)
        full = os.path.join(self.entries_dir, name)
        tmp = os.path.join(self.entries_dir,
                           f".{name[:-5]}.{os.getpid()}.{next(_counter)}.{socket.gethostname()}.tmp")
        with open(tmp, "wb") as f:
            hold = os.environ.get(HOLD_ENV)
            if hold:
                _hold_here(f, data, hold)
            f.write(data)
        os.replace(tmp, full)
        with self._lock:
            summary = _summary(doc)
            summary["file"] = full
            self.records[key] = summary
            self._sizes[full] = len(data)
            if len(self._sizes) > self.max_entries or sum(self._sizes.values()) > self.max_bytes:
                self._prune()
        return full

    def _write_meta(self) -> None:
        meta = os.path.join(self.path, "index.json")
        if os.path.exists(meta):
            return
        tmp = meta + f".{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"format": FORMAT, "tool": "cachekey.watch", "cache_dir": self.cache_dir}, f)
            f.write("\n")
        os.replace(tmp, meta)

    def _prune(self) -> None:
        """Removes least recently used records until both bounds hold."""
        files = []
        for full in list(self._sizes):
            try:
                st = os.stat(full)
            except FileNotFoundError:
                del self._sizes[full]
                continue
            files.append((st.st_mtime, full, st.st_size))
        files.sort()
        count, total = len(files), sum(s for _, _, s in files)
        for _, full, size in files:
            if count <= self.max_entries and total <= self.max_bytes:
                break
            _remove(full)
            self._sizes.pop(full, None)
            for key, rec in list(self.records.items()):
                if rec["file"] == full:
                    del self.records[key]
            count, total = count - 1, total - size
            self.evicted += 1

    def count(self) -> int:
        """How many records the folder holds (as far as this run knows)."""
        return len(self.records)


def siblings(path: str) -> list[str]:
    """The other index folders beside ``path`` (other cache directories' indexes)."""
    parent = os.path.dirname(os.path.abspath(path))
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return []
    own = os.path.basename(os.path.abspath(path))
    return [os.path.join(parent, n) for n in names
            if n != own and os.path.isfile(os.path.join(parent, n, "index.json"))]


def cache_dir_of(folder: str) -> str | None:
    """The JAX cache directory an index folder describes (its ``index.json``), or None."""
    try:
        with open(os.path.join(folder, "index.json"), encoding="utf-8") as f:
            return json.load(f).get("cache_dir")
    except (OSError, ValueError, AttributeError):
        return None


def _summary(doc: dict) -> dict:
    """What the watch needs of a record without reading it again."""
    cap = doc["capture"]
    w = cap["watch"]
    return {"key": doc["expected"]["key"], "program": cap["program"],
            "inputs": cap.get("inputs"), "time": w["time"], "outcome": w["outcome"],
            "watch": w, "digests": [e["digest"] for e in doc["expected"]["entries"]],
            "names": [e["name"] for e in doc["expected"]["entries"]]}


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _writer_alive(tmp_name: str):
    """True when the pid in a temporary file's name runs on this host, False
    when it does not, None when that cannot be told (another host)."""
    parts = tmp_name.split(".")
    # "", <h>, <pid>, <n>, <host...>, "tmp"
    try:
        pid = int(parts[2])
    except (IndexError, ValueError):
        return False
    host = ".".join(parts[4:-1])
    if host != socket.gethostname():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return pid != os.getpid() or None


def _hold_here(f, data: bytes, marker: str) -> None:
    """The ``HOLD_ENV`` test hook: half a record on disk, then wait to be killed."""
    f.write(data[: len(data) // 2])
    f.flush()
    os.fsync(f.fileno())
    with open(marker, "w", encoding="utf-8") as m:
        m.write(f.name + "\n")
    while True:
        time.sleep(3600)
