"""Turns TPU captures (``fixture_capture.tpu`` output) into the repository's fixtures.

Usage (tools/capture-tpu runs it after the captures; tools/ on PYTHONPATH):
  python -m fixture_capture.tpu_fixtures --captures DIR [--captures DIR ...]
                        --topologies FILE [--topologies FILE ...]
                        [--fixtures fixtures]

Writes
  fixtures/tpu/<program>__<jax>[__libtpu<ver>].json
      one scenario (docs/scenario.md, "schema": 1) per whole-key capture,
      with "expected" (the key, the eight per-entry and running digests and
      the cache_key log messages, in order) and "provenance" copied from the
      capture. The libtpu suffix is added for captures made with a libtpu
      other than the newest one captured for that jax release.
  fixtures/tpu_topologies.json
      every topology libtpu accepted (name, device_kind, devices, processes,
      the 64-bit fingerprint, the platform_version of each libtpu build) and
      every name it refused, with libtpu's message.

Nothing is computed here: every value is copied from what the installed
jax / jaxlib / libtpu returned or logged. The script only regroups values,
and it stops with an error when two captures disagree about a value that
should be one value (a fingerprint, a device count, a platform_version).
The captures are not needed by the tests; the fixtures are committed.
"""
import argparse
import json
import sys
from pathlib import Path

from cachekey.ref import ENTRY_NAMES
from cachekey.scenario import argv_flags, make_scenario
from fixture_capture.provenance import code_sha256
# The capture code whose digest a capture records (code_sha256).
CAPTURE_CODE = Path(__file__).resolve().parent / "tpu"
REPO = Path(__file__).resolve().parents[2]


