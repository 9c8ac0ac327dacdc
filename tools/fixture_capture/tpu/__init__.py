"""Captures real TPU compilation-cache-key values on a CPU-only machine.

Runs inside a venv that has ``jax``, ``jaxlib`` and ``libtpu`` from PyPI
(no TPU needed: libtpu compiles "deviceless", ahead of time, for a TPU
topology that it describes itself).  ``tools/capture-tpu`` makes the venvs and
runs everything; by hand, with ``tools/`` on ``PYTHONPATH``::

    VENV/bin/python -m fixture_capture.tpu --out DIR                # everything
    VENV/bin/python -m fixture_capture.tpu --out DIR --only topologies
    VENV/bin/python -m fixture_capture.tpu --out DIR --only captures --programs add_v5e_1x1,pallas_a
    python -m fixture_capture.tpu --merge DIR/topologies_jax*.json --merged-out topologies.json

Modules: ``topologies`` (every topology name tried), ``programs`` (the
programs of the whole-key captures), ``record`` (one whole-key capture, in a
worker process), ``recorders`` (stand-ins that record what JAX feeds and
logs).  ``fixture_capture.tpu_fixtures`` turns the output into the
repository's fixtures.

What it writes (``<ver>`` is the running jax version):

* ``DIR/topologies_jax<ver>.json``: every TPU topology name tried through
  ``jax.experimental.topologies.get_topology_desc(name, "tpu", **kwargs)``.
  For an accepted name: device count, ``device_kind``, platform,
  ``platform_version`` (exact), ``DeviceTopology.fingerprint()`` (hex, 16
  digits) of all devices and of ``devices[:1]``, and the exact bytes that the
  release's own ``jax._src.cache_key._hash_accelerator_config`` feeds to a hash
  object for that device array (entry 6 "accelerator_config"), recorded by
  calling that real function with a recording hash object.  For a refused
  name: the exception type and full message.
* ``DIR/captures/<program>__jax<ver>.json``: one whole-key capture per
  program.  Each program runs in its own child process (``--worker``) with
  ``JAX_PLATFORMS=cpu``, the persistent compilation cache enabled in a fixed
  temporary directory (emptied first), ``min_compile_time_secs=0``,
  ``min_entry_size_bytes=-1``, and the ``jax._src.cache_key`` logger at DEBUG.
  The child replaces ``jax._src.cache_key.get`` with a wrapper that records
  the arguments JAX passed (module text and bytecode, devices,
  ``compile_options.SerializeAsString()``, backend platform and
  platform_version, compression name, custom-partitioning / callback switch),
  swaps ``cache_key.hashlib`` for a shim whose sha256 objects record every
  byte string fed to them, and calls the real ``get``.  Because DEBUG is on,
  the real ``get`` makes one running hash object plus one fresh object per
  entry; the fresh objects' inputs are the per-entry bytes.  Every value under
  ``expected`` is copied from that real run.  Self-checks: the running hash
  was fed exactly the concatenation of the per-entry bytes, its digest is the
  key's suffix, the DEBUG digests equal the recorded objects' digests, and
  entry 6 equals ``fingerprint().to_bytes(8, "big")`` of
  ``xla_client.get_topology_for_devices`` on the passed devices.
* ``fallback_*`` programs force the device_kind fallback of entry 6 by
  making ``get_topology_for_devices`` (as seen from ``jax._src.cache_key``
  only) raise ``JaxRuntimeError``; that path is never taken naturally for TPU
  devices (libtpu always supplies a topology), so these captures are marked
  ``synthetic_trigger``.

Environment: ``CAPTURE_TPU_CACHE_DIR`` replaces the fixed cache directory
``/tmp/jax-tpu-cache-key-capture`` (under jax 0.10.2 that path is part of
entry 5, so keep the default to reproduce the stored keys).  ``--list`` prints
the program ids.  Keys captured with
``jax_compilation_cache_include_metadata_in_key=True`` (``*_meta``) and, under
jax 0.10.2, the Pallas keys, depend on the path and line numbers of this
package's code (the programs and the worker's call stack); each capture
records ``code_sha256``, the digest of this package's code
(``fixture_capture.provenance.code_sha256``).

Nothing here reimplements the cache key: every key and digest comes from the
installed JAX.
"""
