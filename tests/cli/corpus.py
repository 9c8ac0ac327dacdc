#!/usr/bin/env python3
"""Runs one corpus through two cachekey binaries and reports every difference.

    tests/cli/corpus.py OLD_BIN NEW_BIN [--mutations N] [--seed S] [--jobs J]
                                        [--shared DIR ...] [--keep DIR]

The corpus (every input is read-only; generated files go to a scratch
directory that both binaries see under the same path):
- every fixture (fixtures/**/*.json) through `explain`, `explain --trace`
  and `explain --json`;
- fixtures paired with patched fixtures (one perturbation of each kind per
  base) and seeded random multi-perturbation scenarios through `diff`, text
  and `--json`;
- every log in tests/cases/*/ and the --shared directories (default
  /work/shared/cases) through `compare-logs`, text and `--json`: each pair a
  case's expect.json names, every ordered pair of logs in one directory, each
  log against itself, and the fuzz_log corpus;
- every captured directory (one holding index.json) through `diff DIR DIR`
  against each other directory of its case and itself, and its captured
  files through `explain`;
- N seeded random scenarios (default 3000) through one `batch` run;
- the fuzz corpora (tests/fuzz/corpus, tests/fuzz/regressions) through
  `explain`, `compare-logs` and `canonicalize`;
- every row of tests/cli/cases.json (usage errors, stdin, environment).

Text (stdout, stderr) and the exit status must be byte-identical. For runs
with `--json`, and for `batch`, the new output may only add members: the old
JSON must be a subset of the new (objects compared key by key on the old
keys, arrays element by element). Exit status 0 when there is no difference.
"""

import argparse
import concurrent.futures
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RELEASES = ["0.4.30", "0.4.36", "0.5.0", "0.6.0", "0.7.1", "0.8.2", "0.9.0.1",
            "0.10.0", "0.10.2", "0.11.0", "0.12.0.1", "main", "0.3.0"]


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def debug_option_samples():
    """(name, value) pairs over every kind of DebugOptions field."""
    fields = load(os.path.join(ROOT, "fixtures/debug_options_fields.json"))["fields"]
    by_kind = {}
    for name, f in sorted(fields.items()):
        by_kind.setdefault((f["kind"], f.get("repeated", False)), []).append(name)
    out = []
    for (kind, repeated), names in sorted(by_kind.items()):
        for name in names[:4]:
            if kind == "bool":
                vals = [True, False]
            elif kind in ("int32", "int64"):
                vals = [0, 1, -1, 2**31 - 1, 7]
            elif kind == "float":
                vals = [0.5, 0.0, 1e30]
            elif kind == "enum":
                vals = [0, 1, 2]
            else:
                vals = ["", "x", "a,b"]
            if repeated:
                vals = [[v] for v in vals] + [[]]
            out += [(name, v) for v in vals]
    out += [("no_such_field", 1), ("xla_cpu_multi_thread_eigen", "notabool"),
            ("xla_gpu_autotune_level", 2.5)]
    return out


