# shellcheck shell=bash
# Helpers shared by scripts/build-wasm-deps and scripts/build-mlir-wasm.
# Sourced, not executed. Logs go to stderr so that a script's stdout can end
# with the path it produced.

CK_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CK_CACHE_ROOT="${CACHEKEY_CACHE:-/var/cache/cachekey}"
# Emscripten's JS optimizer (acorn) lives in Debian's node module folder.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"

ck_log() { printf '[%s] %s\n' "${CK_TAG:-wasm}" "$*" >&2; }
ck_die() { ck_log "error: $*"; exit 1; }

# Short content hash of stdin.
ck_hash() { sha256sum | cut -c1-12; }

# Debian source version of the package that built an installed binary package
# (so the wasm build uses exactly the sources of the host's headers/protoc);
# falls back to apt's source candidate when the binary is not installed.
ck_src_version() { # <binary-pkg> <source-pkg>
  local v
  v="$(dpkg-query -W -f='${source:Version}' "$1" 2>/dev/null || true)"
  if [ -z "$v" ]; then
    ck_ensure_deb_src
    v="$(apt-cache showsrc "$2" 2>/dev/null | awk '/^Version:/{print $2; exit}')"
  fi
  [ -n "$v" ] || ck_die "cannot determine the Debian source version of $2"
  printf '%s\n' "$v"
}

# Upstream part of a Debian version: 1:19.1.7-3~deb12u1 -> 19.1.7
ck_upstream_version() { local v="${1#*:}"; v="${v%-*}"; printf '%s\n' "${v%%+*}"; }

ck_emscripten_version() {
  dpkg-query -W -f='${Version}' emscripten 2>/dev/null || em++ --version | head -1
}

ck_have_deb_src() {
  grep -qsE '^[[:space:]]*deb-src[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
  grep -qsE '^Types:.*\bdeb-src\b' /etc/apt/sources.list.d/*.sources && return 0
  return 1
}

# Make `apt-get source` work: add a deb-src twin of every `Types: deb` stanza
# of the system's debian.sources (derived at run time; no mirror is written
# into the repository), then refresh the index.
ck_ensure_deb_src() {
  ck_have_deb_src && return 0
  local src=/etc/apt/sources.list.d/debian.sources
  local dst=/etc/apt/sources.list.d/cachekey-deb-src.sources
  [ -r "$src" ] || ck_die "no deb-src entry and no $src to derive one from"
  mkdir -p "$CK_CACHE_ROOT"
  (
    flock 8
    ck_have_deb_src && exit 0
    ck_log "adding $dst (deb-src twin of $src) and running apt-get update"
    awk 'BEGIN { RS=""; ORS="\n\n" }
         /(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|\n|$)/ {
           n = split($0, lines, "\n"); out = ""
           for (i = 1; i <= n; i++) {
             l = lines[i]
             if (l ~ /^Types:/) l = "Types: deb-src"
             out = out l (i < n ? "\n" : "")
           }
           print out
         }' "$src" > "$dst.tmp"
    [ -s "$dst.tmp" ] || { rm -f "$dst.tmp"; ck_die "no 'Types: deb' stanza in $src"; }
    mv "$dst.tmp" "$dst"
    apt-get update -qq >&2
  ) 8>"$CK_CACHE_ROOT/.apt.lock"
}

# Download (once) a Debian source package into the shared source cache and
# print the directory holding its .dsc / tarballs. If that exact Debian
# revision cannot be fetched (e.g. a security-pool source missing on the
# mirror), fall back to the newest other revision of the same upstream version
# that apt knows, with a warning; the directory name tells which one was used.
ck_fetch_source() { # <source-pkg> <version>
  local pkg="$1" ver="$2" v dir
  for v in "$ver" $(ck_alt_versions "$pkg" "$ver"); do
    dir="$CK_CACHE_ROOT/sources/${pkg}_${v#*:}"
    if [ -f "$dir/.downloaded" ]; then printf '%s\n' "$dir"; return 0; fi
  done
  ck_ensure_deb_src
  for v in "$ver" $(ck_alt_versions "$pkg" "$ver"); do
    dir="$CK_CACHE_ROOT/sources/${pkg}_${v#*:}"
    [ "$v" = "$ver" ] || ck_log "warning: $pkg=$ver not downloadable; trying $pkg=$v"
    rm -rf "$dir"; mkdir -p "$dir"
    # let apt's sandbox user write there (avoids the "unsandboxed" warning)
    id _apt >/dev/null 2>&1 && chown _apt "$dir" 2>/dev/null || true
    ck_log "apt-get source --download-only $pkg=$v"
    if (cd "$dir" && apt-get source -qq --download-only "$pkg=$v" >&2); then
      touch "$dir/.downloaded"
      printf '%s\n' "$dir"
      return 0
    fi
    rm -rf "$dir"
  done
  ck_die "apt-get source $pkg=$ver failed (and no usable alternative revision)"
}

# Other source revisions of <pkg> with the same upstream version, newest first.
ck_alt_versions() { # <source-pkg> <version>
  local up v
  up="$(ck_upstream_version "$2")"
  apt-cache showsrc "$1" 2>/dev/null | awk '/^Version:/{print $2}' | sort -u |
    while read -r v; do
      [ "$v" != "$2" ] && [ "$(ck_upstream_version "$v")" = "$up" ] && echo "$v"
    done | sort -r -V
}

# Unpack a downloaded source package (Debian patches applied) into <dest>.
ck_unpack_source() { # <download-dir> <dest>
  local dsc
  dsc="$(ls "$1"/*.dsc | head -1)"
  rm -rf "$2"
  dpkg-source -x "$dsc" "$2" >&2
}

ck_now() { date +%s; }
