"""Shared helpers for the capture and oracle tooling (Python side only).

Nothing here computes a cache key: the keys always come from the real
``jax._src.cache_key``.  These helpers only *observe* what real JAX does:

* a minimal protobuf wire-format reader/writer (enough to walk
  ``CompileOptionsProto`` and to rebuild ``CpuTopologyProto``);
* FarmHash ``Fingerprint64`` (farmhashna ``Hash64``), used only to *check*
  that a reconstructed ``CpuTopologyProto`` is byte-identical to the one
  jaxlib fingerprints (the check compares against jaxlib's own
  ``DeviceTopology.fingerprint()``);
* discovery of the CPU topology of a client (devices plus LLVM target machine
  options), because jaxlib 0.10.2's ``DeviceTopology`` exposes only
  ``fingerprint()``, ``platform`` and ``platform_version``, not ``serialize()``;
* a bytes recorder that stands in for a hashlib object, and a logging handler
  that records the DEBUG trace of ``jax._src.cache_key``.
"""

from __future__ import annotations

import base64
import logging
import re
import struct

# ---------------------------------------------------------------------------
# Protobuf wire format
# ---------------------------------------------------------------------------

WIRE_VARINT, WIRE_I64, WIRE_LEN, WIRE_I32 = 0, 1, 2, 5
WIRE_NAMES = {WIRE_VARINT: "varint", WIRE_I64: "i64", WIRE_LEN: "len", WIRE_I32: "i32"}


def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """Decode one base-128 varint at ``pos``; return (value, next position)."""
    result = 0
    shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def encode_varint(value: int) -> bytes:
    """Encode a non-negative int (negative ints as 64-bit two's complement)."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def parse_fields(buf: bytes) -> list[tuple[int, int, object, bytes]]:
    """Split a serialized message into (field number, wire type, value, raw bytes).

    ``value`` is an int for varint/i32/i64 and ``bytes`` for length-delimited
    fields.  ``raw`` is the complete encoding of the field (tag included).
    Raises ValueError when ``buf`` is not a well-formed message.
    """
    fields = []
    pos = 0
    while pos < len(buf):
        start = pos
        tag, pos = read_varint(buf, pos)
        number, wire = tag >> 3, tag & 7
        if number == 0:
            raise ValueError("field number 0")
        if wire == WIRE_VARINT:
            value, pos = read_varint(buf, pos)
        elif wire == WIRE_I64:
            if pos + 8 > len(buf):
                raise ValueError("truncated i64")
            value = struct.unpack_from("<Q", buf, pos)[0]
            pos += 8
        elif wire == WIRE_I32:
            if pos + 4 > len(buf):
                raise ValueError("truncated i32")
            value = struct.unpack_from("<I", buf, pos)[0]
            pos += 4
        elif wire == WIRE_LEN:
            length, pos = read_varint(buf, pos)
            if pos + length > len(buf):
                raise ValueError("truncated length-delimited field")
            value = bytes(buf[pos:pos + length])
            pos += length
        else:
            raise ValueError(f"unsupported wire type {wire}")
        fields.append((number, wire, value, bytes(buf[start:pos])))
    return fields


def field_values(buf: bytes, number: int) -> list:
    """All values of field ``number`` in message ``buf``, in wire order."""
    return [v for n, _, v, _ in parse_fields(buf) if n == number]


def single_field(buf: bytes, number: int, default=None):
    """The last value of field ``number`` (proto semantics), or ``default``."""
    values = field_values(buf, number)
    return values[-1] if values else default


def b64(data: bytes) -> str:
    """Standard padded base64 text of ``data``."""
    return base64.b64encode(data).decode("ascii")


def encode_len_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (tag, length, payload)."""
    return encode_varint((number << 3) | WIRE_LEN) + encode_varint(len(payload)) + payload


def encode_varint_field(number: int, value: int) -> bytes:
    """A varint field (tag, value)."""
    return encode_varint((number << 3) | WIRE_VARINT) + encode_varint(value)


def debug_options_bytes(compile_options_bytes: bytes) -> bytes:
    """DebugOptions bytes inside CompileOptionsProto (3 -> 3), b"" if absent."""
    build = single_field(compile_options_bytes, 3, b"")
    return single_field(build, 3, b"")