def perturbations():
    """One-member patches, each a JSON Merge Patch over a base."""
    p = []
    for r in RELEASES:
        p.append({"profile": r})
    for v in ["0.10.1", "0.4.30", " 0.10.2 ", ""]:
        p.append({"jaxlib_version": v})
    p += [{"backend": {"platform": "gpu"}}, {"backend": {"platform_version": "cuda 12"}},
          {"backend": {"runtime_type": "other"}}, {"backend": {"platform": 3}}]
    for x in ["--xla_gpu_autotune_level=1", "--xla_cpu_multi_thread_eigen=false --xla_gpu_autotune_level=2",
              "--xla_dump_to=/tmp/x", "--xla_gpu_autotune_level=1 --xla_gpu_autotune_level=1",
              "  ", "--xla_force_host_platform_device_count=8", "--foo"]:
        p.append({"flags": {"XLA_FLAGS": x}})
    p += [{"flags": {"LIBTPU_INIT_ARGS": "--xla_tpu_enable_x=true"}},
          {"flags": {"argv": ["prog.py", "--xla_gpu_autotune_level=3", "--other"]}},
          {"flags": {"argv": ["--my_flag=1"], "extra_prefixes": ["--my"]}},
          {"flags": {"XLA_FLAGS": "--xla_dump_hlo_as_text --xla_gpu_autotune_level=1"}}]
    for name, v in debug_option_samples():
        p.append({"compile_options": {"edits": {"debug_options": {name: v}}}})
    p += [{"compile_options": {"edits": {"num_replicas": 2}}},
          {"compile_options": {"edits": {"num_partitions": 4}}},
          {"compile_options": {"edits": {"num_replicas": 2, "num_partitions": 2}}},
          {"compile_options": {"edits": {"device_assignment": [[0, 1], [2, 3]]}}},
          {"compile_options": {"edits": {"device_assignment": [[1]]}}},
          {"compile_options": {"edits": {"env_option_overrides": [["xla_gpu_autotune_level", "2"]]}}},
          {"compile_options": {"edits": {"env_option_overrides": [["a", True], ["b", 1], ["c", 1.5]]}}},
          {"compile_options": {"edits": {"fdo_profile_b64": "AAEC"}}},
          {"compile_options": {"edits": {"debug_options": {"xla_dump_to": "/tmp/d",
                                                            "xla_gpu_autotune_level": 3}}}},
          {"compile_options": {"edits": {"num_replicas": "two"}}}]
    for c in ["zlib", "zstandard", "", "lz4", {"python": "3.13", "zstandard_installed": True},
              {"python": "3.14", "zstandard_installed": True},
              {"python": "3.11", "zstandard_installed": False}]:
        p.append({"compression": c})
    p += [{"custom_hook": "x"}, {"custom_hook": "hook v2"},
          {"accelerator": {"fingerprint": {"value": "0123456789abcdef", "provenance": "made up",
                                           "stand_in": True}}},
          {"accelerator": {"fingerprint": {"value": "89824686c8e49ea1"}}},
          {"accelerator": {"device_kinds": ["TPU v4", "TPU v4"]}},
          {"accelerator": {"device_kinds": ["cpu"], "error": "no topology",
                           "error_type": "<class 'RuntimeError'>"}},
          {"accelerator": {"cpu_topology": {"devices": [{"process_index": 0, "local_hardware_id": 0},
                                                        {"process_index": 0, "local_hardware_id": 1}],
                                            "target_machine": {"triple": "x86_64-unknown-linux-gnu",
                                                               "cpu": "skylake", "features": "+avx"}}}},
          {"accelerator": {"gpu_topology": {"platform_version": "cuda", "num_partitions": 1,
                                            "num_hosts_per_partition": 1, "num_devices_per_host": 2}}},
          {"module": {"include_metadata": True}},
          {"module": {"ignore_callbacks": "ALL"}},
          {"module": {"ignore_callbacks": "CUSTOM_PARTITIONING"}},
          {"module": {"ignore_custom_partitioning": True}},
          {"module": {"sym_name": "jit_other"}},
          {"module": {"entry1_b64": "AAAA"}},
          {"module": {"text": "module @jit_t {\n}\n"}},
          {"schema": 2}, {"unknown_member": 1}]
    return p


def merge(a, b):
    if not isinstance(a, dict) or not isinstance(b, dict):
        return b
    out = dict(a)
    for k, v in b.items():
        out[k] = merge(a.get(k), v) if isinstance(v, dict) else v
    return out


def fixture_ids():
    ids = []
    for sub in ["", "tpu", "derived"]:
        d = os.path.join(ROOT, "fixtures", sub)
        for f in sorted(os.listdir(d)):
            if not f.endswith(".json"):
                continue
            try:
                doc = load(os.path.join(d, f))
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(doc, dict) and doc.get("schema") == 1:
                ids.append(f[:-5])
    return ids


def subset(old, new):
    """True when `old` is `new` with the members `new` added removed."""
    if isinstance(old, dict):
        return isinstance(new, dict) and all(k in new and subset(v, new[k]) for k, v in old.items())
    if isinstance(old, list):
        return isinstance(new, list) and len(old) == len(new) and all(
            subset(o, n) for o, n in zip(old, new))
    return type(old) is type(new) and old == new


