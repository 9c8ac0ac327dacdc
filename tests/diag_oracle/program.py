"""One real JAX run of the diagnosis oracle (tools/diag-oracle).

Started by tests/diag_oracle/oracle.py under the real jax of a release venv,
once per run of a catalogue kind. What the run does comes from the JSON in
``CK_SPEC`` (the run's spec, catalogue.py documents every member); the
driver sets the environment (XLA_FLAGS, JAX_LOGGING_LEVEL, …), the working
directory and the mounts, and keeps stderr as the run's log, as a user who
redirects a job's output would.

Besides the log, the run writes ``CK_FACTS`` (JSON): what JAX itself
counted through ``jax.monitoring`` (``/jax/compilation_cache/compile_requests_use_cache``,
one per compile request that uses the persistent cache, and ``…/cache_hits``,
one per hit; ``…/cache_misses`` too, which 0.4.30 records per write, later
releases per missed lookup), whatever the logging, the versions, and the process id. The oracle
compares the tool's program and hit counts with these counts, an
independent computation of how many programs were looked up.

Inputs are NumPy arrays, so the only programs compiled are the spec's own
``jax.jit`` functions (no ``jnp.ones`` helper programs).
"""
import json
import logging
import os
import sys

spec = json.loads(os.environ["CK_SPEC"])
route = spec.get("route", "basic")
LOGGERS = ("jax._src.cache_key", "jax._src.compiler", "jax._src.compilation_cache",
           "jax._src.lru_cache")

# Logging routes, set up before jax is imported (as a script's first lines would).
if route == "basic":             # logging.basicConfig at DEBUG on the root logger
    logging.basicConfig(level=logging.DEBUG)
elif route == "loggers":         # basicConfig at WARNING, the cache loggers at DEBUG
    logging.basicConfig(level=logging.WARNING)
    for name in LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
elif route == "basic_and_jax_level":  # basicConfig and JAX_LOGGING_LEVEL (driver): two handlers
    logging.basicConfig(level=logging.DEBUG)
elif route == "warning":         # basicConfig at WARNING only
    logging.basicConfig(level=logging.WARNING)
elif route in ("jax_level", "debug_modules", "none"):
    pass                         # JAX's own handlers only (env from the driver), or none

import numpy as np  # noqa: E402

import jax  # noqa: E402
from jax import monitoring  # noqa: E402

counts = {"compile_requests_use_cache": 0, "cache_hits": 0, "cache_misses": 0}


def _listener(event, **kwargs):
    for k in counts:
        if event == "/jax/compilation_cache/" + k:
            counts[k] += 1


monitoring.register_event_listener(_listener)

if spec.get("distributed"):
    # A real multi-process run on this host: the driver starts every process
    # of the group at once (jax.distributed's coordinator on 127.0.0.1).
    d = spec["distributed"]
    jax.distributed.initialize(coordinator_address=f"127.0.0.1:{d['port']}",
                               num_processes=int(d["num_processes"]),
                               process_id=int(d["process_id"]))

if spec.get("explain"):
    jax.config.update("jax_explain_cache_misses", True)
for name, value in spec.get("config", {}).items():
    jax.config.update(name, value)


def configure_cache():
    cache = spec.get("cache")
    if cache is None:
        return
    jax.config.update("jax_compilation_cache_dir", cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs",
                      float(spec.get("min_compile_time", 0)))
    jax.config.update("jax_persistent_cache_min_entry_size_bytes",
                      int(spec.get("min_entry_size", -1)))
    if "max_size" in spec:
        jax.config.update("jax_compilation_cache_max_size", int(spec["max_size"]))


n = int(spec.get("n", 8))
variant = spec.get("variant", "add")
programs = spec.get("programs", ["step", "mlp"])


def step(x, y):
    return (x + y) if variant == "add" else (x * y)


def mlp(w, x):
    return jax.numpy.tanh(x @ w).sum()


def sharded_fn(x):
    return (x * 2.0).sum(axis=0)


def run_program(kind):
    # float64 NumPy arrays: canonicalised to float32 unless jax_enable_x64.
    x = np.ones((n,))
    w = np.ones((n, n))
    if kind == "step":
        jax.jit(step)(x, x).block_until_ready()
    elif kind == "mlp":
        jax.jit(mlp)(w, w).block_until_ready()
    elif kind == "sharded":
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        devs = np.array(jax.devices())
        mesh = Mesh(devs, ("d",))
        # 8 rows, whatever the device count (2 or 4): the same global shape.
        xs = jax.device_put(np.ones((8, n)),
                            NamedSharding(mesh, P("d", None)))
        jax.jit(sharded_fn)(xs).block_until_ready()
    elif kind == "static":
        # One function, one argument shape, a static argument: a new
        # program (and key) for every value.
        def scaled(x, k):
            return x * k
        f = jax.jit(scaled, static_argnums=1)
        for k in spec.get("static_values", [1, 2, 3]):
            f(x, k).block_until_ready()
    elif kind == "const":
        # A Python constant captured by a closure: each closure's program
        # embeds its value, so the key moves although the shapes do not.
        for c in spec.get("const_values", [0.5, 1.5]):
            def offset(x, c=c):
                return x + c * np.arange(n)
            jax.jit(offset)(x).block_until_ready()
    elif kind == "callback":
        def with_print(x):
            jax.debug.callback(lambda v: None, x[0])
            return x + 1
        jax.jit(with_print)(x).block_until_ready()
    else:
        raise SystemExit(f"program.py: unknown program {kind!r}")


if spec.get("cache_late"):
    run_program(programs[0])
    configure_cache()
    for kind in programs[1:]:
        run_program(kind)
else:
    configure_cache()
    for kind in programs:
        run_program(kind)

sys.stderr.flush()
with open(os.environ["CK_FACTS"], "w", encoding="utf-8") as f:
    json.dump({"jax": jax.__version__, "jaxlib": jax.lib.__version__ if hasattr(jax.lib, "__version__") else None,
               "python": "%d.%d.%d" % sys.version_info[:3], "process_id": jax.process_index(),
               "devices": jax.device_count(), **counts}, f)
