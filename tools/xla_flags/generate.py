"""Generates the XLA_FLAGS table of one jaxlib from the real jaxlib.

Run inside a release's venv (``tools/xla-flag-table --jax VERSION`` picks it).
Every rule in the table is measured, none is written by hand:

1. **Which flags exist.**  XLA's usage listing (``XLA_FLAGS=--help``) names
   flags with their type and default, but XLA logs it in one message that
   absl cuts at about 15,000 bytes, so it lists only the first ~80.  The
   other names come from the strings of jaxlib's shared library that look
   like flag names (``xla_…``); each candidate is kept only if XLA accepts it
   (``--name`` alone is parsed; XLA says "Unknown flag" for a name it does not
   register and "Flag parsing failed" for a value it cannot read).
2. **Type.**  From the listing, else by which sample values XLA accepts:
   bare ``--name`` (bool), ``7`` and ``4294967296`` (int32 / int64),
   ``0.5`` (float), ``x7`` (string).
3. **Effect.**  For each sample value, the DebugOptions that
   ``jax._src.compiler.get_compile_options(1, 1)`` builds under
   ``XLA_FLAGS=--name=value`` are compared, wire field by wire field, with
   those built under no flags.  The observed fields give the rule: which
   field (number, wire type, name from the text format) and how the value
   reads (bool spellings, integer, float, string, comma list into a repeated
   field, enum names, comma list of enum names into a packed repeated enum).
   An enum-valued string flag's candidate values are the value names of its
   field's enum as this jaxlib was built with them: the protobuf descriptor
   of xla/xla.proto embedded in jaxlib's library (descriptor.py) gives each
   DebugOptions field's type and each enum's value names; the candidates are
   those names in a few spellings (descriptor.enum_spellings), and XLA's own
   parse decides which it takes.  A string flag that still has no accepted
   value but its default gets the few hand-picked FALLBACK_STRING_SAMPLES.  A flag whose samples change nothing is "none"; one
   whose samples do not fit one rule keeps its observations only.
4. **Devices and target.**  ``--xla_force_host_platform_device_count`` and
   ``--xla_cpu_max_isa`` are also run with a CPU client: the topology JAX
   hashes (entry 6) is recorded for each sample, on this machine's CPU.

The output is JSON (``fixtures/xla_flags/<jaxlib>.json``) with provenance.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "tools"))

import descriptor  # noqa: E402
from probe import Prober, cpu_topology, usage_listing  # noqa: E402

from cachekey import ref as ckref  # noqa: E402
from fixture_capture.debug_options import MESSAGE, text_fields  # noqa: E402
from fixture_capture.provenance import run_provenance  # noqa: E402

BOOL_SPELLINGS = ["true", "false", "1", "0", "True", "FALSE", "yes", "no"]
# Candidate values for a string flag whose field is no enum and which took
# no sample but its default.  They are inputs only (XLA's parse decides and
# the table keeps what it did); their forms are those the setters in
# openxla/xla xla/debug_options_flags.cc read: --xla_fuel's comma list of
# PASS=INTEGER, and the timeout flags' absl durations (absl::ParseDuration).
FALLBACK_STRING_SAMPLES = ["fusion=1", "fusion=1,dce=2", "10s", "1m", "true", "false"]
# Flags whose effect reaches entry 6 (the CPU client's topology).
TOPOLOGY_FLAGS = {
    "xla_force_host_platform_device_count": ["2", "3", "8"],
    "xla_cpu_max_isa": ["SSE4_2", "AVX", "AVX2", "AVX512", "AVX512_VNNI", "AVX512_BF16", "AMX", "AMX_FP16", "AMX_FP8"],
}


def debug_fields(compile_options: bytes) -> dict[int, list[tuple[int, str]]]:
    """DebugOptions wire fields: number -> [(wire type, payload hex)] in order."""
    out: dict[int, list[tuple[int, str]]] = {}
    for number, wire, _value, raw in ckref.parse_fields(ckref.debug_options_bytes(compile_options)):
        out.setdefault(number, []).append((wire, _payload(wire, raw)))
    return out


def _payload(wire: int, raw: bytes) -> str:
    """The field's value bytes without its tag (and length), as hex."""
    _, p = ckref.read_varint(raw, 0)
    if wire == ckref.WIRE_LEN:
        _, p = ckref.read_varint(raw, p)
    return raw[p:].hex()


