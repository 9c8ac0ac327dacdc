#!/bin/sh
# 36: a missing -atime file (jax-ml/jax#39880) makes every later write fail, jax 0.10.2
set -e
PY=/var/cache/cachekey/venvs/jax-0.10.2-py3.11-libtpu0.0.42.1/bin/python
export PYTHONPATH=/tmp/diag-cases/filelock-lib
export JAX_PLATFORMS=cpu CACHE_DIR=/tmp/diag-cases/cache-36
export JAX_COMPILATION_CACHE_MAX_SIZE=10000000
rm -rf "$CACHE_DIR"
nice -n 10 $PY prog.py --batch 8 > day1.log 2>&1
# a cleanup job removes one entry's -atime file (as rsync --exclude or a tmp cleaner can)
rm "$CACHE_DIR"/jit_eval_step-*-atime  # the only jit_eval_step entry: batch 8
nice -n 10 $PY prog.py --batch 16 > day2.log 2>&1
nice -n 10 $PY prog.py --batch 16 > day3.log 2>&1
ls -l "$CACHE_DIR" | awk '{print $5, $9}' > cache-after-day3.txt
