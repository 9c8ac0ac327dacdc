"""The diagnosis oracle's catalogue: every kind of cache miss it makes real.

One entry per kind (``KINDS``). A kind is a small real JAX program
(tests/diag_oracle/program.py) run two or more times with one controlled
change between the runs, and the findings ``cachekey compare-logs --json``
must give for those real logs. tests/diag_oracle/oracle.py makes the runs in
each release's venv and checks the codes; it never reads the tool's words.

Each kind is a dict:

- ``id``: ``family/name`` (families: settings, environment, program, cache,
  control, logging, processes);
- ``why``: the change and the JAX behaviour the expectation rests on, with
  the upstream file (jax/_src/...) that behaves so;
- ``releases``: the jax releases it runs on (venvs of tests/oracle/venvs.py);
- ``vars``: ``{release: {"$NAME": value}}``, more substitutions in the
  runs' specs on that release (a size that differs by release);
- ``pip``: PyPI packages the kind needs beside the release venv (e.g.
  ``filelock``): installed once per Python with ``pip install --target``
  under /var/cache/cachekey/overlays and put on the runs' PYTHONPATH, so the
  release venv itself stays as tests/oracle/venvs.py built it;
- ``skip``: ``{release: why}``, releases of ``releases`` the kind cannot run on
  (no libtpu or CUDA plugin for them): reported as skipped with that reason;
- ``sample``: True when ``tools/diag-oracle --sample`` (scripts/test) runs it;
- ``cap``: ``"one_entry"``: ``$MAXSIZE`` is a cache size cap that holds the
  largest entry of the first run alone and not with the smallest, from the
  entries of a probe run of it (oracle.py ``_cap_for_one_entry``);
- ``runs``: the runs, in order. A run is a dict with ``spec`` (program.py's
  CK_SPEC: ``route`` the logging route, ``programs``, ``cache`` (``$CACHE``
  is the kind's cache directory, ``$CACHE2`` a second one, a relative path
  stays relative), ``config`` (jax.config.update calls), ``min_compile_time``,
  ``min_entry_size``, ``max_size``, ``cache_late``, ``variant``, ``n``,
  ``remove_cache`` (True: the cache folder is deleted after the first
  program), ``switch_cache`` (after the first program, compilation_cache.reset_cache()
  and this jax_compilation_cache_dir: the run goes on in another folder),
  ``threads`` (that many functions compiled at once, one thread each;
  ``changed`` the one whose body run B changes), ``static_values``,
  ``rename`` (the step program's function under that name),
  ``private_rate``, ``const_values``, ``explain``, ``deviceless`` (``{"platform":
  "tpu", "topology": "v5e:2x2"}`` or ``{"platform": "gpu", "target": "NVIDIA H100 80GB
  HBM3", "topology": "1x1x1"}``: the programs are compiled ahead of time for that
  deviceless topology, in the release's TPU or GPU venv)), and optionally ``env``
  (added to the environment: XLA_FLAGS, JAX_LOGGING_LEVEL, …), ``cwd`` (a
  folder of the kind's work dir), ``readonly_cache`` (True: the run sees the
  cache folder through a read-only bind mount, so every write fails),
  ``label`` (a launcher's prefix put before every line
  of the run's stderr, as ``srun --label`` or torchrun do), ``log`` (the log
  file; runs naming one log append to it), ``before`` (what the driver does
  to the cache directory before the run: ``empty``, ``truncate``,
  ``drop_atime`` (delete the ``-atime`` files, keep the entries),
  ``copy_r`` / ``copy_a`` (``$CACHE2`` becomes a ``cp -r`` / ``cp -a``
  copy of ``$CACHE``)), ``release`` (this run's jax release instead of the
  kind's: an upgrade between runs; the kind is reported under its own
  release), ``argv`` (arguments after the program, in its ``sys.argv``),
  ``script`` (``"copy"``: the program is copied into the run's working
  directory and started by its relative path, ``python program.py``),
  ``python`` (``"3.13"``: the run's release on that Python, a venv of its
  own from tests/oracle/venvs.py), ``stdout`` (True: the run's stdout is merged into its log, as ``2>&1``;
  with the spec's ``print`` the program prints a line after each program);
- ``capture``: True to run each run under ``python -m cachekey.capture``
  (captures in ``capture-<log>``) and check ``cachekey diff capture-a
  capture-b --json`` against ``expect["diff"]`` (``cause``: each differing
  program's root-cause entry; ``field``: a field its details or other
  details name);
- ``compare``: the logs given to ``compare-logs``, default the first two runs'
  logs (``["a", "b"]``); three or more make an N-log comparison;
- ``expect``: the findings, as codes (docs/json.md):

  - ``cause``: the top-level root-cause entry (1..8), or 0 when no pair's key
    differs;
  - ``verdict`` / ``outcome_a`` / ``outcome_b``: ``{program name or "*":
    code}`` for each pair's ``findings.verdict.code`` / ``outcome_a.code`` /
    ``outcome_b.code`` ("*" is every pair not named);
  - ``move``: ``{program name or "*": code}`` for each pair's
    ``findings.move.code`` (how its key moved: ``jaxlib_upgrade``, …);
  - ``miss``: ``{program name or "*": code}`` for each pair's
    ``findings.miss.code`` (why the second run missed a key it shares);
  - ``details_has``: codes that must be among the root cause's
    ``findings.details`` / ``findings.other_details`` (e.g.
    ``backend_decoded``: entry 3 read back to its platform and version);
  - ``advice``: the exact set of ``what_to_do[].code``; ``advice_has`` /
    ``advice_lacks``: codes that must / must not be among them;
    ``advice_any``: at least one of these (where the logs cannot tell two
    causes apart);
  - ``flag_kinds``: the exact set of ``flag.kind`` of the root cause's
    entry-4 findings (``added``, ``repeated``, …);
  - ``advice_entry``: ``{code: entry}`` for ``key_moved`` items;
  - ``advice_items``: ``{code: n}`` how many items of ``what_to_do`` have
    that code (one cause for several programs is one item);
  - ``renamed_from``: ``{program name: label}`` the verdict's
    ``renamed_from`` of a program only in run B (run A's program it may be,
    under a new name);
  - ``many_verdict``: with three or more logs, the code of ``verdict``
    (``one_key``, ``odd_runs``, ``not_in_every_run``);
  - ``programs``: ``{log: n}`` the program count of that log, where it is
    not what JAX counted (the oracle otherwise checks every log's program
    and hit counts against the ``jax.monitoring`` cache_hits / cache_misses
    events the runs counted);
  - ``error``: ``{"code", "path", "subject"?}``: compare-logs must refuse
    the logs with this error code (and subject, when given), naming this log
    (exit status 2);
  - ``by_release``: ``{release: {…}}`` members that replace the above on one
    release (JAX changed the behaviour).

- ``known``: ``{release or "*": why}``: why the tool still fails the kind
  there (shown in docs/diag-oracle.md beside the failure; it does not make
  the kind pass).

Nothing here comes from the tool's output: each expectation follows from
the change the kind makes and from JAX's documented or observed behaviour
(the ``why``).
"""

R2 = ["0.10.2", "0.12.0.1"]
R3 = ["0.4.30", "0.10.2", "0.12.0.1"]
# From 0.6.2 on (JAX's logging_config and JAX_LOGGING_LEVEL, the LRU's -atime files).
R3N = ["0.6.2", "0.10.2", "0.12.0.1"]
R4 = ["0.4.30", "0.6.2", "0.10.2", "0.12.0.1"]
ALL = R4  # the columns of docs/diag-oracle.md


def run(**spec):
    """A run whose program spec is ``spec`` (cache in the kind's directory)."""
    extra = {k: spec.pop(k) for k in ("env", "cwd", "readonly_cache", "label", "log", "before", "together",
                                      "release", "argv", "script", "stdout", "python")
             if k in spec}
    spec.setdefault("cache", "$CACHE")
    return {"spec": spec, **extra}


HIT_ALL = {"cause": 0, "verdict": {"*": "same_key"}, "outcome_b": {"*": "hit"},
           "advice": ["nothing_to_do"]}
# Two logs without any cache line: nothing to compare, so an error (exit
# status 2) that names the first such log (and says how to log the lines).
NO_LINES = {"error": {"code": "invalid", "path": "a.log"}}
# jit_step changed in run B (x+y to x*y): its entry 1 moves, jit_mlp hits.
STEP_MOVED = {"cause": 1, "verdict": {"jit_step": "key_moved", "jit_mlp": "same_key"},
              "outcome_b": {"jit_step": "missed_written", "jit_mlp": "hit"},
              "advice": ["key_moved"], "advice_entry": {"key_moved": 1}}

