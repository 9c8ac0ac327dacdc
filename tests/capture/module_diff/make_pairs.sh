#!/usr/bin/env bash
# Makes the capture pairs of program.py with real JAX: one pair per class.
# Usage: tests/capture/module_diff/make_pairs.sh PYTHON OUTDIR
# (PYTHON: a venv's python with jax, e.g. /var/cache/cachekey/venvs/jax-0.12.0.1-py3.12/bin/python)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=$1; out=$2
export PYTHONPATH="$here/../../../python${PYTHONPATH:+:$PYTHONPATH}"
export JAX_PLATFORMS=cpu
for cls in precision constant donate callback static locations; do
  for side in a b; do
    cache=$(mktemp -d)
    rm -rf "$out/$cls/$side"; mkdir -p "$out/$cls/$side"
    (cd "$here" && "$py" -m cachekey.capture --quiet --out "$out/$cls/$side" \
       --cache-dir "$cache" -- program.py "$cls" "$side")
    rm -rf "$cache"
  done
done
