"""The ``json.dumps`` golden cases (no JAX needed).

Writes ``fixtures/json_dumps_golden.json``: what CPython's
``json.dumps(json.loads(text), separators=(",", ":"))`` gives for inputs that
exercise escaping, number formatting and duplicate keys: the expectations of
the engine's Python-exact JSON (engine/mlir/include/cachekey/mlir/PyJson.h,
tests/mlir/PythonCompatTest.cpp).
"""

from __future__ import annotations

import json
import platform

from fixture_capture.provenance import utc_now, write_json

JSON_CASES = [
    '{"a":"caf\u00e9"}',
    '"\u00e9\u00e8\u4e2d\u6587"',
    '"\U0001F600"',
    '"\\ud83d\\ude00"',
    '"\U0001F600 astral \U00010000 \U0010FFFF"',
    '1e-07', '1.0', '1e+16', '-0.0', '1e16', '0.1', '5e-324',
    '1.7976931348623157e308', '123456789012345678901234567890',
    '-123456789012345678901234567890', '1E400', '-1e400', '0.000001', '1e-5',
    '123456789.123456789', '100.0', '1.5e300', '2.5E-3', '-0', '0', '10000000000000000.0',
    '9007199254740993', '3.141592653589793238462643383279',
    '{"z":1,"a":{"y":2,"b":[3,{"x":4,"c":5}]}}',
    '{"k":1,"k":2}',
    '{"a":1,"b":2,"a":3}',
    '{"a":{"x":1},"b":0,"a":{"y":2}}',
    '"line\\nfeed\\ttab\\"quote\\\\back"',
    '"\\u0000\\u001f\\u007f\\/slash/"',
    '"\\b\\f\\r"',
    '"\u007f raw del and \u0080 C1"',
    '"\u2028\u2029"',
    'NaN', 'Infinity', '-Infinity', '[NaN,Infinity,-Infinity,1.0]',
    '{}', '[]', '{"":{}}', '[[],{},[[]]]',
    ' { "spaced" : [ 1 , 2 ] } ',
    'true', 'false', 'null', '[true,false,null]',
    '{"custom_call_config":{"body":"TUxJUg==","serialization_format":1,"needs_layout_passes":true},'
    '"implicit_dim":null,"name":"kernel_\u00fc","cost":{"flops":1.0,"bytes":1e+20}}',
    '{"nested":{"deep":{"deeper":{"deepest":[1,2.5,"\u00e9"]}}}}',
    '"\\uD834\\uDD1E"',
    '"lone \\ud800 high"',
    '"lone \\udc00 low"',
]


def build_json_golden(out_path: str, command: str) -> None:
    cases = []
    for text in JSON_CASES:
        output = json.dumps(json.loads(text), separators=(",", ":"))
        cases.append({"input_json": text, "output": output})
    doc = {
        "description": ("output = json.dumps(json.loads(input_json), separators=(',', ':')) "
                        "in CPython (ensure_ascii=True, allow_nan=True)."),
        "provenance": {"command": command, "date": utc_now(),
                       "python": platform.python_version(),
                       "platform": " ".join(platform.uname())},
        "cases": cases,
    }
    write_json(out_path, doc)
