"""Per-release virtual environments with a real jax/jaxlib (CPU) for the oracle.

Standard library only: this module runs under whatever Python starts
``tools/oracle`` and builds, for one jax release, a venv of its own outside the
tree::

    /var/cache/cachekey/venvs/jax-<VERSION>-py<X.Y>      (CACHEKEY_VENV_ROOT overrides the parent)

The interpreter is Python 3.11 for releases up to 0.10.2 and Python 3.12 from
0.11.0 (which requires >= 3.12).  It is looked up as ``python3.X`` on PATH
(a pyenv shim that refuses to run does not count), then under ``pyenv root``
(``versions/3.X*/bin/python3.X``), then in /usr/bin and /usr/local/bin.

A venv is complete when its marker file ``cachekey-venv.json`` exists; it is
written only after ``import jax, jaxlib`` reported the requested versions.  A
venv without a marker (an interrupted install) is deleted and rebuilt.  pip's
own wheel cache is left on, so a rebuilt venv does not download again.

**TPU venvs** (``tools/oracle --tpu``): ``ensure(version, libtpu=L)`` builds
``jax-<VERSION>-py<X.Y>-libtpu<L>`` beside them with jax, jaxlib and libtpu
``L`` (about 210 MB; ``releases.json`` names the build per release).  The
wheels are downloaded once (``pip download``, hashes checked by pip) into a
cache of their own, ``/var/cache/cachekey/wheels/jax-<VERSION>-py<X.Y>-libtpu<L>``
(``CACHEKEY_WHEEL_CACHE`` moves the parent), and installed from there only
(``--no-index``), so rebuilding the venv needs no network.  Its marker is
written after ``import jax`` reported the versions and libtpu described a
``v5e:2x2`` topology with ``JAX_PLATFORMS=cpu``.

**GPU venvs** (``tools/oracle --gpu``, ``tools/capture-gpu``):
``ensure(version, cuda=C)`` builds ``jax-<VERSION>-py<X.Y>-cuda12-<C>`` with
jax, jaxlib, the CUDA plugin ``jax-cuda12-plugin==C`` / ``jax-cuda12-pjrt==C``
(about 200 MB; no CUDA libraries) and ``nvidia-cuda-nvcc-cu12`` (40 MB: ptxas,
so that a deviceless compilation finishes and writes its entry), the builds
``releases.json`` names.  The wheels are cached like the TPU ones
(``/var/cache/cachekey/wheels/jax-<VERSION>-py<X.Y>-cuda12-<C>``).  Its marker
is written after the plugin's compile-only client described a 1x1x1 topology
of the NVIDIA H100 80GB HBM3 target config embedded in the plugin
(``gpu.embedded_target_configs``) with ``JAX_PLATFORMS=cpu``: no GPU and no
CUDA driver are needed.
"""

from __future__ import annotations

import datetime
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RELEASES_FILE = os.path.join(HERE, "releases.json")
DEFAULT_ROOT = "/var/cache/cachekey/venvs"
DEFAULT_WHEEL_ROOT = "/var/cache/cachekey/wheels"
MARKER = "cachekey-venv.json"
WHEELS_MARKER = "cachekey-wheels.json"


class Skip(Exception):
    """The release cannot run here for a reason outside the oracle (no Python)."""


class InstallError(Exception):
    """pip or the import check failed; the message says which and why."""


def version_tuple(version: str) -> tuple:
    """``"0.9.0.1"`` -> ``(0, 9, 0, 1)``; non-numeric parts compare as -1."""
    out = []
    for part in version.split("."):
        m = re.match(r"\d+", part)
        out.append(int(m.group(0)) if m else -1)
    return tuple(out)


def load_releases() -> list[dict]:
    """The release list in tests/oracle/releases.json (oldest first)."""
    with open(RELEASES_FILE, encoding="utf-8") as f:
        return json.load(f)["releases"]


def release_info(version: str) -> dict:
    """The releases.json row for ``version``, or a default row for an unlisted one."""
    for row in load_releases():
        if row["jax"] == version:
            return row
    python = "3.12" if version_tuple(version) >= (0, 11) else "3.11"
    return {"jax": version, "jaxlib": None, "python": python, "group": None, "yanked": False}


