"""What happened to each compilation in the persistent cache, from JAX's own logs.

JAX logs, through ``jax._src.compiler`` and ``jax._src.compilation_cache``,
whether a compilation was a persistent-cache hit or miss and whether the
executable was written (and if not, why).  Most of these lines are DEBUG
(WARNING with ``jax_explain_cache_misses`` or ``jax_log_compiles``).  The
formats below are the exact first arguments of those logging calls in jax
0.10.2 and 0.12.0.1 (extracted with ``ast`` from the release wheels; the
host-callbacks one exists up to 0.10.2 only; ``tests/capture`` checks each
against the installed jax's source); a record is matched on ``record.msg``
equal to one of them, never on the formatted text.

``OutcomeTracker`` lowers those two loggers to DEBUG while attached, keeps
their records, and passes on to the program's own handlers exactly the
records it would have seen anyway (at or above the loggers' previous
effective level), so a capture does not change what the program prints.
"""

from __future__ import annotations

import logging

LOGGERS = ("jax._src.compiler", "jax._src.compilation_cache")

# (outcome, format, meaning of record.args).  "name" is the module name,
# "key" the cache key.
FORMATS = [
    ("hit", "Persistent compilation cache hit for '%s' with key %r", ("name", "key")),
    ("miss", "PERSISTENT COMPILATION CACHE MISS for '%s' with key %r", ("name", "key")),
    ("written", "Writing %s to persistent compilation cache with key %r", ("name", "key")),
    ("not written", "Not writing persistent cache entry with key %r since cache is "
                    "disabled/not initialized", ("key",)),
    ("not written", "Not writing persistent cache entry with key %r since its size (%d bytes) "
                    "is less than threshold (%d bytes)", ("key", "size", "threshold")),
    ("not written", "Not writing persistent cache entry since process_id != 0", ()),
    ("not written", "Not writing persistent cache entry for '%s' because it uses host "
                    "callbacks (e.g. from jax.debug.print or breakpoint)", ("name",)),
    ("not written", "Not writing persistent cache entry for '%s' because it took < %.2f "
                    "seconds to compile (%.2fs)", ("name", "min_secs", "secs")),
    ("no key", "compile_or_get_cached: unable to generate cache key, skipping the cache: %s",
     ("error",)),
]
_BY_FORMAT = {fmt: (outcome, meaning) for outcome, fmt, meaning in FORMATS}


class _Tap(logging.Handler):
    """Receives every record of one logger while attached (see module doc)."""

    def __init__(self, logger: logging.Logger, sink):
        super().__init__(level=logging.DEBUG)
        self.logger = logger
        self.sink = sink
        self.saved = (logger.level, logger.propagate, list(logger.handlers))
        self.threshold = logger.getEffectiveLevel()

    def attach(self):
        lg = self.logger
        for h in self.saved[2]:
            lg.removeHandler(h)
        lg.addHandler(self)
        lg.setLevel(logging.DEBUG)
        lg.propagate = False

    def detach(self):
        lg = self.logger
        level, propagate, handlers = self.saved
        lg.removeHandler(self)
        for h in handlers:
            if h not in lg.handlers:
                lg.addHandler(h)
        lg.setLevel(level)
        lg.propagate = propagate

    def emit(self, record):
        try:
            self.sink(record)
        finally:
            # What the program would have seen without the capture.
            if record.levelno >= self.threshold:
                for h in self.saved[2]:
                    if record.levelno >= h.level:
                        h.handle(record)
                if self.saved[1] and self.logger.parent is not None:
                    self.logger.parent.callHandlers(record)


class OutcomeTracker:
    """Attributes JAX's persistent-cache log records to captured programs.

    ``expect(key, name)`` is called once per captured ``cache_key.get`` and
    returns a token; ``outcome_of(key, name, token)`` returns
    ``{"outcome": ..., "reason": ..., "log": [...]}`` where outcome is one of
    ``hit``, ``written``, ``not written`` (reason: JAX's message),
    ``miss`` (a miss with no write logged after it), ``no outcome logged``.
    A record naming a key goes to the latest program with that key; one
    naming only a module goes to the latest program of that name; one naming
    neither to the latest program.  Unmatched records of the two loggers are
    kept in ``unmatched``.
    """

    def __init__(self):
        self._taps: list[_Tap] = []
        self._tokens: list[dict] = []
        self.unmatched: list[str] = []

    def attach(self) -> None:
        """Starts receiving the records of ``LOGGERS`` (levels lowered to DEBUG)."""
        for name in LOGGERS:
            tap = _Tap(logging.getLogger(name), self._on_record)
            tap.attach()
            self._taps.append(tap)

    def detach(self) -> None:
        """Restores each logger's level, handlers and propagation."""
        for tap in self._taps:
            tap.detach()
        self._taps = []

    def expect(self, key: str, name: str) -> int:
        """Registers a program whose key JAX just computed; returns its token."""
        self._tokens.append({"key": key, "name": name, "events": []})
        return len(self._tokens) - 1

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
                target = token
                break
        if target is None or outcome == "no key":
            self.unmatched.append(message)
            return
        target["events"].append((outcome, message))

    def outcome_of(self, key: str, name: str, token: int) -> dict:
        """The outcome of the program registered as ``token`` (see the class doc)."""
        events = self._tokens[token]["events"]
        kinds = [k for k, _ in events]
        reason = None
        if "hit" in kinds:
            outcome = "hit"
        elif "written" in kinds:
            outcome = "written"
        elif "not written" in kinds:
            outcome = "not written"
            reason = next(m for k, m in events if k == "not written")
        elif "miss" in kinds:
            outcome = "miss"
            reason = "a miss with no write or skip logged after it (compilation failed or still running?)"
        else:
            outcome = "no outcome logged"
        out = {"outcome": outcome, "log": [m for _, m in events]}
        if reason:
            out["reason"] = reason
        return out
