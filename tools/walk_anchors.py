#!/usr/bin/env python3
"""Builds the code walk's data: each jax release's cache_key.py with anchors.

Usage:
  tools/walk_anchors.py --profiles PROFILES.json --out DIR
                        [--annotations tools/walk_annotations.json]
                        [--wheels /var/cache/cachekey/wheels/walk]
                        [--venvs /var/cache/cachekey/venvs]
                        [--source RELEASE=PATH ...]

PROFILES.json is the engine's profile list (wasm ``profiles()`` or
``cachekey profiles --json``): every release it names gets its file. The text
of ``jax/_src/cache_key.py`` is read, in this order, from a per-release venv
(VENVS/jax-RELEASE-py*), from the project's .venv when it holds that release,
or from the release's wheel (pure Python, about 3 MB), downloaded once with
``pip download jax==RELEASE --no-deps --only-binary=:all: --python-version
X.Y`` into WHEELS, for the Python the release requires (3.11 up to 0.10.2,
3.12 from 0.11.0; tests/oracle/releases.json), whatever Python runs this
tool. Whatever the origin,
the file is checked against the sha256 in the wheel's RECORD. The text is
written into the site at build time and never committed.

Each anchor of the annotations file (see its "comment") is found by parsing
the file with ``ast``: functions and statements by name and structure, never
by line number. Which entries an anchor feeds is derived from the call graph:
from each entry's lambda in ``get()`` through every function and module-level
name it refers to. An anchor that is not found fails the build (exit 1) unless
the annotations mark it absent for that release; an anchor marked absent that
is found fails too, and so does an entry the engine says is not hashed whose
anchor is not marked absent (and the other way round). The anchor an annotation
names the source of entry N (``"source_of": N``, one per entry) must feed
entry N in every release that hashes it.

Writes DIR/links.json ({"aliases", "releases": {release: {anchor id: first
line}}, "entry_sources": [the source anchor's id of entry 1, 2, …]}, the
page's links into each release's file), DIR/index.json
({"releases": {release: file id}, "files": {id:
{"releases", "bytes"}}}) and one DIR/<id>.json per distinct file: {"id",
"releases", "origin", "lines", "anchors": [{"id", "title", "note", "kind",
"entries", "start", "end", "lit": [[first, last], ...]}], "absent": [{"id",
"title", "why"}], "line_anchor": [anchor index or -1 per line]}. Lines are
1-based in start/end/lit; line_anchor[i] is for line i + 1 (the innermost
anchor containing it).

Exit status: 0 on success; 1 when a source cannot be obtained (the message
names the release and what was tried) or an anchor fails.
"""
from __future__ import annotations

import argparse
import ast
import base64
import csv
import glob
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILE = "jax/_src/cache_key.py"


class WalkError(Exception):
    """A source that cannot be obtained or an anchor that cannot be placed."""


def version_tuple(v: str) -> tuple:
    """"0.9.0.1" -> (0, 9, 0, 1)."""
    return tuple(int(re.match(r"\d*", p).group(0) or -1) for p in v.split("."))


def applies(rule: dict, release: str) -> bool:
    """Whether a {"before": R} / {"from": R} rule covers `release`."""
    v = version_tuple(release)
    if "before" in rule and not v < version_tuple(rule["before"]):
        return False
    if "from" in rule and not v >= version_tuple(rule["from"]):
        return False
    return True


# ----------------------------------------------------------------- sources

def record_digest(record_text: str) -> str | None:
    """The urlsafe-base64 sha256 RECORD gives for cache_key.py, if any."""
    for row in csv.reader(io.StringIO(record_text)):
        if row and row[0] == FILE and len(row) > 1 and row[1].startswith("sha256="):
            return row[1][len("sha256="):]
    return None


