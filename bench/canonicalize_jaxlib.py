#!/usr/bin/env python3
"""Times jaxlib's own entry-1 canonicalisation of the largest captured module.

The module text (fixtures/large_mlp.json, ``capture.module_generic``) is
parsed once in a JAX MLIR context; then only
``jax._src.cache_key._canonicalize_ir(module, IgnoreCallbacks.NO)`` (clone,
strip-debuginfo, write bytecode) is timed, RUNS times. Prints one JSON line
with the medians in milliseconds. Run with the project's environment::

    .venv/bin/python bench/canonicalize_jaxlib.py [RUNS] [FIXTURE.json]
"""
import json
import statistics
import sys
import time
from pathlib import Path

from jax._src import cache_key
from jax._src.interpreters import mlir as jax_mlir
from jax._src.lib.mlir import ir


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 21
    fixture = Path(sys.argv[2]) if len(sys.argv) > 2 else (
        Path(__file__).resolve().parent.parent / "fixtures" / "large_mlp.json")
    text = json.loads(fixture.read_text())["capture"]["module_generic"]

    context = jax_mlir.make_ir_context()
    parse_ms = []
    with context:
        for _ in range(3):
            t0 = time.perf_counter()
            module = ir.Module.parse(text)
            parse_ms.append((time.perf_counter() - t0) * 1e3)
        # Canonicalise-only, as in the key: 0.10.2's signature.
        ignore = cache_key.IgnoreCallbacks.NO
        canon_ms = []
        out = b""
        for _ in range(runs):
            t0 = time.perf_counter()
            out = cache_key._canonicalize_ir(module, ignore)
            canon_ms.append((time.perf_counter() - t0) * 1e3)
    import jaxlib
    print(json.dumps({
        "bench": "jaxlib_canonicalize_large_mlp",
        "runs": runs,
        "jaxlib": jaxlib.__version__,
        "text_bytes": len(text.encode()),
        "bytecode_bytes": len(out),
        "canonicalize_ms": round(statistics.median(canon_ms), 2),
        "parse_ms": round(statistics.median(parse_ms), 2),
    }, separators=(",", ":")))


if __name__ == "__main__":
    main()