def text_names(text: str) -> dict[str, str]:
    """Top-level DebugOptions text format: field name -> value text (a
    repeated field joins its values with a NUL); message fields left out."""
    out: dict[str, list[str]] = {}
    for name, value in text_fields(text):
        if value != MESSAGE:
            out.setdefault(name, []).append(value)
    return {k: "\0".join(v) for k, v in out.items()}


LIBRARY_TOKENS: set[str] = set()


def library_candidates() -> list[str]:
    """Strings in jaxlib's shared libraries that look like XLA flag names.

    Also keeps (in LIBRARY_TOKENS) the upper-case words, among which are the
    enum value names of DebugOptions (its serialized descriptor is in the
    library): the samples of an enum-valued string flag."""
    import jaxlib

    root = os.path.dirname(jaxlib.__file__)
    names = set()
    upper = re.compile(rb"(?<![A-Za-z0-9_])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![A-Za-z0-9_])")
    # Not only whole NUL-terminated strings: the linker merges string tails
    # and keeps some names inside longer strings.
    pat = re.compile(rb"(?<![a-z0-9_])(xla_[a-z0-9_]{2,120})(?![a-z0-9_])")
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            if not (f.endswith(".so") or ".so." in f):
                continue
            with open(os.path.join(dirpath, f), "rb") as fh:
                data = fh.read()
            names.update(m.group(1).decode() for m in pat.finditer(data))
            LIBRARY_TOKENS.update(m.group(1).decode() for m in upper.finditer(data))
    return sorted(names)


class Generator:
    def __init__(self, log):
        self.prober = Prober()
        self.log = log
        base = self.prober.probe("")
        if not base["ok"]:
            raise RuntimeError(f"no compile options without flags: {base}")
        self.base_bytes = base["bytes"]
        self.base = debug_fields(base["bytes"])
        self.base_text = text_names(base["text"])
        self.probes = 0

    def probe(self, flag: str) -> dict:
        self.probes += 1
        return self.prober.probe(flag)

    def delta(self, result: dict) -> dict:
        """Fields that differ from the no-flag DebugOptions: number ->
        {"wire": [..] or [] (absent), "name"}."""
        fields = debug_fields(result["bytes"])
        names = text_names(result["text"])
        changed_names = [n for n in set(names) | set(self.base_text) if names.get(n) != self.base_text.get(n)]
        out = {}
        for number in sorted(set(fields) | set(self.base)):
            if fields.get(number) != self.base.get(number):
                out[number] = {"after": fields.get(number, [])}
        return {"fields": out, "names": sorted(changed_names), "text": {n: names.get(n) for n in changed_names}}

    def classify(self, name: str) -> str | None:
        """bool / int32 / int64 / float / string, or None (not a flag)."""
        bare = self.probe(f"--{name}")
        if bare["ok"]:
            return "bool"
        # tsl reads a non-bool flag only as --name=value: a bare one is left
        # unparsed, which XLA reports as unknown.  So a name is a flag when
        # XLA takes, or fails to parse, a value for it.
        tries = {v: self.probe(f"--{name}={v}") for v in ("x7", "7", "4294967296", "0.5")}
        if all(not t["ok"] and t["reason"] == "unknown" for t in tries.values()):
            return None
        ok = {v: t["ok"] for v, t in tries.items()}
        if ok["x7"]:
            return "string"
        if ok["0.5"]:
            return "float"
        if ok["4294967296"]:
            return "int64"
        if ok["7"]:
            return "int32"
        return "string"  # a string flag whose setter refuses x7 and 7 (an enum name)

    def samples(self, name: str, kind: str, default: str | None, help_tokens: list[str]) -> list[str]:
        if name in TOPOLOGY_FLAGS:
            return TOPOLOGY_FLAGS[name]
        if kind == "bool":
            return BOOL_SPELLINGS + [None]
        if kind in ("int32", "int64"):
            d = int(default) if default and re.fullmatch(r"-?\d+", default) else 0
            return [str(d + 1), str(d + 2), "0", "-1"]
        if kind == "float":
            return ["0.5", "0.25", "0"]
        vals = ["x7", "a,b", ""]
        vals += [t for t in help_tokens if t not in vals]
        return vals

    def measure(self, name: str, kind: str, default: str | None, help_tokens: list[str],
                values: list | None = None, observations: list | None = None) -> dict:
        observations = [] if observations is None else observations
        tried = {o["value"] for o in observations}
        for v in self.samples(name, kind, default, help_tokens) if values is None else values:
            if v in tried:
                continue
            tried.add(v)
            flag = f"--{name}" if v is None else f"--{name}={v}"
            res = self.probe(flag)
            obs = {"value": v, "accepted": res["ok"]}
            if res["ok"]:
                d = self.delta(res)
                obs["fields"] = {str(k): v2["after"] for k, v2 in d["fields"].items()}
                obs["names"] = d["names"]
            else:
                obs["refused"] = res["reason"]
            observations.append(obs)
        return {"observations": observations}


