#!/usr/bin/env python3
"""Writes the derived Pallas presets (fixtures/derived/pallas_kernel*.json).

Usage: tools/pallas_presets.py [FIXTURES_DIR]   (default: fixtures)

They illustrate jax-ml/jax#35699 (main strips the locations inside Pallas TPU
kernels before hashing; 0.10.2 does not). Each is a patch over the derived
tpu_v5e_8 preset whose module is MLIR text in generic form: one
stablehlo.custom_call @tpu_custom_call whose backend_config JSON carries, as
custom_call_config.body, the base64 of a tiny kernel module. The kernel is
hand-written here, not lowered by Pallas (real bodies are bytecode; the
engine, like JAX, parses either), and it is not a program a TPU would run.

  pallas_kernel        profile main; the kernel's one file location is
                       /home/alice/src/kernels/add_one.py:11:12
  pallas_kernel_moved  the same module, kernel location
                       /srv/ci/checkout/kernels/add_one.py:47:12
  pallas_kernel_0102   pallas_kernel on profile 0.10.2

Only the kernel's location differs between the two texts, so on main the
keys are equal and on 0.10.2 they differ. These need the live MLIR
canonicaliser: the CLI computes them, the page loads its MLIR module first.
"""
import base64
import json
import sys
from pathlib import Path

KERNEL_TEMPLATE = """\
"builtin.module"() <{{sym_name = "add_one_kernel"}}> ({{
  "func.func"() <{{function_type = (i32, i32) -> i32, sym_name = "main"}}> ({{
  ^bb0(%arg0: i32 loc(unknown), %arg1: i32 loc(unknown)):
    %0 = "arith.addi"(%arg0, %arg1) : (i32, i32) -> i32 loc("{path}":{line}:12)
    "func.return"(%0) : (i32) -> () loc(unknown)
  }}) : () -> () loc(unknown)
}}) : () -> () loc(unknown)
"""

OUTER_TEMPLATE = """\
"builtin.module"() <{{sym_name = "jit_add_one"}}> ({{
  "func.func"() <{{function_type = (tensor<8x128xi32>) -> tensor<8x128xi32>, res_attrs = [{{jax.result_info = "result"}}], sym_name = "main", sym_visibility = "public"}}> ({{
  ^bb0(%arg0: tensor<8x128xi32> loc("x")):
    %0 = "stablehlo.custom_call"(%arg0) <{{api_version = 1 : i32, backend_config = "{config}", call_target_name = "tpu_custom_call"}}> {{kernel_name = "add_one"}} : (tensor<8x128xi32>) -> tensor<8x128xi32> loc("/home/alice/src/model.py":21:9)
    "func.return"(%0) : (tensor<8x128xi32>) -> () loc("/home/alice/src/model.py":20:1)
  }}) : () -> () loc("/home/alice/src/model.py":20:1)
}}) {{mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}} : () -> () loc(unknown)
"""


def mlir_string(s: str) -> str:
    """A Python string as the inside of an MLIR string literal."""
    out = []
    for ch in s.encode("utf-8"):
        c = chr(ch)
        if c in '"\\' or ch < 0x20 or ch >= 0x7F:
            out.append("\\%02X" % ch)
        else:
            out.append(c)
    return "".join(out)


def module_text(kernel_path: str, line: int) -> str:
    kernel = KERNEL_TEMPLATE.format(path=kernel_path, line=line)
    body = base64.b64encode(kernel.encode("utf-8")).decode("ascii")
    config = json.dumps({"custom_call_config": {"body": body, "serialization_format": 1,
                                                "needs_layout_passes": True}})
    return OUTER_TEMPLATE.format(config=mlir_string(config))


def text_module(text: str) -> dict:
    # sym_name is read from the text (a patch giving text drops the base's).
    return {"entry1_b64": None, "text": text, "include_metadata": False}


NOTE = ("Not captured: a hand-written module (tools/pallas_presets.py) with one "
        "tpu_custom_call whose base64 kernel body carries a file location, as a "
        "Pallas TPU kernel does. Entry 1 is computed by the live MLIR canonicaliser, "
        "whose MLIR release differs from jaxlib's. Entries 3 and 6: libtpu's real values for a "
        "v5e:2x4 slice (fixtures/tpu_topologies.json); the rest is the CPU capture add_1x1. "
        "Real Pallas captures: fixtures/tpu/pallas_*.")


def main(out_dir: str = "fixtures") -> None:
    derived = Path(out_dir, "derived")
    docs = {
        "pallas_kernel": {
            "schema": 1, "base": "tpu_v5e_8", "id": "pallas_kernel",
            "title": "A Pallas TPU kernel call, profile main (derived; needs live MLIR)",
            "provenance": {"derived_from": "tpu_v5e_8", "computed_not_captured": True,
                           "needs_mlir": True, "note": NOTE},
            "profile": "main",
            "module": text_module(module_text("/home/alice/src/kernels/add_one.py", 11)),
        },
        "pallas_kernel_moved": {
            "schema": 1, "base": "pallas_kernel", "id": "pallas_kernel_moved",
            "title": "The same kernel built in another checkout (derived; needs live MLIR)",
            "provenance": {"derived_from": "pallas_kernel", "computed_not_captured": True,
                           "needs_mlir": True, "note": NOTE},
            "module": text_module(module_text("/srv/ci/checkout/kernels/add_one.py", 47)),
        },
        "pallas_kernel_0102": {
            "schema": 1, "base": "pallas_kernel", "id": "pallas_kernel_0102",
            "title": "A Pallas TPU kernel call, profile 0.10.2 (derived; needs live MLIR)",
            "provenance": {"derived_from": "pallas_kernel", "computed_not_captured": True,
                           "needs_mlir": True, "note": NOTE},
            "profile": "0.10.2",
        },
    }
    for name, doc in docs.items():
        Path(derived, name + ".json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:2])