def file_digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def from_site_packages(site: Path, release: str) -> tuple[bytes, str] | None:
    """cache_key.py from an installed jax==release, checked against RECORD."""
    dist = site / f"jax-{release}.dist-info"
    path = site / FILE
    if not dist.is_dir() or not path.is_file():
        return None
    data = path.read_bytes()
    want = record_digest((dist / "RECORD").read_text(encoding="utf-8")) if (dist / "RECORD").is_file() else None
    if want is None or want != file_digest(data):
        return None  # edited or incomplete install: not trusted
    return data, f"installed jax {release} ({path}), sha256 as in its RECORD"


def from_wheel(wheel: Path, release: str) -> tuple[bytes, str]:
    with zipfile.ZipFile(wheel) as z:
        data = z.read(FILE)
        record = z.read(f"jax-{release}.dist-info/RECORD").decode("utf-8")
    if record_digest(record) != file_digest(data):
        raise WalkError(f"jax {release}: {FILE} in {wheel.name} does not match the wheel's RECORD")
    return data, f"wheel {wheel.name}, sha256 as in its RECORD"


def release_python(release: str) -> str:
    """The Python minor version ("3.11", "3.12") that jax ``release`` requires.

    Read from tests/oracle/releases.json (its "python" column comes from each
    wheel's Requires-Python on PyPI); an unlisted release follows the same
    rule as that file: 3.12 from 0.11.0 (Requires-Python >= 3.12), 3.11
    before. The wheel is then fetched for that Python, never for whichever
    interpreter happens to run this tool.
    """
    try:
        rows = json.loads((ROOT / "tests" / "oracle" / "releases.json").read_text(encoding="utf-8"))["releases"]
    except (OSError, ValueError, KeyError):
        rows = []
    for row in rows:
        if row.get("jax") == release and row.get("python"):
            return row["python"]
    return "3.12" if version_tuple(release) >= (0, 11) else "3.11"


def pip_for_download() -> list[str]:
    """A pip to run ``pip download`` with: this interpreter's, else the .venv's.

    Which interpreter runs pip does not matter for what it fetches:
    ``--python-version`` and ``--only-binary=:all:`` select the wheel.
    """
    for py in (sys.executable, str(ROOT / ".venv" / "bin" / "python")):
        if py and os.path.exists(py) and subprocess.run([py, "-m", "pip", "--version"], capture_output=True).returncode == 0:
            return [py, "-m", "pip"]
    raise WalkError(f"no pip to download jax wheels with: neither {sys.executable} nor .venv/bin/python "
                    "has pip (run scripts/setup-python)")