def field_rule(gen: Generator, name: str, kind: str, observations: list[dict]) -> dict:
    """The rule the observations support (see module docstring, step 3)."""
    accepted = [o for o in observations if o["accepted"]]
    numbers = sorted({int(n) for o in accepted for n in o["fields"]})
    names = sorted({n for o in accepted for n in o["names"]})
    if not numbers:
        values = {o["value"] for o in accepted}
        if kind == "bool" or len(values) >= 2:
            return {"effect": "none"}
        # Only one value was accepted (XLA's default): nothing is known of
        # the others.
        return {"effect": "observed", "why": "XLA accepted no sample but its default"}
    if len(numbers) != 1:
        return {"effect": "observed", "why": f"the samples change {len(numbers)} DebugOptions fields"}
    number = numbers[0]
    field_name = names[0] if len(names) == 1 else None
    wires = {w for o in accepted for (w, _) in o["fields"].get(str(number), [])}
    wires |= {w for (w, _) in gen.base.get(number, [])}
    rule = {"effect": "field", "number": number, "field": field_name,
            "wire": sorted(wires)[0] if len(wires) == 1 else None}

    def after(o):
        return o["fields"].get(str(number), gen.base.get(number, []))

    if kind == "bool":
        spell = {}
        for o in accepted:
            vals = [int(p, 16) for (_, p) in after(o)] or [0]
            # The varint the field gets: 0/1, or another number when a bool
            # flag sets an enum field (jaxlib 0.12.0.1: xla_gpu_enable_pipelined_all_reduce).
            spell["" if o["value"] is None else o["value"]] = vals[-1]
        rule["parse"] = "bool"
        rule["spellings"] = spell
        return rule
    if kind in ("int32", "int64"):
        ok = all(_varint_of(after(o)) == int(o["value"]) % (1 << 64) for o in accepted)
        rule["parse"] = "int" if ok else None
        return rule if ok else {"effect": "observed", "why": "an integer sample did not land as that integer"}
    if kind == "float":
        ok = all(after(o) and rule["wire"] == 5 and
                 abs(struct.unpack("<f", bytes.fromhex(after(o)[-1][1]))[0] - float(o["value"])) < 1e-9
                 or (not after(o) and float(o["value"]) == 0) for o in accepted)
        rule["parse"] = "float" if ok else None
        return rule if ok else {"effect": "observed", "why": "a float sample did not land as that float"}
    # string flags: plain string, comma list into a repeated field, or enum names.
    if rule["wire"] == 2:
        def strings(o):
            return [bytes.fromhex(p).decode("utf-8", "replace") for (_, p) in after(o)]

        base_strings = [bytes.fromhex(p).decode("utf-8", "replace") for (_, p) in gen.base.get(number, [])]
        as_string = all(strings(o) == [o["value"]] or (o["value"] == "" and strings(o) == base_strings == [])
                        for o in accepted)
        if as_string:
            rule["parse"] = "string"
            return rule
        as_list = all(strings(o) == o["value"].split(",") for o in accepted)
        if as_list:
            rule["parse"] = "comma_list"
            # Given twice: does the second replace the first, or append?
            twice = gen.probe(f"--{name}=a --{name}=b")
            if twice["ok"]:
                got = [bytes.fromhex(p).decode() for (_, p) in debug_fields(twice["bytes"]).get(number, [])]
                rule["repeat"] = "replace" if got == ["b"] else "append" if got == ["a", "b"] else None
            return rule
        lists = enum_list_rule(gen, name, number, accepted, after)
        if lists is not None:
            rule["parse"] = "enum_list"
            rule["values"], rule["repeats"] = lists
            rule["refused_samples"] = [o["value"] for o in observations if not o["accepted"]]
            return rule
        return {"effect": "observed", "why": "a string sample did not land as the string, its comma-split "
                "list or a packed list of enum numbers"}
    if rule["wire"] == 0:
        enum = {o["value"]: _varint_of(after(o)) for o in accepted}
        enum = {k: v for k, v in enum.items()}
        refused = [o["value"] for o in observations if not o["accepted"]]
        rule["parse"] = "enum"
        rule["values"] = enum
        rule["refused_samples"] = refused
        return rule
    return {"effect": "observed", "why": "no rule fits the samples"}