# ---------------------------------------------------------------------------
# FarmHash Fingerprint64 (farmhashna::Hash64), written from the algorithm
# description.  Checked against jaxlib's DeviceTopology.fingerprint() on every
# capture and oracle start; those inputs (CpuTopologyProto) are always longer
# than 64 bytes, so only the long-input path is checked that way.
# ---------------------------------------------------------------------------

_M64 = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _f64(s: bytes, i: int) -> int:
    return struct.unpack_from("<Q", s, i)[0]


def _f32(s: bytes, i: int) -> int:
    return struct.unpack_from("<I", s, i)[0]


def _rot(v: int, r: int) -> int:
    return v if r == 0 else ((v >> r) | (v << (64 - r))) & _M64


def _smix(v: int) -> int:
    return v ^ (v >> 47)


def _h16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _M64
    a ^= a >> 47
    b = ((v ^ a) * mul) & _M64
    b ^= b >> 47
    return (b * mul) & _M64


def _len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = (_K2 + n * 2) & _M64
        a = (_f64(s, 0) + _K2) & _M64
        b = _f64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _M64
        d = ((_rot(a, 25) + b) * mul) & _M64
        return _h16(c, d, mul)
    if n >= 4:
        mul = (_K2 + n * 2) & _M64
        a = _f32(s, 0)
        return _h16((n + (a << 3)) & _M64, _f32(s, n - 4), mul)
    if n > 0:
        a, b, c = s[0], s[n >> 1], s[n - 1]
        y = (a + (b << 8)) & 0xFFFFFFFF
        z = (n + (c << 2)) & 0xFFFFFFFF
        return (_smix(((y * _K2) ^ (z * _K0)) & _M64) * _K2) & _M64
    return _K2


def _len17to32(s: bytes) -> int:
    n = len(s)
    mul = (_K2 + n * 2) & _M64
    a = (_f64(s, 0) * _K1) & _M64
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M64
    d = (_f64(s, n - 16) * _K2) & _M64
    return _h16((_rot((a + b) & _M64, 43) + _rot(c, 30) + d) & _M64,
                (a + _rot((b + _K2) & _M64, 18) + c) & _M64, mul)


def _len33to64(s: bytes) -> int:
    n = len(s)
    mul = (_K2 + n * 2) & _M64
    a = (_f64(s, 0) * _K2) & _M64
    b = _f64(s, 8)
    c = (_f64(s, n - 8) * mul) & _M64
    d = (_f64(s, n - 16) * _K2) & _M64
    y = (_rot((a + b) & _M64, 43) + _rot(c, 30) + d) & _M64
    z = _h16(y, (a + _rot((b + _K2) & _M64, 18) + c) & _M64, mul)
    e = (_f64(s, 16) * mul) & _M64
    f = _f64(s, 24)
    g = ((y + _f64(s, n - 32)) * mul) & _M64
    h = ((z + _f64(s, n - 24)) * mul) & _M64
    return _h16((_rot((e + f) & _M64, 43) + _rot(g, 30) + h) & _M64,
                (e + _rot((f + a) & _M64, 18) + g) & _M64, mul)


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _f64(s, i), _f64(s, i + 8), _f64(s, i + 16), _f64(s, i + 24)
    a = (a + w) & _M64
    b = _rot((b + a + z) & _M64, 21)
    c = a
    a = (a + x + y) & _M64
    b = (b + _rot(a, 44)) & _M64
    return (a + z) & _M64, (b + c) & _M64


