#!/usr/bin/env bash
# Makes the capture pairs of program.py with real JAX: one pair per class.
# Usage: tests/capture/module_diff/make_pairs.sh PYTHON OUTDIR [CLASS...]
# (every class of program.py when none is named)
# (PYTHON: a venv's python with jax, e.g. /var/cache/cachekey/venvs/jax-0.12.0.1-py3.12/bin/python)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=$1; out=$2; shift 2
classes=("$@")
[ ${#classes[@]} -gt 0 ] || classes=(precision constant donate callback static locations x64 shape random remat shardy devices)
export PYTHONPATH="$here/../../../python${PYTHONPATH:+:$PYTHONPATH}"
export JAX_PLATFORMS=cpu
# One cache directory path for every run, emptied before each: its path is
# in entry 5 (DebugOptions.xla_gpu_per_fusion_autotune_cache_dir, hashed by
# jax 0.10.2), so a new path per run would be a second change.
cache=${TMPDIR:-/tmp}/cachekey-module-diff-cache
for cls in "${classes[@]}"; do
  for side in a b; do
    rm -rf "$cache"; mkdir -p "$cache"
    rm -rf "$out/$cls/$side"; mkdir -p "$out/$cls/$side"
    (cd "$here" && CK_GENERIC_OUT="$out/$cls/$side.generic.mlir" \
       "$py" -m cachekey.capture --quiet --out "$out/$cls/$side" \
       --cache-dir "$cache" -- program.py "$cls" "$side")
  done
done
rm -rf "$cache"