def _packed(wire_list) -> list[int] | None:
    """The numbers of a packed repeated varint field (all its occurrences),
    or None when a payload is not a run of varints."""
    out = []
    for (_, p) in wire_list:
        buf, pos = bytes.fromhex(p), 0
        try:
            while pos < len(buf):
                v, pos = ckref.read_varint(buf, pos)
                out.append(v)
        except ValueError:
            return None
    return out


def enum_list_rule(gen, name: str, number: int, accepted: list[dict], after) -> tuple[dict, str] | None:
    """({name: [numbers]}, repeats) when the field is a packed repeated enum
    (the embedded descriptor says so) and every accepted non-empty sample
    set it to the concatenation of its comma-separated names' numbers, each
    name's numbers being what it gave alone; repeats is "kept" when a
    number given twice stays twice, "dropped" when only its first stays
    (jaxlib 0.10.2's --xla_gpu_enable_command_buffer).  The empty value is
    left to its observation (a setter may clear the list or keep it)."""
    f = schema_field(getattr(gen, "schema", {}), name)
    if not f or f["type"] != descriptor.TYPE_ENUM or f["label"] != descriptor.LABEL_REPEATED or f["number"] != number:
        return None
    singles = {}
    for o in accepted:
        if o["value"] and "," not in o["value"]:
            got = _packed(after(o))
            if got is None:
                return None
            singles[o["value"]] = got
    if not singles:
        return None

    def fits(unique: bool) -> bool:
        for o in accepted:
            if not o["value"]:
                continue
            pieces = o["value"].split(",")
            if any(p not in singles for p in pieces):
                return False
            want = [n for p in pieces for n in singles[p]]
            if unique:
                want = [n for i, n in enumerate(want) if n not in want[:i]]
            if _packed(after(o)) != want:
                return False
        return True

    for unique, repeats in ((False, "kept"), (True, "dropped")):
        if fits(unique):
            return singles, repeats
    return None


