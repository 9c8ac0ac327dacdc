#!/bin/bash
# three runs sharing one cache dir; the third differs by one global setting each
set -e
cd "$(dirname "$0")"; PY=/work/h1/venv311/bin/python
for R in run pure; do
  for v in meta fastmath devcount; do
    d=$R-$v; rm -rf $d; mkdir $d
    CDIR=$PWD/$d/cache $PY /work/h1/$R.py 2> $d/a.log >/dev/null
    CDIR=$PWD/$d/cache $PY /work/h1/$R.py 2> $d/b.log >/dev/null
    case $v in
      meta) META=1 CDIR=$PWD/$d/cache $PY /work/h1/$R.py 2> $d/c.log >/dev/null;;
      fastmath) XLA_FLAGS=--xla_cpu_enable_fast_math=false CDIR=$PWD/$d/cache $PY /work/h1/$R.py 2> $d/c.log >/dev/null;;
      devcount) XLA_FLAGS=--xla_force_host_platform_device_count=2 CDIR=$PWD/$d/cache $PY /work/h1/$R.py 2> $d/c.log >/dev/null;;
    esac
  done
done