def fail(msg: str) -> None:
    sys.exit(f"tpu_fixtures: {msg}")


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def write(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def code_fields(prov: dict) -> dict:
    """Which code made a capture, and whether it is this checkout's.

    Captures made by ``fixture_capture.tpu`` record ``code``/``code_sha256``
    (the package directory and ``provenance.code_sha256`` of it); captures
    made by the earlier single file record ``script``/``script_sha256`` (that
    file's SHA-256; the file was tools/capture_tpu.py)."""
    here = code_sha256(str(CAPTURE_CODE))
    if "code_sha256" in prov:
        same = prov["code_sha256"] == here
        where = {"code": prov["code"]} if "code" in prov else {}
        return {**where, "code_sha256": prov["code_sha256"],
                "code_note": ("the same as tools/fixture_capture/tpu in this repository" if same else
                              "differs from tools/fixture_capture/tpu in this repository "
                              f"(code_sha256 {here})")}
    old = {"script": prov["script"]} if "script" in prov else {}
    return {**old, "script_sha256": prov["script_sha256"],
            "script_note": "the single-file capture script tools/capture_tpu.py, since replaced by "
                           "tools/fixture_capture/tpu"}


def libtpu_tag(versions: dict) -> str:
    return f"libtpu {versions['libtpu']} (jax {versions['jax']})"


# --------------------------------------------------------------- captures

def fixture_from_capture(cap: dict, fixture_id: str, source: Path) -> dict:
    if not cap.get("all_self_checks_passed"):
        fail(f"{source}: the capture's self-checks did not pass")
    if cap.get("number_of_get_calls") != 1 or not cap.get("compile_ok"):
        fail(f"{source}: expected one successful cache_key.get call")
    call = cap["calls"][0]
    prov = cap["provenance"]
    ver = prov["versions"]
    entries = call["entries"]
    if [e["name"] for e in entries] != ENTRY_NAMES:
        fail(f"{source}: unexpected entry names")
    include_metadata = bool(prov["config"]["jax_compilation_cache_include_metadata_in_key"])
    module = {"sym_name": call["sym_name"], "entry1_b64": entries[0]["bytes_b64"],
              "include_metadata": include_metadata}
    switch = call["switch"]
    if switch["name"] == "ignore_callbacks":
        module["ignore_callbacks"] = switch["value"]
    elif switch["name"] == "ignore_custom_partitioning":
        module["ignore_custom_partitioning"] = bool(switch["value"])
    else:
        fail(f"{source}: unknown switch {switch['name']}")

    topo = call["topology_for_devices"]
    topology_name = cap["topology"]
    if cap.get("synthetic_trigger"):
        infos = [r["message"] for r in call["log"] if r["level"] == "INFO"]
        marker = "falling back to hashing devices "
        first = infos[0].split(marker, 1)[1]
        error, error_type = first.rsplit(" (type ", 1)
        accelerator = {"device_kinds": [d["device_kind"] for d in call["devices"]],
                       "error": error, "error_type": error_type[:-1]}
    else:
        accelerator = {"fingerprint": {
            "value": topo["fingerprint_hex"],
            "provenance": (f"libtpu {ver['libtpu']}: get_topology_for_devices(devices).fingerprint() "
                           f"for the deviceless topology {topology_name} "
                           f"(jax {ver['jax']}, {prov['date'][:10]})"),
            "stand_in": False}}

    prefixes = call["flag_prefixes"]
    argv = argv_flags(call["argv"], prefixes)
    title = f"{cap['title']} (jax {ver['jax']}, libtpu {ver['libtpu']}"
    title += ", device_kind fallback forced)" if cap.get("synthetic_trigger") else ")"

    notes = []
    if cap.get("synthetic_trigger"):
        notes.append("Synthetic trigger: libtpu always describes the topology, so JAX never takes the "
                     "device_kind fallback for TPU devices by itself. " + cap["synthetic_trigger"] + ".")
    if include_metadata or (ver["jax"] == "0.10.2" and call["sym_name"] == "jit_pallas_add_one"):
        notes.append("This key depends on the capture code's path and line numbers "
                     f"({prov.get('code') or prov['script']}): they are in the hashed module.")
    if ver["jax"] == "0.10.2":
        notes.append("jax 0.10.2 leaves debug_options.xla_gpu_per_fusion_autotune_cache_dir "
                     f"({prov['config']['jax_compilation_cache_dir']}/xla_gpu_per_fusion_autotune_cache_dir) "
                     "in entry 5, so the cache directory is part of this key.")

    return make_scenario(
        id=fixture_id,
        title=title,
        profile=ver["jax"],
        module=module,
        jaxlib_version=call["jaxlib_version_str"],
        backend={"platform": call["backend"]["platform"],
                 "platform_version": call["backend"]["platform_version"]},
        xla_flags=call["env"]["XLA_FLAGS"],
        libtpu_init_args=call["env"]["LIBTPU_INIT_ARGS"],
        argv=argv, extra_prefixes=prefixes,
        compile_options_b64=call["compile_options_b64"],
        accelerator=accelerator,
        compression=call["compression_algorithm"],
        custom_hook=call["custom_hook"],
        provenance={
            "captured_on": "CPU-only machine, deviceless ahead-of-time compilation for a TPU topology "
                           "described by libtpu (no TPU attached)",
            "topology": topology_name,
            "python": ver["python"], "jax": ver["jax"], "jaxlib": ver["jaxlib"],
            "libtpu": ver["libtpu"], "numpy": ver["numpy"], "ml_dtypes": ver["ml_dtypes"],
            "zstandard": ver["zstandard"],
            "platform": ver["platform"],
            "date": prov["date"],
            "command": prov["command"],
            **code_fields(prov),
            "environment": prov["environment"],
            "config": prov["config"],
            "config_overrides": prov["config_overrides"],
            "compilation_cache_dir": prov["config"]["jax_compilation_cache_dir"],
            "how": prov["how"],
            "synthetic_trigger": cap.get("synthetic_trigger"),
            "capture_file": source.name,
            "notes": notes,
        },
        capture={
            "module_pretty": call["module_pretty_with_debug_info"],
            "module_generic": call["module_generic_with_debug_info"],
            "canonical_b64": call["canonical_ir_b64"],
            "metadata_b64": call["serialized_ir_with_metadata_b64"],
            "entry_bytes_b64": {e["name"]: e["bytes_b64"] for e in entries[1:]},
            "entry_chunks_b64": {e["name"]: e["chunks_b64"] for e in entries[1:]},
            "devices_shape": call["devices_shape"],
            "devices_passed": call["devices"],
            "backend_type": call["backend"]["type"],
            "topology_fingerprint_hex": topo.get("fingerprint_hex"),
            "topology_platform_version": topo.get("platform_version"),
            "topology_serialized_b64": topo.get("serialize_b64"),
            "topology_serialize_error": topo.get("serialize_error"),
            "debug_log_formatted": [r["formatted"] for r in call["log"]],
            "context_log_formatted": [r["formatted"] for r in cap["context_log"]],
            "compiled_text_sha256": cap.get("compiled_text_sha256"),
            "cache_files_written": prov["cache_files_written"],
            "self_checks": call["self_checks"],
        },
        expected={
            "key": cap["expected"]["key"],
            "entries": cap["expected"]["entries"],
            "trace": cap["expected"]["log_messages"],
        },
    )


def convert_captures(dirs: list[Path], out: Path) -> dict[str, str]:
    caps = []
    for d in dirs:
        for p in sorted(d.glob("*__jax*.json")):
            caps.append((p, load(p)))
    # The newest libtpu captured for each jax release gets the plain id.
    newest: dict[str, tuple] = {}
    for _, cap in caps:
        v = cap["provenance"]["versions"]
        lt = tuple(int(x) for x in v["libtpu"].split("."))
        newest[v["jax"]] = max(newest.get(v["jax"], lt), lt)
    ids: dict[str, str] = {}
    for p, cap in caps:
        v = cap["provenance"]["versions"]
        fid = f"{cap['id']}__{v['jax']}"
        if tuple(int(x) for x in v["libtpu"].split(".")) != newest[v["jax"]]:
            fid += f"__libtpu{v['libtpu']}"
        if fid in ids:
            fail(f"two captures for {fid}")
        ids[fid] = cap["calls"][0]["topology_for_devices"]["fingerprint_hex"]
        write(out / f"{fid}.json", fixture_from_capture(cap, fid, p))
    return ids


def fixture_fingerprints(out: Path) -> dict[str, str]:
    """Fixture id -> the fingerprint of the topology it was compiled for."""
    return {p.stem: load(p)["capture"]["topology_fingerprint_hex"] for p in sorted(out.glob("*.json"))}


# ------------------------------------------------------------- topologies

# Cloud TPU accelerator types (<prefix>-<TensorCores>) for the topologies
# that xpk lists (XPK_SOURCE); a label, not a measurement. v4 is left out:
# libtpu's default v4 chip config has 2 devices per chip, while Cloud TPU v4
# VMs run one device per chip (megacore), so the label would be ambiguous.
XPK_SOURCE = ("https://github.com/AI-Hypercomputer/xpk/blob/02b0c0928aeee28beee4b90f853073488d3893fb/"
              "src/xpk/core/system_characteristics.py")
XPK_TYPES = {
    "v5e": ("v5litepod", 1, ["2x4", "4x4", "4x8", "8x8", "8x16", "16x16"]),
    "v6e": ("v6e", 1, ["1x1", "2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"]),
    "v5p": ("v5p", 2, ["2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4"]),
    "TPU7x": ("tpu7x", 2, ["1x1x1", "2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4"]),
}


def kw_text(kwargs: dict) -> str:
    return " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v, separators=(',', ':'))}"
                    for k, v in kwargs.items())