KINDS = [
    # --- controls: changes that must not move a key --------------------------
    {"id": "control/identical", "sample": True, "releases": R4,
     "why": "The same program run twice on one cache directory: run B reads every entry run A wrote.",
     "runs": [run(), run()], "expect": HIT_ALL},
    {"id": "control/other-cwd-absolute-cache", "sample": False, "releases": R4,
     "why": "Run B starts in another working directory; the cache path is absolute, and the key has no path in it (cache_key.py).",
     "runs": [run(cwd="wd1"), run(cwd="wd2")], "expect": HIT_ALL},
    {"id": "control/excluded-dump-flag", "sample": True, "releases": R4,
     "why": "Run B adds XLA_FLAGS=--xla_dump_to=DIR: cache_key.py leaves the flag out of entry 4 (its exclusion list) and zeroes DebugOptions.xla_dump_to in entry 5.",
     "runs": [run(), run(env={"XLA_FLAGS": "--xla_dump_to=$WORK/dump"})], "expect": HIT_ALL},

    # --- settings: global JAX settings ---------------------------------------
    {"id": "settings/xla-caches-none", "sample": False, "releases": R3N,
     "why": "Run B sets jax_persistent_cache_enable_xla_caches='none' (from 0.6.2; default 'xla_gpu_per_fusion_autotune_cache_dir', config.py): compiler.py's get_compile_options then leaves DebugOptions.xla_gpu_per_fusion_autotune_cache_dir empty and logs no 'Enabling XLA autotuning cache' line, with the same cache directory. Before 0.11.0 cache_key.py hashes that field, so entry 5 of every program moves (observed on 0.10.2); from 0.11.0 it zeroes the field and run B hits (observed on 0.12.0.1).",
     "runs": [run(), run(config={"jax_persistent_cache_enable_xla_caches": "none"})],
     "expect": {"cause": 5, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["same_xla_caches"],
                "by_release": {"0.12.0.1": HIT_ALL}}},
    {"id": "settings/x64", "sample": True, "releases": R4,
     "why": "Run B sets jax_enable_x64: the float64 NumPy inputs keep 64 bits instead of being canonicalised to float32 (dtypes.py), so every program's entry 1 moves.",
     "runs": [run(), run(config={"jax_enable_x64": True})], "capture": True,
     "expect": {"cause": 1, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["same_x64"], "diff": {"cause": 1}}},
    {"id": "settings/matmul-precision", "sample": False, "releases": R4,
     "why": "Run B sets jax_default_matmul_precision=highest: the dot in jit_mlp gets a precision config (entry 1 of that program only); jit_step has no dot and hits.",
     "runs": [run(), run(config={"jax_default_matmul_precision": "highest"})],
     "expect": {"cause": 1, "verdict": {"jit_mlp": "key_moved", "*": "same_key"},
                "outcome_b": {"jit_mlp": "missed_written", "*": "hit"},
                "advice": ["key_moved"], "advice_entry": {"key_moved": 1}}},
    {"id": "settings/shardy-off", "sample": True, "releases": R2,
     "why": "Run B sets jax_use_shardy_partitioner=False (default True in these releases, config.py): CompileOptions carry use_shardy_partitioner (entry 5 of every program) and the sharded program is lowered with GSPMD shardings (entry 1). One global setting moved every program.",
     "runs": [run(programs=["step", "sharded"], env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}),
              run(programs=["step", "sharded"], config={"jax_use_shardy_partitioner": False},
                  env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"})],
     "capture": True,
     "expect": {"verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["same_global_settings"],
                "diff": {"field": "use_shardy_partitioner"}}},
    {"id": "settings/pgle", "sample": True, "releases": R2,
     "why": "Run B sets JAX_ENABLE_PGLE=true (jax_enable_pgle, config.py; jax_pgle_profiling_runs defaults to 3): compiler.py's _resolve_compilation_strategy then computes, before each program's own key, the key of its PGLE-optimized entry (fdo_profile overridden) and looks it up, and compiles the program with first-pass options that add an env_option_override (xla_gpu_enable_command_buffer), so entry 5 of every program moves. The probe key is not a program.",
     "runs": [run(), run(env={"JAX_ENABLE_PGLE": "true"})],
     "expect": {"cause": 5, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["same_pgle"]}},
    {"id": "settings/profile-version", "sample": False, "releases": R2,
     "why": "Run B sets JAX_XLA_PROFILE_VERSION=3 (jax_xla_profile_version, config.py; default 0): compiler.py's get_compile_options sets compile_options.profile_version to it instead of -1 (no XLA-AutoFDO profile on CPU) and logs 'using JAX XLA profile version 3 from flag' before each key, so entry 5 of every program moves.",
     "runs": [run(), run(env={"JAX_XLA_PROFILE_VERSION": "3"})],
     "expect": {"cause": 5, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["same_profile_version"]}},
    {"id": "settings/device-count", "sample": True, "releases": R4,
     "why": "Run B has 4 CPU devices instead of 2 (--xla_force_host_platform_device_count, excluded from entry 4): the topology fingerprint (entry 6) of every program moves; the sharded program also splits its array 4 ways (entry 1), a consequence of the same change.",
     "runs": [run(programs=["step", "sharded"], env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}),
              run(programs=["step", "sharded"], env={"XLA_FLAGS": "--xla_force_host_platform_device_count=4"})],
     "expect": {"cause": 6, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["key_moved"], "advice_entry": {"key_moved": 6}}},

    # --- the program ---------------------------------------------------------
    {"id": "program/changed-body", "sample": True, "releases": R4,
     "why": "Run B changes jit_step's body (x+y to x*y): its entry 1 moves; jit_mlp is unchanged and hits.",
     "runs": [run(), run(variant="mul")],
     "expect": {"cause": 1, "verdict": {"jit_step": "key_moved", "*": "same_key"},
                "outcome_b": {"jit_step": "missed_written", "*": "hit"},
                "advice": ["key_moved"], "advice_entry": {"key_moved": 1}}},
    {"id": "program/renamed-function", "sample": True, "releases": R4,
     "why": "Run B calls the same step function under another name, step_renamed (its `__name__`): JAX names the lowered module after the function, so the name alone moves entry 1 and the program has a new key; the argument shapes and types and every other entry are the same. jit_mlp hits.",
     "runs": [run(), run(rename="step_renamed")],
     "expect": {"verdict": {"jit_step": "only_in_a", "jit_step_renamed": "only_in_b", "*": "same_key"},
                "outcome_b": {"jit_step_renamed": "missed_written", "jit_mlp": "hit"},
                "renamed_from": {"jit_step_renamed": "jit_step"},
                "advice": ["renamed_function"]}},
    {"id": "program/new-shapes", "sample": False, "releases": R4,
     "why": "Run B calls the same functions on arrays of 16 instead of 8: a new program per shape (entry 1), the 'Compiling … with global shapes' lines differ; the advice is about new shapes (whether the pairs are called moved keys or new programs is not checked).",
     "runs": [run(), run(n=16)],
     "expect": {"outcome_b": {"*": "missed_written"}, "advice": ["new_shapes"]}},
    {"id": "program/static-argument", "sample": True, "releases": R4,
     "why": "A jit with static_argnums called with k=1,2,3 in run A and k=4,5,6 in run B: one program per static value (jax.jit docs), same argument shapes, a new entry 1 each time; only the static values can explain it.",
     "runs": [run(programs=["static"], static_values=[1, 2, 3]),
              run(programs=["static"], static_values=[4, 5, 6])],
     "expect": {"cause": 1, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["static_or_constant"]}},
    {"id": "program/static-new-value", "sample": True, "releases": R4,
     "why": "A jit with static_argnums called with k=1,2,3 in run A and k=1,2,3,4 in run B: the first three are the same programs (hits); k=4 is one more program of the same name with the same argument shapes and types as three the first run compiled (jax.jit docs: one program per static value), so only its static value can explain its new key.",
     "runs": [run(programs=["static"], static_values=[1, 2, 3]),
              run(programs=["static"], static_values=[1, 2, 3, 4])],
     "expect": {"advice": ["static_or_constant"], "shapes_in_a": {"jit_scaled (4th)": True}}},
    {"id": "program/precision-context", "sample": True, "releases": R2,
     "why": "Run B calls jit(mlp) once more, on the same arguments, inside `with jax.default_matmul_precision('highest')`: the context is traced into the dot, so it is another program of the same name and argument shapes (entry 1), only in run B; run A compiled jit_mlp with these very shapes, and the advice must name settings around the call as well as static arguments and constants. jit_mlp and jit_step hit.",
     "runs": [run(programs=["mlp", "step"]), run(programs=["mlp", "mlp_in_precision", "step"])],
     "expect": {"verdict": {"jit_mlp (2nd)": "only_in_b", "*": "same_key"},
                "outcome_b": {"jit_mlp (2nd)": "missed_written", "*": "hit"},
                "shapes_in_a": {"jit_mlp (2nd)": True},
                "advice": ["static_or_constant"]}},
    {"id": "program/argument-sharding", "sample": False, "releases": R2,
     "why": "Run B places the sharded program's argument by columns (PartitionSpec(None, 'd')) instead of rows (PartitionSpec('d', None)) on the same 2 CPU devices, with the same shape and dtype: the input sharding is in the lowered module (entry 1), so its key moves, and pxla.py's 'Compiling … Argument mapping' line shows the new placement. jit_step is untouched and hits.",
     "runs": [run(programs=["step", "sharded"], env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}),
              run(programs=["step", "sharded"], partition=[None, "d"],
                  env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"})],
     "expect": {"cause": 1, "verdict": {"jit_sharded_fn": "key_moved", "*": "same_key"},
                "outcome_b": {"jit_sharded_fn": "missed_written", "*": "hit"},
                "advice": ["same_shardings"]}},
    {"id": "program/captured-constant", "sample": False, "releases": R4,
     "why": "A closure capturing a Python float, jitted for c=0.5,1.5 in run A and c=2.5,3.5 in run B: the constant is embedded in the program (entry 1), same shapes.",
     "runs": [run(programs=["const"], const_values=[0.5, 1.5]),
              run(programs=["const"], const_values=[2.5, 3.5])],
     "expect": {"cause": 1, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["static_or_constant"]}},
    {"id": "program/host-callbacks", "sample": False, "releases": R4,
     "why": "A program with jax.debug.callback, run twice: jax 0.10.2 and older never write programs with host callbacks (compiler.py: 'uses host callbacks'), so run B misses the same key (0.4.30: another key, as the callback's address is in the program); 0.12.0.1 writes them and run B hits.",
     "runs": [run(programs=["callback", "step"]), run(programs=["callback", "step"])],
     "expect": {"cause": 0, "verdict": {"jit_with_print": "same_key_missed", "*": "same_key"},
                "outcome_b": {"jit_with_print": "missed_not_written", "*": "hit"},
                "advice": ["host_callbacks"],
                "by_release": {"0.12.0.1": HIT_ALL,
                               # 0.4.30 lowers the callback's address into the program:
                               # its entry 1 moves in every process (and it is never written).
                               "0.4.30": {"cause": 1, "verdict": {"jit_with_print": "key_moved", "*": "same_key"}}}}},

    # --- the cache itself ----------------------------------------------------
    {"id": "cache/min-compile-time", "sample": True, "releases": R4,
     "why": "Both runs set jax_persistent_cache_min_compile_time_secs=100: no program takes that long, none is written (compiler.py 'took < …'), and run B misses the same keys.",
     "runs": [run(min_compile_time=100), run(min_compile_time=100)],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_not_written"},
                "advice": ["lower_min_compile_time"]}},
    {"id": "cache/min-entry-size", "sample": False, "releases": R4,
     "why": "Both runs set jax_persistent_cache_min_entry_size_bytes=10**9: every entry is smaller, none is written (compilation_cache.py 'is less than threshold').",
     "runs": [run(min_entry_size=10**9), run(min_entry_size=10**9)],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_not_written"},
                "advice": ["lower_min_entry_size"]}},
    {"id": "cache/min-entry-size-zero", "sample": False, "releases": R4,
     "why": "Both runs set jax_persistent_cache_min_entry_size_bytes=0, which _initialize_cache replaces with default_min_cache_entry_size() (0 in these releases): entries are written, run B hits.",
     "runs": [run(min_entry_size=0), run(min_entry_size=0)], "expect": HIT_ALL},
    {"id": "cache/disabled-by-setting", "sample": False, "releases": R4,
     "why": "Run B sets jax_enable_compilation_cache=False with the same cache directory: compiler.py then compiles without asking the cache (compilation_cache.is_cache_used is False), so no key, lookup or write line is logged, only compiler.py's get_compile_options line per compile (observed on 0.10.2 and 0.12.0.1). Nothing to pair: compare-logs must refuse run B's log, saying that it compiled without the cache.",
     "runs": [run(), run(config={"jax_enable_compilation_cache": False})],
     "expect": {"error": {"code": "invalid", "path": "b.log", "subject": "compiled_without_cache"}}},
    {"id": "cache/not-configured", "sample": False, "releases": R4,
     "why": "Run B never sets jax_compilation_cache_dir: JAX still computes each key and looks it up, and logs 'get_executable_and_time: cache is disabled/not initialized' (observed in 0.4.30, 0.10.2, 0.12.0.1); no cache is ever initialised, nothing is read or written.",
     "runs": [run(), run(cache=None)],
     "expect": {"advice": ["set_cache_dir"]}},
    {"id": "cache/configured-late", "sample": True, "releases": R4,
     "why": "Run B compiles jit_step before it sets jax_compilation_cache_dir: that lookup finds no cache ('cache is disabled/not initialized'), the cache is initialised afterwards and jit_mlp hits (observed). In 0.10.2 and older jit_step's key also moves (entry 5: no autotune path under a cache dir yet).",
     "runs": [run(), run(cache_late=True)],
     "expect": {"outcome_b": {"jit_mlp": "hit"}, "advice": ["configure_cache_early"],
                # 0.4.30 keeps the cache off for the rest of the run once a
                # compile ran without it (observed: no 'Initialized' line,
                # 'put_executable_and_time: cache is disabled'), so its log
                # reads like a run that never set the folder: either advice.
                "by_release": {"0.4.30": {"outcome_b": {"*": "missed_not_written"}, "advice": None,
                                          "advice_any": ["configure_cache_early", "set_cache_dir"]}}}},
    {"id": "cache/other-dir", "sample": False, "releases": R4,
     "why": "Run B points jax_compilation_cache_dir at another, empty folder: from 0.11.0 (and in 0.4.30) the keys are equal and the entries are elsewhere; jax 0.6.2 to 0.10.2 write the autotune cache path under the cache dir into DebugOptions (compiler.py 'Enabling XLA autotuning cache'), so entry 5 of every key moves with the folder.",
     "runs": [run(), run(cache="$CACHE2")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_written"},
                "advice": ["same_cache_dir"],
                # 0.6.2 writes the autotune path too (compiler.py, observed: entry 5 moved).
                "by_release": {r: {"cause": 5, "verdict": {"*": "key_moved"},
                                   "advice": ["same_cache_dir_in_key"]} for r in ("0.6.2", "0.10.2")}}},
    {"id": "cache/relative-dir-other-cwd", "sample": False, "releases": R4,
     "why": "Both runs set the relative cache path 'jaxcache' and start in different working directories: two caches.",
     "runs": [run(cache="jaxcache", cwd="wd1"), run(cache="jaxcache", cwd="wd2")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_written"},
                "advice": ["absolute_cache_dir"]}},
    {"id": "cache/same-dir-trailing-slash", "sample": True, "releases": ["0.12.0.1"],
     "why": "Run B spells the same cache folder with a trailing slash ('$CACHE/'), and the folder is emptied between the runs: the keys are equal and the entries are gone; the spelling names one folder (helper-20's run, 2026-12-06: the tool said 'different cache directories').",
     "runs": [run(), run(cache="$CACHE/", before="empty")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "miss": {"*": "gone"},
                "advice": ["keep_cache_dir"]}},
    {"id": "cache/dir-switched-mid-run", "sample": True, "releases": ["0.12.0.1"],
     "why": "Run B hits jit_step in the cache folder, then calls compilation_cache.reset_cache() and points jax_compilation_cache_dir at another, empty folder: jit_mlp misses there while its entry is still in the first folder (helper-20's run, 2026-12-06: the tool said the entry was removed).",
     "runs": [run(), run(switch_cache="$CACHE2")],
     "expect": {"cause": 0, "verdict": {"jit_step": "same_key", "jit_mlp": "same_key_missed"},
                "miss": {"jit_mlp": "other_cache_dir"}, "advice": ["same_cache_dir"]}},
    {"id": "cache/removed-during-run", "sample": True, "releases": ["0.12.0.1"],
     "why": "Run B hits jit_step, then its cache folder is deleted (a scratch-space cleaner): jit_mlp and jit_scale miss with the keys run A wrote into that folder, and their writes fail (FileNotFoundError, compiler.py 'Error writing persistent compilation cache entry'). Run B's own hit shows the folder is the one run A wrote: the entries were removed, not elsewhere (helper-20's run, 2026-12-06: the tool said 'removed between the runs, or the path is on each machine's own disk', and gave fix_write_error once per program).",
     "runs": [run(programs=["step", "mlp", "scale"]), run(programs=["step", "mlp", "scale"], remove_cache=True)],
     "expect": {"cause": 0, "verdict": {"jit_step": "same_key", "*": "same_key_missed"},
                "miss": {"jit_step": None, "*": "removed"}, "outcome_b": {"jit_step": "hit", "*": "missed_write_failed"},
                "advice": ["keep_cache_dir", "fix_write_error"], "advice_items": {"fix_write_error": 1}}},
    {"id": "cache/emptied", "sample": False, "releases": R4,
     "why": "The cache folder is emptied between the runs (a job's scratch space): the keys are equal, the entries are gone.",
     "runs": [run(), run(before="empty")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_written"},
                "advice": ["keep_cache_dir"]}},
    {"id": "cache/damaged", "sample": False, "releases": R3N,
     "why": "Every entry file is cut to 10 bytes between the runs: run B finds each entry and cannot read it (compiler.py 'Error reading persistent compilation cache entry'), and JAX does not replace an existing file.",
     "runs": [run(), run(before="truncate")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "advice_has": ["delete_damaged"],
                "advice_lacks": ["nothing_to_do"]}},
    {"id": "cache/read-only-dir", "sample": True, "releases": R3N,
     "why": "Run A sees the cache folder read-only (a read-only mount): every write fails (OSError EROFS, a warning: compiler.py 'Error writing persistent compilation cache entry'); run B misses every key.",
     "runs": [run(readonly_cache=True), run()],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_a": {"*": "missed_write_failed"},
                "advice_has": ["fix_write_error"], "advice_lacks": ["nothing_to_do"]}},
    {"id": "cache/check-contents", "sample": True, "releases": R2,
     "why": "Run B sets JAX_COMPILATION_CACHE_CHECK_CONTENTS=true (jax_compilation_cache_check_contents, config.py; default False): compilation_cache.py's VerificationCache returns nothing the first time a process sees a key, although lru_cache.py finds the entry (DEBUG 'Cache hit for key'), so every program compiles again and its executable is compared with the entry. The keys are equal and the entries are there.",
     "runs": [run(), run(env={"JAX_COMPILATION_CACHE_CHECK_CONTENTS": "true"})],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "miss": {"*": "check_contents"},
                "advice": ["turn_off_check_contents"]}},
    {"id": "cache/size-cap-without-filelock", "sample": False, "releases": R3N,
     "why": "Both runs set jax_compilation_cache_max_size=1000000 in a venv without the filelock package: lru_cache.py raises 'Please install the filelock package' on the first lookup and the cache stays off.",
     "runs": [run(max_size=1000000), run(max_size=1000000)],
     "expect": {"advice_has": ["install_filelock"], "advice_lacks": ["nothing_to_do"]}},

    # --- deviceless (ahead-of-time) compiles: a compile-only client ----------------
    # The runs use the release's TPU venv (jax with libtpu) or GPU venv (jax with the
    # CUDA plugin's compile-only client), tests/oracle/venvs.py, picked by the spec's
    # ``deviceless`` platform. Nothing runs on a device: each program is lowered from
    # jax.ShapeDtypeStruct inputs placed on the topology's devices and compiled ahead
    # of time (.lower(...).compile()).
    {"id": "cache/deviceless-tpu", "sample": True, "releases": R2,
     "why": "Both runs compile ahead of time for libtpu's deviceless topology v5e:2x2 "
            "(jax.experimental.topologies.get_topology_desc('v5e:2x2', 'tpu'); no TPU): "
            "run A writes each entry (compiler.py _cache_write serialises the executable), "
            "run B computes the same keys and finds them, but compilation_cache.py "
            "get_executable_and_time hands the bytes to backend.deserialize_executable, "
            "which a compile-only client cannot do (it has no devices to load onto), so "
            "compiler.py _cache_read warns 'Error reading persistent compilation cache "
            "entry' and compiles again. The entries are whole (the same client wrote "
            "them): deleting them changes nothing, and a compile-only client never gets "
            "a hit.",
     "runs": [run(deviceless={"platform": "tpu", "topology": "v5e:2x2"}),
              run(deviceless={"platform": "tpu", "topology": "v5e:2x2"})],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"},
                "miss": {"*": "compile_only_client"},
                "advice_has": ["compile_only_cannot_load"],
                "advice_lacks": ["delete_damaged", "nothing_to_do"]}},
    {"id": "cache/deviceless-gpu", "sample": False, "releases": R2,
     "skip": {"0.10.2": "no compile-only GPU client to build: jax-cuda12-plugin 0.10.2 is on PyPI, but "
                        "its plugin library embeds no GpuTargetConfigProto (tests/oracle/gpu.py "
                        "embedded_target_configs found no 'gpu_device_info {' string in "
                        "xla_cuda_plugin.so when a venv was built on 2026-12-04), so no target config "
                        "can be given to get_topology_desc; tests/oracle/releases.json names the CUDA "
                        "plugin for 0.12.0.1 only"},
     "why": "As deviceless-tpu with the CUDA plugin's compile-only client (no GPU, no "
            "driver): get_topology_desc(platform='cuda', target_config=<the plugin's "
            "embedded NVIDIA H100 80GB HBM3 config>, topology='1x1x1'). Run A writes each "
            "entry; run B finds it and backend.deserialize_executable fails on the "
            "compile-only client (compiler.py 'Error reading persistent compilation "
            "cache entry'), so it compiles again. Nothing is damaged.",
     "runs": [run(deviceless={"platform": "gpu", "target": "NVIDIA H100 80GB HBM3", "topology": "1x1x1"}),
              run(deviceless={"platform": "gpu", "target": "NVIDIA H100 80GB HBM3", "topology": "1x1x1"})],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"},
                "miss": {"*": "compile_only_client"},
                "advice_has": ["compile_only_cannot_load"],
                "advice_lacks": ["delete_damaged", "nothing_to_do"]}},
    {"id": "cache/deviceless-tpu-topology", "sample": False, "releases": R2,
     "why": "Run A compiles ahead of time for the deviceless v5e:2x2 (4 chips), run B for "
            "v5e:2x4 (8 chips), single-device programs on device 0: cache_key.py "
            "_hash_accelerator_config hashes the fingerprint of the devices' topology "
            "(get_topology_for_devices), which for a TPU is the whole slice's "
            "(fixtures/tpu: add_v5e_2x2_dev0 and dev3 both feed v5e:2x2's e047cc4c4c95e560, "
            "matmul_v5e_2x4 feeds d3d3ba1b6b343291), so entry 6 of every program moves and "
            "nothing else; run B misses and writes new entries, never reading one.",
     "runs": [run(deviceless={"platform": "tpu", "topology": "v5e:2x2"}),
              run(deviceless={"platform": "tpu", "topology": "v5e:2x4"})],
     "expect": {"cause": 6, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice_has": ["key_moved"], "advice_entry": {"key_moved": 6},
                "advice_lacks": ["delete_damaged", "nothing_to_do"]}},
    {"id": "cache/deviceless-tpu-upgrade", "sample": False, "releases": ["0.12.0.1"],
     "why": "Run A compiles ahead of time for the deviceless v5e:2x2 with jax 0.10.2 and "
            "libtpu 0.0.42.1, run B with jax 0.12.0.1 and libtpu 0.0.50.1 (releases.json), "
            "on the same cache folder: entry 2 (the jaxlib version) and entry 3 (platform "
            "'tpu' and libtpu's platform_version, cache_key.py _hash_platform; "
            "fixtures/tpu_topologies.json holds both builds' strings) move in every "
            "program. The upgrade is the cause; run B never reads an entry.",
     "runs": [run(release="0.10.2", deviceless={"platform": "tpu", "topology": "v5e:2x2"}),
              run(deviceless={"platform": "tpu", "topology": "v5e:2x2"})],
     "expect": {"cause": 2, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice_has": ["key_moved"], "advice_entry": {"key_moved": 2},
                "advice_lacks": ["delete_damaged", "nothing_to_do"],
                # Both libtpu builds' platform_version strings are in the measured
                # table, so entry 3 reads back on both sides (not two unknown digests).
                "details_has": ["jaxlib_versions", "backend_decoded"]}},

    # --- logging routes --------------------------------------------------------
    {"id": "logging/basic-config", "sample": False, "releases": R4,
     "why": "logging.basicConfig(level=DEBUG): every jax logger's DEBUG lines, once, with basicConfig's LEVEL:name:message format.",
     "runs": [run(route="basic"), run(route="basic")], "expect": HIT_ALL},
    {"id": "logging/cache-loggers", "sample": False, "releases": R4,
     "why": "basicConfig at WARNING and the four cache loggers at DEBUG (docs/logs.md's recipe).",
     "runs": [run(route="loggers"), run(route="loggers")], "expect": HIT_ALL},
    {"id": "logging/jax-logging-level", "sample": True, "releases": R3N,
     "why": "JAX_LOGGING_LEVEL=DEBUG alone: logging_config.update_logging_level_global puts JAX's own handler on the 'jax' logger; each line once.",
     "runs": [run(route="jax_level", env={"JAX_LOGGING_LEVEL": "DEBUG"}),
              run(route="jax_level", env={"JAX_LOGGING_LEVEL": "DEBUG"})], "expect": HIT_ALL},
    {"id": "logging/jax-logging-level-and-basic-config", "sample": True, "releases": R3N,
     "why": "JAX_LOGGING_LEVEL=DEBUG and logging.basicConfig: the 'jax' logger's handler prints each record and the record propagates to the root handler, which prints it again: every line twice, in two formats. The programs are still the ones JAX looked up once each.",
     "runs": [run(route="basic_and_jax_level", env={"JAX_LOGGING_LEVEL": "DEBUG"}),
              run(route="basic_and_jax_level", env={"JAX_LOGGING_LEVEL": "DEBUG"})], "expect": HIT_ALL},
    {"id": "logging/debug-log-modules-alone", "sample": True, "releases": R3N,
     "why": "JAX_DEBUG_LOG_MODULES names the cache modules and nothing else is set: JAX's debug handler passes a record only while the 'jax' logger's level is above DEBUG (logging_config._DebugHandlerFilter), and it is NOTSET, so nothing is printed. jax 0.6.2 differs: its jax_logging_level option defaults to 'NOTSET' (not None), so at import update_logging_level_global puts JAX's own handler on the 'jax' logger, and the module loggers that JAX_DEBUG_LOG_MODULES set to DEBUG propagate to it: the lines are printed once, in JAX's format (observed), and run B hits.",
     "runs": [run(route="debug_modules", env={"JAX_DEBUG_LOG_MODULES": "jax._src.cache_key,jax._src.compiler,jax._src.compilation_cache"}),
              run(route="debug_modules", env={"JAX_DEBUG_LOG_MODULES": "jax._src.cache_key,jax._src.compiler,jax._src.compilation_cache"})],
     "expect": {**NO_LINES, "by_release": {"0.6.2": {**HIT_ALL, "error": None}}}},
    {"id": "logging/warning-only", "sample": False, "releases": R4,
     "why": "logging.basicConfig() at WARNING: the cache messages are DEBUG, none is printed.",
     "runs": [run(route="warning"), run(route="warning")], "expect": NO_LINES},
    {"id": "logging/explain-cache-misses", "sample": False, "releases": R3N,
     "why": "basicConfig at WARNING with jax_explain_cache_misses: compiler.py logs each persistent-cache miss at WARNING (with its key), hits stay DEBUG; run B changes jit_step, so its log shows that one miss only and no digest lines. jax 0.6.2 and 0.10.2 do the same (observed; their 'Writing …' line is at WARNING too, beside pjit's TRACING CACHE MISS explanations).",
     "runs": [run(route="warning", explain=True), run(route="warning", explain=True, variant="mul")],
     "expect": {"programs": {"a": 2, "b": 1}, "advice_has": ["log_keys"], "advice_lacks": ["nothing_to_do"]}},
    {"id": "logging/srun-label", "sample": False, "releases": R3N,
     "why": "Each line of each run carries srun --label's '0: ' prefix (the driver prefixes stderr as srun does): the lines are read through it.",
     "runs": [run(label="0: "), run(label="0: ")], "expect": HIT_ALL},

    # --- several logs and processes -------------------------------------------
    {"id": "processes/rank-prefixes-one-log", "sample": True, "releases": R3N,
     "why": "Two processes append to one log with torchrun-style '[rank0]:' and '[rank1]:' prefixes; rank 1 runs with another cache folder. In run B both ranks hit their own folder.",
     "runs": [run(label="[rank0]: ", log="a"), run(label="[rank1]: ", log="a", cache="$CACHE2"),
              run(label="[rank0]: ", log="b"), run(label="[rank1]: ", log="b", cache="$CACHE2")],
     "expect": HIT_ALL},
    {"id": "processes/three-logs-shared", "sample": True, "releases": R3N,
     "why": "Three identical runs on one cache: every program has one key in every run.",
     "runs": [run(log="a"), run(log="b"), run(log="c")], "compare": ["a", "b", "c"],
     "expect": {"advice": ["shared_keys"], "many_verdict": "one_key"}},
    {"id": "processes/three-logs-one-quiet", "sample": True, "releases": R3N,
     "why": "Three runs, the third logged at WARNING only (no cache lines): the two logs with lines are still compared, and the quiet one is named.",
     "runs": [run(log="a"), run(log="b"), run(log="c", route="warning")], "compare": ["a", "b", "c"],
     "expect": {"programs": {"c": 0}, "advice_has": ["log_outcomes"]}},
    {"id": "processes/three-logs-write-fails", "sample": False, "releases": R3N,
     "why": "Three runs; the third sees the cache read-only and changed jit_step: its new entry cannot be written (a write error).",
     "runs": [run(log="a"), run(log="b"), run(log="c", readonly_cache=True, variant="mul")],
     "compare": ["a", "b", "c"],
     "expect": {"advice_has": ["fix_write_error"], "advice_lacks": ["nothing_to_do", "shared_keys"],
                "many_verdict": "odd_runs"}},
]


