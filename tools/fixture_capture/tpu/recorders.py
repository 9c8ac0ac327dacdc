"""Stand-ins that record what JAX feeds and logs, and how a capture writes
down bytes, devices and errors."""

from __future__ import annotations

import base64
import hashlib
import logging

from cachekey import ref as ckref


def b64(data: bytes) -> str:
    """Standard base64 of ``data``, as ASCII text."""
    return base64.b64encode(data).decode("ascii")


def RecordingSha256():
    """A hashlib.sha256 stand-in that keeps every byte string it is fed
    (cachekey.ref.RecordingSha256 over this process's hashlib)."""
    return ckref.RecordingSha256(hashlib)


class Sink:
    """Hash-like object that only records what is fed to it."""

    def __init__(self):
        self.fed: list[bytes] = []

    def update(self, data):
        self.fed.append(bytes(data))


class LogRecorder(logging.Handler):
    """Keeps every record it handles: logger, level, message and the formatted line."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        self.records: list[dict] = []

    def emit(self, record):
        self.records.append({"logger": record.name, "level": record.levelname,
                             "message": record.getMessage(),
                             "formatted": self.format(record)})


def err_text(e: BaseException) -> dict:
    """An exception as data: its qualified type and message."""
    return {"type": f"{type(e).__module__}.{type(e).__qualname__}", "message": str(e)}



def device_info(d) -> dict:
    """Every attribute of device ``d`` a capture keeps (an error where reading it raises)."""
    out = {}
    for attr in ("id", "process_index", "host_id", "task_id", "local_hardware_id",
                 "device_kind", "platform", "coords", "core_on_chip", "slice_index"):
        try:
            v = getattr(d, attr)
            if isinstance(v, (list, tuple)):
                v = [int(x) for x in v]
            out[attr] = v if isinstance(v, (int, str, list)) or v is None else repr(v)
        except Exception as e:  # noqa: BLE001 - recorded
            out[attr] = {"error": err_text(e)}
    out["repr"] = repr(d)
    return out
