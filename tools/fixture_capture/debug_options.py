"""Discovers XLA's DebugOptions fields in the real jaxlib (a worker process).

Writes ``fixtures/debug_options_fields.json``, the table the engine compiles
in (engine/include/cachekey/DebugOptions.h): each field's number, wire type,
kind and default, found by two methods that are cross-checked (see
``run_debug_options_worker``).
"""

from __future__ import annotations

import json
import re
import struct

from cachekey import ref as ckref

from fixture_capture.provenance import run_provenance, write_json


MESSAGE = "{message}"  # the value text_fields gives a message-typed field


def text_fields(text: str) -> list[tuple[str, str]]:
    """(name, value text) pairs of DebugOptions' top-level text format
    (``str(DebugOptions)``), in order.

    The first line is a randomized debug marker (goo.gle/...), not a field;
    it is skipped.  A message-typed field (such as a map entry) is reported
    once with the value MESSAGE.
    """
    out = []
    depth = 0
    for line in text.splitlines()[1:]:
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            if depth == 0:
                out.append((line[:-1].strip(), MESSAGE))
            depth += 1
            continue
        if line == "}":
            depth -= 1
            continue
        if depth:
            continue
        name, _, value = line.partition(":")
        out.append((name.strip(), value.strip()))
    return out


def _text_fields(debug_options) -> list[tuple[str, str]]:
    """text_fields of a DebugOptions object."""
    return text_fields(str(debug_options))


def _value_kind(text: str) -> str:
    if text in ("true", "false"):
        return "bool"
    if text.startswith('"'):
        return "string"
    if re.fullmatch(r"-?\d+", text):
        return "int"
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) and text not in ("inf", "nan"):
        return "enum"
    return "float"


def _decode_text_value(text: str, kind: str):
    if kind == "bool":
        return text == "true"
    if kind == "string":
        return json.loads(text) if "\\" not in text else text[1:-1]
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    return text


