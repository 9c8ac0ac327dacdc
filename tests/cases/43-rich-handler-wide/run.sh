#!/bin/bash
# usage: run.sh KIND RELEASE [cache-dir-b] ; writes out/KIND-REL/{a,b}.log, fresh cache
set -e
K=$1; R=$2; D=/var/tmp/adv2/out/${OUT:-$K-$R}; rm -rf $D; mkdir -p $D/cache
PY=/var/cache/cachekey/venvs/jax-$R-py3*/bin/python
export JAX_PLATFORMS=cpu ADV_KIND=$K
CB=${3:-$D/cache}
[ "$K" = mesh -o "$K" = mesh2 -o "$K" = defaultdevice ] && export XLA_FLAGS=--xla_force_host_platform_device_count=2
ADV_RUN=a ADV_CACHE=$D/cache $PY /var/tmp/adv2/prog.py 2> $D/a.log
if [ "$K" = envdir ]; then export JAX_COMPILATION_CACHE_DIR=$CB; fi
PROGB=/var/tmp/adv2/prog.py; [ "$K" = movedscript ] && PROGB=/var/tmp/adv2/moved/sub/prog.py
ADV_RUN=b ADV_CACHE=$CB $PY $PROGB 2> $D/b.log
ls $D/cache | wc -l > $D/cache_entries
