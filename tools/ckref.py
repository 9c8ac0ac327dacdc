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


def encode_len_field(number: int, payload: bytes) -> bytes:
    return encode_varint((number << 3) | WIRE_LEN) + encode_varint(len(payload)) + payload


def encode_varint_field(number: int, value: int) -> bytes:
    return encode_varint((number << 3) | WIRE_VARINT) + encode_varint(value)


def debug_options_bytes(compile_options_bytes: bytes) -> bytes:
    """DebugOptions bytes inside CompileOptionsProto (3 -> 3), b"" if absent."""
    build = single_field(compile_options_bytes, 3, b"")
    return single_field(build, 3, b"")


# ---------------------------------------------------------------------------
# FarmHash Fingerprint64 (farmhashna::Hash64), written from the algorithm
# description; verified against jaxlib's DeviceTopology.fingerprint().
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
