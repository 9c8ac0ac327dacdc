"""Running a user's script as a plain ``python SCRIPT`` run would, for the tools.

``python -m cachekey.capture`` and ``python -m cachekey.watch`` run the
user's program inside their own process.  Three things would otherwise make
that run differ from a plain one, and this module removes each:

* **Locations.**  With ``jax_compilation_cache_include_metadata_in_key``
  (``JAX_COMPILATION_CACHE_INCLUDE_METADATA_IN_KEY=true``) entry 1 hashes the
  module with its locations, and a location is the stack of *user frames* at
  the traced call (``jax._src.source_info_util.user_frames``: every frame
  whose file does not start with a path on JAX's exclusion list, which holds
  JAX's own directory and the standard library's).  Under ``python -m`` the
  stack also holds ``<frozen runpy>`` (Python 3.11 on; earlier its file is in
  the standard library, excluded already) and the tool's own frames, so the
  key moved.  ``exclude_tool_frames`` adds both to the exclusion list
  (``source_info_util.register_exclusion``, JAX's own call for this, in every
  release from 0.4.30); a plain run has none of those frames, so its user
  frames are unchanged.
* **The first log record.**  Importing jax logs (``jax._src.path``, at
  DEBUG) while it imports.  A tool that imported jax before the script
  configured logging took that record away from the script's handlers.
  ``after_import`` runs a callback right after the script's own ``import
  jax`` has finished, so the tool never imports jax first.
* **``__main__``.**  ``run_script`` compiles the script with its absolute path
  as the file name (what ``python SCRIPT`` does from Python 3.9 on, so
  ``co_filename`` and every location carry the same path), without the
  tool's ``__future__`` flags, and runs it in a new ``__main__`` module with
  ``sys.argv`` and ``sys.path[0]`` as a plain run has them.

Importing this module does not import JAX.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import threading
import types
from typing import Callable

#: The frames of a ``python -m`` launch that a plain run does not have.
RUNPY_FRAMES = "<frozen runpy>"
#: This package's directory (with the separator, as JAX's own entries are).
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def exclude_tool_frames() -> None:
    """Puts ``<frozen runpy>`` and this package's files on JAX's exclusion list.

    Mirrors how JAX keeps its own frames out of locations
    (``jax/_src/source_info_util.py``: ``_exclude_paths``, matched as
    prefixes of a frame's file name; ``register_exclusion`` appends one and
    clears the cached regex).  Needs jax imported (call it from an
    ``after_import`` callback); adds each path once.  Raises whatever the
    import raises when jax is missing.
    """
    from jax._src import source_info_util as siu
    have = getattr(siu, "_exclude_paths", [])
    for path in (RUNPY_FRAMES, PACKAGE_DIR):
        if path not in have:
            siu.register_exclusion(path)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``name`` with the other finders and calls back once it has executed."""

    def __init__(self, name: str, callback: Callable[[], None]):
        self.name = name
        self.callback = callback
        self.fired = False
        self._lock = threading.Lock()

    def find_spec(self, fullname, path, target=None):
        if fullname != self.name or self.fired:
            return None
        spec = None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader, self)
        return spec

    def fire(self, module) -> None:
        with self._lock:
            if self.fired:
                return
            self.fired = True
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass
        self.callback()


class _Loader(importlib.abc.Loader):
    """The real loader, and the callback once the module's code has run."""

    def __init__(self, real, finder: _Finder):
        self.real = real
        self.finder = finder

    def create_module(self, spec):
        return self.real.create_module(spec)

    def exec_module(self, module):
        # The module keeps the real loader, as without the hook.
        module.__loader__ = self.real
        if module.__spec__ is not None:
            module.__spec__.loader = self.real
        self.real.exec_module(module)
        self.finder.fire(module)


def after_import(name: str, callback: Callable[[], None]) -> None:
    """Calls ``callback()`` once, right after module ``name`` has been imported.

    When ``name`` is already in ``sys.modules`` the callback runs now.
    Otherwise a finder at the front of ``sys.meta_path`` lets the normal
    finders find it, runs its code with the real loader, then calls back and
    removes itself.  An exception the callback raises propagates into the
    ``import`` statement that triggered it: callers catch their own.
    """
    if name in sys.modules:
        callback()
        return
    sys.meta_path.insert(0, _Finder(name, callback))


_replaced: list = []


def run_script(path: str, args: list[str]) -> int:
    """Runs the Python file ``path`` as ``python path args...`` would; returns its status.

    ``sys.argv`` becomes ``[path, *args]`` and ``sys.path[0]`` the script's
    directory; the code runs in a new module named ``__main__`` (``__file__``
    the absolute path) that replaces ``sys.modules["__main__"]``.  Returns
    the ``SystemExit`` code (an int; 1 for a non-int message, which is
    printed to stderr as Python does; 0 for ``None``), 0 when the script
    returns.  Other exceptions propagate.  Raises ``OSError`` when the file
    cannot be read and ``SyntaxError`` when it does not compile.
    """
    full = os.path.abspath(path)
    with open(full, "rb") as f:  # bytes: compile() honours the coding cookie
        source = f.read()
    code = compile(source, full, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__file__ = full
    main.__cached__ = None
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", full)
    main.__spec__ = None
    main.__builtins__ = __builtins__
    _replaced.append(sys.modules.get("__main__"))  # kept alive: its functions may still run
    sys.modules["__main__"] = main
    sys.argv = [path, *args]
    here = os.path.dirname(os.path.realpath(full))  # as Python sets it for a script
    if sys.path:
        sys.path[0] = here
    else:
        sys.path.insert(0, here)
    try:
        exec(code, main.__dict__)
    except SystemExit as exc:
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)
        return 1
    return 0


def parse_tool_argv(parser, argv: list[str]) -> tuple[object, str, list[str]]:
    """Splits ``TOOL-OPTIONS -- SCRIPT [ARGS...]`` as both tools take it.

    ``argv`` is the tool's own arguments (``sys.argv[1:]``).  Everything
    before the first ``--`` goes to ``parser`` (an ``argparse.ArgumentParser``);
    everything after it is the user's command line, whose first element must
    be an existing file.  Returns ``(options, script_path, script_args)``.
    Errors go through ``parser.error`` (usage on stderr, ``SystemExit(2)``):
    no ``--`` or nothing after it, or a script that is not a file.
    """
    if "--" in argv:
        split = argv.index("--")
        own, script = argv[:split], argv[split + 1:]
    else:
        own, script = argv, []
    options = parser.parse_args(own)
    if not script:
        parser.error("give the program after --: -- SCRIPT [ARGS...]")
    if not os.path.isfile(script[0]):
        parser.error(f"SCRIPT {script[0]!r}: no such file")
    return options, script[0], script[1:]
