#!/usr/bin/env python3
"""Writes tests/mlir/data/*_golden.json: CPython's own answers.

The Mosaic strip (jax main) uses ``json.loads``, ``json.dumps(obj,
separators=(",", ":"))``, ``float.__repr__`` and ``base64.b64decode``. Every
expected value here is what CPython returns (or raises) for the input; none
comes from the code under test. Run with the project's virtual environment::

    .venv/bin/python tests/mlir/data/generate.py
"""
import base64
import binascii
import datetime
import json
import math
import platform
import random
import struct
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent


def provenance():
    return {
        "command": ".venv/bin/python tests/mlir/data/generate.py",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
    }


def write(name, description, cases):
    doc = {"description": description, "provenance": provenance(),
           "cases": cases}
    (OUT / name).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")


# --- float repr ------------------------------------------------------------
def float_cases():
    rng = random.Random(20260829)
    values = [0.0, -0.0, 1.0, -1.0, 0.1, 0.2 + 0.1, 1 / 3, 2 / 3, math.pi,
              math.e, 5e-324, -5e-324, 2.2250738585072014e-308,
              2.225073858507201e-308, 1.7976931348623157e308, 1e16, 1e15,
              9999999999999998.0, 1e16 + 2, 2e16 + 8, 123456789012345678.0,
              0.0001, 0.00001, 0.00012345, 1.2345e-5, 1e-7, 1e22, 1e23, 1e-22,
              100.0, 1e5, 123456.789, 4.35, 0.3, 1.5e300, 9.5, 1e100, 1e-100]
    for exp in range(-30, 31):
        values += [10.0 ** exp, 1.5 * 10.0 ** exp, -7.25 * 10.0 ** exp]
    for _ in range(1500):  # random bit patterns, finite only
        (x,) = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))
        if math.isfinite(x):
            values.append(x)
    for _ in range(1500):  # "ordinary" magnitudes
        values.append(rng.uniform(-1e6, 1e6) * 10.0 ** rng.randint(-25, 25))
    cases = []
    for x in values:
        cases.append({"bits": struct.pack(">d", x).hex(), "repr": repr(x)})
    return cases


# --- base64.b64decode ------------------------------------------------------
def b64_cases():
    inputs = [
        "", "TUxJUg==", "TUxJUg=", "TUxJUg", "TUxJU", "TUxJ", "TQ==", "TQ=",
        "TQ", "T", "====", "=", "TUxJUg==TUxJ", "TQ==junk", "TUxJ=Ug==",
        "T=UxJUg==", "TU=xJUg==", "ab=c=", "ab==c", "abc=def", "abc=",
        "a!b@c#d$", "TUxJ\nUgAB\n", " T U x J ", "TUxJUgAB\r\n", "TU-_",
        "TU+/", "////", "++++", "AAAA====", "AA=A", "A===", "AB=", "AB==",
        "ABC", "ABC=", "ABCD=", "ABCDE", "ABCDE=", "ABCDE==", "ABCDEF==",
        "QUJD\tREVG", "Zm9vYmFy", "Zm9vYmE=", "Zm9vYg==", "Zm9vYg=",
        "Zm9vYh==", "Zm9vYmF=",
    ]
    cases = []
    for s in inputs:
        try:
            out = base64.b64decode(s)
            cases.append({"input": s, "output_hex": out.hex()})
        except (binascii.Error, ValueError) as e:
            cases.append({"input": s, "error": str(e)})
    for s in ["TUxJ\u00e9Ug==", "\u00e9"]:
        try:
            base64.b64decode(s)
            raise AssertionError("expected an error")
        except ValueError as e:
            cases.append({"input": s, "error": str(e)})
    return cases


# --- json.loads then json.dumps --------------------------------------------
def json_cases():
    inputs = [
        "1Infinity", "-NaN", "NaNx", "[NaN]", "[-Infinity,Infinity]", "nan",
        "infinity", "-Infinity1", "[1,]", '{"a":1,}', '{"a" 1}', "tru",
        "\ufeff{}", " \t\n\r1 \n", '"a" "b"', "01", "1.", ".5", "-", "+1",
        "1e400", "-1e400", "1e-400", "[1E400,2]", "1.0e+5", "1e5", "-0",
        "-0.0", "0e0", "1E-2",
        '"\\ud800\\ud800"', '"\\udc00\\ud800"', '"\\ud800\\udc00"',
        '"x\\ud800"', '{"\\ud800":1,"\\ud800":2}', '"\\ud83d"',
        '"\\x"', '"\\u12"', '"\\u12G4"', '"\\ud800\\u12"', '"\\ud800\\n"',
        '"tab\there"', '"nl\nhere"', '"\\u0000"', '"\u00e9\u4e2d\U0001f600"',
        '{"b":1,"a":2,"b":3}', '[{"x":[]},{"x":{}}]', "18446744073709551615",
        "18446744073709551616", "-9223372036854775808",
        "-9223372036854775809", "1" * 4300, "1" * 4301, "-" + "9" * 4300,
        "[" * 50 + "]" * 50, "{}x", "[] ", "", " ", "null null",
        '{"a":NaN,"b":-Infinity,"c":Infinity}',
        '{"custom_call_config":{"body":"","flops":0.5}}',
    ]
    cases = []
    for s in inputs:
        try:
            out = json.dumps(json.loads(s), separators=(",", ":"))
            cases.append({"input_json": s, "output": out})
        except ValueError as e:  # JSONDecodeError is a ValueError
            cases.append({"input_json": s, "error": str(e)})
    return cases


# --- a real Pallas TPU kernel ----------------------------------------------
def pallas_module():
    """jaxlib's own tpu_custom_call: a Pallas kernel lowered for TPU through
    jax.export (no TPU needed), printed in generic form with locations."""
    import jax
    import jax.numpy as jnp
    from jax import export
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib.mlir import ir
    from jax.experimental import pallas as pl

    def add_one(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 1.0

    @jax.jit
    def f(x):
        return pl.pallas_call(
            add_one, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    exported = export.export(f, platforms=["tpu"])(
        jax.ShapeDtypeStruct((8, 128), jnp.float32))
    with jax_mlir.make_ir_context():
        module = ir.Module.parse(exported.mlir_module())
        text = module.operation.get_asm(print_generic_op_form=True,
                                        enable_debug_info=True)
    p = provenance()
    header = (f"// Written by {p['command']} on {p['date']} with jax "
              f"{jax.__version__} (Python {p['python']}): a Pallas TPU kernel\n"
              "// lowered through jax.export(platforms=['tpu']), generic form.\n")
    (OUT / "pallas_tpu_kernel.mlir").write_text(header + text)


def main():
    pallas_module()
    write("float_repr_golden.json",
          "repr(x) in CPython for the IEEE-754 double whose big-endian bits "
          "are given.", float_cases())
    write("b64decode_golden.json",
          "base64.b64decode(input) in CPython (validate=False): the bytes as "
          "hex, or the error message.", b64_cases())
    write("json_roundtrip_golden.json",
          "json.dumps(json.loads(input_json), separators=(',', ':')) in "
          "CPython, or the error json.loads raised.", json_cases())
    print("wrote", sys.argv[0])


if __name__ == "__main__":
    main()