def json_docs(text):
    """The JSON documents of an output: one document, or JSON Lines."""
    try:
        return [json.loads(text)] if text.strip() else []
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


class Run:
    def __init__(self, name, args, stdin=b"", env=None, json_out=False, cwd=None):
        self.name, self.args, self.stdin, self.env, self.json_out = name, args, stdin, env, json_out
        self.cwd = cwd


def execute(binary, run):
    env = dict(os.environ)
    env.pop("CACHEKEY_FIXTURES", None)
    env.update(run.env or {})
    p = subprocess.run([binary] + run.args, input=run.stdin, capture_output=True, env=env,
                       cwd=run.cwd, timeout=600)
    return p.returncode, p.stdout, p.stderr


def compare(old, new, run):
    """A description of how the two results differ, or None."""
    (rc_a, out_a, err_a), (rc_b, out_b, err_b) = old, new
    if rc_a != rc_b:
        return f"exit {rc_a} -> {rc_b}"
    if err_a != err_b:
        return "stderr differs:\n" + unified(err_a, err_b)
    if out_a == out_b:
        return None
    if not run.json_out:
        return "stdout differs:\n" + unified(out_a, out_b)
    try:
        da, db = json_docs(out_a.decode()), json_docs(out_b.decode())
    except (ValueError, UnicodeDecodeError) as e:
        return f"stdout is not JSON ({e}):\n" + unified(out_a, out_b)
    if len(da) != len(db):
        return f"{len(da)} JSON documents -> {len(db)}"
    for i, (a, b) in enumerate(zip(da, db)):
        if not subset(a, b):
            return f"JSON document {i} is not a subset of the new one:\n" + first_json_difference(a, b)
    return None


