#!/usr/bin/env bash
# Writes fixtures/cache_dirs/<release>/symlink/ with real JAX: what a capped
# put does in a directory holding a symbolic link named like an entry
# (`<key>-cache`). Step "first" of tools/cache_dir_fixtures.py with a cap of
# 50000000 bytes writes cache/; then the changes made by hand:
#   dangling/: cache/ plus jit_zz-<64 x 'd'>-cache -> /nonexistent/target
#   live/:     cache/ plus jit_zz-<64 x 'e'>-cache -> the largest entry (a
#              relative link inside the directory), no -atime for it
# and step "third" (jit_h, one new entry) run on each with
# cap = (sum of the -cache files) + (jit_h's entry) + (largest entry) - 1,
# learnt on a scratch copy: JAX counts the live link's target, so only with
# the link counted does the directory exceed the cap. run.log and stderr.txt
# are what JAX logged and warned; describe.json its reading afterwards.
#
#   tools/cache_dir_symlink_fixture.sh RELEASE VENV_PYTHON EXTRA_PYTHONPATH
set -euo pipefail
rel=$1 py=$2 extra=$3
root=$(cd "$(dirname "$0")/.." && pwd)
gen=$root/tools/cache_dir_fixtures.py
out=$root/fixtures/cache_dirs/$rel/symlink
work=$(mktemp -d)
export JAX_PLATFORMS=cpu PYTHONPATH=$extra
rm -rf "$out"; mkdir -p "$out"
"$py" "$gen" run "$work/base" "$work/base.log" first --cap 50000000
sizes() { python3 - "$1" <<'PY'
import os, sys
d = sys.argv[1]
rows = [(os.path.getsize(os.path.join(d, n)), n) for n in os.listdir(d)
        if n.endswith('-cache') and not os.path.islink(os.path.join(d, n))]
print(sum(s for s, _ in rows), max(rows)[0], max(rows)[1])
PY
}
read total largest largest_name < <(sizes "$work/base")
cp -a "$work/base" "$work/scratch"
"$py" "$gen" run "$work/scratch" "$work/scratch.log" third --cap 50000000
read total2 _ _ < <(sizes "$work/scratch")
new=$(( total2 - total ))
cap=$(( total + new + largest - 1 ))
for v in dangling live; do
  mkdir -p "$out/$v"
  cp -a "$work/base" "$out/$v/cache"
  if [ $v = dangling ]; then
    ln -s /nonexistent/target "$out/$v/cache/jit_zz-$(printf 'd%.0s' $(seq 64))-cache"
  else
    ln -s "$largest_name" "$out/$v/cache/jit_zz-$(printf 'e%.0s' $(seq 64))-cache"
  fi
  sleep 1.1
  "$py" "$gen" run "$out/$v/cache" "$out/$v/run.log" third --cap $cap 2> "$out/$v/stderr.txt" || echo "exit $?" >> "$out/$v/stderr.txt"
  "$py" "$gen" describe "$out/$v/cache" > "$out/$v/describe.json" 2>/dev/null || true
  grep -E 'compilation_cache|lru_cache|PERSISTENT|to compile|Evicting|WARNING|ERROR' "$out/$v/run.log" > "$out/$v/run.log.tmp" || true
  mv "$out/$v/run.log.tmp" "$out/$v/run.log"
done
printf '{"cap": %s, "new_entry_size": %s, "entries_size_before": %s, "largest_entry": "%s", "largest_entry_size": %s}\n' \
  $cap $new $total "$largest_name" $largest > "$out/symlink.json"
rm -rf "$work"
echo "wrote $out"
