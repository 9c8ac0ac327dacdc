"""What happened to each compilation in the persistent cache, from JAX's own logs.

JAX logs, through ``jax._src.compiler`` and ``jax._src.compilation_cache``,
whether a compilation was a persistent-cache hit or miss and whether the
executable was written (and if not, why).  Most of these lines are DEBUG
(WARNING with ``jax_explain_cache_misses`` or ``jax_log_compiles``, from
jax 0.4.31 on; jax 0.4.30 logs the write at INFO and the rest at DEBUG).
The formats below are the exact first arguments of those logging calls in
every release from jax 0.4.30 to 0.12.0.1 (read with ``ast`` from each
release's ``compiler.py`` and ``compilation_cache.py``; ``tests/capture``
checks each against the installed jax's source); a record is matched on
``record.msg`` equal to one of them, never on the formatted text.

jax 0.4.30 differs: its hit line names no key (``Persistent compilation
cache hit for '%s'``), it logs no MISS line, its write line ends in a full
stop and formats the key with ``%s``, its size line says "cache entry"
rather than "persistent cache entry", and its "disabled/not initialized"
line on writing names no key.  The MISS, hit-with-key and other
``log_priority`` lines are 0.4.31 on; the host-callbacks line is gone from
0.11.0.

``OutcomeTracker`` sees every record of the two loggers without changing
them: their level, handlers, filters and propagation stay the program's to
set, at any time.  It replaces, on the two logger objects only,
``isEnabledFor`` (so that a DEBUG record is made even when the program would
not show it) and ``handle`` (which keeps the record, then hands it on only
when the logger, as configured at that moment, is enabled for its level:
exactly what logging does without the capture).

JAX reports a damaged or unwritable cache entry with ``warnings.warn`` in
``jax._src.compiler``, not with a log record (``WARNINGS``: the constant
start of each f-string, in every release from 0.4.30 to 0.12.0.1).  While
attached, that module's ``warnings`` name is a stand-in whose ``warn`` keeps
the message, then calls the real ``warnings.warn`` one stack level further
up, so the warning is filtered, shown and attributed to the same line of
``compiler.py`` as without the capture.
"""

from __future__ import annotations

import importlib
import logging
import threading

LOGGERS = ("jax._src.compiler", "jax._src.compilation_cache")

# (outcome, format, meaning of record.args, releases that log it).  "name"
# is the module name, "key" the cache key; releases are (first, last), None
# for no bound.  Kinds that decide no outcome: "compiled" (the compile time,
# logged before a write) and "not read" (no cache when JAX looked the key up).
_ALL = (None, None)
_FROM_0_4_31 = ((0, 4, 31), None)
_ONLY_0_4_30 = (None, (0, 4, 30))
FORMATS = [
    ("hit", "Persistent compilation cache hit for '%s' with key %r", ("name", "key"), _FROM_0_4_31),
    ("hit", "Persistent compilation cache hit for '%s'", ("name",), _ONLY_0_4_30),
    ("miss", "PERSISTENT COMPILATION CACHE MISS for '%s' with key %r", ("name", "key"), _FROM_0_4_31),
    ("written", "Writing %s to persistent compilation cache with key %r", ("name", "key"),
     _FROM_0_4_31),
    ("written", "Writing %s to persistent compilation cache with key %s.", ("name", "key"),
     _ONLY_0_4_30),
    ("not written", "Not writing persistent cache entry with key %r since cache is "
                    "disabled/not initialized", ("key",), _FROM_0_4_31),
    ("not written", "put_executable_and_time: cache is disabled/not initialized", (), _ONLY_0_4_30),
    ("not written", "Not writing persistent cache entry with key %r since its size (%d bytes) "
                    "is less than threshold (%d bytes)", ("key", "size", "threshold"), _FROM_0_4_31),
    ("not written", "Not writing cache entry with key %s since its size (%d bytes) "
                    "is less than threshold (%d bytes)", ("key", "size", "threshold"), _ONLY_0_4_30),
    ("not written", "Not writing persistent cache entry since process_id != 0", (), _ALL),
    ("not written", "Not writing persistent cache entry for '%s' because it uses host "
                    "callbacks (e.g. from jax.debug.print or breakpoint)", ("name",),
     (None, (0, 10, 2))),
    ("not written", "Not writing persistent cache entry for '%s' because it took < %.2f "
                    "seconds to compile (%.2fs)", ("name", "min_secs", "secs"), _ALL),
    ("compiled", "'%s' took at least %.2f seconds to compile (%.2fs)",
     ("name", "min_secs", "secs"), _ALL),
    ("not read", "get_executable_and_time: cache is disabled/not initialized", (), _ALL),
    ("no key", "compile_or_get_cached: unable to generate cache key, skipping the cache: %s",
     ("error",), _ALL),
]


