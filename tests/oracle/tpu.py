"""The TPU side of the oracle (``tools/oracle --tpu``): real deviceless TPU
topologies from libtpu, in a venv that has it, with ``JAX_PLATFORMS=cpu``.

``TpuSide`` is attached to a ``realjax.RealJax`` harness.  It gives that
harness, for a TPU recipe (``generator.make_tpu_recipe``), everything real
JAX would pass to ``jax._src.cache_key.get`` when compiling ahead of time for
a TPU, all of it read from libtpu, never computed:

* **devices**: ``jax.experimental.topologies.get_topology_desc(name, "tpu",
  **kwargs).devices`` of one of the topologies in
  ``fixtures/tpu_topologies.json`` (requested as that file says this libtpu
  build accepts it), picked and laid out as the recipe says;
* **backend**: the topology's own client (a ``CompileOnlyPyClient``: platform
  ``tpu``, libtpu's ``platform_version`` and ``runtime_type``), or a thin
  wrapper that keeps the client's ``platform_version`` and ``runtime_type``
  and takes the recipe's ``platform`` string (``gpu`` there makes JAX strip
  the device assignment, whatever the devices are);
* **entry 6**: the engine gets the value of
  ``xla_client.get_topology_for_devices(devices).fingerprint()`` (libtpu's),
  and the harness checks that real JAX fed exactly those 8 big-endian bytes;
  in the fallback the engine gets each device's real ``device_kind``;
* **jit calls**: ``module.program`` ``tpu_add`` / ``tpu_matmul`` lower a real
  ``jax.jit`` program for the topology (``ShapeDtypeStruct`` inputs with a
  ``SingleDeviceSharding`` / a ``NamedSharding`` over a mesh of its devices)
  and call ``.compile()`` with ``jax._src.compiler.compile_or_get_cached``
  replaced by a function that records its arguments and stops: the module,
  the device array and the ``CompileOptions`` JAX built for the TPU (device
  assignment of TPU device ids, not renumbered) are what ``cache_key.get``
  would have been given.  Nothing is compiled.

``check_fixture_topologies`` compares, for every topology of
``fixtures/tpu_topologies.json``, the committed device count, device_kind,
process count, fingerprint and (when recorded for this libtpu build)
platform_version with what libtpu says now; a refusal the file recorded for
this build must be the same refusal.  Recipes draw only from the topologies
this libtpu accepts (``usable_ids``), so case ``n`` of seed ``S`` depends on
``(S, n)`` and that list.
"""

from __future__ import annotations

import json
import os
import random
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TOPOLOGIES_FILE = os.path.join(REPO, "fixtures", "tpu_topologies.json")


class _Stop(Exception):
    """Raised by the recording stand-in of compile_or_get_cached."""


def load_topologies(path: str = TOPOLOGIES_FILE) -> list[dict]:
    """The topologies of fixtures/tpu_topologies.json (each with ``id``)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)["topologies"]


def topology_ids(path: str = TOPOLOGIES_FILE) -> list[str]:
    """The ids the TPU recipes draw from, in file order."""
    return [t["id"] for t in load_topologies(path)]


def libtpu_version() -> str | None:
    """The installed libtpu's version, or None when it is not installed."""
    from importlib import metadata
    try:
        return metadata.version("libtpu")
    except metadata.PackageNotFoundError:
        return None