def first_json_difference(a, b, path="$"):
    if isinstance(a, dict) and isinstance(b, dict):
        for k, v in a.items():
            if k not in b:
                return f"{path}.{k}: missing in new"
            if not subset(v, b[k]):
                return first_json_difference(v, b[k], f"{path}.{k}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if not subset(x, y):
                return first_json_difference(x, y, f"{path}[{i}]")
    return f"{path}: {json.dumps(a)[:400]} -> {json.dumps(b)[:400]}"


def unified(a, b):
    import difflib
    la = a.decode("utf-8", "replace").splitlines(keepends=True)
    lb = b.decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(list(difflib.unified_diff(la, lb, "old", "new", n=1))[:40])


def build_corpus(scratch, mutations, seed, shared):
    runs = []
    fx = os.path.join(ROOT, "fixtures")
    ids = fixture_ids()
    fixture_files = sorted(
        os.path.join(dp, f) for dp, _, fs in os.walk(fx) for f in fs if f.endswith(".json"))

    # explain, three ways, on every fixture file.
    for f in fixture_files:
        rel = os.path.relpath(f, ROOT)
        runs.append(Run(f"explain {rel}", ["explain", f]))
        runs.append(Run(f"explain --trace {rel}", ["explain", f, "--trace"]))
        runs.append(Run(f"explain --json {rel}", ["explain", f, "--json"], json_out=True))

    # Patched fixtures: every perturbation over a few bases, and some over all.
    patches_dir = os.path.join(scratch, "patches")
    os.makedirs(patches_dir)
    perts = perturbations()
    rng = random.Random(seed)
    main_bases = [i for i in ["add_1x1", "mul_2x2", "sharded_4dev", "flags_ab", "tpu_v5e_8"] if i in ids]
    n = 0

    def write(doc):
        nonlocal n
        n += 1
        path = os.path.join(patches_dir, f"p{n:05d}.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def base_file(i):
        for sub in ["", "tpu", "derived"]:
            p = os.path.join(fx, sub, i + ".json")
            if os.path.exists(p):
                return p
        raise KeyError(i)

    for b in main_bases:
        for pt in perts:
            doc = merge({"schema": 1, "base": b}, pt)
            path = write(doc)
            runs.append(Run(f"diff {b} {json.dumps(pt)}", ["diff", base_file(b), path]))
            runs.append(Run(f"diff --json {b} {json.dumps(pt)}", ["diff", base_file(b), path, "--json"],
                            json_out=True))
    for b in ids:
        for pt in rng.sample(perts, 6):
            path = write(merge({"schema": 1, "base": b}, pt))
            runs.append(Run(f"diff {b} {json.dumps(pt)}", ["diff", base_file(b), path]))
            runs.append(Run(f"diff --json {b} {json.dumps(pt)}", ["diff", path, base_file(b), "--json"],
                            json_out=True))
    # Every pair of fixtures (either order once), text and JSON.
    for a, b in itertools.combinations(ids, 2):
        if rng.random() < 0.25:
            runs.append(Run(f"diff {a} {b}", ["diff", base_file(a), base_file(b)]))
            runs.append(Run(f"diff --json {b} {a}", ["diff", base_file(b), base_file(a), "--json"],
                            json_out=True))

    # Random multi-perturbation scenarios: pairs through diff, all through batch.
    def random_scenario():
        doc = {"schema": 1, "base": rng.choice(ids)}
        for pt in rng.sample(perts, rng.randint(1, 4)):
            doc = merge(doc, pt)
        return doc

    for k in range(300):
        a, b = write(random_scenario()), write(random_scenario())
        same_base = merge(json.load(open(a)), rng.choice(perts))
        c = write(same_base)
        runs.append(Run(f"diff random {k}", ["diff", a, b]))
        runs.append(Run(f"diff random same base {k}", ["diff", a, c]))
        runs.append(Run(f"diff --json random {k}", ["diff", a, c, "--json"], json_out=True))
    lines = [json.dumps(random_scenario()) for _ in range(mutations)]
    lines += ["", "not json", "{}", '{"schema": 1}']
    runs.append(Run(f"batch {len(lines)} random scenarios", ["batch"],
                    stdin=("\n".join(lines) + "\n").encode(), json_out=True))

    # Logs.
    log_dirs = [os.path.join(ROOT, "tests/cases", d) for d in sorted(os.listdir(os.path.join(ROOT, "tests/cases")))]
    for s in shared:
        if os.path.isdir(s):
            for dp, dns, fs in os.walk(s):
                if any(f.endswith(".log") for f in fs):
                    log_dirs.append(dp)
    log_dirs.append(os.path.join(ROOT, "tests/logs"))
    for d in sorted(set(log_dirs)):
        if not os.path.isdir(d):
            continue
        logs = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".log"))
        pairs = set(itertools.permutations(logs, 2)) | {(l, l) for l in logs}
        exp = os.path.join(d, "expect.json")
        if os.path.exists(exp):
            for c in load(exp).get("compare", []):
                pairs.add((os.path.join(d, c["a"]), os.path.join(d, c["b"])))
        for a, b in sorted(pairs):
            tag = f"{os.path.relpath(a, '/')} {os.path.basename(b)}"
            runs.append(Run(f"compare-logs {tag}", ["compare-logs", a, b]))
            runs.append(Run(f"compare-logs --json {tag}", ["compare-logs", a, b, "--json"], json_out=True))

    # Captured directories.
    cap_dirs = []
    for s in shared + [os.path.join(ROOT, "tests")]:
        for dp, _, fs in os.walk(s):
            if "index.json" in fs:
                cap_dirs.append(dp)
    cap_dirs.sort()
    for a in cap_dirs:
        for b in cap_dirs:
            if os.path.dirname(a) == os.path.dirname(b):
                runs.append(Run(f"diff DIR {a} {b}", ["diff", a, b]))
                runs.append(Run(f"diff --json DIR {a} {b}", ["diff", a, b, "--json"], json_out=True))
        files = sorted(f for f in os.listdir(a) if f.endswith(".json") and f != "index.json")
        for f in files:
            p = os.path.join(a, f)
            runs.append(Run(f"explain capture {p}", ["explain", p]))
            runs.append(Run(f"explain --json capture {p}", ["explain", p, "--json"], json_out=True))
        for f in files[:1]:
            for g in files[1:3]:
                runs.append(Run(f"diff capture files {f} {g}", ["diff", os.path.join(a, f), os.path.join(a, g)]))

    # Fuzz corpora.
    fuzz = os.path.join(ROOT, "tests/fuzz")
    fuzz_files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(fuzz) for f in fs
                        if not f.endswith((".cpp", ".txt")) and "CMakeLists" not in f)
    fuzz_logs = [f for f in fuzz_files if "fuzz_log" in f]
    for f in fuzz_files:
        rel = os.path.relpath(f, ROOT)
        runs.append(Run(f"explain fuzz {rel}", ["explain", f]))
        runs.append(Run(f"explain --json fuzz {rel}", ["explain", f, "--json"], json_out=True))
        runs.append(Run(f"canonicalize fuzz {rel}", ["canonicalize", f]))
        runs.append(Run(f"compare-logs fuzz {rel}", ["compare-logs", f, fuzz_logs[0] if fuzz_logs else f]))
    for a, b in itertools.product(fuzz_logs, repeat=2):
        runs.append(Run(f"compare-logs fuzz {a} {b}", ["compare-logs", a, b]))
        runs.append(Run(f"compare-logs --json fuzz {a} {b}", ["compare-logs", a, b, "--json"], json_out=True))

    # The CLI contract table.
    tmp = os.path.join(scratch, "cli")
    os.makedirs(tmp)
    for c in load(os.path.join(ROOT, "tests/cli/cases.json"))["cases"]:
        d = os.path.join(tmp, c["name"])
        os.makedirs(d)

        def sub(s):
            return s.replace("@SRC@", ROOT).replace("@TMP@", d)

        for name, text in c.get("files", {}).items():
            with open(os.path.join(d, name), "w") as f:
                f.write(sub(text))
        for name, hx in c.get("files_hex", {}).items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(bytes.fromhex(hx))
        args = [sub(a) for a in c["args"]]
        env = {k: sub(v) for k, v in c.get("env", {}).items()}
        runs.append(Run(f"cli case {c['name']}", args, stdin=sub(c.get("stdin", "")).encode(), env=env,
                        json_out="--json" in args or args[:1] == ["batch"], cwd=d))
    # Usage corners not in the table.
    for args in [["--help"], ["profiles"], ["profiles", "--json"], ["diff"], ["compare-logs", "-", "-"],
                 ["explain", os.path.join(fx, "add_1x1.json"), "--trace", "--json"],
                 ["explain", fx], ["diff", fx, os.path.join(fx, "add_1x1.json")],
                 ["explain", "/nonexistent.json"], ["explain", "/nonexistent.json", "--json"]]:
        runs.append(Run("usage " + " ".join(args), args, json_out="--json" in args))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--mutations", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--shared", action="append", default=None)
    ap.add_argument("--keep", help="scratch directory to use and keep")
    ap.add_argument("--only", help="run only the runs whose name contains this")
    opts = ap.parse_args()
    opts.old, opts.new = os.path.abspath(opts.old), os.path.abspath(opts.new)
    shared = opts.shared if opts.shared is not None else ["/work/shared/cases"]
    scratch = opts.keep or tempfile.mkdtemp(prefix="cachekey-corpus-")
    if opts.keep:
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(scratch)
    runs = build_corpus(scratch, opts.mutations, opts.seed, shared)
    if opts.only:
        runs = [r for r in runs if opts.only in r.name]

    def both(run):
        old = execute(opts.old, run)
        return run, old[0], compare(old, execute(opts.new, run), run)

    diffs = 0
    statuses = {}
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        for run, status, d in pool.map(both, runs):
            statuses[status] = statuses.get(status, 0) + 1
            if d:
                diffs += 1
                print(f"DIFFERENCE in {run.name}\n  args: {run.args}\n{d}\n", flush=True)
    if not opts.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    print("exit statuses of the old binary: " +
          ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items())))
    print(f"corpus: {len(runs)} runs compared, {diffs} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