def probe_label(t: dict) -> str:
    return t["name"] + (" " + kw_text(t["kwargs"]) if t["kwargs"] else "")


def convert_topologies(paths: list[Path], fixtures: dict[str, str]) -> dict:
    runs = sorted((load(p) for p in paths),
                  key=lambda r: tuple(int(x) for x in r["versions"]["libtpu"].split(".")))
    builds = []
    for r in runs:
        v = r["versions"]
        builds.append({"libtpu": v["libtpu"], "jax": v["jax"], "jaxlib": v["jaxlib"],
                       "python": v["python"], "date": r["date"], "command": r["command"],
                       **code_fields(r),
                       "environment": r["environment"], "api": r["api"], "entry6_how": r["entry6_how"]})
    # Group every accepted probe by its fingerprint: one group is one
    # topology as entry 6 sees it; the other spellings are aliases.
    groups: dict[str, dict] = {}
    order: list[str] = []
    refused: dict[str, dict] = {}
    for r in runs:
        lt = r["versions"]["libtpu"]
        for t in r["topologies"]:
            label = probe_label(t)
            if not t["accepted"]:
                refused.setdefault(label, {"name": t["name"], "kwargs": t["kwargs"],
                                           "generation": t["generation"], "by": {}})
                refused[label]["by"][lt] = f"{t['error']['type']}: {t['error']['message']}"
                continue
            if not t["entry6_equals_fingerprint_8_bytes_big_endian"]:
                fail(f"{label}: entry-6 bytes are not the fingerprint")
            fp = t["fingerprint_hex"]
            if t["fingerprint_first_device_only_hex"] != fp:
                fail(f"{label}: the fingerprint depends on the devices passed")
            g = groups.get(fp)
            if g is None:
                g = groups[fp] = {"probes": {}, "device_count": t["device_count"],
                                  "device_kind": t["device_kind"], "generation": t["generation"],
                                  "platform_versions": {}, "process_indices": t["process_indices"]}
                order.append(fp)
            if (t["device_count"], t["device_kind"]) != (g["device_count"], g["device_kind"]):
                fail(f"{label}: device count or kind differs from another spelling with fingerprint {fp}")
            if t["process_indices"] != g["process_indices"]:
                fail(f"{label}: process indices differ from another spelling with fingerprint {fp}")
            pv = t["client_platform_version"]
            if t["topology_platform_version"] != pv:
                fail(f"{label}: client and topology platform_version differ")
            if g["platform_versions"].setdefault(lt, pv) != pv:
                fail(f"{label}: two platform_versions under libtpu {lt}")
            g["probes"].setdefault(label, {"name": t["name"], "kwargs": t["kwargs"], "accepted_by": []})
            g["probes"][label]["accepted_by"].append(lt)
    # A name refused by one libtpu but accepted by another is recorded on the
    # topology, not among the refusals.
    accepted_labels = {lab for g in groups.values() for lab in g["probes"]}
    all_lt = [r["versions"]["libtpu"] for r in runs]

    # Which fixture used which topology (by fingerprint).
    used: dict[str, list[str]] = {}
    topologies = []
    for fp in order:
        g = groups[fp]
        probes = list(g["probes"].values())
        # The name: the first plain "<generation>:<size>" spelling accepted
        # by every libtpu, else the first plain one, else the first.
        plain = [p for p in probes if not p["kwargs"] and p["name"]]
        everywhere = [p for p in plain if len(p["accepted_by"]) == len(all_lt)]
        main = (everywhere or plain or probes)[0]
        tid = probe_label(main)
        how = {}
        for lt in all_lt:
            acc = [p for p in probes if lt in p["accepted_by"]]
            if not acc:
                how[lt] = None
            else:
                pick = next((p for p in acc if p is main), acc[0])
                how[lt] = {"name": pick["name"], "kwargs": pick["kwargs"]}
        refused_by = {}
        for lt in all_lt:
            if how[lt] is None or how[lt]["name"] != main["name"] or how[lt]["kwargs"] != main["kwargs"]:
                r = refused.get(tid, {}).get("by", {}).get(lt)
                if r:
                    refused_by[lt] = r
        size = main["name"].split(":", 1)[1] if ":" in main["name"] else ""
        chips = 1
        for d in size.split("x"):
            chips *= int(d) if d.isdigit() else 1
        entry = {
            "id": tid,
            "name": main["name"],
            "kwargs": main["kwargs"],
            "generation": g["generation"],
            "device_kind": g["device_kind"],
            "devices": g["device_count"],
            "processes": len(g["process_indices"]),
            "fingerprint": {
                "value": fp,
                "stand_in": False,
                "provenance": ("libtpu " + ", ".join(lt for lt in all_lt if how[lt]) +
                               f": DeviceTopology.fingerprint() of the deviceless topology {tid} "
                               "(jax.experimental.topologies.get_topology_desc), the same value under each"),
            },
            "platform_versions": [{"libtpu": lt, "jax": next(b["jax"] for b in builds if b["libtpu"] == lt),
                                   "value": g["platform_versions"][lt]} for lt in all_lt if how[lt]],
            "requested_as": {lt: how[lt] for lt in all_lt if how[lt]},
            "aliases": [probe_label(p) for p in probes if p is not main],
        }
        if refused_by:
            entry["refused_by"] = refused_by
        xpk = XPK_TYPES.get(g["generation"])
        if not main["kwargs"] and xpk and size in xpk[2]:
            entry["cloud_name"] = f"{xpk[0]}-{chips * xpk[1]}"
        topologies.append(entry)
    gens = ["v2", "v3", "v4", "v4 lite", "v5e", "v5p", "v6e", "TPU7x"]
    topologies.sort(key=lambda t: (gens.index(t["generation"]) if t["generation"] in gens else len(gens),
                                   bool(t["kwargs"]), t["devices"], t["processes"], t["id"]))
    refusals = [{"name": r["name"], "kwargs": r["kwargs"], "generation": r["generation"], "by": r["by"]}
                for lab, r in refused.items() if lab not in accepted_labels]
    for fid, fp in fixtures.items():
        used.setdefault(fp, []).append(fid)
    for t in topologies:
        t["fixtures"] = sorted(used.get(t["fingerprint"]["value"], []))
    return {
        "schema": 2,
        "what": ("TPU topologies as libtpu describes them for deviceless (ahead-of-time) compilation on a "
                 "machine without a TPU: for each, the 64-bit fingerprint that entry 6 "
                 "(accelerator_config) hashes as 8 big-endian bytes, and the platform_version that entry 3 "
                 "hashes, per libtpu build. Real values, measured; nothing here is a stand-in. "
                 "See fixtures/tpu_topologies.md."),
        "written_by": "tools/fixture_capture/tpu_fixtures.py from fixture_capture.tpu output",
        "libtpu_builds": builds,
        "how_to_get_yours": ("python -c \"import jax; from jax._src.lib import xla_client as xc; "
                             "print(format(xc.get_topology_for_devices(jax.devices()).fingerprint(), '016x')); "
                             "print(repr(jax.devices()[0].client.platform_version))\""),
        "cloud_name_rule": ("cloud_name is a label, not a measurement: the Cloud TPU accelerator type "
                            "that xpk lists for this generation and topology (<prefix>-<TensorCores>). "
                            "Whether a Cloud TPU VM of that type reports this fingerprint was not checked "
                            "(no TPU was used)."),
        "cloud_name_source": XPK_SOURCE,
        "topologies": topologies,
        "refused": refusals,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--captures", action="append", type=Path, required=True)
    ap.add_argument("--topologies", action="append", type=Path, required=True)
    ap.add_argument("--fixtures", type=Path, default=REPO / "fixtures")
    ns = ap.parse_args()
    ids = convert_captures(ns.captures, ns.fixtures / "tpu")
    all_ids = fixture_fingerprints(ns.fixtures / "tpu")
    write(ns.fixtures / "tpu_topologies.json", convert_topologies(ns.topologies, all_ids))
    print(f"{len(ids)} TPU fixtures written to {ns.fixtures / 'tpu'}; topologies in "
          f"{ns.fixtures / 'tpu_topologies.json'}")
    kept = sorted(set(all_ids) - set(ids))
    if kept:
        print(f"kept, not in these captures: {', '.join(kept)}")


if __name__ == "__main__":
    main()
