#!/bin/bash
# run A: cache dir X with jax_compilation_cache_max_size=10000 (evicts); run B: another dir Y.
# control: run B2 uses X again (eviction is then the true cause).
# rel: A and B both use the relative dir 'cache' from different working dirs.
set -e
cd "$(dirname "$0")"; H=$PWD
for V in 311 312; do
  PY=/work/h1/venv$V/bin/python; d=$H/jax$V; rm -rf $d; mkdir -p $d/w1 $d/w2
  MAXSIZE=10000 NEXTRA=6 CDIR=$d/X $PY /work/h1/pure.py 2> $d/a.log >/dev/null
  NEXTRA=6 CDIR=$d/Y $PY /work/h1/pure.py 2> $d/b.log >/dev/null
  MAXSIZE=10000 NEXTRA=6 CDIR=$d/X $PY /work/h1/pure.py 2> $d/b_samedir.log >/dev/null
  (cd $d/w1 && MAXSIZE=10000 NEXTRA=6 CDIR=cache $PY /work/h1/pure.py 2> $d/rel_a.log >/dev/null)
  (cd $d/w2 && NEXTRA=6 CDIR=cache $PY /work/h1/pure.py 2> $d/rel_b.log >/dev/null)
done
# both capped, different dirs (both logs show evictions)
for V in 311 312; do
  PY=/work/h1/venv$V/bin/python; d=$H/jax$V
  MAXSIZE=10000 NEXTRA=6 CDIR=$d/Z $PY /work/h1/pure.py 2> $d/b_capped.log >/dev/null
  (cd $d/w2 && rm -rf cache2 && MAXSIZE=10000 NEXTRA=6 CDIR=cache2 $PY /work/h1/pure.py 2> $d/rel_b_capped.log >/dev/null)
  (cd $d/w1 && rm -rf cache2 && MAXSIZE=10000 NEXTRA=6 CDIR=cache2 $PY /work/h1/pure.py 2> $d/rel_a_capped.log >/dev/null)
done
