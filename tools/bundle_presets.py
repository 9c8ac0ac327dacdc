#!/usr/bin/env python3
"""Bundles the captured fixtures the page offers as presets.

Usage: tools/bundle_presets.py FIXTURES_DIR OUT.json [MODULES_OUT.json [MORE_OUT.json]]

Keeps each fixture's scenario (fixtures/*.json, then the TPU captures in
fixtures/tpu/*.json), provenance and expected outputs, and the
formatted DEBUG log (for the paste-two-logs demo); drops the module texts and
the alternative bytecodes, which the first view does not need. Fixtures whose
entry-1 bytes exceed 256 KiB (the large benchmark module) are left out.
The derived presets (fixtures/derived/*.json: patches over a captured
fixture, computed rather than captured) go under "derived", except those
whose module is MLIR text (they need the live MLIR canonicaliser): OUT.json
lists only their id, title and note under "live".

MORE_OUT.json, when given, takes the captured fixtures whose trimmed
document is over FIRST_VIEW_MAX bytes (large_mlp: about 200 KB, 70 KB
gzipped, more than half of OUT.json): the first view does not show them, and
the page fetches MORE_OUT.json when the reader picks one (as a preset, as the
module's bytes, or in a link or a scenario file). OUT.json keeps a stub of
each under "more": its title, provenance, platform and module facts (sym_name,
bytes, include_metadata), which the pickers list.

MODULES_OUT.json is what the page fetches together with the MLIR module,
when the user opens the module text editor: each bundled fixture's module
text in generic form (capture.module_generic, up to 64 KiB) under "texts",
and the derived presets that need MLIR, whole, under "live".
"""
import json
import sys
from pathlib import Path

KEEP_CAPTURE = ("debug_log_formatted", "topology_fingerprint_hex")
# Module texts longer than this (large_mlp's 2 MB) are not bundled: nobody
# edits them in a text box, and the file is fetched whole.
MAX_TEXT = 64 * 1024
# Captured fixtures whose bundled document is longer than this (in bytes of
# compact JSON) go to MORE_OUT.json when it is given.
FIRST_VIEW_MAX = 64 * 1024
# What the page shows of a fixture's provenance (catalog.mjs, provenanceText).
PROVENANCE_SHOWN = ("jax", "libtpu", "topology", "cuda_plugin", "label", "date")


def needs_mlir(doc: dict, derived: dict, depth: int = 0) -> bool:
    module = doc.get("module")
    if isinstance(module, dict) and isinstance(module.get("text"), str):
        return True
    base = doc.get("base")
    return depth < 8 and base in derived and needs_mlir(derived[base], derived, depth + 1)


def stub(fx: dict) -> dict:
    """What the pickers list of a fixture left to MORE_OUT.json."""
    module = fx.get("module", {})
    b64 = module.get("entry1_b64", "")
    prov = fx.get("provenance", {})
    return {"title": fx.get("title", ""),
            "provenance": {k: prov[k] for k in PROVENANCE_SHOWN if k in prov},
            "backend": {"platform": fx.get("backend", {}).get("platform")},
            "module": {"sym_name": module.get("sym_name"),
                       "bytes": len(b64) * 3 // 4 - len(b64) + len(b64.rstrip("=")),
                       "include_metadata": bool(module.get("include_metadata"))}}


def compact(doc) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def main(src: str, out: str, modules_out: str = "", more_out: str = "") -> None:
    presets = {}
    texts = {}
    # The CPU captures, then the TPU captures (fixtures/tpu/, libtpu),
    # and the GPU captures (fixtures/gpu/, the CUDA plugin's compile-only client).
    for path in (sorted(Path(src).glob("*.json")) + sorted(Path(src, "tpu").glob("*.json"))
                 + sorted(Path(src, "gpu").glob("*.json"))):
        fx = json.loads(path.read_text())
        if not isinstance(fx, dict) or fx.get("schema") != 1 or "expected" not in fx:
            continue
        if len(fx["module"].get("entry1_b64", "")) > 256 * 1024 * 4 // 3:
            continue
        capture = fx.get("capture", {})
        generic = capture.get("module_generic")
        if isinstance(generic, str) and len(generic) <= MAX_TEXT:
            texts[path.stem] = generic
        fx["capture"] = {k: capture[k] for k in KEEP_CAPTURE if k in capture}
        presets[path.stem] = fx
    all_derived = {p.stem: json.loads(p.read_text())
                   for p in sorted(Path(src, "derived").glob("*.json"))}
    # A fixture a derived preset is based on stays in the first view's file:
    # the page registers derived presets with their base.
    bases = {doc.get("base") for doc in all_derived.values()}
    more = {}
    if more_out:
        for name in [n for n, fx in presets.items()
                     if n not in bases and len(compact(fx).encode()) > FIRST_VIEW_MAX]:
            more[name] = presets.pop(name)
    derived = {}
    live_docs = {}
    for name, doc in all_derived.items():
        if needs_mlir(doc, all_derived):
            live_docs[name] = doc
        else:
            derived[name] = doc
    live = {name: {"title": doc.get("title", name), "base": doc.get("base"),
                   "note": doc.get("provenance", {}).get("note", "")}
            for name, doc in live_docs.items()}
    first = {"schema": 1, "fixtures": presets, "derived": derived, "live": live}
    if more_out:
        first["more"] = {name: stub(fx) for name, fx in more.items()}
        Path(more_out).write_text(compact({"schema": 1, "fixtures": more}))
    Path(out).write_text(compact(first))
    if modules_out:
        Path(modules_out).write_text(compact({"schema": 1, "texts": texts, "live": live_docs}))


if __name__ == "__main__":
    main(*sys.argv[1:5])
