#!/usr/bin/env bash
# Writes fixtures/cache_dirs/<release>/lookup/ with real JAX for
# `cachekey compare-logs A B --cache DIR` (tests/engine/cachedir): run1.log
# is step "first" of tools/cache_dir_fixtures.py on an empty cache/; then the
# one change made by hand: jit_g's entry is cut to half its length
# (`truncate -s`, a write cut short; truncated.txt names it); run2.log is step
# "lookup" with jax_persistent_cache_min_compile_time_secs=1, so that in run 2
# jit_f on f32[192,8] misses and is not written (compiled in under 1 s),
# jit_f on f32[64,8] hits, jit_g misses on the damaged entry (JAX keeps it)
# and jit_slow on f32[96] misses and is written. describe.json is JAX's own
# reading of every file afterwards.
#
#   tools/cache_dir_lookup_fixture.sh RELEASE VENV_PYTHON EXTRA_PYTHONPATH
set -euo pipefail
rel=$1 py=$2 extra=$3
root=$(cd "$(dirname "$0")/.." && pwd)
gen=$root/tools/cache_dir_fixtures.py
out=$root/fixtures/cache_dirs/$rel/lookup
export JAX_PLATFORMS=cpu PYTHONPATH=$extra
rm -rf "$out"; mkdir -p "$out"
"$py" "$gen" run "$out/cache" "$out/run1.log" first
victim=$(ls "$out/cache" | grep '^jit_g-' | head -1)
len=$(stat -c %s "$out/cache/$victim")
truncate -s $(( len / 2 )) "$out/cache/$victim"
echo "$victim $len -> $(( len / 2 ))" > "$out/truncated.txt"
sleep 1.1
"$py" "$gen" run "$out/cache" "$out/run2.log" lookup --min-compile-secs 1 2> "$out/stderr.txt"
"$py" "$gen" describe "$out/cache" > "$out/describe.json"
for f in "$out"/*.log; do
  grep -E 'compilation_cache|lru_cache|PERSISTENT|to compile|Evicting|WARNING|ERROR' "$f" > "$f.tmp" || true
  mv "$f.tmp" "$f"
done
echo "wrote $out"