def download_wheel(release: str, wheels: Path) -> list[Path]:
    """``pip download jax==release`` (the pure-Python wheel, no dependencies)
    for the Python the release requires, into ``wheels``; the wheels found.

    Raises WalkError naming the package, the release, the target Python and
    pip's own last line when pip fails.
    """
    py = release_python(release)
    wheels.mkdir(parents=True, exist_ok=True)
    cmd = pip_for_download() + ["download", "--no-deps", "--only-binary=:all:", "--python-version", py,
                                "--disable-pip-version-check", "--progress-bar", "off", "-q",
                                "-d", str(wheels), f"jax=={release}"]
    print(f"walk_anchors: pip download jax=={release} (wheel for Python {py}) into {wheels}",
          file=sys.stderr, flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    found = sorted(wheels.glob(f"jax-{release}-*.whl"))
    if p.returncode != 0 or not found:
        tail = [l for l in (p.stderr or p.stdout).strip().splitlines() if l.strip()][-1:] or ["no output"]
        raise WalkError(
            f"jax {release}: cache_key.py is not available: no venv holds it, no wheel is in {wheels}, "
            f"and `pip download jax=={release} --no-deps --only-binary=:all: --python-version {py}` "
            f"failed ({tail[0]}). The code walk needs every release's file: build with access to PyPI, "
            f"or put the wheel jax-{release}-py3-none-any.whl into {wheels}.")
    return found


def obtain(release: str, venvs: Path, wheels: Path, overrides: dict) -> tuple[bytes, str]:
    """The bytes of cache_key.py for `release` and where they came from.

    Tried in order: a --source override, a per-release venv under ``venvs``,
    the project's .venv, a wheel already in ``wheels``, and last a download
    (``download_wheel``). Installed files and wheels are checked against the
    sha256 in their RECORD. Raises WalkError naming the release.
    """
    if release in overrides:
        return Path(overrides[release]).read_bytes(), f"given on the command line ({overrides[release]})"
    for site in sorted(glob.glob(str(venvs / f"jax-{release}-py*" / "lib" / "python*" / "site-packages"))):
        got = from_site_packages(Path(site), release)
        if got:
            return got
    for site in sorted(glob.glob(str(ROOT / ".venv" / "lib" / "python*" / "site-packages"))):
        got = from_site_packages(Path(site), release)
        if got:
            return got
    found = sorted(wheels.glob(f"jax-{release}-*.whl")) or download_wheel(release, wheels)
    return from_wheel(found[0], release)


# ----------------------------------------------------------------- parsing

class Parsed:
    """A parsed cache_key.py: its lines, functions, and a parent map."""

    def __init__(self, text: str):
        self.text = text
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.tree = ast.parse(text)
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.functions: dict[str, list[ast.FunctionDef]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(node.name, []).append(node)

    def start(self, node: ast.AST) -> int:
        decos = getattr(node, "decorator_list", [])
        return min([node.lineno] + [d.lineno for d in decos])

    def with_comments(self, start: int) -> int:
        """Extends a statement's first line upwards over comment lines."""
        while start > 1 and self.lines[start - 2].strip().startswith("#"):
            start -= 1
        return start


def statements(root: ast.AST):
    for node in ast.walk(root):
        if isinstance(node, ast.stmt):
            yield node


def target_text(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [ast.unparse(t) for t in node.targets]
    if isinstance(node, ast.AnnAssign):
        return [ast.unparse(node.target)]
    return []


def find(parsed: Parsed, scope: ast.AST, spec: dict, entry_names: dict) -> list[tuple[int, int, ast.AST]]:
    """Every (start, end, node) in `scope` matching a locator."""
    out = []
    if "def" in spec:
        names = spec["def"] if isinstance(spec["def"], list) else [spec["def"]]
        for node in ast.walk(scope):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
                out.append((parsed.start(node), node.end_lineno, node))
    elif "assign" in spec:
        for node in statements(scope):
            if spec["assign"] in target_text(node):
                out.append((parsed.with_comments(node.lineno), node.end_lineno, node))
    elif "assign_prefix" in spec:
        hits = [n for n in statements(scope) if any(t.startswith(spec["assign_prefix"]) for t in target_text(n))]
        if hits:
            out.append((parsed.with_comments(min(n.lineno for n in hits)), max(n.end_lineno for n in hits), hits[0]))
    elif "if" in spec:
        for node in statements(scope):
            if isinstance(node, ast.If) and spec["if"] in ast.unparse(node.test):
                out.append((parsed.with_comments(node.lineno), node.end_lineno, node))
    elif "for" in spec:
        for node in statements(scope):
            if isinstance(node, ast.For) and spec["for"] in ast.unparse(node.iter):
                out.append((parsed.with_comments(node.lineno), node.end_lineno, node))
    elif "calls" in spec:
        calls = [n for n in ast.walk(scope) if isinstance(n, ast.Call) and ast.unparse(n.func) == spec["calls"]]
        for call in calls:
            node = call
            while not isinstance(node, ast.stmt):
                node = parsed.parent[node]
            out.append((parsed.with_comments(node.lineno), node.end_lineno, node))
    elif "except" in spec:
        for node in ast.walk(scope):
            if isinstance(node, ast.ExceptHandler):
                out.append((node.lineno, node.end_lineno, node))
    elif "return" in spec:
        for node in statements(scope):
            if isinstance(node, ast.Return) and isinstance(scope, ast.FunctionDef) and parsed.parent.get(node) is scope:
                out.append((node.lineno, node.end_lineno, node))
    elif "entry" in spec:
        name = entry_names.get(spec["entry"])
        for node in ast.walk(scope):
            if (isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[0], ast.Constant)
                    and node.elts[0].value == name and isinstance(node.elts[1], ast.Lambda)):
                out.append((node.lineno, node.end_lineno, node))
    elif "span" in spec:
        a = find(parsed, scope, spec["span"][0], entry_names)
        b = find(parsed, scope, spec["span"][1], entry_names)
        if len(a) == 1 and len(b) == 1 and a[0][0] <= b[0][1]:
            out.append((a[0][0], b[0][1], a[0][2]))
    else:
        raise WalkError(f"unknown locator {json.dumps(spec)}")
    # one node found twice (e.g. nested walks) counts once
    unique = {(s, e, id(n)): (s, e, n) for s, e, n in out}
    return sorted(unique.values(), key=lambda x: (x[0], x[1]))


def names_loaded(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def feeds(parsed: Parsed, entry_roots: dict[int, ast.AST]) -> dict[str, set[int]]:
    """For each function and module-level name: the entries that reach it.

    The graph's nodes are the file's functions and its module-level assigned
    names; a node refers to another when its body loads that name. Each entry
    starts from its lambda in get().
    """
    defs: dict[str, list[ast.AST]] = {name: list(nodes) for name, nodes in parsed.functions.items()}
    for node in parsed.tree.body:
        for t in target_text(node):
            if re.fullmatch(r"[A-Za-z_]\w*", t):
                defs.setdefault(t, []).append(node)
    refs = {name: set().union(*(names_loaded(n) for n in nodes)) & defs.keys() for name, nodes in defs.items()}
    # A function that assigns a module-level name (a `global` statement)
    # feeds whatever reads that name.
    for name, nodes in parsed.functions.items():
        for fn in nodes:
            for g in (n for n in ast.walk(fn) if isinstance(n, ast.Global)):
                for written in g.names:
                    if written in refs:
                        refs[written].add(name)
    out: dict[str, set[int]] = {name: set() for name in defs}
    for entry, root in entry_roots.items():
        todo = list(names_loaded(root) & defs.keys())
        seen: set[str] = set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            out[name].add(entry)
            todo.extend(refs[name] - seen)
    return out


def enclosing_def(parsed: Parsed, node: ast.AST) -> str | None:
    while node in parsed.parent:
        node = parsed.parent[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node.name
    return None


def walk_file(text: str, releases: list[str], annotations: list[dict], entry_names: dict,
              hashed: dict[int, bool]) -> dict:
    """Places every anchor in one file (shared by `releases`)."""
    parsed = Parsed(text)
    # Anchors are judged against the oldest release sharing this text; the
    # absent marks must agree for all of them.
    anchors, absent, errors = [], [], []
    for a in annotations:
        marks = {applies(a["absent"], r) if "absent" in a else False for r in releases}
        if len(marks) > 1:
            errors.append(f"anchor {a['id']}: marked absent for some of {', '.join(releases)} but they share one file")
            continue
        is_absent = marks.pop()
        if "entry" in a["find"]:
            n = a["find"]["entry"]
            if is_absent == hashed.get(n, True):
                errors.append(f"anchor {a['id']}: the engine says entry {n} is {'hashed' if hashed.get(n, True) else 'not hashed'} "
                              f"by jax {releases[0]}, but the annotations mark it {'absent' if is_absent else 'present'}")
                continue
        scope = parsed.tree
        if "in" in a:
            fns = parsed.functions.get(a["in"], [])
            if len(fns) != 1:
                if not is_absent:
                    errors.append(f"anchor {a['id']}: function {a['in']} found {len(fns)} times (want 1) in jax {releases[0]}")
                continue
            scope = fns[0]
        hits = find(parsed, scope, a["find"], entry_names)
        if is_absent and "source_of" in a and hashed.get(a["source_of"], True):
            errors.append(f"anchor {a['id']}: the source of entry {a['source_of']}, which jax {releases[0]} hashes, "
                          f"is marked absent there")
            continue
        if is_absent:
            if hits:
                errors.append(f"anchor {a['id']}: marked absent in jax {releases[0]} ({a['absent']['why']}) but found at line {hits[0][0]}")
            else:
                absent.append({"id": a["id"], "title": a["title"], "why": a["absent"]["why"]})
            continue
        if len(hits) != 1:
            errors.append(f"anchor {a['id']}: {json.dumps(a['find'])}{' in ' + a['in'] if 'in' in a else ''} "
                          f"matched {len(hits)} places (want exactly 1) in jax {releases[0]}"
                          + (f" (lines {', '.join(str(h[0]) for h in hits)})" if hits else ""))
            continue
        start, end, node = hits[0]
        note = a.get("note")
        for rule in a.get("note_by_release", []):
            if applies(rule, releases[0]):
                note = rule["note"]
        anchors.append({"id": a["id"], "title": a["title"], "note": note, "kind": a["kind"],
                        "start": start, "end": end, "_node": node, "_find": a["find"],
                        "_source_of": a.get("source_of")})
    if errors:
        raise WalkError("\n".join(errors))

    roots = {}
    for a in anchors:
        if "entry" in a["_find"]:
            roots[a["_find"]["entry"]] = a["_node"].elts[1]
    reach = feeds(parsed, roots)
    for a in anchors:
        node = a["_node"]
        if "entry" in a["_find"]:
            a["entries"] = [a["_find"]["entry"]]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a["entries"] = sorted(reach.get(node.name, set()))
        else:
            owner = enclosing_def(parsed, node)
            if owner is None:  # a module-level statement
                names = target_text(node)
                a["entries"] = sorted(set().union(*(reach.get(t, set()) for t in names)))
            elif owner == "get":
                a["entries"] = []  # the driver: it runs every entry
            else:
                a["entries"] = sorted(reach.get(owner, set()))
        if a["kind"] == "frame":
            # only the signature: up to the line whose code ends with ':'
            end = node.lineno
            while end < node.end_lineno and not parsed.lines[end - 1].split("#")[0].rstrip().endswith(":"):
                end += 1
            a["lit"] = [[a["start"], end]]
        else:
            a["lit"] = [[a["start"], a["end"]]]
        n = a["_source_of"]
        if n is not None and hashed.get(n, True) and n not in a["entries"]:
            errors.append(f"anchor {a['id']}: named the source of entry {n}, but in jax {releases[0]} "
                          f"it feeds {'entries ' + ', '.join(map(str, a['entries'])) if a['entries'] else 'no entry'}")
        del a["_node"], a["_find"], a["_source_of"]
    if errors:
        raise WalkError("\n".join(errors))
    anchors.sort(key=lambda a: (a["start"], -a["end"]))
    # innermost anchor per line: later (narrower) anchors overwrite earlier ones
    line_anchor = [-1] * len(parsed.lines)
    for i, a in sorted(enumerate(anchors), key=lambda p: -(p[1]["end"] - p[1]["start"])):
        for ln in range(a["start"], a["end"] + 1):
            line_anchor[ln - 1] = i
    return {"lines": parsed.lines, "anchors": anchors, "absent": absent, "line_anchor": line_anchor}


def entry_sources(annotations: list[dict], entry_count: int) -> list[str]:
    """The anchor id each entry's row links to, entry 1 first: the anchors
    marked "source_of" N, exactly one for each of the `entry_count` entries."""
    by_entry: dict[int, list[str]] = {}
    for a in annotations:
        if "source_of" in a:
            by_entry.setdefault(a["source_of"], []).append(a["id"])
    errors = []
    for n in sorted(set(by_entry) | set(range(1, entry_count + 1))):
        ids = by_entry.get(n, [])
        if not 1 <= n <= entry_count:
            errors.append(f"anchors {', '.join(ids)}: source_of {n}, but the engine lists entries 1 to {entry_count}")
        elif len(ids) != 1:
            errors.append(f"entry {n}: {len(ids)} anchors name themselves its source"
                          f"{' (' + ', '.join(ids) + ')' if ids else ''}; want exactly 1")
    if errors:
        raise WalkError("\n".join(errors))
    return [by_entry[n][0] for n in range(1, entry_count + 1)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--profiles", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--annotations", default=str(ROOT / "tools" / "walk_annotations.json"))
    ap.add_argument("--wheels", default=os.path.join(
        os.environ.get("CACHEKEY_WHEEL_CACHE", "/var/cache/cachekey/wheels"), "walk"))
    ap.add_argument("--venvs", default=os.environ.get("CACHEKEY_VENV_ROOT", "/var/cache/cachekey/venvs"))
    ap.add_argument("--source", action="append", default=[], metavar="RELEASE=PATH")
    args = ap.parse_args(argv)

    profiles = json.loads(Path(args.profiles).read_text(encoding="utf-8"))
    annotations = json.loads(Path(args.annotations).read_text(encoding="utf-8"))["anchors"]
    overrides = dict(s.split("=", 1) for s in args.source)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    by_text: dict[str, dict] = {}
    index = {"releases": {}, "files": {}}
    try:
        sources = entry_sources(annotations, max(len(p["entries"]) for p in profiles["profiles"]))
        for p in profiles["profiles"]:
            names = {e["index"]: e["name"] for e in p["entries"]}
            hashed = {e["index"]: e["hashed"] for e in p["entries"]}
            for release in p["releases"]:
                data, origin = obtain(release, Path(args.venvs), Path(args.wheels), overrides)
                fid = hashlib.sha256(data).hexdigest()[:16]
                group = by_text.setdefault(fid, {"text": data.decode("utf-8"), "releases": [], "origins": [],
                                                 "names": names, "hashed": hashed})
                if group["names"] != names or group["hashed"] != hashed:
                    raise WalkError(f"jax {release}: same cache_key.py as jax {group['releases'][0]} but another profile's entries")
                group["releases"].append(release)
                group["origins"].append(f"jax {release}: {origin}")
                index["releases"][release] = fid
        for fid, g in by_text.items():
            walked = walk_file(g["text"], g["releases"], annotations, g["names"], g["hashed"])
            doc = {"id": fid, "releases": g["releases"], "origin": g["origins"], **walked}
            text = json.dumps(doc, separators=(",", ":"), ensure_ascii=False)
            (out / f"{fid}.json").write_text(text, encoding="utf-8")
            index["files"][fid] = {"releases": g["releases"], "bytes": len(text.encode("utf-8")),
                                   "lines": len(walked["lines"])}
    except WalkError as e:
        print(f"walk_anchors: {e}", file=sys.stderr)
        return 1
    (out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    # The page's links into each release's cache_key.py (small, loaded with
    # the first view): {"aliases", "releases": {release: {anchor id: first
    # line}}, "entry_sources": [anchor id per entry]}; an anchor absent in a
    # release is left out.
    starts = {}
    for fid, g in by_text.items():
        doc = json.loads((out / f"{fid}.json").read_text(encoding="utf-8"))
        lines = {a["id"]: a["start"] for a in doc["anchors"]}
        for release in g["releases"]:
            starts[release] = lines
    links = {"aliases": profiles.get("aliases", {}), "releases": starts, "entry_sources": sources}
    (out / "links.json").write_text(json.dumps(links, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"walk_anchors: {len(index['releases'])} releases, {len(by_text)} distinct cache_key.py files -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
