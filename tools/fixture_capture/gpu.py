"""Real GPU values on a CPU-only machine: the CUDA plugin's compile-only
client measures the GPU topologies and compiles the GPU fixtures.

    python -m fixture_capture.gpu --fixtures DIR [--only-topologies] [--programs a,b]

Run in a venv with jax, jaxlib, jax-cuda12-plugin / jax-cuda12-pjrt and
nvidia-cuda-nvcc-cu12 (``tools/capture-gpu`` builds it with
tests/oracle/venvs.py); ``JAX_PLATFORMS=cpu``, no GPU, no CUDA driver.

Topologies (``DIR/gpu_topologies.json``).  For each NVIDIA target config the
plugin embeds (tests/oracle/gpu.py ``NVIDIA_TARGETS``, text read from the
plugin library) and each shape of ``gpu.SHAPES``, the plugin's
``get_topology_desc(platform="cuda", target_config=TEXT, topology=SHAPE)``:
device count, process count, device_kind, platform, platform_version,
runtime_type and ``get_topology_for_devices(devices).fingerprint()``.  The
fingerprint of the compile-only client depends on the target config and on
the compiling host (the client writes the host's LLVM triple and CPU name
into the topology), so the table records the host CPU model, that triple and
CPU name (``gpu.host_target``) and the plugin release as provenance, and every value carries the label
"compile-only GPU client, host CPU X".

Fixtures (``DIR/gpu/<id>__<jax>.json``).  Each program of ``PROGRAMS`` is
compiled by ``fixture_capture/gpu_program.py`` running under
``python -m cachekey.capture`` (the repository's python/ package) with a
fresh persistent-cache directory, so real JAX computes the key, logs the
trace and writes the entry; the capture's scenario (real key, entries,
running digests, trace, the bytes of every entry, entry 6 as the plugin's
fingerprint) becomes the fixture, with an id, a title and the provenance
added.  Nothing under ``expected`` is computed here.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))

import gpu  # noqa: E402  (tests/oracle/gpu.py)

from fixture_capture.provenance import utc_now, versions, write_json  # noqa: E402

H100 = "NVIDIA H100 80GB HBM3"
CACHE_ROOT = os.path.join(tempfile.gettempdir(), "cachekey-gpu-capture")

# id -> (title, spec for gpu_program.py).  Device lists index the topology's
# devices; "all" uses topologies.make_mesh.
PROGRAMS = {
    "add_h100_1x1x1": ("x + y on one H100 (1x1x1)",
                       {"target": H100, "shape": "1x1x1", "program": "add", "devices": "all"}),
    "add_a100_1x1x1": ("x + y on one A100-SXM4-80GB (1x1x1)",
                       {"target": "NVIDIA A100-SXM4-80GB", "shape": "1x1x1", "program": "add", "devices": "all"}),
    "add_b200_1x1x1": ("x + y on one B200 (1x1x1)",
                       {"target": "NVIDIA B200", "shape": "1x1x1", "program": "add", "devices": "all"}),
    "add_v100_1x1x1": ("x + y on one V100 (1x1x1)",
                       {"target": "Tesla V100-SXM2-16GB", "shape": "1x1x1", "program": "add", "devices": "all"}),
    "add_h100_1x1x8_dev0": ("x + y on device 0 of an 8-GPU H100 host (1x1x8)",
                            {"target": H100, "shape": "1x1x8", "program": "add", "devices": [0]}),
    "add_h100_1x1x8_dev3": ("x + y on device 3 of an 8-GPU H100 host (1x1x8)",
                            {"target": H100, "shape": "1x1x8", "program": "add", "devices": [3]}),
    "sum_h100_1x1x1_mesh1": ("sum(x * x), mesh (1,) on one H100 (upstream aot_test's program)",
                             {"target": H100, "shape": "1x1x1", "program": "sum", "devices": "all", "mesh": [1]}),
    "sum_h100_1x1x8_mesh8": ("sum(x * x), x sharded over a mesh of 8 H100s (1x1x8)",
                             {"target": H100, "shape": "1x1x8", "program": "sum", "devices": "all", "mesh": [8]}),
    "matmul_h100_1x1x8_mesh2x4": ("tanh(x @ w), mesh 2x4 of 8 H100s (1x1x8, make_mesh)",
                                  {"target": H100, "shape": "1x1x8", "program": "matmul", "devices": "all",
                                   "mesh": [2, 4]}),
    "matmul_h100_1x1x8_reversed": ("tanh(x @ w), mesh 2x4 of the 8 H100s in reverse order (1x1x8)",
                                   {"target": H100, "shape": "1x1x8", "program": "matmul",
                                    "devices": [7, 6, 5, 4, 3, 2, 1, 0], "mesh": [2, 4]}),
    "matmul_h100_1x1x8_dev4to7": ("tanh(x @ w), mesh 2x2 of H100 devices 4-7 (1x1x8)",
                                  {"target": H100, "shape": "1x1x8", "program": "matmul",
                                   "devices": [4, 5, 6, 7], "mesh": [2, 2]}),
    "matmul_h100_1x1x8_dev0to3": ("tanh(x @ w), mesh 2x2 of H100 devices 0-3 (1x1x8)",
                                  {"target": H100, "shape": "1x1x8", "program": "matmul",
                                   "devices": [0, 1, 2, 3], "mesh": [2, 2]}),
    "matmul_h100_1x2x8_mesh4x4": ("tanh(x @ w), mesh 4x4 of 16 H100s on 2 hosts (1x2x8)",
                                  {"target": H100, "shape": "1x2x8", "program": "matmul", "devices": "all",
                                   "mesh": [4, 4]}),
    "matmul_a100_1x1x8_mesh2x4": ("tanh(x @ w), mesh 2x4 of 8 A100-SXM4-80GB (1x1x8)",
                                  {"target": "NVIDIA A100-SXM4-80GB", "shape": "1x1x8", "program": "matmul",
                                   "devices": "all", "mesh": [2, 4]}),
    "matmul_gb200_1x1x8_mesh2x4": ("tanh(x @ w), mesh 2x4 of 8 GB200 (1x1x8)",
                                   {"target": "NVIDIA GB200", "shape": "1x1x8", "program": "matmul",
                                    "devices": "all", "mesh": [2, 4]}),
    "pallas_triton_h100_1x1x1": ("Pallas add-one kernel (Triton backend) on one H100 (1x1x1)",
                                 {"target": H100, "shape": "1x1x1", "program": "pallas", "devices": "all"}),
}


def measure_topologies(command: str) -> dict:
    """The gpu_topologies.json document (schema 1) measured now."""
    import jax
    import jaxlib
    from jax.experimental import topologies
    from jax._src.lib import xla_client
    specs = gpu.embedded_target_configs()
    cpu = gpu.host_cpu()
    plugin = gpu.plugin_version()
    probe = gpu.describe(topologies, xla_client, specs[gpu.NVIDIA_TARGETS[0]], gpu.SHAPES[0])
    target = gpu.host_target(xla_client, probe["devices"])
    cpu = f"{cpu} (LLVM {target['cpu']}, {target['triple']})"
    label = gpu.client_label(cpu)
    doc = {
        "schema": 1,
        "comment": ("GPU topologies measured with the CUDA plugin's compile-only client on a CPU-only "
                    "machine (no GPU, no CUDA driver): jax.experimental.topologies.get_topology_desc("
                    "platform='cuda', target_config=TEXT, topology=SHAPE), TEXT the GpuTargetConfigProto "
                    "the plugin library embeds (named by its device_description_str, sha256 of its text "
                    "below). The fingerprint is get_topology_for_devices(devices).fingerprint(); it "
                    "depends on the target config and on the compiling host (the client writes the host's "
                    "LLVM triple and CPU name, host_target below, into the topology), so it holds for the "
                    "host below. A process on a real GPU reports another platform_version "
                    "(expected 'cuda <runtime version>', unverified) and its entry 6 has not been "
                    "compared with a device. Written by tools/capture-gpu."),
        "label": label,
        "provenance": {
            "host_cpu": gpu.host_cpu(), "host_target": target, "jax": jax.__version__, "jaxlib": jaxlib.__version__,
            "cuda_plugin": plugin, "command": command, "date": utc_now(), **{
                k: v for k, v in versions().items() if k in ("python", "platform")},
        },
        "target_configs": [],
        "topologies": [],
    }
    for name in gpu.NVIDIA_TARGETS:
        text = specs[name]
        doc["target_configs"].append({"name": name, "sha256": gpu.spec_sha256(text), "bytes": len(text.encode())})
        for shape in gpu.SHAPES:
            live = gpu.describe(topologies, xla_client, text, shape)
            kinds = live["device_kinds"]
            doc["topologies"].append({
                "id": gpu.topology_id(name, shape), "target_config": name, "shape": shape,
                "devices": len(live["devices"]), "processes": live["processes"],
                "device_kind": kinds[0] if len(kinds) == 1 else kinds,
                "platform": live["platform"], "platform_version": live["platform_version"],
                "runtime_type": live["runtime_type"],
                "fingerprint": {"value": f"{live['fingerprint']:016x}",
                                "provenance": f"{label}: jax-cuda12-plugin {plugin}, {name} {shape}",
                                "stand_in": False},
            })
    return doc


def capture_program(fid: str, title: str, spec: dict, out_dir: str, command: str, label: str) -> dict:
    """Compiles one program under cachekey.capture; returns the fixture
    (``label``: the table's "compile-only GPU client, host CPU X")."""
    import jax
    # One fixed, emptied cache directory for every program: JAX puts paths
    # under it in DebugOptions (excluded from the key), so the captured
    # compile options of two programs differ only where the programs do.
    work = CACHE_ROOT
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cache = os.path.join(work, "cache")
    trace_file = os.path.join(work, "trace.json")
    cap = os.path.join(work, "capture")
    # Every compilation writes its entry (the defaults skip those under 1 s);
    # neither setting is part of the key.
    env = dict(os.environ, JAX_PLATFORMS="cpu", JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0",
               JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="-1", CACHEKEY_GPU_TRACE=trace_file,
               PYTHONPATH=os.pathsep.join([os.path.join(REPO, "python"), os.path.join(REPO, "tools")]))
    env.pop("XLA_FLAGS", None)
    proc = subprocess.run([sys.executable, "-m", "cachekey.capture", "--out", cap, "--cache-dir", cache, "--",
                           os.path.join(HERE, "gpu_program.py"), json.dumps(spec)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{fid}: the capture failed:\n{proc.stderr.decode('utf-8', 'replace')[-3000:]}")
    index = json.load(open(os.path.join(cap, "index.json"), encoding="utf-8"))
    if len(index["programs"]) != 1:
        raise RuntimeError(f"{fid}: {len(index['programs'])} programs captured, expected 1")
    row = index["programs"][0]
    if row["outcome"] != "written":
        raise RuntimeError(f"{fid}: outcome {row['outcome']!r}, expected a written entry")
    with open(os.path.join(cap, row["file"]), encoding="utf-8") as f:
        doc = json.load(f)
    # The trace: the jax._src.cache_key DEBUG records of this compilation,
    # as real JAX logged them (gpu_program.py keeps them).
    with open(trace_file, encoding="utf-8") as f:
        doc["expected"]["trace"] = json.load(f)
    if "fingerprint" not in doc["accelerator"]:
        raise RuntimeError(f"{fid}: the capture's entry 6 is {list(doc['accelerator'])}, not a fingerprint")
    if glob.glob(os.path.join(cap, "*.entry1*")):
        raise RuntimeError(f"{fid}: entry 1 went to a sidecar; the fixtures keep it inline")
    cpu = label.split("host CPU ", 1)[1]
    plugin = gpu.plugin_version()
    fixture_id = f"{fid}__{jax.__version__}"
    doc["id"] = fixture_id
    doc["title"] = f"{title} (jax {jax.__version__}, {label})"
    doc["accelerator"]["fingerprint"]["provenance"] = (
        f"{label}: jax-cuda12-plugin {plugin}, get_topology_for_devices(devices).fingerprint() of the "
        f"deviceless topology {gpu.topology_id(spec['target'], spec['shape'])}, fed by real JAX")
    doc["provenance"] = {
        "label": label,
        "captured_on": (f"CPU-only machine (host CPU {cpu}); deviceless ahead-of-time compilation by the "
                        f"CUDA plugin's compile-only client (no GPU, no CUDA driver)"),
        "topology": gpu.topology_id(spec["target"], spec["shape"]),
        "program_spec": spec,
        "cuda_plugin": plugin,
        **versions(),
        "date": utc_now(),
        "command": command,
        "how": ("fixture_capture/gpu_program.py under python -m cachekey.capture with a fresh "
                "persistent-cache directory (JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0, "
                "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=-1): jax.jit(...).lower(ShapeDtypeStruct inputs with GPU "
                "shardings).compile(); ptxas from nvidia-cuda-nvcc-cu12; the entry was written"),
        "compiled_devices": json.loads(proc.stdout.decode().strip().splitlines()[-1])["devices"],
        "not_verified": ("a process on a real GPU reports another platform_version (expected 'cuda "
                         "<runtime version>', unverified); entry 6 has not been compared with a device"),
    }
    os.makedirs(out_dir, exist_ok=True)
    text = doc["capture"].get("module_text") or {}
    if text.get("storage") == "sidecar":
        shutil.copyfile(os.path.join(cap, text["file"]), os.path.join(out_dir, fixture_id + ".mlir"))
        text["file"] = fixture_id + ".mlir"
    shutil.rmtree(work, ignore_errors=True)
    write_json(os.path.join(out_dir, fixture_id + ".json"), doc)
    return doc


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="GPU topologies and fixtures from the CUDA plugin")
    parser.add_argument("--fixtures", default=os.path.join(REPO, "fixtures"))
    parser.add_argument("--only-topologies", action="store_true")
    parser.add_argument("--programs", help="comma-separated ids of PROGRAMS (default all)")
    args = parser.parse_args(argv)
    os.environ["JAX_PLATFORMS"] = "cpu"
    command = "tools/capture-gpu " + " ".join(argv if argv is not None else sys.argv[1:])
    table = measure_topologies(command.strip())
    write_json(os.path.join(args.fixtures, "gpu_topologies.json"), table)
    print(f"capture-gpu: {len(table['topologies'])} topologies of {len(table['target_configs'])} target "
          f"configs -> {os.path.join(args.fixtures, 'gpu_topologies.json')}")
    if args.only_topologies:
        return 0
    wanted = args.programs.split(",") if args.programs else list(PROGRAMS)
    out_dir = os.path.join(args.fixtures, "gpu")
    for fid in wanted:
        title, spec = PROGRAMS[fid]
        doc = capture_program(fid, title, spec, out_dir, command.strip(), table["label"])
        print(f"capture-gpu: {doc['id']}: {doc['expected']['key']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
