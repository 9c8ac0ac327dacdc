"""A small JAX program compiled ahead of time for a deviceless topology
(tests/capture/test_watch_deviceless.py), as tests/diag_oracle/program.py
does it: a compile-only client, no device, nothing runs.

CK_DEVICELESS names the topology:
  "tpu:v5e:2x2"                        libtpu's deviceless topology
                                       (jax.experimental.topologies.get_topology_desc(name, "tpu"))
  "gpu:NVIDIA H100 80GB HBM3:1x1x1"    the CUDA plugin's compile-only client for the
                                       target config the plugin embeds (tests/oracle/gpu.py)

Two single-device programs (``scaled`` and ``other``, on the topology's
device 0) are lowered from jax.ShapeDtypeStruct inputs and compiled
(``.lower(...).compile()``); a topology change moves only entry 6.
JAX_COMPILATION_CACHE_DIR is the cache (set by the test).

At exit the program writes CK_FACTS (JSON): what JAX itself counted through
jax.monitoring (``compile_requests_use_cache``, ``cache_hits``), the
warnings jax._src.compiler gave (by their first words, JAX's own), and the
facts of each ``cachekey.watch`` record (``record.cachekey``, when watched):
an account independent of the watch's text.
"""

import atexit
import json
import logging
import os
import sys
import warnings

# The watch's records, as a program that handles them would (its facts,
# never its words); they are also printed as Python's last-resort handler
# would, so stderr reads as it does without this handler.
watch_facts = []


class _Keep(logging.Handler):
    def emit(self, record):
        facts = getattr(record, "cachekey", None)
        if isinstance(facts, dict):
            watch_facts.append({k: v for k, v in facts.items()
                                if isinstance(v, (str, int, float, bool, type(None)))})


_log = logging.getLogger("cachekey.watch")
_log.addHandler(_Keep())
_echo = logging.StreamHandler(sys.stderr)
_echo.setLevel(logging.WARNING)
_log.addHandler(_echo)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import monitoring  # noqa: E402
from jax.experimental import topologies  # noqa: E402
from jax.sharding import SingleDeviceSharding  # noqa: E402

counts = {"compile_requests_use_cache": 0, "cache_hits": 0}


def _listener(event, **kwargs):
    for k in counts:
        if event == "/jax/compilation_cache/" + k:
            counts[k] += 1


monitoring.register_event_listener(_listener)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)

platform, _, rest = os.environ["CK_DEVICELESS"].partition(":")
if platform == "tpu":
    topo = topologies.get_topology_desc(rest, "tpu")
else:
    target, _, shape = rest.rpartition(":")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
    import gpu  # tests/oracle/gpu.py: the target configs the plugin library embeds
    topo = topologies.get_topology_desc(platform="cuda", target_config=gpu.embedded_target_configs()[target],
                                        topology=shape)


def scaled(x, y):
    return jnp.tanh(x) * y + 1.0


def other(x):
    return jnp.sin(x) - x


one = SingleDeviceSharding(topo.devices[0])
x = jax.ShapeDtypeStruct((4, 8), jnp.float32, sharding=one)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    jax.jit(scaled).lower(x, x).compile()
    jax.jit(other).lower(x).compile()
for w in caught:  # shown as they would be, and counted by JAX's own first words
    print(warnings.formatwarning(w.message, w.category, w.filename, w.lineno), file=sys.stderr, end="")



@atexit.register
def _facts():
    # At exit: after `python -m cachekey.watch` has stopped the watch (its
    # last warnings logged), before the watch's own atexit of cachekey.watch().
    with open(os.environ["CK_FACTS"], "w", encoding="utf-8") as f:
        json.dump({"jax": jax.__version__, "pid": os.getpid(), "devices": len(topo.devices),
                   "runtime_type": getattr(topo.devices[0].client, "runtime_type", None),
                   "read_errors": sum(str(w.message).startswith(
                       "Error reading persistent compilation cache entry") for w in caught),
                   "warnings": [str(w.message)[:300] for w in caught],
                   "watch": watch_facts, **counts}, f)
