"""The scenario document (docs/scenario.md), written in one place.

``cachekey.capture`` (a running program) and the repository's fixture
tools (tools/fixture_capture: CPU and TPU captures) all write the same
document; they build it with ``make_scenario``, and pick the command-line
flags JAX hashes with ``argv_flags``. Importing this module does not import
JAX.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

#: The scenario schema this package writes (the engine reads schema 1).
SCHEMA = 1


def argv_flags(argv: Iterable[str], prefixes: Sequence[str]) -> list[str]:
    """The ``sys.argv`` elements JAX hashes in entry 4, in order.

    Mirrors ``_hash_xla_flags`` in jax/_src/cache_key.py: an element is kept
    when it starts with ``--xla`` or with one of the extra prefixes
    registered through ``cache_key.add_flag_prefixes`` (``prefixes``).
    """
    return [a for a in argv if a.startswith("--xla") or any(a.startswith(p) for p in prefixes)]


def make_scenario(*, id: str, title: str, profile: str, module: dict, jaxlib_version: str,
                  backend: dict, xla_flags: str, libtpu_init_args: str, argv: list[str],
                  extra_prefixes: Sequence[str], compile_options_b64: str, accelerator: dict,
                  compression: str, custom_hook: str, **rest: Any) -> dict:
    """A schema-1 scenario document, its members in the documented order.

    ``argv`` holds the flags already picked (``argv_flags``); ``rest``
    (``provenance``, ``capture``, ``expected``, ...) follows the ingredients
    in the order given. Every value is what the caller recorded from JAX;
    nothing is computed here.
    """
    doc = {
        "schema": SCHEMA,
        "id": id,
        "title": title,
        "profile": profile,
        "module": module,
        "jaxlib_version": jaxlib_version,
        "backend": backend,
        "flags": {"XLA_FLAGS": xla_flags, "LIBTPU_INIT_ARGS": libtpu_init_args,
                  "argv": list(argv), "extra_prefixes": list(extra_prefixes)},
        "compile_options": {"proto_b64": compile_options_b64},
        "accelerator": accelerator,
        "compression": compression,
        "custom_hook": custom_hook,
    }
    doc.update(rest)
    return doc