def _python_minor(path: str):
    try:
        out = subprocess.run([path, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.decode().strip() if out.returncode == 0 else None


def find_python(minor: str) -> str | None:
    """An interpreter whose ``sys.version_info[:2]`` is ``minor`` ("3.12"), or None."""
    candidates = []
    on_path = shutil.which(f"python{minor}")
    if on_path:
        candidates.append(on_path)
    try:
        root = subprocess.run(["pyenv", "root"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              timeout=60, check=False).stdout.decode().strip()
    except (OSError, subprocess.TimeoutExpired):
        root = ""
    roots = [root] if root else []
    roots.append(os.path.expanduser("~/.pyenv"))
    for r in roots:
        found = glob.glob(os.path.join(r, "versions", f"{minor}*", "bin", f"python{minor}"))
        found.sort(key=lambda p: version_tuple(p.split(os.sep)[-3]), reverse=True)
        candidates += found
    candidates += [f"/usr/bin/python{minor}", f"/usr/local/bin/python{minor}"]
    seen = set()
    for c in candidates:
        if c in seen or not os.path.exists(c):
            continue
        seen.add(c)
        if _python_minor(c) == minor:
            return c
    return None


def venv_root() -> str:
    """Parent directory of the per-release venvs."""
    return os.environ.get("CACHEKEY_VENV_ROOT", DEFAULT_ROOT)


def venv_path(version: str, python_minor: str, libtpu: str | None = None, cuda: str | None = None) -> str:
    """Where the venv of ``version`` on ``python_minor`` (with libtpu
    ``libtpu``, or with the CUDA plugin ``cuda``) lives."""
    name = (f"jax-{version}-py{python_minor}" + (f"-libtpu{libtpu}" if libtpu else "")
            + (f"-cuda12-{cuda}" if cuda else ""))
    return os.path.join(venv_root(), name)


def wheel_root() -> str:
    """Parent directory of the cached wheel sets of the TPU venvs."""
    return os.environ.get("CACHEKEY_WHEEL_CACHE", DEFAULT_WHEEL_ROOT)


def libtpu_for(version: str) -> str | None:
    """The libtpu build ``releases.json`` names for jax ``version``, or None."""
    return release_info(version).get("libtpu")


def cuda_for(version: str) -> tuple[str, str] | None:
    """(CUDA plugin build, nvidia-cuda-nvcc-cu12 build) ``releases.json``
    names for jax ``version``, or None."""
    info = release_info(version)
    if not info.get("cuda_plugin"):
        return None
    return info["cuda_plugin"], info["cuda_nvcc"]


def read_marker(path: str) -> dict | None:
    """The marker of a complete venv, or None."""
    try:
        with open(os.path.join(path, MARKER), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def ensure_wheels(py: str, reqs: list[str], name: str, log=sys.stderr) -> str:
    """The directory of cached wheels for ``reqs`` (downloaded once with the
    venv's own pip ``py``, so the wheels match its Python); return its path.

    A set is complete when its ``cachekey-wheels.json`` (file names, sizes and
    sha256) exists; an interrupted download is started again.  Raises
    InstallError when pip cannot download.
    """
    path = os.path.join(wheel_root(), name)
    if os.path.exists(os.path.join(path, WHEELS_MARKER)):
        return path
    os.makedirs(wheel_root(), exist_ok=True)
    partial = path + ".partial"
    if os.path.exists(partial):
        shutil.rmtree(partial)
    t0 = time.monotonic()
    print(f"oracle: pip download {' '.join(reqs)} into {path}", file=log, flush=True)
    proc = subprocess.run([py, "-m", "pip", "download", "--disable-pip-version-check", "--progress-bar",
                           "off", "-q", "-d", partial, *reqs],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    if proc.returncode != 0:
        raise InstallError(f"pip download {' '.join(reqs)} failed for {py} (the venv's own Python, so the "
                           f"wheels match it):\n{_tail(proc.stdout.decode('utf-8', 'replace'))}\n"
                           f"What to do: check that PyPI is reachable and lists these versions for that "
                           f"Python, then run scripts/setup again (the partial download is started over).")
    files = []
    for n in sorted(os.listdir(partial)):
        h = hashlib.sha256()
        with open(os.path.join(partial, n), "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        files.append({"file": n, "bytes": os.path.getsize(os.path.join(partial, n)), "sha256": h.hexdigest()})
    with open(os.path.join(partial, WHEELS_MARKER), "w", encoding="utf-8") as f:
        json.dump({"requirements": reqs, "files": files,
                   "downloaded": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                   "download_seconds": round(time.monotonic() - t0, 1)}, f, indent=1)
    if os.path.exists(path):
        shutil.rmtree(path)
    os.rename(partial, path)
    return path


def ensure(version: str, log=sys.stderr, libtpu: str | None = None, cuda: str | None = None,
           python_minor: str | None = None) -> dict:
    """Make sure the venv for jax ``version`` (with libtpu ``libtpu``, or
    with the CUDA plugin build ``cuda``, when given) exists; return its
    marker. ``python_minor`` ("3.13") builds it on another Python than the
    release's own (the diagnosis oracle's other-Python kind).

    The marker holds ``python`` (the venv's interpreter), ``jax``, ``jaxlib``,
    ``python_version``, ``created`` and ``install_seconds`` (and ``libtpu``).
    Raises Skip when no suitable Python exists here, InstallError when pip or
    the import fails.  Concurrent callers for the same venv wait on a lock file.
    """
    info = release_info(version)
    minor = python_minor or info["python"]
    path = venv_path(version, minor, libtpu, cuda)
    marker = read_marker(path)
    if marker:
        return marker
    base_python = find_python(minor)
    if base_python is None:
        raise Skip(f"jax {version} needs Python {minor}, and none was found (python{minor} on PATH, "
                   f"pyenv root versions/{minor}*, /usr/bin, /usr/local/bin); install Python {minor} "
                   f"(e.g. pyenv install {minor}) to run it")
    os.makedirs(venv_root(), exist_ok=True)
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = read_marker(path)
        if marker:
            return marker
        if os.path.exists(path):
            shutil.rmtree(path)
        t0 = time.monotonic()
        print(f"oracle: creating {path} with {base_python}", file=log, flush=True)
        proc = subprocess.run([base_python, "-m", "venv", path], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, check=False)
        if proc.returncode != 0:
            raise InstallError(f"python{minor} -m venv failed: {_tail(proc.stdout.decode('utf-8', 'replace'))}")
        py = os.path.join(path, "bin", "python")
        reqs = [f"jax=={version}"]
        reqs.append(f"jaxlib=={info['jaxlib']}" if info["jaxlib"] else f"jax[cpu]=={version}")
        source = []
        if libtpu:
            reqs.append(f"libtpu=={libtpu}")
            wheels = ensure_wheels(py, reqs, os.path.basename(path), log)
            source = ["--no-index", "--find-links", wheels]
        if cuda:
            nvcc = (cuda_for(version) or (None, None))[1]
            reqs += [f"jax-cuda12-plugin=={cuda}", f"jax-cuda12-pjrt=={cuda}",
                     f"nvidia-cuda-nvcc-cu12=={nvcc}" if nvcc else "nvidia-cuda-nvcc-cu12"]
            wheels = ensure_wheels(py, reqs, os.path.basename(path), log)
            source = ["--no-index", "--find-links", wheels]
        print(f"oracle: pip install {' '.join(reqs)} (Python {minor})", file=log, flush=True)
        proc = subprocess.run([py, "-m", "pip", "install", "--disable-pip-version-check",
                               "--progress-bar", "off", "-q", *source, *reqs],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        if proc.returncode != 0:
            raise InstallError(f"pip install {' '.join(reqs)} failed on Python {minor} ({py}):\n"
                               f"{_tail(proc.stdout.decode('utf-8', 'replace'))}\n"
                               f"What to do: check that PyPI is reachable and lists these versions for Python "
                               f"{minor}, then run scripts/setup again (the incomplete venv is rebuilt).")
        env = dict(os.environ, JAX_PLATFORMS="cpu")
        check = ("import json, sys, jax, jaxlib; print(json.dumps("
                 "[jax.__version__, jaxlib.__version__, sys.version.split()[0]]))")
        if libtpu:
            check = ("import json, sys, jax, jaxlib; from importlib import metadata; "
                     "from jax.experimental import topologies; "
                     "t = topologies.get_topology_desc('v5e:2x2', 'tpu'); "
                     "print(json.dumps([jax.__version__, jaxlib.__version__, sys.version.split()[0], "
                     "metadata.version('libtpu'), t.devices[0].device_kind]))")
        if cuda:
            check = ("import json, sys, jax, jaxlib; from importlib import metadata; "
                     f"sys.path.insert(0, {HERE!r}); import gpu; "
                     "from jax.experimental import topologies; "
                     "spec = gpu.embedded_target_configs()['NVIDIA H100 80GB HBM3']; "
                     "t = topologies.get_topology_desc(platform='cuda', target_config=spec, topology='1x1x1'); "
                     "print(json.dumps([jax.__version__, jaxlib.__version__, sys.version.split()[0], "
                     "metadata.version('jax-cuda12-plugin'), t.devices[0].device_kind, "
                     "t.devices[0].client.runtime_type]))")
        proc = subprocess.run([py, "-c", check],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, check=False)
        if proc.returncode != 0:
            raise InstallError(f"import jax failed after installing {' '.join(reqs)}:\n"
                               f"{_tail(proc.stderr.decode('utf-8', 'replace'))}")
        reported = json.loads(proc.stdout.decode().strip().splitlines()[-1])
        jax_v, jaxlib_v, py_v = reported[:3]
        if jax_v != version:
            raise InstallError(f"installed jax reports {jax_v}, not {version}")
        if libtpu and reported[3] != libtpu:
            raise InstallError(f"installed libtpu reports {reported[3]}, not {libtpu}")
        if cuda and reported[3] != cuda:
            raise InstallError(f"installed jax-cuda12-plugin reports {reported[3]}, not {cuda}")
        freeze = subprocess.run([py, "-m", "pip", "freeze", "--disable-pip-version-check"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
        marker = {
            "python": py, "base_python": base_python, "python_version": py_v,
            "jax": jax_v, "jaxlib": jaxlib_v,
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "install_seconds": round(time.monotonic() - t0, 1),
            "packages": freeze.stdout.decode().split(),
        }
        if libtpu:
            marker["libtpu"] = libtpu
            marker["tpu_check"] = f"get_topology_desc('v5e:2x2', 'tpu') gave {reported[4]!r} devices"
        if cuda:
            marker["cuda_plugin"] = cuda
            marker["gpu_check"] = (f"get_topology_desc(platform='cuda', target_config=<H100 spec>, "
                                   f"topology='1x1x1') gave a {reported[4]!r} device of a "
                                   f"{reported[5]!r} client")
        with open(os.path.join(path, MARKER), "w", encoding="utf-8") as f:
            json.dump(marker, f, indent=1)
        print(f"oracle: jax {jax_v} / jaxlib {jaxlib_v}" + (f" / libtpu {libtpu}" if libtpu else "") +
              (f" / jax-cuda12-plugin {cuda}" if cuda else "") +
              f" on Python {py_v} ready in "
              f"{marker['install_seconds']}s", file=log, flush=True)
        return marker


if __name__ == "__main__":
    # python3 tests/oracle/venvs.py --python VERSION : build the venv, print its interpreter
    #                                                  (exit 3 when no suitable Python exists)
    # python3 tests/oracle/venvs.py VERSION ...      : build the venvs, print their markers
    # python3 tests/oracle/venvs.py --python VERSION --tpu : the same with the release's libtpu
    # python3 tests/oracle/venvs.py --python VERSION --gpu : the same with the release's CUDA plugin
    if sys.argv[1:2] == ["--python"] and len(sys.argv) in (3, 4) and sys.argv[3:] in ([], ["--tpu"], ["--gpu"]):
        try:
            libtpu = cuda = None
            if sys.argv[3:] == ["--tpu"]:
                libtpu = libtpu_for(sys.argv[2])
                if libtpu is None:
                    raise InstallError(f"tests/oracle/releases.json names no libtpu for jax {sys.argv[2]}")
            if sys.argv[3:] == ["--gpu"]:
                if cuda_for(sys.argv[2]) is None:
                    raise InstallError(f"tests/oracle/releases.json names no CUDA plugin for jax {sys.argv[2]}")
                cuda = cuda_for(sys.argv[2])[0]
            print(ensure(sys.argv[2], libtpu=libtpu, cuda=cuda)["python"])
        except Skip as e:
            print(f"{sys.argv[2]}: {e}", file=sys.stderr)
            sys.exit(3)
        except InstallError as e:
            print(f"{sys.argv[2]}: {e}", file=sys.stderr)
            sys.exit(1)
        sys.exit(0)
    status = 0
    for v in sys.argv[1:]:
        try:
            m = ensure(v)
            print(json.dumps({k: m[k] for k in ("jax", "jaxlib", "python_version", "python", "install_seconds")}))
        except (Skip, InstallError) as e:
            print(f"{v}: {type(e).__name__}: {e}")
            status = 1
    sys.exit(status)
