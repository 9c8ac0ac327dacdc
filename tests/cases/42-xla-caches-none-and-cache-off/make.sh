#!/usr/bin/env bash
# Makes this case's logs with real JAX (run from this folder; PY the venv's python).
set -euo pipefail
PY=${PY:-/var/cache/cachekey/venvs/jax-0.10.2-py3.11/bin/python}
export CACHE=$(mktemp -d)/cache
"$PY" program.py plain 2> plain.log   # cache on, default settings: writes both programs
"$PY" program.py none  2> none.log    # jax_persistent_cache_enable_xla_caches='none'
"$PY" program.py off   2> off.log     # jax_enable_compilation_cache=False