def layout_shape(count: int, layout: str) -> list[int]:
    """The array shape of ``count`` devices for a recipe's layout: ``flat``
    [count], ``row`` [1, count], ``col`` [count, 1], ``grid`` [R, C] with R
    the largest divisor of ``count`` not above its square root."""
    if layout == "row":
        return [1, count]
    if layout == "col":
        return [count, 1]
    if layout == "grid":
        rows = max(d for d in range(1, int(count ** 0.5) + 1) if count % d == 0)
        return [rows, count // rows]
    return [count]


class TpuSide:
    """Real deviceless TPU topologies for the harness (created once)."""

    def __init__(self, harness):
        self.h = harness
        self.libtpu = libtpu_version()
        if self.libtpu is None:
            raise RuntimeError("libtpu is not installed in this venv: run the TPU oracle through "
                               "tools/oracle --tpu, which builds a venv with it")
        from jax.experimental import topologies
        self.topologies_api = topologies
        self.fixture = {t["id"]: t for t in load_topologies()}
        self._topos: dict = {}
        self._jit: dict = {}

    # -- topologies --------------------------------------------------------

    def request(self, topology_id: str) -> tuple[str, dict]:
        """(name, kwargs) that get_topology_desc is called with for this id:
        as the fixture recorded it for this libtpu build, else its name and
        kwargs."""
        t = self.fixture[topology_id]
        asked = t.get("requested_as", {}).get(self.libtpu)
        if asked is not None:
            return asked["name"], dict(asked["kwargs"])
        return t["name"], dict(t.get("kwargs") or {})

    def recorded_refusal(self, topology_id: str) -> str | None:
        """The refusal the fixture recorded for this libtpu build (when it
        recorded no accepted request), else None."""
        t = self.fixture[topology_id]
        if self.libtpu in t.get("requested_as", {}):
            return None
        return t.get("refused_by", {}).get(self.libtpu)

    def usable_ids(self) -> list[str]:
        """The topology ids TPU recipes draw from: those this libtpu accepts,
        in fixture order."""
        if getattr(self, "_usable", None) is None:
            out = []
            for tid in self.fixture:
                if self.recorded_refusal(tid) is not None:
                    continue
                try:
                    self.topology(tid)
                except Exception:  # noqa: BLE001 - refused: not drawn (check_fixture_topologies reports it)
                    continue
                out.append(tid)
            self._usable = out
        return self._usable

    def topology(self, topology_id: str) -> dict:
        """The live topology of ``topology_id``: desc, devices, client and
        libtpu's values (fingerprint, platform_version, device_kind...)."""
        if topology_id in self._topos:
            return self._topos[topology_id]
        name, kwargs = self.request(topology_id)
        desc = self.topologies_api.get_topology_desc(name, "tpu", **kwargs)
        devices = list(desc.devices)
        client = devices[0].client
        fp = self.h.xla_client.get_topology_for_devices(devices).fingerprint()
        out = {
            "id": topology_id, "name": name, "kwargs": kwargs, "desc": desc, "devices": devices,
            "client": client, "fingerprint": int(fp),
            "platform": client.platform, "platform_version": client.platform_version,
            "runtime_type": getattr(client, "runtime_type", None),
            "device_kinds": sorted({d.device_kind for d in devices}),
            "processes": len({d.process_index for d in devices}),
        }
        self._topos[topology_id] = out
        return out

    def check_fixture_topologies(self) -> tuple[int, list[tuple[str, list[str]]]]:
        """(count, [(id, problems)]): every committed topology against libtpu now."""
        bad = []
        for tid, t in self.fixture.items():
            problems = []
            refusal = self.recorded_refusal(tid)
            try:
                live = self.topology(tid)
            except Exception as e:  # noqa: BLE001 - a refusal is a finding unless recorded
                said = f"{type(e).__module__}.{type(e).__qualname__}: {e}"
                if refusal is None:
                    bad.append((tid, [f"libtpu {self.libtpu} refuses {self.request(tid)}: {said}"]))
                elif said != refusal:
                    bad.append((tid, [f"libtpu {self.libtpu} refuses with {said!r}; the fixture recorded "
                                      f"{refusal!r}"]))
                continue
            if refusal is not None:
                bad.append((tid, [f"the fixture records that libtpu {self.libtpu} refuses {tid}; it accepts it"]))
                continue
            want = t["fingerprint"]["value"]
            if f"{live['fingerprint']:016x}" != want:
                problems.append(f"fingerprint: fixture {want}, libtpu {self.libtpu} {live['fingerprint']:016x}")
            if len(live["devices"]) != t["devices"]:
                problems.append(f"devices: fixture {t['devices']}, libtpu {len(live['devices'])}")
            if live["device_kinds"] != [t["device_kind"]]:
                problems.append(f"device_kind: fixture {t['device_kind']!r}, libtpu {live['device_kinds']!r}")
            if live["processes"] != t["processes"]:
                problems.append(f"processes: fixture {t['processes']}, libtpu {live['processes']}")
            for pv in t.get("platform_versions", []):
                if pv["libtpu"] == self.libtpu and pv["value"] != live["platform_version"]:
                    problems.append(f"platform_version: fixture {pv['value']!r}, libtpu "
                                    f"{live['platform_version']!r}")
            if problems:
                bad.append((tid, problems))
        return len(self.fixture), bad

    # -- one recipe --------------------------------------------------------

    def pick(self, topo: dict, tpu: dict) -> list:
        """The devices a recipe picks from a topology, in its order."""
        devices = topo["devices"]
        n = len(devices)
        rng = random.Random(tpu["pick"]["seed"])
        kind = tpu["pick"]["kind"]
        if kind == "one":
            return [devices[rng.randrange(n)]]
        if kind == "prefix":
            return devices[:rng.randint(1, n)]
        if kind == "sample":
            return rng.sample(devices, k=rng.randint(1, n))
        if kind == "reversed":
            return list(reversed(devices))
        return list(devices)

    def backend(self, recipe: dict, client):
        """(backend object passed to get, scenario backend object)."""
        tpu = recipe["tpu"] if "tpu" in recipe else recipe["gpu"]  # GpuSide shares this
        real = {"platform": client.platform, "platform_version": client.platform_version}
        if getattr(client, "runtime_type", None) is not None:
            real["runtime_type"] = client.runtime_type
        if tpu["backend"] == "client":
            return client, real
        wrapped = dict(real, platform=recipe["backend"]["platform"])
        return types.SimpleNamespace(**wrapped), wrapped

    def jit_call(self, topology_id: str, program: str, picked: list) -> dict:
        """What a real ``jax.jit(...).lower(...).compile()`` for this topology
        passes to compile_or_get_cached: {module, devices, options_bytes,
        backend}.  ``tpu_add`` runs on ``picked[0]``; ``tpu_matmul`` on a mesh
        of the picked devices (``topologies.make_mesh`` when all are picked)."""
        key = (topology_id, program, tuple(d.id for d in picked))
        if key in self._jit:
            return self._jit[key]
        jax, jnp, np = self.h.jax, self.h.jnp, self.h.np
        from jax._src import compiler
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding
        topo = self.topology(topology_id)
        f32 = jnp.float32
        if program == "tpu_add":
            sh = SingleDeviceSharding(picked[0])
            fun = jax.jit(lambda x, y: x + y)
            args = (jax.ShapeDtypeStruct((8, 128), f32, sharding=sh),
                    jax.ShapeDtypeStruct((8, 128), f32, sharding=sh))
        elif program == "tpu_matmul":
            rows, cols = layout_shape(len(picked), "grid")
            mesh = None
            if len(picked) == len(topo["devices"]):
                try:
                    mesh = self.topologies_api.make_mesh(topo["desc"], (rows, cols), ("data", "model"))
                except Exception:  # noqa: BLE001 - e.g. two devices per chip: a plain mesh then
                    mesh = None
            if mesh is None:
                mesh = Mesh(np.array(picked, dtype=object).reshape(rows, cols), ("data", "model"))
            sx, sw = NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P(None, "model"))
            fun = jax.jit(lambda x, w: jnp.tanh(x @ w))
            args = (jax.ShapeDtypeStruct((4 * rows, 8), f32, sharding=sx),
                    jax.ShapeDtypeStruct((8, 4 * cols), f32, sharding=sw))
        else:
            raise ValueError(f"no TPU jit program {program!r}")
        got = {}

        def record(backend, computation, devices, compile_options, *rest, **kw):
            got.update(backend=backend, module=computation, devices=devices,
                       options_bytes=compile_options.SerializeAsString())
            raise _Stop()
        saved = compiler.compile_or_get_cached
        compiler.compile_or_get_cached = record
        try:
            fun.lower(*args).compile()
        except _Stop:
            pass
        finally:
            compiler.compile_or_get_cached = saved
        if not got:
            raise RuntimeError(f"{program} on {topology_id}: compile_or_get_cached was not reached")
        self._jit[key] = got
        return got

    def fingerprint_scenario(self, devices, topo: dict) -> tuple[dict, int]:
        """(engine accelerator object, fingerprint) of the devices passed to get."""
        fp = int(self.h.xla_client.get_topology_for_devices(list(devices.flat)).fingerprint())
        name = topo["name"] + "".join(f" {k}={v}" for k, v in topo["kwargs"].items())
        return {"fingerprint": {
            "value": f"{fp:016x}",
            "provenance": f"libtpu {self.libtpu}: get_topology_for_devices(devices).fingerprint() of "
                          f"{devices.size} device(s) of the deviceless topology {name}",
            "stand_in": False}}, fp
