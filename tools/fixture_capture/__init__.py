"""Regenerates the repository's fixtures from the real JAX.

Nothing here computes a cache key: every key, digest and entry byte in a
fixture is what the installed ``jax``/``jaxlib`` (and ``libtpu``) computed,
recorded while it computed it.

CPU (``tools/capture``, ``python -m fixture_capture``):

* ``programs``: the programs, one per fixture id;
* ``record``: records one program's ``cache_key.get`` call into a scenario;
* ``debug_options``: discovers the DebugOptions field table;
* ``json_golden``: the ``json.dumps`` golden cases;

TPU (``tools/capture-tpu``, ``python -m fixture_capture.tpu``): the
``fixture_capture.tpu`` package.

Shared: ``workers`` (one interpreter per capture) and ``provenance`` (what a
capture records about itself, and how its JSON is written).

Run with ``tools/`` and ``python/`` on ``PYTHONPATH`` (the wrappers do):
``record`` and ``debug_options`` use ``cachekey.ref`` from ``python/``.
"""
