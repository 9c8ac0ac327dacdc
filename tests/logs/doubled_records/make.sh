#!/usr/bin/env bash
# Makes a.log and b.log: two real runs of program.py whose every log record
# is printed twice, byte for byte (JAX's own handler from JAX_LOGGING_LEVEL
# and the one JAX_DEBUG_LOG_MODULES adds, both on the "jax" logger, one
# format). Run b changes the constant closed over by f (2.0 -> 3.0), so of
# its 5 programs jit_f misses and the 4 others hit.
#   tests/logs/doubled_records/make.sh PYTHON
set -euo pipefail
py=${1:?python with jax}
here=$(cd "$(dirname "$0")" && pwd)
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
run() { # run LOG [env...]
  local log=$1; shift
  env JAX_PLATFORMS=cpu JAX_COMPILATION_CACHE_DIR="$cache" \
    JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0 JAX_LOGGING_LEVEL=WARNING \
    JAX_DEBUG_LOG_MODULES=jax._src.cache_key,jax._src.compiler,jax._src.compilation_cache \
    "$@" "$py" "$here/program.py" 2> "$here/$log" > /dev/null
}
run a.log
run b.log BK_CONST=3.0