def rank(i, log, label, **spec):
    """Process ``i`` of a real 2-process jax.distributed run appending to ``log``."""
    r = run(log=log, label=label, distributed={"num_processes": 2, "process_id": i}, **spec)
    r["together"] = log
    return r


KINDS += [
    {"id": "processes/two-processes-rank-prefixes", "sample": True, "releases": R3N,
     "why": "A real 2-process jax.distributed run (one host, CPU), both processes' stderr in one log with torchrun-style '[rankN]:' prefixes, twice. Each process compiles its programs for its own device, so process 1's keys are not process 0's; only process 0 writes (compiler.py: 'Not writing persistent cache entry since process_id != 0', a line without the program's name). So in run B process 0 hits and process 1 misses its own keys again (observed: jax.monitoring counts 0 hits in process 1).",
     "runs": [rank(0, "a", "[rank0]: "), rank(1, "a", "[rank1]: "),
              rank(0, "b", "[rank0]: "), rank(1, "b", "[rank1]: ")],
     "known": {'0.6.2': "jax 0.6.2 prints each line twice (JAX's handler, then basicConfig's); when the other process's line falls between the two copies, the second copy is not recognised as a duplicate and counts as a second program (fails or passes with the interleaving)"},
     "expect": {"cause": 0, "verdict": {"[rank1]": "same_key_missed", "*": "same_key"},
                "outcome_a": {"[rank1]": "missed_not_written", "*": "missed_written"},
                "outcome_b": {"[rank1]": "missed_not_written", "*": "hit"},
                "advice": ["not_process_zero"]}},
    {"id": "processes/two-processes-srun-label", "sample": False, "releases": R3N,
     "why": "As two-processes-rank-prefixes, with srun --label's 'N: ' prefixes.",
     "runs": [rank(0, "a", "0: "), rank(1, "a", "1: "), rank(0, "b", "0: "), rank(1, "b", "1: ")],
     "known": {'0.6.2': "jax 0.6.2 prints each line twice (JAX's handler, then basicConfig's); when the other process's line falls between the two copies, the second copy is not recognised as a duplicate and counts as a second program (fails or passes with the interleaving)"},
     "expect": {"cause": 0, "verdict": {"1]": "same_key_missed", "*": "same_key"},
                "outcome_a": {"1]": "missed_not_written", "*": "missed_written"},
                "outcome_b": {"1]": "missed_not_written", "*": "hit"},
                "advice": ["not_process_zero"]}},
]

