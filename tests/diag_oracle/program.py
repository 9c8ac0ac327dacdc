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
elif route == "rich":            # rich's RichHandler on a wide console (file:line at the right edge)
    from rich.console import Console
    from rich.logging import RichHandler
    logging.basicConfig(level=logging.DEBUG, format="%(message)s",
                        handlers=[RichHandler(console=Console(file=sys.stderr, width=400))])
elif route in ("json", "logfmt"):  # a structured formatter, as log shippers ingest
    import time as _time

    class _Structured(logging.Formatter):
        """One record per line: a JSON object (json.dumps, as a JSON formatter
        writes it) or logfmt's key=value pairs with a quoted msg."""

        def format(self, record):
            when = _time.strftime("%Y-%m-%dT%H:%M:%S", _time.gmtime(record.created))
            if route == "json":
                return json.dumps({"time": when, "level": record.levelname, "logger": record.name,
                                   "msg": record.getMessage(), "pid": os.getpid()})
            msg = record.getMessage().replace("\\", "\\\\").replace('"', '\\"')
            return f'time={when} level={record.levelname.lower()} logger={record.name} msg="{msg}"'

    _handler = logging.StreamHandler()
    _handler.setFormatter(_Structured())
    logging.basicConfig(level=logging.DEBUG, handlers=[_handler])
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
    if spec.get("min_compile_time") != "default":  # "default": JAX's own (1 s)
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
    if spec.get("precision"):
        # One dot with an explicit precision= (a per-operation setting).
        prec = getattr(jax.lax.Precision, spec["precision"].upper())
        return jax.numpy.tanh(jax.numpy.dot(x, w, precision=prec)).sum()
    return jax.numpy.tanh(x @ w).sum()


def loss(w, x):
    # Differentiated below; ``remat`` wraps the inner layer in jax.checkpoint
    # with that checkpoint policy (jax.checkpoint_policies), which changes
    # what the backward pass recomputes, hence the program.
    def layer(w, x):
        return jax.numpy.sin(x @ w) @ w
    if spec.get("remat"):
        layer = jax.checkpoint(layer, policy=getattr(jax.checkpoint_policies, spec["remat"]))
    return layer(w, x).sum()


def random_normal(seed):
    # The key is made inside the program, so jax_default_prng_impl and
    # jax_threefry_partitionable shape the program itself.
    return jax.random.normal(jax.random.PRNGKey(seed), (n,))


def scale(x, s):
    return x * s


def sharded_fn(x):
    return (x * 2.0).sum(axis=0)


