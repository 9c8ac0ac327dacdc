#!/usr/bin/env python3
"""Writes tests/vectors/*.json: per-entry expectations computed by real JAX.

Every expected value here comes from calling the functions of the installed
``jax._src.cache_key`` (jax 0.10.2) or from Python's own ``str``/``bytes``/
``hashlib``; none comes from the engine under test. Run with the project's
virtual environment::

    .venv/bin/python tests/vectors/generate.py

The files record the command, the versions and the date as provenance.
"""
import base64
import datetime
import hashlib
import json
import os
import platform
import sys
from pathlib import Path

import jax
import jaxlib
import numpy as np
from jax._src import cache_key
from jax._src import compiler
from jax._src.lib import xla_client as xc

OUT = Path(__file__).resolve().parent


class Recorder:
    """A hashlib stand-in that keeps the bytes fed, for byte-exact checks."""

    def __init__(self):
        self.data = b""

    def update(self, b):
        self.data += bytes(b)


def provenance():
    return {
        "command": ".venv/bin/python tests/vectors/generate.py",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "source": "functions of jax._src.cache_key called directly; Python str/bytes/hashlib",
    }


WS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2005\u200a\u2028\u2029\u202f\u205f\u3000"


def pytext_vectors():
    split_inputs = [
        "", " ", "a", " a  b ", "--a=1\u3000--b=2", "--a\x85--b", "x\xa0y",
        "--f=\u200b--g",  # U+200B is not whitespace
        "p\u2028q\u2029r", "a\x1cb\x1dc\x1ed\x1ff", WS + "z" + WS,
        "--xla_dump_to=/tmp/d\t--xla_gpu_autotune_level=0\n",
        "caf\u00e9 \U0001F600 ok", "\u180e x",  # U+180E is not whitespace in Python 3
    ]
    strip_inputs = ["", " a ", "\t\n\x0b\x0c\r a b \r\n", "\xa0a\xa0", "\u3000x\u3000",
                    "\x1cq\x1c", "  PJRT C API\nTFRT TPU v5 lite\n  "]
    sort_inputs = [["b", "a", "B", "_", "-", "\u00e9", "\U0001F600", "\uffff", "e"],
                   ["--xla_b=2", "--xla_b", "--xla_a=1", "--xla_a"]]
    return {
        "provenance": provenance(),
        "split": [{"input": s, "output": s.split()} for s in split_inputs],
        "hash_string": [{"input": s, "fed_hex": s.encode("utf-8").strip().hex(),
                         "digest": hashlib.sha256(s.encode("utf-8").strip()).hexdigest()}
                        for s in strip_inputs],
        "sorted": [{"input": l, "output": sorted(l)} for l in sort_inputs],
        "flag_name": [{"input": f, "output": f.split("=")[0]}
                      for f in ["--a=b=c", "--a", "=x", "--xla_dump_to=", "--x\u3000=1"]],
        "sha256_empty": hashlib.sha256(b"").hexdigest(),
    }


