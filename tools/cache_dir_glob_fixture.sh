#!/usr/bin/env bash
# Writes fixtures/cache_dirs/<release>/glob/ with real JAX: what a capped put
# does with the names its eviction pass meets (lru_cache.py: every name
# glob("*-cache") yields, its `<stem>-atime` read whole as a little-endian
# number, through links) when they are not what JAX wrote. Step "first" of
# tools/cache_dir_fixtures.py with a cap of 50000000 bytes writes a base
# directory; each case below is a copy of it with one change made by hand:
#   directory/:  zz-cache/, a directory (with a README, as git keeps no
#                empty directory)
#   names/:      .hidden-cache (3000 bytes, no -atime) and readme-cache
#                (3000 bytes) with readme-atime (8 bytes: the time of the
#                change, newer than every entry's)
#   atime/:      the oldest entry's -atime written twice over (16 bytes: a
#                number above 2^64), the next oldest's as eight 0xff bytes
#                (2^64 - 1: above 2^63, where a signed reading goes negative)
#   atime_link/: the oldest entry's -atime replaced by a link to
#                ../outside-atime (outside cache/), which holds the time of
#                the change plus 1000 s
# Then step "third" (jit_h, one new entry) runs on each with
# cap = (what JAX counts: every *-cache name, through links) + (jit_h's
# entry) - 4000, so that the put must make room. run.log and stderr.txt are
# what JAX logged and warned; cache/ is the directory as it was before that
# run (the copy JAX ran on is thrown away), glob.json the figures
# (new_entry_size is jit_h's entry in a scratch run: each run's differs by a
# few bytes, so the target JAX used is the one its log states).
#
#   tools/cache_dir_glob_fixture.sh RELEASE VENV_PYTHON EXTRA_PYTHONPATH
set -euo pipefail
rel=$1 py=$2 extra=$3
root=$(cd "$(dirname "$0")/.." && pwd)
gen=$root/tools/cache_dir_fixtures.py
out=$root/fixtures/cache_dirs/$rel/glob
work=$(mktemp -d)
export JAX_PLATFORMS=cpu PYTHONPATH=$extra
rm -rf "$out"; mkdir -p "$out"
"$py" "$gen" run "$work/base" "$work/base.log" first --cap 50000000
counted() { python3 - "$1" <<'PY'
import os, sys
d = sys.argv[1]
print(sum(os.stat(os.path.join(d, n)).st_size for n in os.listdir(d) if n.endswith('-cache')))
PY
}
cp -a "$work/base" "$work/scratch"
before=$(counted "$work/scratch")
"$py" "$gen" run "$work/scratch" "$work/scratch.log" third --cap 50000000
new=$(( $(counted "$work/scratch") - before ))
# The entries by their -atime value, oldest first.
oldest() { python3 - "$1" "$2" <<'PY'
import os, sys
d, i = sys.argv[1], int(sys.argv[2])
rows = sorted((int.from_bytes(open(os.path.join(d, n), 'rb').read(), 'little'), n[:-6])
              for n in os.listdir(d) if n.endswith('-atime'))
print(rows[i][1])
PY
}
for v in directory names atime atime_link; do
  c=$out/$v/cache
  mkdir -p "$out/$v"
  cp -a "$work/base" "$c"
  case $v in
    directory)
      mkdir "$c/zz-cache"
      echo "A directory named like an entry (tools/cache_dir_glob_fixture.sh)." > "$c/zz-cache/README";;
    names)
      python3 - "$c" <<'PY'
import os, sys, time
d = sys.argv[1]
open(os.path.join(d, '.hidden-cache'), 'wb').write(b'h' * 3000)
open(os.path.join(d, 'readme-cache'), 'wb').write(b'r' * 3000)
open(os.path.join(d, 'readme-atime'), 'wb').write(time.time_ns().to_bytes(8, 'little'))
PY
      ;;
    atime)
      first=$(oldest "$c" 0) second=$(oldest "$c" 1)
      cat "$c/$first-atime" "$c/$first-atime" > "$work/twice"
      cp "$work/twice" "$c/$first-atime"
      printf '\377\377\377\377\377\377\377\377' > "$c/$second-atime";;
    atime_link)
      first=$(oldest "$c" 0)
      python3 -c 'import sys, time; open(sys.argv[1], "wb").write((time.time_ns() + 10**12).to_bytes(8, "little"))' \
        "$out/$v/outside-atime"
      rm "$c/$first-atime"
      ln -s ../outside-atime "$c/$first-atime";;
  esac
  cap=$(( $(counted "$c") + new - 4000 ))
  # JAX runs on a copy of the case's folder (cache/ and what a link in it
  # reaches), so cache/ stays as it was before the run.
  cp -a "$out/$v" "$work/run-$v"
  "$py" "$gen" run "$work/run-$v/cache" "$out/$v/run.log" third --cap $cap 2> "$out/$v/stderr.txt" || echo "exit $?" >> "$out/$v/stderr.txt"
  grep -E 'compilation_cache|lru_cache|PERSISTENT|to compile|Evicting|WARNING|ERROR' "$out/$v/run.log" > "$out/$v/run.log.tmp" || true
  mv "$out/$v/run.log.tmp" "$out/$v/run.log"
  printf '{"cap": %s, "new_entry_size": %s}\n' $cap $new > "$out/$v/glob.json"
done
rm -rf "$work"
echo "wrote $out"