def _varint_of(wire_list) -> int:
    if not wire_list:
        return 0
    v, _ = ckref.read_varint(bytes.fromhex(wire_list[-1][1]), 0)
    return v


def help_tokens_of(listing_help: dict, name: str) -> list[str]:
    text = listing_help.get(name, "")
    return [t for t in re.findall(r"\b[A-Z][A-Z0-9_]{1,}\b", text)]


def schema_field(schema: dict, name: str) -> dict | None:
    """The DebugOptions field named like the flag, from the embedded descriptor."""
    return schema.get("messages", {}).get(".xla.DebugOptions", {}).get(name)


def enum_candidates(schema: dict, name: str, wide: bool) -> list[str]:
    """Candidate values of a string flag from its DebugOptions field's type:
    the spellings of its enum's value names (of the enum fields of its
    message, for a repeated message such as jaxlib 0.12.0.1's
    xla_enable_nccl_symmetric_buffers_for_collectives), or true/false for a
    bool field.  Empty when the field is none of those."""
    f = schema_field(schema, name)
    if not f:
        return []
    if f["type"] == descriptor.TYPE_BOOL:
        return ["true", "false"]
    enums = []
    if f["type"] == descriptor.TYPE_ENUM:
        enums.append(f["type_name"])
    elif f["type"] == descriptor.TYPE_MESSAGE:
        for sub in schema["messages"].get(f["type_name"], {}).values():
            if sub["type"] == descriptor.TYPE_ENUM:
                enums.append(sub["type_name"])
    out = []
    for e in enums:
        out += [v for v in descriptor.enum_spellings(schema["enums"].get(e, []), wide) if v not in out]
    return out


def has_sample(observations: list[dict], default: str | None) -> bool:
    """An accepted value other than the default that changes DebugOptions."""
    return any(o["accepted"] and o["value"] not in ("", None, default) and o.get("fields")
               for o in observations)


