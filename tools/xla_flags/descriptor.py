"""The DebugOptions schema as one jaxlib was built with, read from the library.

Protobuf's C++ code generator embeds each .proto file's serialized
``FileDescriptorProto`` in the library that links it (the
``descriptor_table_protodef_*`` byte arrays).  jaxlib's shared libraries
carry ``xla/xla.proto`` and the files it imports that way, so the field
types of ``DebugOptions`` and the value names of every enum they use can be
read back from the library itself, with no copy of the .proto file: the
enum-valued flags' candidate values come from the jaxlib being measured.

Only the parts of descriptor.proto (google/protobuf/descriptor.proto) needed
here are decoded: FileDescriptorProto (1 name, 2 package, 4 message_type,
5 enum_type), DescriptorProto (1 name, 2 field, 3 nested_type, 4 enum_type),
FieldDescriptorProto (1 name, 3 number, 4 label, 5 type, 6 type_name),
EnumDescriptorProto (1 name, 2 value), EnumValueDescriptorProto (1 name,
2 number).
"""

from __future__ import annotations

import os
import re

from cachekey import ref as ckref

# FieldDescriptorProto.Type and .Label values (descriptor.proto).
TYPE_BOOL = 8
TYPE_MESSAGE = 11
TYPE_ENUM = 14
LABEL_REPEATED = 3
# The top-level fields a FileDescriptorProto may hold (descriptor.proto).
_FILE_FIELDS = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 10: 0, 11: 0, 12: 2, 14: 0}


def _file_prefix(data: bytes, start: int) -> bytes | None:
    """The longest run of well-formed FileDescriptorProto fields at
    ``start`` that names one file (the arrays are laid out back to back, so
    a second name field is the next file)."""
    pos = start
    seen_name = False
    while pos < len(data):
        try:
            tag, p = ckref.read_varint(data, pos)
        except ValueError:
            break
        number, wire = tag >> 3, tag & 7
        if _FILE_FIELDS.get(number) != wire or (number == 1 and seen_name):
            break
        seen_name = seen_name or number == 1
        try:
            if wire == 0:
                _, p = ckref.read_varint(data, p)
            else:
                n, p = ckref.read_varint(data, p)
                if p + n > len(data):
                    break
                p += n
        except ValueError:
            break
        pos = p
    return data[start:pos] if pos > start else None


def _fields(buf: bytes) -> list[tuple[int, object]]:
    try:
        return [(n, v) for n, _w, v, _raw in ckref.parse_fields(buf)]
    except ValueError:
        return []


def _str(v) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else ""


def _enum(buf: bytes, scope: str, enums: dict) -> None:
    name, values = "", []
    for n, v in _fields(buf):
        if n == 1:
            name = _str(v)
        elif n == 2:
            vname, vnum = "", 0
            for n2, v2 in _fields(v):
                if n2 == 1:
                    vname = _str(v2)
                elif n2 == 2:
                    vnum = v2 if v2 < (1 << 63) else v2 - (1 << 64)
            values.append((vname, vnum))
    enums[f"{scope}.{name}"] = values


def _message(buf: bytes, scope: str, messages: dict, enums: dict) -> None:
    name = ""
    fields = {}
    for n, v in _fields(buf):
        if n == 1:
            name = _str(v)
    full = f"{scope}.{name}"
    for n, v in _fields(buf):
        if n == 2:
            f = {"name": "", "number": 0, "label": 1, "type": 0, "type_name": ""}
            for n2, v2 in _fields(v):
                if n2 == 1:
                    f["name"] = _str(v2)
                elif n2 == 3:
                    f["number"] = v2
                elif n2 == 4:
                    f["label"] = v2
                elif n2 == 5:
                    f["type"] = v2
                elif n2 == 6:
                    f["type_name"] = _str(v2)
            fields[f["name"]] = f
        elif n == 3:
            _message(v, full, messages, enums)
        elif n == 4:
            _enum(v, full, enums)
    messages[full] = fields


def read_schema(root: str) -> dict:
    """The messages and enums of the xla/*.proto files embedded in the
    shared libraries under ``root`` (jaxlib's directory):
    {"messages": {".xla.DebugOptions": {field name: {name, number, label,
    type, type_name}}}, "enums": {".xla.DebugOptions.DetectionMode":
    [(value name, number), ...]}, "files": [proto file names]}.
    Empty when no descriptor is found."""
    messages: dict = {}
    enums: dict = {}
    files = []
    # A file's descriptor starts with its name (field 1) and then its
    # package (field 2), here "xla" or one of its sub-packages.
    start = re.compile(rb"\n([\x05-\x7f])(xla/[A-Za-z0-9_/]+\.proto)\x12")
    for dirpath, _dirs, names in os.walk(root):
        for f in names:
            if not (f.endswith(".so") or ".so." in f):
                continue
            with open(os.path.join(dirpath, f), "rb") as fh:
                data = fh.read()
            for m in start.finditer(data):
                if m.group(1)[0] != len(m.group(2)):
                    continue
                fname = m.group(2).decode()
                if fname in files:
                    continue
                body = _file_prefix(data, m.start())
                if not body:
                    continue
                package = ""
                for n, v in _fields(body):
                    if n == 2:
                        package = _str(v)
                scope = f".{package}" if package else ""
                for n, v in _fields(body):
                    if n == 4:
                        _message(v, scope, messages, enums)
                    elif n == 5:
                        _enum(v, scope, enums)
                files.append(fname)
    return {"messages": messages, "enums": enums, "files": files}


def enum_spellings(values: list[tuple[str, int]], wide: bool = False) -> list[str]:
    """Ways a flag's setter may spell each value of an enum, most likely
    first: the value name, the name without the prefix all the enum's names
    share (``DETECTION_MODE_FAIL`` -> ``FAIL``), and both in lower case.
    With ``wide``, also every run of the name's ``_``-separated words in
    either case (a setter that adds a prefix and a suffix itself, as
    jaxlib 0.10.2's --xla_gpu_all_gather_mode takes ``peer`` for
    ``COLLECTIVES_PEER_MEMORY``).  These are candidates only: the generator
    keeps what XLA accepts."""
    names = [n for n, _ in values]
    prefix = os.path.commonprefix(names) if len(names) > 1 else ""
    prefix = prefix[:prefix.rfind("_") + 1] if "_" in prefix else ""
    out = []
    for n in names:
        short = n[len(prefix):] if prefix and len(n) > len(prefix) else n
        runs = []
        if wide:
            words = n.split("_")
            runs = ["_".join(words[i:j]) for i in range(len(words)) for j in range(i + 1, len(words) + 1)]
        for s in [n, short, n.lower(), short.lower()] + [r for run in runs for r in (run, run.lower())]:
            if s not in out:
                out.append(s)
    return out