def run_program(kind):
    # float64 NumPy arrays: canonicalised to float32 unless jax_enable_x64.
    dtype = spec.get("dtype", "float64")
    x = np.ones((n,), dtype=dtype)
    w = np.ones((n, n), dtype=dtype)
    if kind == "step":
        fn = step
        if spec.get("rename"):
            # The same function under another name: JAX names the lowered
            # module (and the program) after the function's __name__.
            def fn(x, y):
                return step(x, y)
            fn.__name__ = fn.__qualname__ = spec["rename"]
        # donate: the first argument's buffer is donated (donate_argnums).
        f = jax.jit(fn, donate_argnums=(0,)) if spec.get("donate") else jax.jit(fn)
        f(x, x).block_until_ready()
    elif kind == "compiled_mlp":
        # Compiled ahead of time, with compiler_options when the spec has them
        # (Lowered.compile(compiler_options=...): they go into CompileOptions).
        lowered = jax.jit(mlp).lower(w, w)
        opts = spec.get("compiler_options")
        compiled = lowered.compile(compiler_options=opts) if opts else lowered.compile()
        compiled(w, w).block_until_ready()
    elif kind == "grad":
        jax.jit(jax.grad(loss))(w, w).block_until_ready()
    elif kind == "random":
        jax.jit(random_normal)(np.array(0, dtype=np.int32)).block_until_ready()
    elif kind == "scale":
        # The scalar argument as a Python float (weakly typed), or as a
        # NumPy scalar of the spec's ``scalar`` dtype (strongly typed).
        s = spec.get("scalar", "python")
        value = 2.0 if s == "python" else np.dtype(s).type(2.0)
        jax.jit(scale)(np.ones((n,), dtype=np.float32), value).block_until_ready()
    elif kind == "mlp":
        jax.jit(mlp)(w, w).block_until_ready()
    elif kind == "mlp_in_precision":
        # The same function and arguments, called inside a matmul-precision
        # context: the setting is traced into the dot, so another program.
        with jax.default_matmul_precision(spec.get("context_precision", "highest")):
            jax.jit(mlp)(w, w).block_until_ready()
    elif kind == "sharded":
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
        devs = np.array(jax.devices())
        mesh = Mesh(devs, ("d",))
        # 8 rows, whatever the device count (2 or 4): the same global shape,
        # split by rows unless the spec's "partition" says otherwise.
        xs = jax.device_put(np.ones((8, n)),
                            NamedSharding(mesh, P(*spec.get("partition", ["d", None]))))
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
    elif kind == "custom_partitioning":
        # A custom_partitioning op on an array split over the devices: its
        # custom call carries a pointer to the Python callbacks, which
        # differs from process to process (cache_key.py strips it only with
        # jax_remove_custom_partitioning_ptr_from_cache_key, or from 0.11).
        import inspect
        from jax.experimental.custom_partitioning import custom_partitioning
        from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

        @custom_partitioning
        def double(a):
            return a * 2.0

        def partition(mesh, arg_shapes, result_shape):
            s = arg_shapes[0].sharding
            return mesh, (lambda a: a * 2.0), s, (s,)

        def infer(mesh, arg_shapes, result_shape):
            return arg_shapes[0].sharding

        kw = {}
        if "sharding_rule" in inspect.signature(double.def_partition).parameters:
            kw["sharding_rule"] = "i j -> i j"
        double.def_partition(partition=partition, infer_sharding_from_operands=infer, **kw)
        mesh = Mesh(np.array(jax.devices()), ("d",))
        xs = jax.device_put(np.ones((8, n)), NamedSharding(mesh, P("d", None)))

        def cp_double(a):
            return double(a)
        jax.jit(cp_double)(xs).block_until_ready()
    elif kind == "pallas":
        # A Pallas kernel in interpret mode (runs on CPU): pallas_call is
        # lowered to ordinary HLO, a program like any other.
        from jax.experimental import pallas as pl

        def add_kernel(x_ref, y_ref, o_ref):
            o_ref[...] = x_ref[...] + y_ref[...] * (2.0 if spec.get("kernel") == "scaled" else 1.0)

        def pallas_add(a, b):
            return pl.pallas_call(add_kernel, out_shape=jax.ShapeDtypeStruct(a.shape, a.dtype),
                                  interpret=True)(a, b)
        xf = np.ones((n,), dtype=np.float32)
        out = jax.jit(pallas_add)(xf, xf)
        out.block_until_ready()
    elif kind == "private":
        # A private function (a leading underscore: jit__update), as user
        # code names its helpers; ``private_rate`` changes its body alone.
        rate = float(spec.get("private_rate", 0.1))

        def _update(a, b):
            return a * 0.9 + b * rate
        jax.jit(_update)(x, x).block_until_ready()
    elif kind == "named_add":
        # A user's function named like one of JAX's eager primitive programs
        # (jit_add); ``private_rate`` changes its body.
        rate = float(spec.get("private_rate", 0.1))

        def add(a, b):
            return a + b * rate
        jax.jit(add)(x, x).block_until_ready()
    elif kind == "callback":
        def with_print(x):
            jax.debug.callback(lambda v: None, x[0])
            return x + 1
        jax.jit(with_print)(x).block_until_ready()
    else:
        raise SystemExit(f"program.py: unknown program {kind!r}")


