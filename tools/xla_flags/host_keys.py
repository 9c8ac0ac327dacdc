"""Real keys of one host CPU model under every ``--xla_cpu_max_isa`` ceiling.

Run by ``tools/cpu-host-keys --jax VERSION [--qemu MODEL]`` inside that
release's venv. It writes ``fixtures/xla_flags/hosts/<jaxlib>/<name>.json``:

- ``base``: the add_1x1 scenario captured on this host without XLA_FLAGS
  (``flag_oracle.base_scenario``: a forked child), with its real key;
- ``real``: flag -> the key real ``cache_key.get`` returned for the same
  program in a fresh backend started under ``XLA_FLAGS=<flag>`` (each a child
  forked from one parent that imported jax and started no backend, as
  tests/oracle/flag_oracle.py does), or the error that child died with;
- ``provenance``: the command, time, versions, the CPU the host reports and,
  under ``--qemu``, the emulator and CPU model.

With ``--qemu MODEL`` the wrapper runs this whole process under
``qemu-x86_64 -cpu MODEL`` (Debian's qemu-user): jaxlib is the real one, and
LLVM's host detection reads the CPUID that QEMU emulates, so XLA builds the
target of that model (with the features QEMU's TCG implements; TCG has no
AVX-512). The fixture says so in its provenance and its name.

The ceilings are every value the table measured (fixtures/xla_flags/<jaxlib>
.json, xla_cpu_max_isa), one spelled in lower case (XLA compares without
case) and one XLA does not know (it applies no ceiling).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))

from fixture_capture.provenance import host_cpu_note, run_provenance, write_json  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--qemu", default="", help="the QEMU CPU model this process runs under (for the name and provenance)")
    ap.add_argument("--qemu-version", default="")
    ap.add_argument("--command", default="tools/cpu-host-keys")
    args = ap.parse_args(argv)

    os.environ.pop("XLA_FLAGS", None)
    import jax
    import jaxlib
    import flag_oracle

    with open(os.path.join(REPO, "fixtures", "xla_flags", f"{jaxlib.__version__}.json")) as fh:
        table = json.load(fh)
    values = [o["value"] for o in table["flags"]["xla_cpu_max_isa"]["observations"] if o.get("value")]
    flags = [f"--xla_cpu_max_isa={v}" for v in values + ["avx2", "SSE3"]]

    import tempfile
    work = tempfile.mkdtemp(prefix="cpu-host-keys-")
    os.chdir(work)
    base = flag_oracle.base_scenario(work)
    real = flag_oracle.real_keys(flags)
    tm = base["accelerator"]["cpu_topology"]["target_machine"]
    name = f"qemu-{args.qemu}" if args.qemu else tm["cpu"]
    doc = {
        "description": "Real keys of the add_1x1 program on one host CPU model under each "
                       "--xla_cpu_max_isa ceiling (tools/xla_flags/host_keys.py, module docstring).",
        "provenance": run_provenance(
            args.command, jax.__version__, jaxlib.__version__,
            host_cpu=host_cpu_note(), llvm_cpu=tm["cpu"],
            emulated=({"emulator": f"qemu-x86_64 {args.qemu_version}".strip(), "cpu_model": args.qemu,
                       "note": "real jaxlib; LLVM's host detection reads QEMU's emulated CPUID "
                               "(TCG's features, no AVX-512)"} if args.qemu else None)),
        "base": base,
        "real": real,
    }
    out = os.path.join(REPO, "fixtures", "xla_flags", "hosts", jaxlib.__version__, f"{name}.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    write_json(out, doc)
    moved = sum(1 for f in flags if real[f].get("key") not in (None, base["expected"]["key"]))
    print(f"{out}: LLVM cpu {tm['cpu']}, {len(flags)} ceilings, {moved} move the key, "
          f"{sum(1 for f in flags if 'error' in real[f])} died")
    return 0


if __name__ == "__main__":
    sys.exit(main())