def logged_by(releases: tuple, version: tuple) -> bool:
    """Whether a format's ``releases`` range (from ``FORMATS``) holds ``version``
    (a tuple of ints such as (0, 10, 2)); compared on the first three parts."""
    first, last = releases
    v = tuple(version[:3])
    return (first is None or v >= first) and (last is None or v <= last)


_BY_FORMAT = {fmt: (outcome, meaning) for outcome, fmt, meaning, _ in FORMATS}

#: Why JAX did not write an entry, as a code, by the words of the line it
#: logged ("not written" formats above; a write error is "write_error").
REASON_CODES = {
    "since cache is disabled/not initialized": "cache_disabled",
    "cache is disabled/not initialized": "cache_disabled",
    "is less than threshold": "entry_size",
    "since process_id != 0": "process_id",
    "because it uses host callbacks": "host_callbacks",
    "seconds to compile": "min_compile_time",
}


def reason_code(fmt: str) -> str:
    """The code of a "not written" format of ``FORMATS`` (see ``REASON_CODES``)."""
    for words, code in REASON_CODES.items():
        if words in fmt:
            return code
    return "other"

# (kind, the constant start of the f-string JAX warns with, releases).  A
# read error decides no outcome (JAX compiles and writes again); a write
# error makes the outcome "not written", although JAX logged "Writing ..."
# just before it tried (compilation_cache.put_executable_and_time logs, then
# puts).
WARNINGS = [
    ("read error", "Error reading persistent compilation cache entry for ", _ALL),
    ("write error", "Error writing persistent compilation cache entry for ", _ALL),
]


class _WarningsTap:
    """Stands in for ``warnings`` inside ``jax._src.compiler`` (see the module doc)."""

    def __init__(self, module, sink):
        self.module = module
        self.sink = sink
        self.real = module.warnings

    def attach(self):
        self.module.warnings = self

    def detach(self):
        if self.module.warnings is self:
            self.module.warnings = self.real

    def warn(self, message, category=None, stacklevel=1, source=None, **kwargs):
        try:
            self.sink(str(message))
        except Exception:  # the capture's fault never reaches JAX
            pass
        return self.real.warn(message, category, stacklevel + 1, source, **kwargs)

    def __getattr__(self, name):
        return getattr(self.real, name)


class _Tap:
    """Sees every record of one logger while attached (see the module doc)."""

    def __init__(self, logger: logging.Logger, sink):
        self.logger = logger
        self.sink = sink
        # The class's own methods, bound to this logger: what logging does.
        self._enabled = logging.Logger.isEnabledFor.__get__(logger)
        self._handle = logging.Logger.handle.__get__(logger)

    def attach(self):
        lg = self.logger
        lg.isEnabledFor = self._always
        lg.handle = self._tap

    def detach(self):
        lg = self.logger
        for name, mine in (("isEnabledFor", self._always), ("handle", self._tap)):
            if lg.__dict__.get(name) == mine:
                del lg.__dict__[name]

    def _always(self, level):
        return True

    def _tap(self, record):
        try:
            self.sink(record)
        except Exception:  # the capture's fault never reaches JAX's logging call
            pass
        # Decided now, from the logger and logging.disable() as they are
        # when the record is made.
        if self._enabled(record.levelno):
            self._handle(record)