def deviceless_topology():
    """The spec's ``deviceless`` topology: a compile-only client with no device
    (ahead-of-time compilation, as tools/fixture_capture/tpu/programs.py and
    tools/fixture_capture/gpu_program.py do it). ``{"platform": "tpu",
    "topology": "v5e:2x2"}``: libtpu's deviceless topology
    (jax.experimental.topologies.get_topology_desc(name, "tpu")); ``{"platform":
    "gpu", "target": "NVIDIA H100 80GB HBM3", "topology": "1x1x1"}``: the CUDA
    plugin's compile-only client for the target config the plugin embeds."""
    from jax.experimental import topologies
    d = spec["deviceless"]
    if d["platform"] == "tpu":
        return topologies.get_topology_desc(d["topology"], "tpu", **d.get("kwargs", {}))
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
    import gpu  # tests/oracle/gpu.py: the target configs the plugin library embeds
    text = gpu.embedded_target_configs()[d["target"]]
    return topologies.get_topology_desc(platform="cuda", target_config=text, topology=d["topology"])


def run_deviceless(kind):
    """``kind`` lowered for the deviceless topology's devices from
    jax.ShapeDtypeStruct inputs and compiled ahead of time
    (``.lower(...).compile()``): nothing runs, no device exists."""
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P, SingleDeviceSharding
    topo = deviceless_topology()
    one = SingleDeviceSharding(topo.devices[0])
    f32 = jnp.float32
    if kind == "step":
        x = jax.ShapeDtypeStruct((n,), f32, sharding=one)
        jax.jit(step).lower(x, x).compile()
    elif kind == "mlp":
        w = jax.ShapeDtypeStruct((n, n), f32, sharding=one)
        jax.jit(mlp).lower(w, w).compile()
    elif kind == "sharded":
        # Rows split over every device of the topology (8 rows: the same
        # global shape on 4 or 8 devices).
        from jax.experimental import topologies
        mesh = topologies.make_mesh(topo, (len(topo.devices),), ("d",))
        xs = jax.ShapeDtypeStruct((8, n), f32, sharding=NamedSharding(mesh, P("d", None)))
        jax.jit(sharded_fn).lower(xs).compile()
    else:
        raise SystemExit(f"program.py: no deviceless form of program {kind!r}")


_run_program = run_deviceless if spec.get("deviceless") else run_program


def run_program(kind):
    _run_program(kind)
    if spec.get("print"):
        # The program's own output on stdout (the driver merges it into the
        # log, as 2>&1 does): a line between JAX's log lines.
        print(f"step done: {kind}", flush=True)


if spec.get("threads"):
    # Several functions compiled at once, one thread each (a warm-up pool):
    # their cache-key lines interleave in the one stderr stream.
    import threading
    count = int(spec["threads"])
    changed = int(spec.get("changed", -1))
    barrier = threading.Barrier(count)

    def compile_one(i):
        def fn(a, b, i=i):
            return jax.numpy.sin(a) * (i + 1) + b * (i + 2 + (i == changed))
        fn.__name__ = f"fn{i}"
        barrier.wait()
        jax.jit(fn)(np.ones((n,)), np.ones((n,))).block_until_ready()

    configure_cache()
    pool = [threading.Thread(target=compile_one, args=(i,)) for i in range(count)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
elif spec.get("cache_late"):
    run_program(programs[0])
    configure_cache()
    for kind in programs[1:]:
        run_program(kind)
else:
    configure_cache()
    for i, kind in enumerate(programs):
        if i == 1 and spec.get("remove_cache"):
            # The cache folder is deleted after the run's first program (a
            # scratch-space cleaner): later lookups find nothing, and their
            # writes fail (the folder is gone).
            import shutil
            shutil.rmtree(spec["cache"])
        if i == 1 and spec.get("switch_cache"):
            # The run goes on in another folder: compilation_cache.reset_cache()
            # and a new jax_compilation_cache_dir after its first program.
            from jax.experimental.compilation_cache import compilation_cache as _cc
            _cc.reset_cache()
            jax.config.update("jax_compilation_cache_dir", spec["switch_cache"])
        run_program(kind)

sys.stderr.flush()
with open(os.environ["CK_FACTS"], "w", encoding="utf-8") as f:
    json.dump({"jax": jax.__version__, "jaxlib": jax.lib.__version__ if hasattr(jax.lib, "__version__") else None,
               "python": "%d.%d.%d" % sys.version_info[:3], "process_id": jax.process_index(),
               "devices": jax.device_count(), **counts}, f)