def list_pairs(observations: list[dict], default: str | None) -> list[str]:
    """Comma lists of two accepted single values, for a repeated field: two
    names of different numbers, the larger first (is the order kept?), and
    two names of one number (are repeats kept?)."""
    one = {}
    for o in observations:
        v = o["value"]
        if o["accepted"] and v not in ("", None, default) and "," not in v and len(o.get("fields", {})) == 1:
            nums = _packed(next(iter(o["fields"].values())))
            if nums is not None and len(nums) == 1:
                one[v] = nums[0]
    out = []
    by_number = {}
    for v, n in one.items():
        by_number.setdefault(n, []).append(v)
    numbers = sorted(by_number)
    if len(numbers) >= 2:
        out.append(f"{by_number[numbers[-1]][0]},{by_number[numbers[0]][0]}")
    if one:
        n = max(by_number, key=lambda k: len(by_number[k]))
        names = by_number[n]
        out.append(f"{names[0]},{names[1] if len(names) > 1 else names[0]}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default="tools/xla-flag-table")
    ap.add_argument("--only", nargs="*", help="measure only these flags (a partial table, for tests)")
    args = ap.parse_args(argv)
    t0 = time.time()
    import jax
    import jaxlib

    log = sys.stderr
    gen = Generator(log)
    schema = descriptor.read_schema(os.path.dirname(jaxlib.__file__))
    gen.schema = schema
    listing, cut = usage_listing(gen.prober)
    listed = {f["name"]: f for f in listing}
    # Candidates: the listing, names in the library, and the DebugOptions
    # fields this jaxlib writes (its text format), which most flags are named after.
    candidates = sorted(set(listed) | set(library_candidates()) | set(gen.base_text))
    if args.only:
        candidates = [c for c in candidates if c in set(args.only)]
    flags = {}
    rejected = []
    for name in candidates:
        if name in listed:
            kind, default, source = listed[name]["type"], listed[name]["default"], "usage_listing"
            check = gen.probe(f"--{name}" if kind == "bool" else f"--{name}=0")
            if not check["ok"] and check["reason"] == "unknown":
                rejected.append(name)
                continue
        else:
            kind = gen.classify(name)
            if kind is None:
                rejected.append(name)
                continue
            default, source = None, "probed"
        tokens = re.findall(r"\b[A-Z][A-Z0-9_]+\b", listed.get(name, {}).get("help", ""))
        base_text = gen.base_text.get(name)
        if base_text and re.fullmatch(r"[A-Z][A-Z0-9_]*", base_text):
            tokens.insert(0, base_text)
            # The other values of its enum: library words with the same
            # prefix (the default's name up to its last '_').
            if "_" in base_text:
                prefix = base_text.rsplit("_", 1)[0] + "_"
                tokens += sorted(t for t in LIBRARY_TOKENS if t.startswith(prefix) and t != base_text)[:12]
        m = gen.measure(name, kind, default, tokens)
        if kind == "string" and not has_sample(m["observations"], default):
            obs = m["observations"]
            gen.measure(name, kind, default, [], enum_candidates(schema, name, False), obs)
            if not has_sample(obs, default):
                gen.measure(name, kind, default, [], enum_candidates(schema, name, True), obs)
            f = schema_field(schema, name)
            if f and f["label"] == descriptor.LABEL_REPEATED:
                gen.measure(name, kind, default, [], list_pairs(obs, default), obs)
            if not has_sample(obs, default):
                gen.measure(name, kind, default, [], FALLBACK_STRING_SAMPLES, obs)
        rule = field_rule(gen, name, kind, m["observations"])
        entry = {"type": kind, "type_from": source}
        if default is not None:
            entry["default"] = default
        entry.update(rule)
        if rule.get("effect") == "field" and rule.get("number") in gen.base:
            entry["default_wire"] = gen.base[rule["number"]]
        entry["observations"] = m["observations"]
        flags[name] = entry
        print(f"{name}: {kind} {rule.get('effect')} {rule.get('parse', '')}", file=log)

    topology = {}
    tprober = Prober(with_topology=True)
    base_topo = tprober.probe("")
    if base_topo["ok"]:
        topology["base"] = base_topo["topology"]
        for name, values in TOPOLOGY_FLAGS.items():
            if name not in flags:
                continue
            topology[name] = {}
            for v in values:
                res = tprober.probe(f"--{name}={v}")
                topology[name][v] = res["topology"] if res["ok"] else {"refused": res["reason"]}

    table = {
        "description": ("XLA_FLAGS as this jaxlib parses them: for each flag XLA registers, its type, "
                        "and the DebugOptions field and value a setting gives, measured by "
                        "tools/xla_flags/generate.py (module docstring)."),
        "provenance": run_provenance(
            args.command, jax.__version__, jaxlib.__version__,
            host_cpu=topology.get("base", {}).get("target_machine", {}).get("cpu"),
            usage_listing_flags=len(listing),
            usage_listing_cut=cut,
            descriptor_files=len(schema["files"]),
            debug_options_fields=len(schema["messages"].get(".xla.DebugOptions", {})),
            library_candidates=len(candidates),
            not_flags=len(rejected),
            probes=gen.probes,
            seconds=round(time.time() - t0, 1)),
        "jaxlib": jaxlib.__version__,
        "default_compile_options_b64": ckref.b64(gen.base_bytes),
        "default_debug_fields": {str(k): v for k, v in sorted(gen.base.items())},
        "flags": flags,
        "topology": topology,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(table, fh, indent=1, sort_keys=False)
        fh.write("\n")
    print(f"{len(flags)} flags ({sum(1 for f in flags.values() if f['effect'] == 'field')} into one "
          f"DebugOptions field) in {time.time() - t0:.0f} s -> {args.out}", file=log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
