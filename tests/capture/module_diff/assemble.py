"""Turns make_pairs.sh's captures into the fixtures <jax>/<class>/{a,b}.json.

Usage: python assemble.py OUTDIR JAX_VERSION

Each fixture is the scenario the capture wrote for the program's own jit
(its last NNNN-*.json), with `module.entry1_b64` (jaxlib's entry-1 bytecode,
written by an MLIR newer than the engine's MLIR 19, which cannot read it)
replaced by `module.text`: the generic-form module JAX lowered for the same
call (program.py, CK_GENERIC_OUT). The engine then canonicalises that text
live. `expected` keeps the key real JAX computed; `capture` (which describes
the inline entry 1) is dropped and its provenance kept as `provenance`.
"""
import glob
import json
import os
import sys

out, version = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
for cls in sorted(os.listdir(out)):
    for side in "ab":
        runs = sorted(p for p in glob.glob(os.path.join(out, cls, side, "*.json"))
                      if not p.endswith("index.json"))
        doc = json.load(open(runs[-1]))
        text = open(os.path.join(out, cls, side + ".generic.mlir")).read()
        del doc["module"]["entry1_b64"]
        doc["module"]["text"] = text
        cap = doc.pop("capture")
        doc["provenance"] = {
            "made_by": "tests/capture/module_diff/make_pairs.sh, assemble.py",
            "program": f"program.py {cls} {side}",
            "jax": version,
            "captured_program": cap.get("program"),
            "entry1_sha256_jaxlib": cap.get("entry1", {}).get("sha256"),
        }
        dest = os.path.join(here, version, cls)
        os.makedirs(dest, exist_ok=True)
        with open(os.path.join(dest, side + ".json"), "w") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