def fingerprint64(s: bytes) -> int:
    """FarmHash Fingerprint64 of ``s`` (unsigned 64-bit)."""
    n = len(s)
    if n <= 16:
        return _len0to16(s)
    if n <= 32:
        return _len17to32(s)
    if n <= 64:
        return _len33to64(s)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _M64
    z = (_smix((y * _K2 + 113) & _M64) * _K2) & _M64
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + _f64(s, 0)) & _M64
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    p = 0
    while True:
        x = (_rot((x + y + v0 + _f64(s, p + 8)) & _M64, 37) * _K1) & _M64
        y = (_rot((y + v1 + _f64(s, p + 48)) & _M64, 42) * _K1) & _M64
        x ^= w1
        y = (y + v0 + _f64(s, p + 40)) & _M64
        z = (_rot((z + w0) & _M64, 33) * _K1) & _M64
        v0, v1 = _weak32(s, p, (v1 * _K1) & _M64, (x + w0) & _M64)
        w0, w1 = _weak32(s, p + 32, (z + w1) & _M64, (y + _f64(s, p + 16)) & _M64)
        z, x = x, z
        p += 64
        if p == end:
            break
    mul = (_K1 + ((z & 0xFF) << 1)) & _M64
    p = last64
    w0 = (w0 + ((n - 1) & 63)) & _M64
    v0 = (v0 + w0) & _M64
    w0 = (w0 + v0) & _M64
    x = (_rot((x + y + v0 + _f64(s, p + 8)) & _M64, 37) * mul) & _M64
    y = (_rot((y + v1 + _f64(s, p + 48)) & _M64, 42) * mul) & _M64
    x ^= (w1 * 9) & _M64
    y = (y + v0 * 9 + _f64(s, p + 40)) & _M64
    z = (_rot((z + w0) & _M64, 33) * mul) & _M64
    v0, v1 = _weak32(s, p, (v1 * mul) & _M64, (x + w0) & _M64)
    w0, w1 = _weak32(s, p + 32, (z + w1) & _M64, (y + _f64(s, p + 16)) & _M64)
    z, x = x, z
    return _h16((_h16(v0, w0, mul) + _smix(y) * _K0 + z) & _M64,
                (_h16(v1, w1, mul) + x) & _M64, mul)


# ---------------------------------------------------------------------------
# Observing real JAX: entry names, DEBUG trace, hash-object recorders
# ---------------------------------------------------------------------------

ENTRY_NAMES = [
    "computation", "jax_lib version", "backend version", "XLA flags",
    "compile_options", "accelerator_config", "compression", "custom_hook",
]
# jax 0.4.30-0.5.3 have no "backend version" entry (7 entries).
ENTRY_NAMES_WITHOUT_BACKEND = [n for n in ENTRY_NAMES if n != "backend version"]

FRESH_RE = re.compile(r"get_cache_key hash of serialized (.+): ([0-9a-f]{64})$")
RUNNING_RE = re.compile(r"get_cache_key hash after serializing (.+): ([0-9a-f]{64})$")


def entries_from_trace(trace: list[str], allowed=(ENTRY_NAMES, ENTRY_NAMES_WITHOUT_BACKEND)) -> list[dict]:
    """Pair the fresh and running digest lines of a real DEBUG trace.

    The entry names, in order, must be one of ``allowed`` (by default the
    eight names of jax >= 0.6.0 or the seven of earlier releases).
    """
    fresh, running = [], []
    for line in trace:
        m = FRESH_RE.match(line)
        if m:
            fresh.append((m.group(1), m.group(2)))
        m = RUNNING_RE.match(line)
        if m:
            running.append((m.group(1), m.group(2)))
    if not fresh or len(fresh) != len(running):
        raise RuntimeError(f"unpaired digest lines: {len(fresh)} fresh, {len(running)} running")
    out = []
    for (name_f, dig), (name_r, run) in zip(fresh, running):
        if name_f != name_r:
            raise RuntimeError(f"entry order mismatch: {name_f} vs {name_r}")
        out.append({"name": name_f, "digest": dig, "running": run})
    if [e["name"] for e in out] not in [list(a) for a in allowed]:
        raise RuntimeError(f"unexpected entry names {[e['name'] for e in out]}")
    return out


