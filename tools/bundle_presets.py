#!/usr/bin/env python3
"""Bundles the captured fixtures the page offers as presets.

Usage: tools/bundle_presets.py FIXTURES_DIR OUT.json

Keeps each fixture's scenario, provenance and expected outputs, and the
formatted DEBUG log (for the paste-two-logs demo); drops the module texts and
the alternative bytecodes, which the first view does not need. Fixtures whose
entry-1 bytes exceed 256 KiB (the large benchmark module) are left out.
The derived presets (fixtures/derived/*.json: patches over a captured
fixture, computed rather than captured) go under "derived".
"""
import json
import sys
from pathlib import Path

KEEP_CAPTURE = ("debug_log_formatted", "topology_fingerprint_hex")


def main(src: str, out: str) -> None:
    presets = {}
    for path in sorted(Path(src).glob("*.json")):
        fx = json.loads(path.read_text())
        if not isinstance(fx, dict) or fx.get("schema") != 1 or "expected" not in fx:
            continue
        if len(fx["module"].get("entry1_b64", "")) > 256 * 1024 * 4 // 3:
            continue
        capture = fx.get("capture", {})
        fx["capture"] = {k: capture[k] for k in KEEP_CAPTURE if k in capture}
        presets[path.stem] = fx
    derived = {p.stem: json.loads(p.read_text())
               for p in sorted(Path(src, "derived").glob("*.json"))}
    Path(out).write_text(json.dumps({"schema": 1, "fixtures": presets, "derived": derived},
                                    separators=(",", ":"), ensure_ascii=False))


if __name__ == "__main__":
    main(*sys.argv[1:3])