# --- issue 34's further kinds ------------------------------------------------
# Entry numbers are the engine's fixed ones (docs/cache-key.md 1.2): 1 the
# computation, 2 the jaxlib version, 3 the backend version (from 0.6.0), 4 the
# XLA flags, 5 the compile options, 6 the devices (accelerator_config).
MOVED_1 = {"cause": 1, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"}}
TWO_DEVICES = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
# Both kinds of a flag kept in entry 4: --xla_backend_optimization_level is a
# DebugOptions flag every XLA here knows (XLA aborts on an unknown flag in XLA_FLAGS).
KEPT_FLAG = "--xla_backend_optimization_level=1"
# Every entry moves with jax_enable_x64's canonicalisation… so the one-program
# kinds use ``only``: the program moved, the other hit.


def one_moved(name, entry, advice="key_moved"):
    """Program ``name`` moved in entry ``entry``, every other one hit."""
    exp = {"cause": entry, "verdict": {name: "key_moved", "*": "same_key"},
           "outcome_b": {name: "missed_written", "*": "hit"}, "advice": [advice]}
    if advice == "key_moved":
        exp["advice_entry"] = {"key_moved": entry}
    return exp


def every_moved(entry, advice=("key_moved",), entry_advice=True):
    """Every program moved in entry ``entry`` (the root cause)."""
    exp = {"cause": entry, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
           "advice": list(advice)}
    if entry_advice and "key_moved" in advice:
        exp["advice_entry"] = {"key_moved": entry}
    return exp


# jax 0.6.2 to 0.10.2 hash the autotune cache path under the cache folder (entry 5).
CACHE_DIR_IN_KEY = {"cause": 5, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                    "advice": ["same_cache_dir_in_key"]}

KINDS += [
    # --- controls -----------------------------------------------------------------
    {"id": "control/excluded-dump-hlo-as-text", "sample": False, "releases": R4,
     "why": "Run B adds XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_as_text': both flags are in cache_key.py's _xla_flags_to_exclude_from_cache_key (entry 4 logs 'Not including XLA flag in cache key') and _hash_serialized_compile_options resets DebugOptions.xla_dump_to and xla_dump_hlo_as_text before hashing entry 5.",
     "runs": [run(), run(env={"XLA_FLAGS": "--xla_dump_to=$WORK/dump --xla_dump_hlo_as_text"})],
     "expect": HIT_ALL},
    {"id": "control/unrelated-env", "sample": False, "releases": R4,
     "why": "Run B sets environment variables JAX does not read for the key (an application's MY_APP_MODE, CUDA_VISIBLE_DEVICES on a CPU run, TF_CPP_MIN_LOG_LEVEL): cache_key.py reads only XLA_FLAGS and LIBTPU_INIT_ARGS from the environment.",
     "runs": [run(), run(env={"MY_APP_MODE": "eval", "CUDA_VISIBLE_DEVICES": "", "TF_CPP_MIN_LOG_LEVEL": "0"})],
     "expect": HIT_ALL},
    {"id": "control/script-copy-other-cwd", "sample": False, "releases": R4,
     "why": "Each run starts its own copy of the program by a relative path (python program.py) from another folder: the source locations (file names) differ, and cache_key.py hashes the module without its locations/debug info unless jax_compilation_cache_include_metadata_in_key is set (_canonicalize_ir / strip_debuginfo), so every key is equal.",
     "runs": [run(cwd="wd1", script="copy"), run(cwd="wd2", script="copy")],
     "expect": HIT_ALL},

    # --- settings -------------------------------------------------------------------
    {"id": "settings/include-metadata-in-key", "sample": False, "releases": R4,
     "why": "Run B sets jax_compilation_cache_include_metadata_in_key=True (config.py): cache_key.py then hashes the module with its locations and metadata, so entry 1 of every program moves (fixtures/jax_config: entry 1 of every probe program on every release). One global setting moved every program's entry 1.",
     "runs": [run(), run(config={"jax_compilation_cache_include_metadata_in_key": True})],
     "known": {'*': 'LogCompare.cpp concludes EveryProgram (same_global_settings) only when a JAX-own program moved too; here the run compiles only its own two programs, both moved in entry 1 alone with unchanged shapes and types, and the advice falls back to key_moved'},
     "expect": {**MOVED_1, "advice": ["same_global_settings"]}},
    {"id": "settings/metadata-in-key-script-moved", "sample": False, "releases": R4,
     "why": "Both runs set jax_compilation_cache_include_metadata_in_key=True and start their own copy of the program (python program.py) from two folders: the locations kept in the hashed module name another file, so entry 1 of every program moves although neither the program nor a setting changed (the script's path is in the key).",
     "runs": [run(cwd="wd1", script="copy", config={"jax_compilation_cache_include_metadata_in_key": True}),
              run(cwd="wd2", script="copy", config={"jax_compilation_cache_include_metadata_in_key": True})],
     "expect": {**MOVED_1, "advice_lacks": ["nothing_to_do"]},
     "known": {"*": "no advice code says 'the source path is in the key because jax_compilation_cache_include_metadata_in_key is set: run the script from one path or turn the setting off'"}},
    {"id": "settings/threefry-partitionable", "sample": False, "releases": R4,
     "why": "Run A sets jax_threefry_partitionable=True, run B False (config.py; the default changed to True in 0.5): the threefry bits of jax.random.normal are generated another way (prng.py), so the random program's entry 1 moves; jit_step has no random numbers and hits.",
     "runs": [run(programs=["random", "step"], config={"jax_threefry_partitionable": True}),
              run(programs=["random", "step"], config={"jax_threefry_partitionable": False})],
     "expect": one_moved("jit_random_normal", 1)},
    {"id": "settings/prng-impl-rbg", "sample": False, "releases": R4,
     "why": "Run B sets jax_default_prng_impl='rbg' (config.py): PRNGKey makes an rbg key (4 words) and normal uses rng_bit_generator (prng.py), so the random program's entry 1 moves; jit_step hits.",
     "runs": [run(programs=["random", "step"]),
              run(programs=["random", "step"], config={"jax_default_prng_impl": "rbg"})],
     "expect": one_moved("jit_random_normal", 1)},
    {"id": "settings/random-seed-offset", "sample": False, "releases": R4,
     "why": "Run B sets jax_random_seed_offset=1 (config.py; e.g. one offset per process): PRNGKey adds the offset inside the program (prng.py random_seed), so the random program's entry 1 moves; jit_step hits.",
     "runs": [run(programs=["random", "step"]),
              run(programs=["random", "step"], config={"jax_random_seed_offset": 1})],
     "expect": one_moved("jit_random_normal", 1)},
    {"id": "settings/disable-most-optimizations", "sample": False, "releases": R4,
     "why": "Run B sets jax_disable_most_optimizations=True: compiler.py get_compile_options sets DebugOptions.xla_backend_optimization_level=0 and xla_llvm_disable_expensive_passes, so entry 5 (compile options) of every program moves (fixtures/jax_config). One global setting; the logs do not name it.",
     "runs": [run(), run(config={"jax_disable_most_optimizations": True})],
     "expect": {**every_moved(5, advice=()), "advice": None,
                "advice_any": ["same_global_settings", "key_moved"], "advice_lacks": ["nothing_to_do"]}},
    {"id": "settings/optimization-level", "sample": False, "releases": R3N,
     "why": "Run B sets jax_optimization_level='O0' (config.py, from 0.5): compiler.py get_compile_options writes ExecutableBuildOptions.optimization_level, so entry 5 of every program moves (fixtures/jax_config).",
     "runs": [run(), run(config={"jax_optimization_level": "O0"})],
     "expect": {**every_moved(5, advice=()), "advice": None,
                "advice_any": ["same_global_settings", "key_moved"], "advice_lacks": ["nothing_to_do"]}},
    {"id": "settings/remat-pass-off", "sample": False, "releases": R3N,
     "why": "Run B sets jax_compiler_enable_remat_pass=False (config.py): compiler.py get_compile_options sets DebugOptions.xla_disable_hlo_passes to include 'rematerialization', so entry 5 of every program moves (fixtures/jax_config).",
     "runs": [run(), run(config={"jax_compiler_enable_remat_pass": False})],
     "expect": {**every_moved(5, advice=()), "advice": None,
                "advice_any": ["same_global_settings", "key_moved"], "advice_lacks": ["nothing_to_do"]}},
    {"id": "settings/num-cpu-devices", "sample": False, "releases": R3N,
     "why": "Run A has JAX's default single CPU device, run B sets jax_num_cpu_devices=2 (config.py, read by xla_bridge's CPU client factory): the topology (entry 6, accelerator_config) of every program moves (fixtures/jax_config); no XLA flag is involved.",
     "runs": [run(), run(config={"jax_num_cpu_devices": 2})],
     "expect": every_moved(6)},

    # --- environment ------------------------------------------------------------------
    {"id": "environment/kept-xla-flag", "sample": False, "releases": R4,
     "why": "Run B sets XLA_FLAGS=" + KEPT_FLAG + ", a flag not in cache_key.py's exclusion list: _hash_xla_flags hashes it into entry 4 ('Including XLA flag in cache key'), and XLA parses it into the DebugOptions of the compile options too (entry 5). Every program moves; the flag is the cause.",
     "runs": [run(), run(env={"XLA_FLAGS": KEPT_FLAG})],
     "expect": every_moved(4)},
    {"id": "environment/kept-xla-flag-twice", "sample": False, "releases": R4,
     "why": "Run A sets XLA_FLAGS=" + KEPT_FLAG + ", run B gives the same flag twice: _hash_xla_flags hashes every kept flag of the sorted list, each copy too, so entry 4 of every program moves (jax 0.12.0.1's _hash_xla_flags over one copy and over two: 249c6d65… and 956bf77c…, 2026-12-06), while XLA sets the same DebugOptions field to the same value (entry 5 equal). The flag is on both sides: it was given again, not added.",
     "runs": [run(env={"XLA_FLAGS": KEPT_FLAG}), run(env={"XLA_FLAGS": KEPT_FLAG + " " + KEPT_FLAG})],
     "expect": {**every_moved(4), "flag_kinds": ["repeated"]}},
    {"id": "environment/argv-flag", "sample": False, "releases": R4,
     "why": "Run B is started with " + KEPT_FLAG + " among its command-line arguments (sys.argv), which the program ignores: cache_key.py _hash_xla_flags hashes every sys.argv item that starts with --xla into entry 4, but XLA never reads sys.argv, so the DebugOptions (entry 5) stay equal. Every program's entry 4 moves for an argument nothing applied.",
     "runs": [run(), run(argv=[KEPT_FLAG])],
     "expect": every_moved(4),
     "known": {"*": "no advice code says that the flag came from sys.argv (hashed by cache_key.py, never applied by XLA); key_moved on entry 4 names the flag only"}},
    {"id": "environment/argv-vs-xla-flags", "sample": False, "releases": R4,
     "why": "Run A sets XLA_FLAGS=" + KEPT_FLAG + ", run B passes the same text in sys.argv instead: _hash_xla_flags hashes the same sorted flag list (entry 4 equal), but only run A's XLA applied it to DebugOptions, so entry 5 of every program moves.",
     "runs": [run(env={"XLA_FLAGS": KEPT_FLAG}), run(argv=[KEPT_FLAG])],
     "expect": every_moved(5, advice=()) | {"advice": None, "advice_lacks": ["nothing_to_do"]},
     "known": {"*": "no advice code says 'the same flag is in XLA_FLAGS in one run and in sys.argv in the other'"}},
    {"id": "environment/libtpu-init-args", "sample": False, "releases": R4,
     "why": "Run B sets LIBTPU_INIT_ARGS=--xla_tpu_enable_latency_hiding_scheduler=true on a CPU-only run: cache_key.py _hash_xla_flags appends LIBTPU_INIT_ARGS to the flags whatever the backend, so entry 4 of every program moves, though the CPU backend never reads it.",
     "runs": [run(), run(env={"LIBTPU_INIT_ARGS": "--xla_tpu_enable_latency_hiding_scheduler=true"})],
     "expect": every_moved(4)},
    {"id": "environment/jax-upgrade", "sample": False, "releases": ["0.12.0.1"],
     "why": "Run A uses jax/jaxlib 0.10.2, run B jax/jaxlib 0.12.0.1 on the same cache folder: entry 2 (the jaxlib version string, cache_key.py) and entry 3 (the backend's platform_version) move in every program, as can everything else (the lowering, compile options). The upgrade is the cause.",
     "runs": [run(release="0.10.2"), run()],
     "expect": every_moved(2) | {"move": {"*": "jaxlib_upgrade"}}},
    {"id": "environment/jax-downgrade", "sample": False, "releases": ["0.10.2"],
     "why": "Run A uses jax/jaxlib 0.12.0.1, run B goes back to 0.10.2 on the same cache folder (a pinned environment restored, an older image): entry 2 moves in every program as for an upgrade, and the move is a downgrade, not an upgrade (helper-19's finding, 2026-12-06).",
     "runs": [run(release="0.12.0.1"), run()],
     "expect": every_moved(2) | {"move": {"*": "jaxlib_downgrade"}}},
    {"id": "environment/jax-upgrade-0.4.30-to-0.6.2", "sample": False, "releases": ["0.6.2"],
     "why": "Run A uses jax/jaxlib 0.4.30 (seven entries, no backend version), run B 0.6.2 (eight): entry 2 (jaxlib version) moves in every program; the upgrade is the cause.",
     "runs": [run(release="0.4.30"), run()],
     "expect": every_moved(2) | {"move": {"*": "jaxlib_upgrade"}}},

    # --- the program -------------------------------------------------------------------------
    {"id": "program/donation", "sample": False, "releases": R4,
     "why": "Run B jits step with donate_argnums=(0,): the lowered module marks the argument as donated (tf.aliasing_output / jax.buffer_donor, pxla.py / mlir.py), so jit_step's entry 1 moves; jit_mlp hits.",
     "runs": [run(), run(donate=True)],
     "expect": one_moved("jit_step", 1)},
    {"id": "program/remat-policy", "sample": False, "releases": R4,
     "why": "The gradient of a layer wrapped in jax.checkpoint, with policy dots_saveable in run A and nothing_saveable in run B (jax.checkpoint_policies): the backward pass recomputes other values, another program (entry 1); same shapes.",
     "runs": [run(programs=["grad", "step"], remat="dots_saveable"),
              run(programs=["grad", "step"], remat="nothing_saveable")],
     "expect": one_moved("jit_loss", 1)},
    {"id": "program/compiler-options", "sample": False, "releases": R4,
     "why": "Run B compiles jit_mlp with jit(...).lower(...).compile(compiler_options={'xla_backend_optimization_level': 1}) (stages.py): compiler.py puts them into CompileOptions.env_option_overrides, so that program's entry 5 moves; jit_step hits.",
     "runs": [run(programs=["compiled_mlp", "step"]),
              run(programs=["compiled_mlp", "step"], compiler_options={"xla_backend_optimization_level": 1})],
     "expect": one_moved("jit_mlp", 5)},
    {"id": "program/precision-one-dot", "sample": False, "releases": R4,
     "why": "Run B gives the dot in jit_mlp precision=HIGHEST (jnp.dot): the dot_general gets a precision config (entry 1 of that program only); jit_step hits.",
     "runs": [run(), run(precision="highest")],
     "expect": one_moved("jit_mlp", 1)},
    {"id": "program/dtype-change", "sample": False, "releases": R4,
     "why": "Run B calls the same functions on float16 arrays instead of float64 NumPy arrays (canonicalised to float32): new argument types, a new program each (entry 1), the 'Compiling … with global shapes and types' lines differ in the dtype only.",
     "runs": [run(), run(dtype="float16")],
     "known": {'*': "the pairs' move is arg_types (float32 -> float16), but LogAdvice.cpp forMove has no case for it and gives key_moved instead of new_shapes"},
     "expect": {"outcome_b": {"*": "missed_written"}, "advice": ["new_shapes"]}},
    {"id": "program/weak-typed-scalar", "sample": False, "releases": R4,
     "why": "jit_scale is called with a Python float (a weakly typed f32 scalar) in run A and with np.float32 (strongly typed) in run B: another argument type ('Compiling … with global shapes and types' shows weak_type=True in run A only), another program: the lowered module differs (observed on all four releases: the computation digest, entry 1, moved and run B missed and wrote; jax.monitoring counted no hit). A new argument type, as a new dtype.",
     "runs": [run(programs=["scale"]), run(programs=["scale"], scalar="float32")],
     "expect": {"outcome_b": {"*": "missed_written"}, "advice": ["new_shapes"]}},
    {"id": "program/custom-partitioning", "sample": False, "releases": R4,
     "why": "A program with a custom_partitioning op on an array split over 2 CPU devices, run twice unchanged: the op's custom call carries a pointer to the Python callbacks (custom_partitioning.py), another address in each process, and cache_key.py strips it only with jax_remove_custom_partitioning_ptr_from_cache_key (default False), so its entry 1 moves every run (observed on all four releases); jit_step hits.",
     "runs": [run(programs=["custom_partitioning", "step"], env=TWO_DEVICES),
              run(programs=["custom_partitioning", "step"], env=TWO_DEVICES)],
     "expect": {"cause": 1, "verdict": {"jit_cp_double": "key_moved", "*": "same_key"},
                "outcome_b": {"jit_cp_double": "missed_written", "*": "hit"},
                "advice_lacks": ["nothing_to_do"]},
     "known": {"*": "no advice code says 'set jax_remove_custom_partitioning_ptr_from_cache_key=True' (a custom_partitioning callback pointer in the program)"}},
    {"id": "program/custom-partitioning-ptr-removed", "sample": False, "releases": R3N,
     "why": "As custom-partitioning, with jax_remove_custom_partitioning_ptr_from_cache_key=True in both runs (config.py, from 0.4.31): cache_key.py removes the callback pointer before hashing (IgnoreCallbacks.CUSTOM_PARTITIONING / _remove_custom_partitioning_callbacks), so the key is equal and run B hits.",
     "runs": [run(programs=["custom_partitioning", "step"], env=TWO_DEVICES,
                  config={"jax_remove_custom_partitioning_ptr_from_cache_key": True}),
              run(programs=["custom_partitioning", "step"], env=TWO_DEVICES,
                  config={"jax_remove_custom_partitioning_ptr_from_cache_key": True})],
     "expect": HIT_ALL},

    # --- the cache itself ------------------------------------------------------------
    {"id": "cache/copied-cp-r", "sample": False, "releases": R4,
     "why": "Run A's cache folder is copied with cp -r (new file times) and run B uses the copy: the entries are there. jax 0.12.0.1 and 0.4.30 compute the same keys and hit; 0.6.2 and 0.10.2 put the autotune cache path under the cache folder into DebugOptions (compiler.py 'Enabling XLA autotuning cache'), so entry 5 moves with the folder and run B misses (as cache/other-dir).",
     "runs": [run(), run(cache="$CACHE2", before="copy_r")],
     "expect": {**HIT_ALL, "by_release": {r: CACHE_DIR_IN_KEY for r in ("0.6.2", "0.10.2")}}},
    {"id": "cache/copied-cp-a", "sample": False, "releases": R4,
     "why": "As copied-cp-r, with cp -a (times, modes kept).",
     "runs": [run(), run(cache="$CACHE2", before="copy_a")],
     "expect": {**HIT_ALL, "by_release": {r: CACHE_DIR_IN_KEY for r in ("0.6.2", "0.10.2")}}},
    {"id": "cache/eviction", "sample": False, "releases": R4, "pip": ["filelock"],
     # The cap ($MAXSIZE) holds the larger entry alone and not both: the
     # oracle measures the entries of a probe run first ("cap"), as their
     # sizes move with each venv's packages (jit_mlp's was 5265 B on 0.6.2
     # on 2026-12-03 and 2410 B in a venv made on 2026-12-04).
     "cap": "one_entry",
     "why": "Both runs set jax_compilation_cache_max_size to hold one entry but not two, with filelock installed: writing jit_mlp evicts jit_step's entry (lru_cache.py _evict_if_needed, DEBUG 'Evicting cache …'), so in run B jit_step misses its own key, is written again and evicts jit_mlp, which misses too. The cap is too small.",
     "runs": [run(max_size="$MAXSIZE"), run(max_size="$MAXSIZE")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_written"},
                "advice": ["raise_max_size"]}},
    {"id": "cache/entry-over-max-size", "sample": False, "releases": R4, "pip": ["filelock"],
     "why": "Both runs set jax_compilation_cache_max_size=500 with filelock installed: every entry is larger (900 B and more), and lru_cache.py put warns 'Cache value for key … exceeds the maximum cache size' and writes nothing, so run B misses the same keys.",
     "runs": [run(max_size=500), run(max_size=500)],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_not_written"},
                "advice": ["entry_over_max_size"]}},
    {"id": "cache/missing-atime", "sample": False, "releases": R3N, "pip": ["filelock"],
     "why": "Run A writes with jax_compilation_cache_max_size=10**9 (filelock installed); its -atime files are then deleted (an incomplete copy), and run B, with the same cap, changes jit_step: writing the new entry scans every entry's -atime file (lru_cache.py _evict_if_needed) and fails with FileNotFoundError (compiler.py 'Error writing persistent compilation cache entry', jax#39880) in 0.10.2 and older; 0.11.2+ counts a missing -atime as 0 and writes. jit_mlp hits (get needs no -atime).",
     "runs": [run(max_size=10**9), run(max_size=10**9, variant="mul", before="drop_atime")],
     "known": {'0.6.2': "run B's own write failure (FileNotFoundError on another entry's -atime) is read (outcome missed_write_failed) but two-log advice only covers run A's write failures", '0.10.2': 'as 0.6.2'},
     "expect": {"cause": 1, "verdict": {"jit_step": "key_moved", "*": "same_key"},
                "outcome_b": {"jit_step": "missed_write_failed", "*": "hit"},
                "advice_has": ["missing_atime"], "advice_lacks": ["nothing_to_do"],
                "by_release": {"0.12.0.1": {**one_moved("jit_step", 1), "advice_has": []}}}},

    # --- logging -------------------------------------------------------------------
    {"id": "logging/log-compiles-hits", "sample": False, "releases": R3N,
     "why": "Run a fills the cache; runs b and c log at WARNING with jax_log_compiles=True: compiler.py log_persistent_cache_hit logs each hit at WARNING with its key ('Persistent compilation cache hit for … with key …'), nothing else of the cache. b and c are compared: every program hit with one key.",
     "runs": [run(), run(route="warning", config={"jax_log_compiles": True}),
              run(route="warning", config={"jax_log_compiles": True})],
     "compare": ["b", "c"],
     "expect": HIT_ALL},
]