def run_debug_options_worker(out_path: str, command: str) -> None:
    """Discover DebugOptions field numbers, wire types and defaults.

    Two independent methods, cross-checked:

    1. Attribute diff (the Python API): for every settable attribute of
       CompileOptions().executable_build_options.debug_options, set a
       non-default value, serialize, and diff the DebugOptions wire fields
       (CompileOptionsProto 3 -> ExecutableBuildOptionsProto 3).  Also set the
       "zero" value (False/0/"") and note whether the field stays on the wire.
    2. Wire injection (covers fields with no Python attribute, such as
       xla_gpu_autotune_level): append field N with a probe value to the
       DebugOptions bytes, parse with CompileOptions.ParseFromString, and read
       which name changes in the DebugOptions text format.
    """
    import jax
    from jax._src.lib import version_str as jaxlib_version
    from jax._src.lib import xla_client

    def fresh():
        co = xla_client.CompileOptions()
        return co, co.executable_build_options.debug_options

    base_co, base_do = fresh()
    base_bytes = base_co.SerializeAsString()
    base_dbg = ckref.debug_options_bytes(base_bytes)
    base_fields = {n: (w, v) for n, w, v, _ in ckref.parse_fields(base_dbg)}
    base_text = dict(_text_fields(base_do))

    def dbg_fields_of(co) -> dict:
        return {n: (w, v) for n, w, v, _ in ckref.parse_fields(ckref.debug_options_bytes(co.SerializeAsString()))}

    table: dict[str, dict] = {}

    # Method 1: the Python attributes.
    attrs = [a for a in dir(base_do) if not a.startswith("_")]
    for attr in attrs:
        co, do = fresh()
        default = getattr(do, attr)
        if hasattr(type(default), "__members__"):
            members = list(type(default).__members__.values())
            probe = next(m for m in members if m != default)
            zero, kind = members[0], "enum"
        elif isinstance(default, bool):
            probe, zero, kind = (not default), False, "bool"
        elif isinstance(default, int):
            probe, zero, kind = default + 7, 0, "int"
        elif isinstance(default, str):
            probe, zero, kind = "ck_probe_value", "", "string"
        elif isinstance(default, float):
            probe, zero, kind = default + 0.5, 0.0, "float"
        else:
            continue
        setattr(do, attr, probe)
        changed = {n: fv for n, fv in dbg_fields_of(co).items() if base_fields.get(n) != fv}
        if len(changed) != 1:
            raise RuntimeError(f"{attr}: expected one changed field, got {sorted(changed)}")
        (number, (wire, value)), = changed.items()
        co_zero, do_zero = fresh()
        setattr(do_zero, attr, zero)
        zero_fields = dbg_fields_of(co_zero)
        entry = {
            "number": number,
            "wire_type": ckref.WIRE_NAMES[wire],
            "kind": kind,
            "python_attribute": True,
            "python_default": default.name if kind == "enum" else default,
            "in_default_serialization": number in base_fields,
            "zero_kept_on_wire": number in zero_fields,
            "zero_wire_value": (zero_fields[number][1].decode("utf-8")
                                if number in zero_fields and wire == ckref.WIRE_LEN
                                else zero_fields.get(number, (None, None))[1]),
        }
        if kind == "enum":
            entry["enum_values"] = {m.name: int(m.value) for m in type(default).__members__.values()}
        table[attr] = entry

    # Method 2: wire injection over field numbers.
    def parse_with_field(extra: bytes):
        build = ckref.single_field(base_bytes, 3, b"")
        new_build = b"".join(raw for n, _, _, raw in ckref.parse_fields(build) if n != 3)
        new_build += ckref.encode_len_field(3, base_dbg + extra)
        new_co = b"".join(raw for n, _, _, raw in ckref.parse_fields(base_bytes) if n != 3)
        new_co += ckref.encode_len_field(3, new_build)
        co = xla_client.CompileOptions.ParseFromString(new_co)
        return co, _text_fields(co.executable_build_options.debug_options)

    # Two probe values per wire type, so that a field whose default already
    # equals one of them still changes.
    probes = [
        (ckref.WIRE_VARINT, lambda n: ckref.encode_varint_field(n, 5)),
        (ckref.WIRE_VARINT, lambda n: ckref.encode_varint_field(n, 0)),
        (ckref.WIRE_LEN, lambda n: ckref.encode_len_field(n, b"ck_probe")),
        (ckref.WIRE_I32, lambda n: ckref.encode_varint((n << 3) | 5) + struct.pack("<f", 1.25)),
        (ckref.WIRE_I32, lambda n: ckref.encode_varint((n << 3) | 5) + struct.pack("<f", 0.0)),
        (ckref.WIRE_I64, lambda n: ckref.encode_varint((n << 3) | 1) + struct.pack("<d", 1.25)),
        (ckref.WIRE_I64, lambda n: ckref.encode_varint((n << 3) | 1) + struct.pack("<d", 0.0)),
    ]
    by_number: dict[int, dict] = {}
    base_pairs = _text_fields(base_do)
    for number in range(1, 1200):
        for wire, make in probes:
            _, pairs = parse_with_field(make(number))
            if pairs == base_pairs:
                continue
            new_names = [p for p in pairs if p not in base_pairs]
            if len(new_names) != 1 or new_names[0][0].isdigit():
                continue
            name, text = new_names[0]

            def text_for(value: int) -> str | None:
                """Text-format value of ``name`` after injecting varint ``value``."""
                _, pv = parse_with_field(ckref.encode_varint_field(number, value))
                vals = [t for n, t in pv if n == name]
                return vals[-1] if vals else None

            kind = _value_kind(text)
            if wire == ckref.WIRE_I64 and kind == "float":
                kind = "double"
            enum_names = {}
            if wire == ckref.WIRE_VARINT:
                # An open enum prints unknown numbers as numbers, so a field
                # is an enum when any small value prints as an identifier.
                for v in range(0, 16):
                    t = text_for(v)
                    if t is not None and _value_kind(t) == "enum":
                        enum_names[t] = v
                if enum_names:
                    kind = "enum"
                elif kind == "int":
                    # Integer width and signedness from how large values print.
                    if text_for(1) == "-1":
                        kind = "sint64" if text_for(1 << 33) not in ("0", None) else "sint32"
                    elif text_for((1 << 33) + 5) == str((1 << 33) + 5):
                        kind = "int64" if text_for((1 << 63) + 1).startswith("-") else "uint64"
                    else:
                        kind = "int32" if text_for((1 << 31) + 1).startswith("-") else "uint32"
            _, twice = parse_with_field(make(number) + make(number))
            count = sum(1 for n, _ in twice if n == name)
            repeated = count - sum(1 for n, _ in base_pairs if n == name) == 2
            info = {"number": number, "wire_type": ckref.WIRE_NAMES[wire], "kind": kind,
                    "repeated": repeated}
            if enum_names:
                info["enum_values"] = enum_names
            if name in base_text:
                info["default_text"] = base_text[name]
                info["default"] = _decode_text_value(base_text[name], _value_kind(base_text[name]))
            info["in_default_serialization"] = number in base_fields
            by_number[number] = (name, info)
            break

    fields: dict[str, dict] = {}
    for number in sorted(by_number):
        name, info = by_number[number]
        if not info["in_default_serialization"]:
            # Absent from CompileOptions(): the value is the proto default.
            if info["kind"] == "enum":
                zero_names = [n for n, v in info["enum_values"].items() if v == 0]
                default = zero_names[0] if zero_names else 0
            elif info["kind"] in ("bool", "string", "float", "double"):
                default = {"bool": False, "string": "", "float": 0.0, "double": 0.0}[info["kind"]]
            else:
                default = 0
            info.setdefault("default", [] if info["repeated"] else default)
        if name in table:
            attr = table[name]
            if attr["number"] != number or attr["wire_type"] != info["wire_type"]:
                raise RuntimeError(f"{name}: attribute diff says {attr}, injection says {info}")
            info.update({k: v for k, v in attr.items() if k not in ("number", "wire_type", "kind", "enum_values")})
            info["python_kind"] = attr["kind"]
            if attr["kind"] == "enum":
                info["python_enum_values"] = attr["enum_values"]
            info["discovered_by"] = "attribute diff and wire injection"
        else:
            info["python_attribute"] = False
            info["discovered_by"] = "wire injection"
        fields[name] = info
    missing = sorted(set(table) - set(fields))
    if missing:
        raise RuntimeError(f"attributes not found by wire injection: {missing}")
    # Fields set by default but not discovered (message-typed fields such as
    # maps cannot be probed with scalar values).
    undiscovered = sorted({n for n, _ in base_pairs if not n.isdigit()} - set(fields))

    doc = {
        "description": ("DebugOptions (xla/xla.proto) fields as jaxlib writes them. Nested in "
                        "CompileOptionsProto field 3 (ExecutableBuildOptionsProto), field 3."),
        "provenance": run_provenance(
            command, jax.__version__, jaxlib_version,
            method=run_debug_options_worker.__doc__.strip()),
        "default_compile_options_b64": ckref.b64(base_bytes),
        "not_discovered_default_fields": undiscovered,
        "fields": fields,
    }
    write_json(out_path, doc)
