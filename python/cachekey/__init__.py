"""cachekey: capture the ingredients of JAX's compilation cache key.

``cachekey.capture`` wraps ``jax._src.cache_key.get`` in a running program and
records, for every compiled program, what JAX hashed and the key it
returned; the C++ engine of this repository reproduces and compares them.
``cachekey.ref`` holds helpers shared with the repository's tools (protobuf
wire format, FarmHash Fingerprint64, CPU topology discovery, hash-object and
log recorders).  ``cachekey.watch()`` (or ``python -m cachekey.watch``)
explains each persistent-cache miss as it happens.  Importing this package
does not import JAX.
"""

__version__ = "0.1.0"

# The engine in the wheel (``cachekey._engine``): importing these runs nothing.
from cachekey._engine import EngineError, compare_logs, diff  # noqa: E402,F401


def __getattr__(name):
    """``cachekey.watch`` (callable: ``cachekey.watch()`` starts a watch), imported on first use."""
    if name == "watch":
        import importlib
        return importlib.import_module("cachekey.watch")
    raise AttributeError(f"module 'cachekey' has no attribute {name!r}")
