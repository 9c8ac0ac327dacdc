#!/usr/bin/env bash
# Writes fixtures/cache_dirs/upgrade/cap/ with real JAX: one directory used by
# jax 0.4.30 and then, after an upgrade, by jax 0.12.0.1, both with a cap of
# 50000000 bytes. 0.4.30 names an entry by its key alone; 0.4.31 and later
# read and write `<key>-cache` (+ `<key>-atime`), glob only `*-cache` when
# they evict, and never look at the older files. Steps "first" and "second"
# of tools/cache_dir_fixtures.py run with 0.4.30, then the same two with
# 0.12.0.1; jax-0.4.30.log and jax-0.12.0.1.log are what each logged,
# describe.json JAX 0.12.0.1's reading of the directory afterwards (every
# file's mtime included); evict-0.4.30.log what 0.4.30 evicted from a copy
# of it, back under its own rule.
#
#   tools/cache_dir_upgrade_fixture.sh PY_0_4_30 EXTRA311 PY_0_12_0_1 EXTRA312
set -euo pipefail
old=$1 oldextra=$2 new=$3 newextra=$4
root=$(cd "$(dirname "$0")/.." && pwd)
gen=$root/tools/cache_dir_fixtures.py
out=$root/fixtures/cache_dirs/upgrade/cap
export JAX_PLATFORMS=cpu
rm -rf "$out"; mkdir -p "$out"
for step in first second; do
  PYTHONPATH=$oldextra "$old" "$gen" run "$out/cache" "$out/jax-0.4.30.log" $step --cap 50000000
  sleep 1.1  # distinct mtimes/atimes between the processes
done
for step in first second; do
  PYTHONPATH=$newextra "$new" "$gen" run "$out/cache" "$out/jax-0.12.0.1.log" $step --cap 50000000
  sleep 1.1
done
PYTHONPATH=$newextra "$new" "$gen" describe "$out/cache" > "$out/describe.json"
# Back to 0.4.30 on a copy: step "third" (jit_h, one new entry) with a cap of
# 6000 bytes, which its eviction pass (every file of the directory, by
# mtime) meets only after its own entries, some of 0.12.0.1's -cache files
# and an -atime file have gone (evict-0.4.30.log: JAX's "Evicting cache
# file …" lines, in its order, and the target it used).
work=$(mktemp -d)
cp -a "$out/cache" "$work/evict"
PYTHONPATH=$oldextra "$old" "$gen" run "$work/evict" "$out/evict-0.4.30.log" third --cap 6000
rm -rf "$work"
# Keep only JAX's cache lines of the logs (the dispatch lines are noise).
for f in "$out"/*.log; do
  grep -E 'compilation_cache|lru_cache|PERSISTENT|to compile|Evicting|WARNING|ERROR' "$f" > "$f.tmp" || true
  mv "$f.tmp" "$f"
done