class OutcomeTracker:
    """Attributes JAX's persistent-cache log records to captured programs.

    ``expect(key, name)`` is called once per captured ``cache_key.get`` and
    returns a token; ``outcome_of(key, name, token)`` returns
    ``{"outcome": ..., "reason": ..., "log": [...]}`` (and for "not written"
    ``reason_code``, one of ``REASON_CODES`` or "write_error", and
    ``reason_values``, the numbers JAX logged) where outcome is one of
    ``hit``, ``written``, ``not written`` (reason: JAX's message; a write
    error's warning outranks the "Writing" line logged before the attempt),
    ``miss`` (a miss with no write logged after it), ``no outcome logged``,
    and, after a read error, ``read_error`` (JAX's warning, whole).
    A record naming a key goes to the latest program with that key; one
    naming only a module goes to the latest program of that name; one naming
    neither, and a warning, to the latest program whose key was computed in
    the same thread (JAX logs and warns in the thread that compiles), else
    the latest program.  Unmatched records of the two loggers are kept in
    ``unmatched``.
    """

    def __init__(self):
        self._taps: list = []
        self._tokens: list[dict] = []
        self._thread = threading.local()
        self.unmatched: list[str] = []

    def attach(self) -> None:
        """Starts receiving every record of ``LOGGERS`` (see the module doc)."""
        for name in LOGGERS:
            tap = _Tap(logging.getLogger(name), self._on_record)
            tap.attach()
            self._taps.append(tap)
        try:
            compiler = importlib.import_module("jax._src.compiler")
        except ImportError:
            return
        if hasattr(compiler, "warnings"):
            tap = _WarningsTap(compiler, self._on_warning)
            tap.attach()
            self._taps.append(tap)

    def detach(self) -> None:
        """Stops receiving records; the loggers are as the program left them."""
        for tap in self._taps:
            tap.detach()
        self._taps = []

    def expect(self, key: str, name: str) -> int:
        """Registers a program whose key JAX just computed; returns its token."""
        self._tokens.append({"key": key, "name": name, "events": [], "facts": []})
        self._thread.latest = self._tokens[-1]
        return len(self._tokens) - 1

    def _latest_here(self):
        return getattr(self._thread, "latest", None) or (self._tokens[-1] if self._tokens else None)

    def _on_warning(self, message: str) -> None:
        for kind, start, _ in WARNINGS:
            if message.startswith(start):
                target = self._latest_here()
                if target is None:
                    self.unmatched.append(message)
                else:
                    target["events"].append((kind, message))
                return

    def _on_record(self, record: logging.LogRecord) -> None:
        found = _BY_FORMAT.get(record.msg) if isinstance(record.msg, str) else None
        if found is None:
            return
        outcome, meaning = found
        args = record.args if isinstance(record.args, tuple) else ()
        values = dict(zip(meaning, args))
        try:
            message = record.getMessage()
        except Exception:  # a malformed record is still evidence
            message = str(record.msg)
        target = None
        for token in reversed(self._tokens):
            if "key" in values:
                if token["key"] == values["key"]:
                    target = token
                    break
            elif "name" in values:
                if token["name"] == values["name"]:
                    target = token
                    break
            else:
                target = self._latest_here()
                break
        if target is None or outcome == "no key":
            self.unmatched.append(message)
            return
        target["events"].append((outcome, message))
        target["facts"].append((outcome, record.msg, values))

    def outcome_of(self, key: str, name: str, token: int) -> dict:
        """The outcome of the program registered as ``token`` (see the class doc)."""
        events = self._tokens[token]["events"]
        kinds = [k for k, _ in events]
        reason = None
        if "hit" in kinds:
            outcome = "hit"
        elif "write error" in kinds:
            outcome = "not written"
            reason = next(m for k, m in events if k == "write error")
            code, values = "write_error", {}
        elif "written" in kinds:
            outcome = "written"
        elif "not written" in kinds:
            outcome = "not written"
            reason = next(m for k, m in events if k == "not written")
            fmt, values = next((f, v) for k, f, v in self._tokens[token]["facts"]
                               if k == "not written")
            code = reason_code(fmt)
        elif "miss" in kinds:
            outcome = "miss"
            reason = "a miss with no write or skip logged after it (compilation failed or still running?)"
        else:
            outcome = "no outcome logged"
        out = {"outcome": outcome, "log": [m for _, m in events]}
        if reason:
            out["reason"] = reason
        if outcome == "not written":
            out["reason_code"] = code
            out["reason_values"] = {k: v for k, v in values.items() if k != "key"}
        read_error = next((m for k, m in events if k == "read error"), None)
        if read_error:
            out["read_error"] = read_error
        return out