FLAGS_AB = "--xla_cpu_enable_fast_math=false --xla_backend_optimization_level=1"
FLAGS_BA = "  --xla_backend_optimization_level=1   --xla_cpu_enable_fast_math=false "

KINDS += [
    {"id": "control/xla-flags-order", "sample": False, "releases": R4,
     "why": "Both runs set the same two kept XLA flags, in another order and with other spaces in run B: cache_key.py _hash_xla_flags splits XLA_FLAGS on whitespace and hashes the flags sorted (entry 4 equal), and XLA parses both into the same DebugOptions (entry 5 equal), so every key is equal.",
     "runs": [run(env={"XLA_FLAGS": FLAGS_AB}), run(env={"XLA_FLAGS": FLAGS_BA})],
     "expect": HIT_ALL},
    {"id": "program/pallas-interpret", "sample": False, "releases": R4,
     "why": "A Pallas kernel (pallas_call with interpret=True, runnable on CPU) is changed between the runs (y*1 to y*2 in the kernel body): interpret mode lowers the kernel into the program's own HLO (pallas_call.py), so the changed kernel moves entry 1 of jit_pallas_add; jit_step hits.",
     "runs": [run(programs=["pallas", "step"]), run(programs=["pallas", "step"], kernel="scaled")],
     "expect": {"cause": 1, "verdict": {"jit_pallas_add": "key_moved", "*": "same_key"},
                "outcome_b": {"jit_pallas_add": "missed_written", "*": "hit"}}},
    {"id": "logging/rich-handler", "sample": False, "releases": R2, "pip": ["rich"],
     "why": "Both runs log through rich's RichHandler (logging.basicConfig(handlers=[RichHandler()]), a 400-column console): each line ends in blanks and the record's file and line ('cache_key.py:149') after the message; run B changes jit_step (x+y to x*y). The digests and keys end before that text: jit_step's entry 1 moves, jit_mlp hits.",
     "runs": [run(route="rich"), run(route="rich", variant="mul")],
     "expect": STEP_MOVED},
    {"id": "logging/json-formatter", "sample": True, "releases": R2,
     "why": "Both runs log through a JSON formatter (one object per line, the message in its \"msg\" string, as log shippers ingest): each digest and key is followed by the string's closing '\"' and the other members; run B changes jit_step (x+y to x*y). The digests and keys end at that quote: jit_step's entry 1 moves, jit_mlp hits.",
     "runs": [run(route="json"), run(route="json", variant="mul")],
     "expect": STEP_MOVED},
    {"id": "logging/logfmt", "sample": True, "releases": R2,
     "why": "Both runs log in logfmt (time=… level=… logger=… msg=\"…\"): each digest and key is followed by the closing '\"' of msg; run B changes jit_step (x+y to x*y). jit_step's entry 1 moves, jit_mlp hits.",
     "runs": [run(route="logfmt"), run(route="logfmt", variant="mul")],
     "expect": STEP_MOVED},
    {"id": "program/private-function-changed", "sample": False, "releases": R3N,
     "why": "A user's private function _update (program jit__update) changes a constant of its body in run B (0.1 to 0.2): its entry 1 moves; jit_step is unchanged and hits. The leading underscore is how JAX names its own private helpers too, but this one is the user's code: not JAX's own program.",
     "runs": [run(programs=["private", "step"]), run(programs=["private", "step"], private_rate=0.2)],
     "expect": {"cause": 1, "verdict": {"jit__update": "key_moved", "jit_step": "same_key"},
                "outcome_b": {"jit__update": "missed_written", "jit_step": "hit"},
                "advice": ["key_moved"], "advice_lacks": ["jax_own_program"]}},
    {"id": "program/function-named-add-changed", "sample": False, "releases": R3N,
     "why": "A user's function named add (program jit_add, the name JAX gives its eager x + y too) changes a constant of its body in run B: its entry 1 moves with the same argument shapes and types, which JAX's own elementwise program cannot do: it is the user's code. jit_step is unchanged and hits.",
     "runs": [run(programs=["named_add", "step"]), run(programs=["named_add", "step"], private_rate=0.2)],
     "expect": {"cause": 1, "verdict": {"jit_add": "key_moved", "jit_step": "same_key"},
                "outcome_b": {"jit_add": "missed_written", "jit_step": "hit"},
                "advice": ["key_moved"], "advice_lacks": ["jax_own_program"]}},
    {"id": "logging/threads-interleaved", "sample": False, "releases": R4,
     "why": "Six functions compiled at once by six threads (a warm-up pool), basicConfig at DEBUG with its default format (no thread id); run B changes fn3's body. Their cache-key lines interleave in one stream as the threads run, so some keys' 16 lines cannot be told apart (how many varies with the scheduling). Wherever keys are cut by interleaving, the advice must say to put the thread in the format, not to log DEBUG (it was on); where fn3's key was read whole, that it moved.",
     "runs": [run(threads=6, programs=[]), run(threads=6, changed=3, programs=[])],
     "known": {"0.4.30": "when the interleaving cuts every key of a log, compare-logs refuses it (an error with subject keys_interleaved that says to put the thread in the format) instead of comparing: the oracle expects advice; whether it happens varies with the scheduling",
               "0.6.2": "jax 0.6.2 prints each record twice (its own handler and basicConfig's), and threads interleave the copies within one stream: the duplicate folding, which looks at the line before and at each stream's last line, counts some records twice (a program too many)"},
     "expect": {"advice_any": ["separate_threads", "key_moved"],
                "advice_lacks": ["log_keys", "nothing_to_do"]}},
    {"id": "logging/second-run-appended", "sample": False, "releases": R2,
     "why": "Run B changes jit_step (x+y to x*y) and logs to b.log; then run B is started again on the same cache with its stderr appended to b.log (a job that appends each attempt to one log). In b.log the second jit_step hits the entry the first run of b.log wrote, and the second jit_mlp has run A's key and hits: neither is a new program.",
     "runs": [run(log="a"), run(log="b", variant="mul"), run(log="b", variant="mul")],
     "expect": {"cause": 1, "verdict": {"jit_step (2nd)": "only_in_b", "jit_mlp (2nd)": "again_in_b"},
                "outcome_b": {"jit_step (2nd)": "hit", "jit_mlp (2nd)": "hit"},
                "advice": ["key_moved"], "advice_entry": {"key_moved": 1}}},
    {"id": "logging/stdout-merged", "sample": False, "releases": R4,
     "why": "The runs' stdout is merged into their logs (2>&1) and the program prints a line of its own after each program: those lines sit between JAX's log lines (basicConfig at DEBUG) and are not cache lines; run B hits everything.",
     "runs": [run(print=True, stdout=True), run(print=True, stdout=True)],
     "expect": HIT_ALL},
]

