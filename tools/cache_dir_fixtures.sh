#!/usr/bin/env bash
# Writes fixtures/cache_dirs/<release>/ with real JAX (see
# fixtures/cache_dirs/README.md): for each release a directory without a cap
# (nocap/) and with one (cap/, jax_compilation_cache_max_size=50000000), each
# after the steps "first" and "second" of tools/cache_dir_fixtures.py; then
# evict.log, what JAX logged when step "third" ran on a copy of cap/ with a cap
# that makes it evict two entries (evict.json: that cap and the new entry's
# size), and, for some releases, damaged/: nocap/ with one entry cut to half
# its length (a write cut short) and JAX's log of step "second" run on it.
#
#   tools/cache_dir_fixtures.sh RELEASE VENV_PYTHON EXTRA_PYTHONPATH [damaged]
set -euo pipefail
rel=$1 py=$2 extra=$3 damaged=${4:-}
root=$(cd "$(dirname "$0")/.." && pwd)
gen=$root/tools/cache_dir_fixtures.py
out=$root/fixtures/cache_dirs/$rel
work=$(mktemp -d)
export JAX_PLATFORMS=cpu PYTHONPATH=$extra
rm -rf "$out"; mkdir -p "$out"
run() { "$py" "$gen" run "$@"; }
size_of_caches() { python3 - "$1" <<'PY'
import os, sys
d = sys.argv[1]
print(sum(os.path.getsize(os.path.join(d, n)) for n in os.listdir(d)
          if os.path.isfile(os.path.join(d, n)) and not n.startswith('.') and not n.endswith('-atime')))
PY
}
for v in nocap cap; do
  capargs=(); [ $v = cap ] && capargs=(--cap 50000000)
  mkdir -p "$out/$v"
  run "$out/$v/cache" "$out/$v/jax.log" first "${capargs[@]}"
  sleep 1.1  # distinct mtimes/atimes between the two processes
  run "$out/$v/cache" "$out/$v/jax.log" second "${capargs[@]}"
  "$py" "$gen" describe "$out/$v/cache" > "$out/$v/describe.json"
done
# The eviction: learn the new entry's size on a scratch copy, then run step
# third with cap = (sum of entries) + new - (oldest entry) - 1.
cp -a "$out/cap/cache" "$work/scratch"
run "$work/scratch" "$work/scratch.log" third --cap 50000000
new=$(( $(size_of_caches "$work/scratch") - $(size_of_caches "$out/cap/cache") ))
oldest=$("$py" - "$out/cap/cache" <<'PY'
import os, sys
d = sys.argv[1]
rows = []
for n in os.listdir(d):
    p = os.path.join(d, n)
    if n.startswith('.') or n.endswith('-atime') or not os.path.isfile(p):
        continue
    key = n[:-len('-cache')] if n.endswith('-cache') else n
    a = os.path.join(d, key + '-atime')
    t = int.from_bytes(open(a, 'rb').read(), 'little') if n.endswith('-cache') and os.path.exists(a) else os.stat(p).st_mtime_ns
    rows.append((t, key, os.path.getsize(p)))
rows.sort()
print(rows[0][2])
PY
)
total=$(size_of_caches "$out/cap/cache")
cap=$(( total + new - oldest - 1 ))
cp -a "$out/cap/cache" "$work/evict"
run "$work/evict" "$out/evict.log" third --cap $cap
printf '{"cap": %s, "new_entry_size": %s, "entries_size_before": %s}\n' $cap $new $total > "$out/evict.json"
if [ -n "$damaged" ]; then
  mkdir -p "$out/damaged"
  cp -a "$out/nocap/cache" "$out/damaged/cache"
  victim=$(ls "$out/damaged/cache" | grep '^jit_g-' | head -1)
  len=$(stat -c %s "$out/damaged/cache/$victim")
  truncate -s $(( len / 2 )) "$out/damaged/cache/$victim"
  echo "$victim $len -> $(( len / 2 ))" > "$out/damaged/truncated.txt"
  run "$out/damaged/cache" "$out/damaged/jax.log" second 2> "$out/damaged/stderr.txt" || echo "exit $?" >> "$out/damaged/stderr.txt"
  "$py" "$gen" describe "$out/damaged/cache" > "$out/damaged/describe.json"
fi
# Keep only JAX's cache lines of the logs (the dispatch lines are noise).
for f in $(find "$out" -name '*.log'); do
  grep -E 'compilation_cache|lru_cache|PERSISTENT|to compile|Evicting|WARNING|ERROR' "$f" > "$f.tmp" || true
  mv "$f.tmp" "$f"
done
rm -rf "$work"
echo "wrote $out"
