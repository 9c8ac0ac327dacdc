#!/bin/bash
# three runs sharing one cache dir; the third has JAX_ENABLE_X64=1
set -e
cd "$(dirname "$0")"; PY=/work/h1/venv311/bin/python; R=/work/h1/run.py
rm -rf cache *.log
CDIR=$PWD/cache $PY $R 2> a.log
CDIR=$PWD/cache $PY $R 2> b.log
JAX_ENABLE_X64=1 CDIR=$PWD/cache $PY $R 2> c.log