KINDS += [
    {"id": "environment/other-python", "sample": False, "releases": ["0.12.0.1"],
     "why": "Run A runs jax 0.12.0.1 on Python 3.12, run B the same jax and jaxlib release on Python 3.13 (another venv, another jaxlib wheel build): the key hashes the jaxlib version string, the backend's platform version, the module, the flags, the compile options and the devices (cache_key.py), none of which names the Python version, so run B hits every entry run A wrote.",
     "runs": [run(), run(python="3.13")],
     "expect": HIT_ALL},
]

KINDS += [
    {"id": "cache/default-min-compile-time", "sample": False, "releases": R4,
     "why": "Neither run sets jax_persistent_cache_min_compile_time_secs, so JAX's default (1.0 s, config.py) applies: the small programs compile in well under a second and none is written (compiler.py 'Not writing persistent cache entry … because it took < 1.00 seconds'), so run B misses the same keys: the commonest miss of a first try.",
     "runs": [run(min_compile_time="default"), run(min_compile_time="default")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_not_written"},
                "advice": ["lower_min_compile_time"]}},
    {"id": "control/max-size-with-filelock", "sample": False, "releases": R4, "pip": ["filelock"],
     "why": "Both runs set jax_compilation_cache_max_size=10**9 with filelock installed: the LRU cache takes its lock around every get and put (filelock's own DEBUG lines 'Attempting to acquire lock …' join the log) and, from 0.4.31, writes an -atime file beside each entry (lru_cache.py); nothing is evicted and run B hits.",
     "runs": [run(max_size=10**9), run(max_size=10**9)],
     "expect": HIT_ALL},
    {"id": "settings/debug-nans-donation", "sample": False, "releases": R4,
     "why": "Both runs donate jit_step's first argument; run B sets jax_debug_nans=True: with NaN checking on, JAX drops the donation so it can re-run the program on the same inputs (pjit.py / dispatch.py: donated_invars off under debug_nans), so jit_step's module loses its aliasing and entry 1 moves (fixtures/jax_config: jax_debug_nans moves the donation probe only); jit_mlp, without donation, hits.",
     "runs": [run(donate=True), run(donate=True, config={"jax_debug_nans": True})],
     "expect": one_moved("jit_step", 1)},
]
