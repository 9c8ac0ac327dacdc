#!/bin/sh
# 37: jax 0.4.30's own lines (INFO "Writing … with key …", a hit without its key, no MISS line)
set -e
PY=/tmp/diag-cases/v0430/bin/python   # python 3.11.7 venv: jax 0.4.30 wheel + jaxlib==0.4.30, numpy<2, ml_dtypes<0.5, scipy<1.14
export JAX_PLATFORMS=cpu CACHE_DIR=/tmp/diag-cases/cache-37
rm -rf "$CACHE_DIR"
nice -n 10 $PY prog.py --batch 8 > run1.log 2>&1
nice -n 10 $PY prog.py --batch 8 > run2.log 2>&1
nice -n 10 $PY prog.py --batch 16 > run3.log 2>&1
