"""Adversarial test program. ADV_KIND selects the scenario, ADV_RUN is a or b."""
import logging, os, sys, threading
kind = os.environ["ADV_KIND"]; run = os.environ["ADV_RUN"]
if os.environ.get("ADV_LOG") == "rich":
    sys.path.insert(0, "/var/tmp/adv2/pylib")
    from rich.logging import RichHandler
    from rich.console import Console
    logging.basicConfig(level=logging.DEBUG, format="%(message)s",
        handlers=[RichHandler(show_path=os.environ.get("ADV_PATH", "1") == "1", console=Console(file=sys.stderr, force_terminal=os.environ.get("ADV_TTY") == "1"))])
elif os.environ.get("ADV_LOG") == "thread":
    logging.basicConfig(level=logging.DEBUG, format="%(threadName)s %(thread)d %(levelname)s:%(name)s:%(message)s")
else:
    logging.basicConfig(level=logging.DEBUG)
import numpy as np
import jax, jax.numpy as jnp
cache = os.environ["ADV_CACHE"]
if kind == "envdir" and run == "b":
    pass  # JAX_COMPILATION_CACHE_DIR set in the environment by the runner
elif kind == "setcachedir" and run == "b":
    from jax.experimental.compilation_cache import compilation_cache as cc
    cc.set_cache_dir(cache)
else:
    jax.config.update("jax_compilation_cache_dir", cache)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
if kind == "movedscript":
    jax.config.update("jax_compilation_cache_include_metadata_in_key", True)
if kind == "disablejit" and run == "b":
    jax.config.update("jax_disable_jit", True)
if kind == "debugnans" and run == "b":
    jax.config.update("jax_debug_nans", True)
if kind in ("namedscope_meta", "namedscope_meta2"):
    jax.config.update("jax_compilation_cache_include_metadata_in_key", True)

x = np.arange(8, dtype=np.float32); y = np.ones(8, np.float32)

def base():
    @jax.jit
    def add(a, b): return a + b
    @jax.jit
    def mul(a, b): return a * b * 2.0
    jax.block_until_ready(add(jnp.asarray(x), y)); jax.block_until_ready(mul(x, y))

if kind == "rename":
    @jax.jit
    def add(a, b): return a + b
    def _m(a, b): return a * b * 2.0
    _m.__name__ = "mul" if run == "a" else "multiply"
    mul = jax.jit(_m)
    add(x, y); mul(x, y).block_until_ready()
elif kind == "threads":
    fs = []
    for i in range(6):
        def f(a, b, i=i): return jnp.sin(a) * (i + 1) + b ** (i + 2)
        f.__name__ = f"fn{i}"
        fs.append(jax.jit(f))
    ts = [threading.Thread(target=lambda g=g: g(x, y).block_until_ready()) for g in fs]
    [t.start() for t in ts]; [t.join() for t in ts]
elif kind == "threads2":
    fs = []
    for i in range(6):
        def f(a, b, i=i):
            if run == "b" and i == 3: return jnp.cos(a) * (i + 1) + b ** (i + 2)
            return jnp.sin(a) * (i + 1) + b ** (i + 2)
        f.__name__ = f"fn{i}"
        fs.append(jax.jit(f))
    ts = [threading.Thread(target=lambda g=g: g(x, y).block_until_ready()) for g in fs]
    [t.start() for t in ts]; [t.join() for t in ts]
elif kind in ("private", "lambda"):
    # a user's private helper (leading underscore) or lambda whose body changes
    def _update(a, b): return a * 0.9 + b * (0.1 if run == "a" else 0.2)
    f = jax.jit(_update) if kind == "private" else jax.jit(lambda a, b: a * 0.9 + b * (0.1 if run == "a" else 0.2))
    @jax.jit
    def mul(a, b): return a * b * 2.0
    f(x, y); mul(x, y).block_until_ready()