def flag_vectors():
    cases = [
        {},
        {"XLA_FLAGS": "--xla_gpu_autotune_level=0"},
        {"XLA_FLAGS": "--xla_gpu_autotune_level=1"},
        {"XLA_FLAGS": "--xla_dump_to=/tmp/a --xla_gpu_autotune_level=0"},
        {"XLA_FLAGS": "", "LIBTPU_INIT_ARGS": ""},
        {"argv": ["prog", "--xla_gpu_autotune_level=0"]},
        {"argv": ["prog", "--xla_cpu x", "--other", "--my_flag=3"], "extra_prefixes": ["--my_"]},
        {"LIBTPU_INIT_ARGS": "--xla_tpu_enable_x=true\u3000--xla_tpu_y=2\x85--xla_dump_to=q"},
        {"XLA_FLAGS": "--b --a --b --xla_dump_to --xla_dump_to=x -- =v"},
        {"XLA_FLAGS": "--xla_gpu_per_fusion_autotune_cache_dir=/c --xla_tpu_compiler_variant=v"},
        {"XLA_FLAGS": "\xa0--z=\u00e9\xa0 --\U0001F600", "argv": ["--xla_z", "--xla_a b"]},
        # An empty prefix takes every argv element, the empty one included
        # (found by fuzzing the collector).
        {"argv": ["prog", "", " -a"], "extra_prefixes": [""]},
    ]
    out = []
    saved_argv = sys.argv
    try:
        for c in cases:
            for var in ("XLA_FLAGS", "LIBTPU_INIT_ARGS"):
                if var in c:
                    os.environ[var] = c[var]
                else:
                    os.environ.pop(var, None)
            sys.argv = c.get("argv", ["prog"])
            cache_key.clear_flag_prefixes()
            cache_key.add_flag_prefixes(c.get("extra_prefixes", []))
            rec = Recorder()
            cache_key._hash_xla_flags(rec, cache_key.get_flag_prefixes())
            out.append({
                "flags": {k: c.get(k) for k in ("XLA_FLAGS", "LIBTPU_INIT_ARGS")}
                | {"argv": sys.argv, "extra_prefixes": c.get("extra_prefixes", [])},
                "fed_hex": rec.data.hex(),
                "digest": hashlib.sha256(rec.data).hexdigest(),
            })
    finally:
        sys.argv = saved_argv
        cache_key.clear_flag_prefixes()
        os.environ.pop("XLA_FLAGS", None)
        os.environ.pop("LIBTPU_INIT_ARGS", None)
    return out


def compile_options_vectors():
    def dumps(co):
        d = co.executable_build_options.debug_options
        d.xla_dump_to = "/tmp/dump"
        d.xla_dump_hlo_as_text = True
        d.xla_dump_hlo_module_re = "jit_.*"
        d.xla_dump_max_hlo_modules = 7
        d.xla_force_host_platform_device_count = 8
        d.xla_gpu_cuda_data_dir = "/usr/local/cuda-12"
        return co

    builds = {
        "default_1x1": lambda: compiler.get_compile_options(1, 1),
        "dumps_set": lambda: dumps(compiler.get_compile_options(1, 1)),
        "da_0": lambda: compiler.get_compile_options(1, 1, device_assignment=np.array([[0]])),
        "da_1": lambda: compiler.get_compile_options(1, 1, device_assignment=np.array([[1]])),
        "da_2x3": lambda: compiler.get_compile_options(
            2, 3, device_assignment=np.array([[5, 4, 3], [2, 1, 0]])),
        "overrides": lambda: compiler.get_compile_options(
            1, 1, env_options_overrides={"xla_dump_to": "/x", "--xla_dump_to": "/y",
                                          "xla_gpu_autotune_level": 3,
                                          "xla_some_bool": True, "xla_f": 0.5,
                                          "xla_tpu_compiler_variant": "v"}),
        "fdo": lambda: compiler.get_compile_options(1, 1, fdo_profile=b"\x00profile\xff"),
        "replicas_4": lambda: compiler.get_compile_options(4, 1),
    }
    out = []
    for name, build in builds.items():
        co = build()
        proto = co.SerializeAsString()
        for plat in ("cpu", "gpu", "tpu"):
            rec = Recorder()
            cache_key._hash_serialized_compile_options(
                rec, co, strip_device_assignment=(plat == "gpu"))
            out.append({"name": name, "platform": plat,
                        "proto_b64": base64.b64encode(proto).decode(),
                        "fed_b64": base64.b64encode(rec.data).decode(),
                        "digest": hashlib.sha256(rec.data).hexdigest()})
    return out


def main():
    (OUT / "pytext.json").write_text(json.dumps(pytext_vectors(), indent=1, ensure_ascii=False) + "\n")
    (OUT / "entries.json").write_text(json.dumps({
        "provenance": provenance(),
        "profile": "0.10.2",
        "flags": flag_vectors(),
        "compile_options": compile_options_vectors(),
    }, indent=1, ensure_ascii=False) + "\n")
    print("wrote", OUT / "pytext.json", OUT / "entries.json")


if __name__ == "__main__":
    main()
