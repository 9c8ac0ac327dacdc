"""The GPU side of the oracle (``tools/oracle --gpu``): real deviceless GPU
topologies from the CUDA plugin's compile-only client, in a venv that has
the plugin (``venvs.ensure(version, cuda=...)``), with ``JAX_PLATFORMS=cpu``.
No GPU and no CUDA driver are needed.

The target configs.  ``jax.experimental.topologies.get_topology_desc(
platform="cuda", target_config=TEXT, topology="1x1x1")`` (as upstream
tests/aot_test.py test_deviceless_aot_compile does) takes ``TEXT``, a
``stream_executor.GpuTargetConfigProto`` in text format.  The plugin library
(``jax_plugins/xla_cuda12/xla_cuda_plugin.so``) embeds XLA's GPU specs
(xla/backends/gpu/target_config/specs/*.txtpb) as NUL-terminated strings;
``embedded_target_configs`` reads them from the library file itself (each
string around a ``gpu_device_info {`` field, named by its
``device_description_str``), so the oracle and the capture tool use exactly
the text the installed plugin ships.  ``NVIDIA_TARGETS`` are the 17 NVIDIA
ones the topology table covers; the plugin also embeds AMD and Intel specs,
which its CUDA client accepts too but which a CUDA user never compiles for.

``GpuSide`` gives the harness (``realjax.RealJax``), for a GPU recipe
(``generator.make_gpu_recipe``), what real JAX passes to
``jax._src.cache_key.get`` when compiling ahead of time for a GPU, read from
the plugin, never computed:

* **devices**: ``get_topology_desc(...).devices`` of one of the topologies of
  ``fixtures/gpu_topologies.json``, picked and laid out as the recipe says
  (``tpu.TpuSide.pick``, ``tpu.layout_shape``);
* **backend**: the topology's client (platform ``gpu``, platform_version the
  target config's ``device_description_str``, runtime_type
  ``compile_only_runtime``), or a wrapper with the recipe's platform string;
* **entry 6**: the engine gets ``get_topology_for_devices(devices)
  .fingerprint()`` of the plugin, and the harness checks that real JAX fed
  exactly those 8 big-endian bytes;
* **compile options**: on platform ``gpu`` JAX strips the device assignment
  before hashing (cache_key.py ``_hash_serialized_compile_options``), so the
  recipes' device assignments of GPU ids exercise that path; ``gpu_add`` /
  ``gpu_matmul`` lower a real ``jax.jit`` program for the topology and take
  the ``CompileOptions`` JAX built (``tpu.TpuSide.jit_call``; nothing is
  compiled).

``check_fixture_topologies`` compares every topology of the table with the
plugin now: devices, processes, device_kind, platform_version, runtime_type,
the target config's sha256, and the fingerprint when this host is the one
the table was measured on (CPU model, LLVM triple and CPU name: the
compile-only client writes the host's triple and LLVM CPU name into the
topology, so its fingerprint depends on the host; on another host the
fingerprint is reported as not comparable, not as a failure).
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re

from tpu import TpuSide, _Stop  # noqa: F401 - _Stop re-exported for symmetry

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOPOLOGIES_FILE = os.path.join(REPO, "fixtures", "gpu_topologies.json")

# The NVIDIA target configs the CUDA plugin 0.12.0.1 embeds (by their
# device_description_str), in the order the library holds them.
NVIDIA_TARGETS = [
    "NVIDIA VR NVL72", "Tesla V100-SXM2-16GB", "NVIDIA RTX PRO 6000 Blackwell", "Tesla P100-SXM2-16GB",
    "NVIDIA H200 141GB HBM3e", "NVIDIA H100 80GB HBM3 MIG 1g.10gb", "NVIDIA H100 80GB HBM3",
    "NVIDIA H100 PCIe", "NVIDIA GB300", "NVIDIA GB200", "NVIDIA B300", "NVIDIA B200 MIG 1g.23gb",
    "NVIDIA B200", "NVIDIA RTX A6000", "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB",
    "NVIDIA A100 80GB PCIe",
]
SHAPES = ["1x1x1", "1x1x8", "1x2x8", "1x2x1"]


def plugin_library() -> str:
    """Path of the installed CUDA plugin's PJRT library (raises ImportError
    when ``jax-cuda12-pjrt`` is not installed)."""
    import jax_plugins.xla_cuda12 as plugin
    return os.path.join(os.path.dirname(plugin.__file__), "xla_cuda_plugin.so")


def plugin_version() -> str | None:
    """The installed ``jax-cuda12-plugin`` version, or None."""
    from importlib import metadata
    try:
        return metadata.version("jax-cuda12-plugin")
    except metadata.PackageNotFoundError:
        return None


def embedded_target_configs(library: str | None = None) -> dict[str, str]:
    """{device_description_str: GpuTargetConfigProto text} of every spec
    embedded in the plugin library ``library`` (default: the installed one),
    in the order they appear in the file.  A spec is the NUL-terminated
    string around a ``gpu_device_info {`` field.  Raises RuntimeError when
    the library holds none (a plugin built without the specs)."""
    path = library or plugin_library()
    out: dict[str, str] = {}
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        at = 0
        while True:
            hit = m.find(b"gpu_device_info {", at)
            if hit < 0:
                break
            start = m.rfind(b"\0", 0, hit) + 1
            end = m.find(b"\0", hit)
            text = m[start:end].decode("utf-8", "replace")
            at = end
            name = re.search(r'device_description_str: "([^"]*)"', text)
            if name and name.group(1) not in out:
                out[name.group(1)] = text
    if not out:
        raise RuntimeError(f"{path} embeds no GpuTargetConfigProto text (no 'gpu_device_info {{' string)")
    return out


def spec_sha256(text: str) -> str:
    """SHA-256 (hex) of a target config's UTF-8 text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def host_cpu() -> str:
    """The compiling host's CPU: ``model name`` of /proc/cpuinfo."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or "unknown"


def host_target(xla_client, devices) -> dict:
    """{"triple", "cpu"}: the compiling host's LLVM target triple and CPU
    name as the compile-only client records them in the topology
    (``get_topology_for_devices(devices).serialize()`` holds both, e.g.
    ``x86_64-unknown-linux-gnu`` and ``znver4``; they are why the
    fingerprint depends on the host).  Read as the printable strings of the
    serialized proto: the triple is the one naming ``linux``, the CPU the
    string after it.  Values None when not found."""
    data = bytes(xla_client.get_topology_for_devices(list(devices)).serialize())
    strings = [m.decode("ascii") for m in re.findall(rb"[\x21-\x7e]{3,}", data)]
    for i, text in enumerate(strings):
        if re.fullmatch(r"[a-z0-9_]+-[a-z0-9_]+-linux(-[a-z0-9_]+)?", text):
            return {"triple": text, "cpu": strings[i + 1] if i + 1 < len(strings) else None}
    return {"triple": None, "cpu": None}


def client_label(cpu: str) -> str:
    """The label every GPU value carries: where it was measured."""
    return f"compile-only GPU client, host CPU {cpu}"


def topology_id(target: str, shape: str) -> str:
    """The table's id of a topology: ``<device_description_str>/<shape>``."""
    return f"{target}/{shape}"


def load_table(path: str = TOPOLOGIES_FILE) -> dict:
    """fixtures/gpu_topologies.json."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def describe(topologies_api, xla_client, spec: str, shape: str) -> dict:
    """The plugin's values for one topology: {desc, devices, client,
    fingerprint (int), platform, platform_version, runtime_type,
    device_kinds, processes}."""
    desc = topologies_api.get_topology_desc(platform="cuda", target_config=spec, topology=shape)
    devices = list(desc.devices)
    client = devices[0].client
    return {
        "desc": desc, "devices": devices, "client": client,
        "fingerprint": int(xla_client.get_topology_for_devices(devices).fingerprint()),
        "platform": client.platform, "platform_version": client.platform_version,
        "runtime_type": getattr(client, "runtime_type", None),
        "device_kinds": sorted({d.device_kind for d in devices}),
        "processes": len({d.process_index for d in devices}),
    }


class GpuSide(TpuSide):
    """Real deviceless GPU topologies for the harness (created once).  The
    picking, the backend wrapper and the jit calls are TpuSide's."""

    def __init__(self, harness):  # noqa: D107 - TpuSide's __init__ needs libtpu; not called
        self.h = harness
        self.cuda_plugin = plugin_version()
        if self.cuda_plugin is None:
            raise RuntimeError("jax-cuda12-plugin is not installed in this venv: run the GPU oracle "
                               "through tools/oracle --gpu, which builds a venv with it")
        from jax.experimental import topologies
        self.topologies_api = topologies
        self.table = load_table()
        self.fixture = {t["id"]: t for t in self.table["topologies"]}
        self.specs = embedded_target_configs()
        self.host_cpu = host_cpu()
        self._topos: dict = {}
        self._jit: dict = {}
        self._usable = None
        first = self.topology(next(iter(self.fixture)))
        self.host_target = host_target(self.h.xla_client, first["devices"])
        self.label = client_label(f"{self.host_cpu} (LLVM {self.host_target['cpu']}, {self.host_target['triple']})")
        recorded = self.table["provenance"].get("host_target")
        self.same_host = self.host_cpu == self.table["provenance"]["host_cpu"] and (
            recorded is None or recorded == self.host_target)

    def recorded_refusal(self, topology_id: str):
        return None

    def topology(self, topology_id: str) -> dict:
        """The live topology of ``topology_id``."""
        if topology_id in self._topos:
            return self._topos[topology_id]
        t = self.fixture[topology_id]
        out = describe(self.topologies_api, self.h.xla_client, self.specs[t["target_config"]], t["shape"])
        out.update(id=topology_id, name=t["target_config"], kwargs={"topology": t["shape"]})
        self._topos[topology_id] = out
        return out

    def check_fixture_topologies(self) -> tuple[int, list[tuple[str, list[str]]]]:
        """(count, [(id, problems)]): every committed topology against the plugin now."""
        bad = []
        same_host = self.same_host
        configs = {c["name"]: c for c in self.table["target_configs"]}
        for tid, t in self.fixture.items():
            problems = []
            spec = self.specs.get(t["target_config"])
            if spec is None:
                bad.append((tid, [f"the plugin {self.cuda_plugin} embeds no target config {t['target_config']!r}"]))
                continue
            if spec_sha256(spec) != configs[t["target_config"]]["sha256"]:
                problems.append(f"target config text: table sha256 {configs[t['target_config']]['sha256']}, "
                                f"plugin {self.cuda_plugin} {spec_sha256(spec)}")
            live = self.topology(tid)
            if same_host and f"{live['fingerprint']:016x}" != t["fingerprint"]["value"]:
                problems.append(f"fingerprint: table {t['fingerprint']['value']}, plugin {live['fingerprint']:016x}")
            for field, have in (("devices", len(live["devices"])), ("processes", live["processes"]),
                                ("device_kind", live["device_kinds"][0] if len(live["device_kinds"]) == 1
                                 else live["device_kinds"]),
                                ("platform", live["platform"]), ("platform_version", live["platform_version"]),
                                ("runtime_type", live["runtime_type"])):
                if have != t[field]:
                    problems.append(f"{field}: table {t[field]!r}, plugin {have!r}")
            if problems:
                bad.append((tid, problems))
        return len(self.fixture), bad

    def jit_call(self, topology_id: str, program: str, picked: list) -> dict:
        """TpuSide.jit_call for ``gpu_add`` / ``gpu_matmul`` (the same programs)."""
        return super().jit_call(topology_id, program.replace("gpu_", "tpu_", 1), picked)

    def fingerprint_scenario(self, devices, topo: dict) -> tuple[dict, int]:
        """(engine accelerator object, fingerprint) of the devices passed to get."""
        fp = int(self.h.xla_client.get_topology_for_devices(list(devices.flat)).fingerprint())
        return {"fingerprint": {
            "value": f"{fp:016x}",
            "provenance": f"{self.label}: jax-cuda12-plugin {self.cuda_plugin} "
                          f"get_topology_for_devices(devices).fingerprint() of {devices.size} device(s) of "
                          f"the deviceless topology {topo['id']}",
            "stand_in": False}}, fp
