#!/bin/sh
# 35: the size cap evicts every entry before reuse, jax 0.10.2 (its LRU keeps -atime files)
set -e
PY=/var/cache/cachekey/venvs/jax-0.10.2-py3.11-libtpu0.0.42.1/bin/python
export PYTHONPATH=/tmp/diag-cases/filelock-lib   # filelock 4.3.1, needed by jax_compilation_cache_max_size
export JAX_PLATFORMS=cpu CACHE_DIR=/tmp/diag-cases/cache-35
export JAX_COMPILATION_CACHE_MAX_SIZE=24000
rm -rf "$CACHE_DIR"
nice -n 10 $PY prog.py > run1.log 2>&1
ls -l "$CACHE_DIR" | awk '/-cache$/{print $5, $9}' > cache-after-run1.txt
nice -n 10 $PY prog.py > run2.log 2>&1