elif kind == "partial":
    import functools
    def scale(k, a, b): return a * k + b
    f = jax.jit(functools.partial(scale, 0.5 if run == "a" else 0.25))
    @jax.jit
    def mul(a, b): return a * b * 2.0
    f(x, y); mul(x, y).block_until_ready()
elif kind == "dunder":
    class Model:
        def __init__(self, w): self.w = w
        def __call__(self, a, b): return jnp.tanh(a * self.w) + b
    m = Model(0.5 if run == "a" else 0.7)
    f = jax.jit(m.__call__)
    @jax.jit
    def mul(a, b): return a * b * 2.0
    f(x, y); mul(x, y).block_until_ready()
elif kind == "userprim":
    # user function called "add" and JAX's own eager add in one run
    @jax.jit
    def add(a, b): return a + b
    add(x, y)
    z = jnp.asarray(x) + jnp.asarray(y) if run == "b" else None
    @jax.jit
    def mul(a, b): return a * b * 2.0
    mul(x, y).block_until_ready()
elif kind in ("namedscope", "namedscope_meta", "namedscope_meta2"):
    def _add(a, b):
        with jax.named_scope("scopeA" if run == "a" else "scopeB"):
            return a + b
    _add.__name__ = "layer" if kind == "namedscope_meta2" else "add"
    add = jax.jit(_add)
    @jax.jit
    def mul(a, b): return a * b * 2.0
    add(x, y); mul(x, y).block_until_ready()
elif kind == "namedcall":
    def inner(a, b): return a + b
    @jax.jit
    def add(a, b): return jax.named_call(inner, name="innerA" if run == "a" else "innerB")(a, b)
    @jax.jit
    def mul(a, b): return a * b * 2.0
    add(x, y); mul(x, y).block_until_ready()
elif kind == "clearcaches":
    base()
    jax.clear_caches()
    base()
elif kind == "checkpoint":
    def loss(a):
        f = (lambda t: jnp.sin(t) * t)
        if run == "b": f = jax.checkpoint(f)
        return jnp.sum(f(a))
    g = jax.jit(jax.grad(loss))
    @jax.jit
    def mul(a, b): return a * b * 2.0
    g(x).block_until_ready(); mul(x, y).block_until_ready()
elif kind == "vmap":
    @jax.jit
    def add(a, b): return a + b
    vf = jax.jit(jax.vmap(lambda a: jnp.sum(a * a)))
    add(x, y)
    n = 4 if run == "a" else 8
    vf(np.ones((n, 8), np.float32)).block_until_ready()
elif kind == "aot":
    @jax.jit
    def add(a, b): return a + b
    @jax.jit
    def mul(a, b): return a * b * 2.0
    if run == "a":
        add(x, y); mul(x, y).block_until_ready()
    else:
        add.lower(x, y).compile()(x, y); mul.lower(x, y).compile()(x, y).block_until_ready()
elif kind == "many":
    for i in range(200):
        f = jax.jit(lambda a, i=i: a * float(i) + jnp.sin(a + float(i)))
        f(x).block_until_ready()
elif kind in ("mesh", "mesh2"):
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    ax = "data" if run == "a" else "batch"
    mesh = Mesh(np.array(jax.devices()[:2]), (ax,))
    s = NamedSharding(mesh, P(ax))
    def _add(a, b): return a + b
    _add.__name__ = "step" if kind == "mesh2" else "add"
    add = jax.jit(_add)
    @jax.jit
    def mul(a, b): return a * b * 2.0
    xs = jax.device_put(x, s); ys = jax.device_put(y, s)
    add(xs, ys); mul(x, y).block_until_ready()
elif kind == "defaultdevice":
    if run == "b":
        jax.config.update("jax_default_device", jax.devices()[1])
    base()
elif kind == "rankpromo":
    if run == "b":
        jax.config.update("jax_numpy_rank_promotion", "warn")
    base()
else:
    base()
print("done", kind, run, jax.__version__, file=sys.stderr)