class TraceHandler(logging.Handler):
    """Keeps every record of a logger: the bare message and the default format."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.setFormatter(logging.Formatter(logging.BASIC_FORMAT))
        self.messages: list[str] = []
        self.formatted: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())
        self.formatted.append(self.format(record))


class RecordingSha256:
    """A hashlib.sha256 stand-in that also keeps every byte it is fed."""

    def __init__(self, real_hashlib):
        self._h = real_hashlib.sha256()
        self.fed: list[bytes] = []

    def update(self, data):
        self.fed.append(bytes(data))
        self._h.update(data)

    def digest(self):
        return self._h.digest()

    def hexdigest(self):
        return self._h.hexdigest()


class BytesRecorder:
    """Minimal hash-like sink: records what a hashing step feeds."""

    def __init__(self):
        self.data = bytearray()

    def update(self, chunk):
        self.data += chunk


# ---------------------------------------------------------------------------
# CPU topology (jaxlib 0.10.2 has fingerprint() but no serialize())
# ---------------------------------------------------------------------------

TRIPLE_RE = re.compile(rb"\n([\x05-\x7f])([A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+){2,3})")


def cpu_target_machine_candidates(jax, jnp) -> list[dict]:
    """Candidate LLVM target-machine options found in a serialized CPU executable.

    jaxlib serializes a CPU executable with a TargetMachineOptions message
    {1 triple, 2 cpu, 3 features}.  Every place that looks like such a message
    (a length-prefixed target triple followed by fields 2 and 3) is returned;
    the caller keeps the one whose topology fingerprint matches jaxlib's.
    The executable is made with ``jax.jit`` (so JAX logs it as any other
    compilation); ``cpu_target_machine_candidates_of_client`` makes one
    without JAX seeing it.
    """
    exe = jax.jit(lambda v: v - 1.0).lower(jnp.zeros((2,), jnp.float32)).compile()
    client = jax.devices()[0].client
    return target_machines_in_executable(client.serialize_executable(exe.runtime_executable()))


# A module the probe compiles: one f32[2] addition, written as StableHLO text.
PROBE_MODULE = """module @cachekey_probe {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
"""


def cpu_target_machine_candidates_of_client(client) -> list[dict]:
    """``cpu_target_machine_candidates`` for ``client``, compiled by the client itself.

    ``PROBE_MODULE`` goes straight to the PjRt client (``compile_and_load``,
    or ``compile`` on an older jaxlib without it) on the client's first device, with
    default ``CompileOptions``: no tracing, no lowering, no
    ``jax._src.compiler``, so JAX logs nothing, fires no monitoring event and
    leaves the persistent compilation cache alone.  Raises what the client
    raises.
    """
    from jax._src.lib import xla_client as xc
    options = xc.CompileOptions()
    if hasattr(client, "compile_and_load"):
        devices = xc.DeviceList(tuple(client.local_devices()[:1]))
        exe = client.compile_and_load(PROBE_MODULE, devices, options)
    else:
        exe = client.compile(PROBE_MODULE, options)
    return target_machines_in_executable(client.serialize_executable(exe))


def target_machines_in_executable(blob: bytes) -> list[dict]:
    """Every TargetMachineOptions-shaped message {1 triple, 2 cpu, 3 features}
    in a serialized CPU executable, as dicts; raises ``RuntimeError`` if none."""
    candidates = []
    for m in TRIPLE_RE.finditer(blob):
        if m.group(1)[0] != len(m.group(2)):
            continue
        pos, found = m.start(), {}
        try:
            while len(found) < 3:
                tag, p = read_varint(blob, pos)
                if tag & 7 != WIRE_LEN or (tag >> 3) not in (1, 2, 3) or (tag >> 3) in found:
                    break
                length, p = read_varint(blob, p)
                found[tag >> 3] = blob[p:p + length].decode("utf-8")
                pos = p + length
        except (ValueError, UnicodeDecodeError):
            continue
        if set(found) == {1, 2, 3}:
            candidates.append({"triple": found[1], "cpu": found[2], "features": found[3]})
    if not candidates:
        raise RuntimeError("no target machine options found in a serialized CPU executable")
    return candidates


def _cpu_topology_devices(devices: list[dict]) -> bytes:
    """The device fields (1) of a CpuTopologyProto (proto3: zero scalars omitted)."""
    out = b""
    for d in devices:
        body = b""
        if d["process_index"]:
            body += encode_varint_field(2, d["process_index"])
        if d["local_hardware_id"]:
            body += encode_varint_field(3, d["local_hardware_id"])
        out += encode_len_field(1, body)
    return out


def cpu_topology_proto(devices: list[dict], target_machine: dict) -> bytes:
    """Deterministic CpuTopologyProto bytes (proto3: zero scalars omitted)."""
    out = _cpu_topology_devices(devices)
    tm = b"".join(encode_len_field(n, target_machine[k].encode("utf-8"))
                  for n, k in ((1, "triple"), (2, "cpu"), (3, "features")) if target_machine[k])
    return out + encode_len_field(5, tm)


def cpu_topology_proto_with_attributes(devices: list[dict], machine_attributes: list[str]) -> bytes:
    """CpuTopologyProto bytes as jaxlib before 0.9.1 serializes them: the
    devices (field 1), then one field-4 string per host feature, in order."""
    return _cpu_topology_devices(devices) + b"".join(encode_len_field(4, a.encode("utf-8")) for a in machine_attributes)


def parse_cpu_topology_proto(data: bytes) -> dict:
    """Inverse of cpu_topology_proto, used to check the round trip."""
    devices, tm = [], {"triple": "", "cpu": "", "features": ""}
    for number, _, value, _ in parse_fields(data):
        if number == 1:
            devices.append({"process_index": single_field(value, 2, 0),
                            "local_hardware_id": single_field(value, 3, 0)})
        elif number == 5:
            for n, key in ((1, "triple"), (2, "cpu"), (3, "features")):
                tm[key] = single_field(value, n, b"").decode("utf-8")
        else:
            raise ValueError(f"unexpected CpuTopologyProto field {number}")
    return {"devices": devices, "target_machine": tm}


def describe_cpu_topology(client_devices, candidates: list[dict], fingerprint: int) -> tuple[dict, bytes]:
    """Rebuild a client's CpuTopologyProto and check it against jaxlib.

    Returns (cpu_topology scenario object, proto bytes) for the first
    target-machine candidate whose Fingerprint64 equals jaxlib's value.
    """
    devices = [{"process_index": int(d.process_index), "local_hardware_id": int(d.local_hardware_id)}
               for d in client_devices]
    for target_machine in candidates:
        topo = {"devices": devices, "target_machine": dict(target_machine)}
        data = cpu_topology_proto(devices, target_machine)
        parsed = parse_cpu_topology_proto(data)
        if parsed != topo or cpu_topology_proto(**parsed) != data:
            raise RuntimeError("CpuTopologyProto does not round-trip")
        if fingerprint64(data) == fingerprint:
            return topo, data
    raise RuntimeError(f"no rebuilt CpuTopologyProto fingerprints to jaxlib's {fingerprint:016x}")


def cpu_topology_parts(data: bytes) -> dict:
    """Devices, field-4 strings (``machine_attributes``) and field-5 target
    machine of a CpuTopologyProto, in wire order, plus any other field numbers.

    jaxlib before 0.10 serializes its CPU topology as devices (field 1) and
    one field-4 string per LLVM host feature ("+avx2", "-xop", ...), with no
    target machine; later jaxlib writes field 5 instead.
    """
    out = {"devices": [], "machine_attributes": [], "target_machine": None, "other_fields": []}
    for number, _, value, _ in parse_fields(data):
        if number == 1:
            out["devices"].append({"process_index": single_field(value, 2, 0),
                                   "local_hardware_id": single_field(value, 3, 0)})
        elif number == 4:
            out["machine_attributes"].append(value.decode("utf-8"))
        elif number == 5:
            out["target_machine"] = {k: single_field(value, n, b"").decode("utf-8")
                                     for n, k in ((1, "triple"), (2, "cpu"), (3, "features"))}
        else:
            out["other_fields"].append(number)
    return out


def unwrap_topology_proto(data: bytes, message: str) -> bytes:
    """The ``xla.<message>`` (e.g. ``CpuTopologyProto``) inside
    ``DeviceTopology.serialize()`` output.

    Older jaxlib returns the topology proto itself; newer jaxlib wraps it in
    a message whose ``google.protobuf.Any`` field names
    ``type.googleapis.com/xla.<message>``.  Returns ``data`` unchanged when no
    such wrapper is found.
    """
    url = b"type.googleapis.com/xla." + message.encode("ascii")
    try:
        fields = parse_fields(data)
    except ValueError:
        return data
    for _, wire, value, _ in fields:
        if wire != WIRE_LEN or url not in value:
            continue
        try:
            if single_field(value, 1, b"") == url:
                return single_field(value, 2, b"")
        except ValueError:
            continue
    return data


def unwrap_cpu_topology_proto(data: bytes) -> bytes:
    """``unwrap_topology_proto(data, "CpuTopologyProto")``."""
    return unwrap_topology_proto(data, "CpuTopologyProto")


# GpuTopologyProto scalar fields (xla/pjrt/gpu/gpu_topology.proto), as the
# engine's gpu_topology scenario names them: number -> (name, wire kind).
GPU_TOPOLOGY_FIELDS = {3: ("platform_version", "string"), 4: ("num_partitions", "int32"),
                       5: ("num_hosts_per_partition", "int32"),
                       6: ("num_devices_per_host", "int32"),
                       10: ("num_devices_per_process", "optional int32")}


def gpu_topology_fields(data: bytes) -> dict | None:
    """The engine's ``gpu_topology`` object for GpuTopologyProto bytes, or None
    when ``data`` holds any other field or does not re-encode to the same
    bytes (proto3, fields in number order, zero scalars omitted except the
    optional ``num_devices_per_process``)."""
    out: dict = {}
    try:
        for number, wire, value, _ in parse_fields(data):
            if number not in GPU_TOPOLOGY_FIELDS:
                return None
            name, kind = GPU_TOPOLOGY_FIELDS[number]
            if kind == "string":
                if wire != WIRE_LEN:
                    return None
                out[name] = value.decode("utf-8")
            else:
                if wire != WIRE_VARINT:
                    return None
                out[name] = value - (1 << 64) if value >= 1 << 63 else value
    except (ValueError, UnicodeDecodeError):
        return None
    again = b""
    for number, (name, kind) in sorted(GPU_TOPOLOGY_FIELDS.items()):
        if name not in out or (kind != "optional int32" and not out[name]):
            continue
        again += (encode_len_field(number, out[name].encode("utf-8")) if kind == "string"
                  else encode_varint_field(number, out[name]))
    return out if again == data else None


# ---------------------------------------------------------------------------
# MLIR bytecode: the string table (enough to read attribute strings back from
# bytecode that this jaxlib's MLIR cannot parse, e.g. another MLIR version's)
# ---------------------------------------------------------------------------

def _mlir_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """MLIR bytecode's prefix varint: the trailing zero bits of the first byte
    give the number of extra bytes (a zero first byte: 8 extra bytes)."""
    if pos >= len(buf):
        raise ValueError("truncated varint")
    first = buf[pos]
    if first & 1:
        return first >> 1, pos + 1
    if first == 0:
        if pos + 9 > len(buf):
            raise ValueError("truncated varint")
        return int.from_bytes(buf[pos + 1:pos + 9], "little"), pos + 9
    extra = (first & -first).bit_length() - 1  # trailing zeros
    size = extra + 1
    if pos + size > len(buf):
        raise ValueError("truncated varint")
    value = int.from_bytes(buf[pos:pos + size], "little") >> size
    return value, pos + size


def mlir_bytecode_strings(data: bytes) -> list[bytes]:
    """The strings of an MLIR bytecode file's string section, in table order.

    Layout: magic ``ML\\xefR``, version (varint), NUL-terminated producer,
    then sections (a byte: id in the low 7 bits, 0x80 when aligned; varint
    length; for an aligned section a varint alignment and padding); the string
    section (id 0) holds a count, the sizes (NUL included) in reverse order,
    then the NUL-terminated strings.  Raises ValueError on anything else.
    """
    if not data.startswith(b"ML\xefR"):
        raise ValueError("not MLIR bytecode")
    pos = 4
    _, pos = _mlir_varint(data, pos)
    end = data.index(b"\x00", pos)
    pos = end + 1
    while pos < len(data):
        id_and_aligned = data[pos]
        pos += 1
        length, pos = _mlir_varint(data, pos)
        if id_and_aligned & 0x80:
            alignment, pos = _mlir_varint(data, pos)
            while pos % alignment:
                if data[pos] != 0xCB:
                    raise ValueError("bad section padding")
                pos += 1
        section = data[pos:pos + length]
        pos += length
        if id_and_aligned & 0x7F != 0:
            continue
        count, p = _mlir_varint(section, 0)
        sizes = []
        for _ in range(count):
            size, p = _mlir_varint(section, p)
            sizes.append(size)
        out = []
        for size in reversed(sizes):
            chunk = section[p:p + size]
            if len(chunk) != size or not chunk.endswith(b"\x00"):
                raise ValueError("bad string table")
            out.append(chunk[:-1])
            p += size
        return out
    raise ValueError("no string section")
