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
- ``sample``: True when ``tools/diag-oracle --sample`` (scripts/test) runs it;
- ``runs``: the runs, in order. A run is a dict with ``spec`` (program.py's
  CK_SPEC: ``route`` the logging route, ``programs``, ``cache`` (``$CACHE``
  is the kind's cache directory, ``$CACHE2`` a second one, a relative path
  stays relative), ``config`` (jax.config.update calls), ``min_compile_time``,
  ``min_entry_size``, ``max_size``, ``cache_late``, ``variant``, ``n``,
  ``static_values``, ``const_values``, ``explain``), and optionally ``env``
  (added to the environment: XLA_FLAGS, JAX_LOGGING_LEVEL, …), ``cwd`` (a
  folder of the kind's work dir), ``readonly_cache`` (True: the run sees the
  cache folder through a read-only bind mount, so every write fails),
  ``label`` (a launcher's prefix put before every line
  of the run's stderr, as ``srun --label`` or torchrun do), ``log`` (the log
  file; runs naming one log append to it), ``before`` (what the driver does
  to the cache directory before the run: ``empty``, ``truncate``);
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
  - ``advice``: the exact set of ``what_to_do[].code``; ``advice_has`` /
    ``advice_lacks``: codes that must / must not be among them;
    ``advice_any``: at least one of these (where the logs cannot tell two
    causes apart);
  - ``advice_entry``: ``{code: entry}`` for ``key_moved`` items;
  - ``programs``: ``{log: n}`` the program count of that log, where it is
    not what JAX counted (the oracle otherwise checks every log's program
    and hit counts against the ``jax.monitoring`` cache_hits / cache_misses
    events the runs counted);
  - ``error``: ``{"code", "path"}``: compare-logs must refuse the logs with
    this error code, naming this log (exit status 2);
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


def run(**spec):
    """A run whose program spec is ``spec`` (cache in the kind's directory)."""
    extra = {k: spec.pop(k) for k in ("env", "cwd", "readonly_cache", "label", "log", "before", "together")
             if k in spec}
    spec.setdefault("cache", "$CACHE")
    return {"spec": spec, **extra}


HIT_ALL = {"cause": 0, "verdict": {"*": "same_key"}, "outcome_b": {"*": "hit"},
           "advice": ["nothing_to_do"]}
# Two logs without any cache line: nothing to compare, so an error (exit
# status 2) that names the first such log (and says how to log the lines).
NO_LINES = {"error": {"code": "invalid", "path": "a.log"}}

KINDS = [
    # --- controls: changes that must not move a key --------------------------
    {"id": "control/identical", "sample": True, "releases": R3,
     "why": "The same program run twice on one cache directory: run B reads every entry run A wrote.",
     "runs": [run(), run()], "expect": HIT_ALL},
    {"id": "control/other-cwd-absolute-cache", "sample": False, "releases": R3,
     "why": "Run B starts in another working directory; the cache path is absolute, and the key has no path in it (cache_key.py).",
     "runs": [run(cwd="wd1"), run(cwd="wd2")], "expect": HIT_ALL},
    {"id": "control/excluded-dump-flag", "sample": True, "releases": R3,
     "why": "Run B adds XLA_FLAGS=--xla_dump_to=DIR: cache_key.py leaves the flag out of entry 4 (its exclusion list) and zeroes DebugOptions.xla_dump_to in entry 5.",
     "runs": [run(), run(env={"XLA_FLAGS": "--xla_dump_to=$WORK/dump"})], "expect": HIT_ALL},

    # --- settings: global JAX settings ---------------------------------------
    {"id": "settings/x64", "sample": True, "releases": R3,
     "why": "Run B sets jax_enable_x64: the float64 NumPy inputs keep 64 bits instead of being canonicalised to float32 (dtypes.py), so every program's entry 1 moves.",
     "runs": [run(), run(config={"jax_enable_x64": True})], "capture": True,
     "expect": {"cause": 1, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["same_x64"], "diff": {"cause": 1}}},
    {"id": "settings/matmul-precision", "sample": False, "releases": R3,
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
    {"id": "settings/device-count", "sample": True, "releases": R3,
     "why": "Run B has 4 CPU devices instead of 2 (--xla_force_host_platform_device_count, excluded from entry 4): the topology fingerprint (entry 6) of every program moves; the sharded program also splits its array 4 ways (entry 1), a consequence of the same change.",
     "runs": [run(programs=["step", "sharded"], env={"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}),
              run(programs=["step", "sharded"], env={"XLA_FLAGS": "--xla_force_host_platform_device_count=4"})],
     "expect": {"cause": 6, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["key_moved"], "advice_entry": {"key_moved": 6}}},

    # --- the program ---------------------------------------------------------
    {"id": "program/changed-body", "sample": True, "releases": R3,
     "why": "Run B changes jit_step's body (x+y to x*y): its entry 1 moves; jit_mlp is unchanged and hits.",
     "runs": [run(), run(variant="mul")],
     "expect": {"cause": 1, "verdict": {"jit_step": "key_moved", "*": "same_key"},
                "outcome_b": {"jit_step": "missed_written", "*": "hit"},
                "advice": ["key_moved"], "advice_entry": {"key_moved": 1}}},
    {"id": "program/new-shapes", "sample": False, "releases": R3,
     "why": "Run B calls the same functions on arrays of 16 instead of 8: a new program per shape (entry 1), the 'Compiling … with global shapes' lines differ; the advice is about new shapes (whether the pairs are called moved keys or new programs is not checked).",
     "runs": [run(), run(n=16)],
     "expect": {"outcome_b": {"*": "missed_written"}, "advice": ["new_shapes"]}},
    {"id": "program/static-argument", "sample": True, "releases": R3,
     "why": "A jit with static_argnums called with k=1,2,3 in run A and k=4,5,6 in run B: one program per static value (jax.jit docs), same argument shapes, a new entry 1 each time; only the static values can explain it.",
     "runs": [run(programs=["static"], static_values=[1, 2, 3]),
              run(programs=["static"], static_values=[4, 5, 6])],
     "expect": {"cause": 1, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["static_or_constant"]}},
    {"id": "program/captured-constant", "sample": False, "releases": R3,
     "why": "A closure capturing a Python float, jitted for c=0.5,1.5 in run A and c=2.5,3.5 in run B: the constant is embedded in the program (entry 1), same shapes.",
     "runs": [run(programs=["const"], const_values=[0.5, 1.5]),
              run(programs=["const"], const_values=[2.5, 3.5])],
     "expect": {"cause": 1, "verdict": {"*": "key_moved"}, "outcome_b": {"*": "missed_written"},
                "advice": ["static_or_constant"]}},
    {"id": "program/host-callbacks", "sample": False, "releases": R3,
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
    {"id": "cache/min-compile-time", "sample": True, "releases": R3,
     "why": "Both runs set jax_persistent_cache_min_compile_time_secs=100: no program takes that long, none is written (compiler.py 'took < …'), and run B misses the same keys.",
     "runs": [run(min_compile_time=100), run(min_compile_time=100)],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_not_written"},
                "advice": ["lower_min_compile_time"]}},
    {"id": "cache/min-entry-size", "sample": False, "releases": R3,
     "why": "Both runs set jax_persistent_cache_min_entry_size_bytes=10**9: every entry is smaller, none is written (compilation_cache.py 'is less than threshold').",
     "runs": [run(min_entry_size=10**9), run(min_entry_size=10**9)],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_not_written"},
                "advice": ["lower_min_entry_size"]}},
    {"id": "cache/min-entry-size-zero", "sample": False, "releases": R3,
     "why": "Both runs set jax_persistent_cache_min_entry_size_bytes=0, which _initialize_cache replaces with default_min_cache_entry_size() (0 in these releases): entries are written, run B hits.",
     "runs": [run(min_entry_size=0), run(min_entry_size=0)], "expect": HIT_ALL},
    {"id": "cache/not-configured", "sample": False, "releases": R3,
     "why": "Run B never sets jax_compilation_cache_dir: JAX still computes each key and looks it up, and logs 'get_executable_and_time: cache is disabled/not initialized' (observed in 0.4.30, 0.10.2, 0.12.0.1); no cache is ever initialised, nothing is read or written.",
     "runs": [run(), run(cache=None)],
     "expect": {"advice": ["set_cache_dir"]}},
    {"id": "cache/configured-late", "sample": True, "releases": R3,
     "why": "Run B compiles jit_step before it sets jax_compilation_cache_dir: that lookup finds no cache ('cache is disabled/not initialized'), the cache is initialised afterwards and jit_mlp hits (observed). In 0.10.2 and older jit_step's key also moves (entry 5: no autotune path under a cache dir yet).",
     "runs": [run(), run(cache_late=True)],
     "expect": {"outcome_b": {"jit_mlp": "hit"}, "advice": ["configure_cache_early"],
                # 0.4.30 keeps the cache off for the rest of the run once a
                # compile ran without it (observed: no 'Initialized' line,
                # 'put_executable_and_time: cache is disabled'), so its log
                # reads like a run that never set the folder: either advice.
                "by_release": {"0.4.30": {"outcome_b": {"*": "missed_not_written"}, "advice": None,
                                          "advice_any": ["configure_cache_early", "set_cache_dir"]}}}},
    {"id": "cache/other-dir", "sample": False, "releases": R3,
     "why": "Run B points jax_compilation_cache_dir at another, empty folder: from 0.11.0 the keys are equal and the entries are elsewhere; jax 0.10.2 and older write the autotune cache path under the cache dir into DebugOptions (compiler.py 'Enabling XLA autotuning cache'), so entry 5 of every key moves with the folder.",
     "runs": [run(), run(cache="$CACHE2")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_written"},
                "advice": ["same_cache_dir"],
                "by_release": {"0.10.2": {"cause": 5, "verdict": {"*": "key_moved"},
                                          "advice": ["same_cache_dir_in_key"]}}}},
    {"id": "cache/relative-dir-other-cwd", "sample": False, "releases": R3,
     "why": "Both runs set the relative cache path 'jaxcache' and start in different working directories: two caches.",
     "runs": [run(cache="jaxcache", cwd="wd1"), run(cache="jaxcache", cwd="wd2")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_written"},
                "advice": ["absolute_cache_dir"]}},
    {"id": "cache/emptied", "sample": False, "releases": R3,
     "why": "The cache folder is emptied between the runs (a job's scratch space): the keys are equal, the entries are gone.",
     "runs": [run(), run(before="empty")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_b": {"*": "missed_written"},
                "advice": ["keep_cache_dir"]}},
    {"id": "cache/damaged", "sample": False, "releases": R2,
     "why": "Every entry file is cut to 10 bytes between the runs: run B finds each entry and cannot read it (compiler.py 'Error reading persistent compilation cache entry'), and JAX does not replace an existing file.",
     "runs": [run(), run(before="truncate")],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "advice_has": ["delete_damaged"],
                "advice_lacks": ["nothing_to_do"]}},
    {"id": "cache/read-only-dir", "sample": True, "releases": R2,
     "why": "Run A sees the cache folder read-only (a read-only mount): every write fails (OSError EROFS, a warning: compiler.py 'Error writing persistent compilation cache entry'); run B misses every key.",
     "runs": [run(readonly_cache=True), run()],
     "expect": {"cause": 0, "verdict": {"*": "same_key_missed"}, "outcome_a": {"*": "missed_write_failed"},
                "advice_has": ["fix_write_error"], "advice_lacks": ["nothing_to_do"]}},
    {"id": "cache/size-cap-without-filelock", "sample": False, "releases": R2,
     "why": "Both runs set jax_compilation_cache_max_size=1000000 in a venv without the filelock package: lru_cache.py raises 'Please install the filelock package' on the first lookup and the cache stays off.",
     "runs": [run(max_size=1000000), run(max_size=1000000)],
     "expect": {"advice_has": ["install_filelock"], "advice_lacks": ["nothing_to_do"]}},

    # --- logging routes --------------------------------------------------------
    {"id": "logging/basic-config", "sample": False, "releases": R3,
     "why": "logging.basicConfig(level=DEBUG): every jax logger's DEBUG lines, once, with basicConfig's LEVEL:name:message format.",
     "runs": [run(route="basic"), run(route="basic")], "expect": HIT_ALL},
    {"id": "logging/cache-loggers", "sample": False, "releases": R3,
     "why": "basicConfig at WARNING and the four cache loggers at DEBUG (docs/logs.md's recipe).",
     "runs": [run(route="loggers"), run(route="loggers")], "expect": HIT_ALL},
    {"id": "logging/jax-logging-level", "sample": True, "releases": R2,
     "why": "JAX_LOGGING_LEVEL=DEBUG alone: logging_config.update_logging_level_global puts JAX's own handler on the 'jax' logger; each line once.",
     "runs": [run(route="jax_level", env={"JAX_LOGGING_LEVEL": "DEBUG"}),
              run(route="jax_level", env={"JAX_LOGGING_LEVEL": "DEBUG"})], "expect": HIT_ALL},
    {"id": "logging/jax-logging-level-and-basic-config", "sample": True, "releases": R2,
     "why": "JAX_LOGGING_LEVEL=DEBUG and logging.basicConfig: the 'jax' logger's handler prints each record and the record propagates to the root handler, which prints it again: every line twice, in two formats. The programs are still the ones JAX looked up once each.",
     "runs": [run(route="basic_and_jax_level", env={"JAX_LOGGING_LEVEL": "DEBUG"}),
              run(route="basic_and_jax_level", env={"JAX_LOGGING_LEVEL": "DEBUG"})], "expect": HIT_ALL},
    {"id": "logging/debug-log-modules-alone", "sample": True, "releases": R2,
     "why": "JAX_DEBUG_LOG_MODULES names the cache modules and nothing else is set: JAX's debug handler passes a record only while the 'jax' logger's level is above DEBUG (logging_config._DebugHandlerFilter), and it is NOTSET, so nothing is printed.",
     "runs": [run(route="debug_modules", env={"JAX_DEBUG_LOG_MODULES": "jax._src.cache_key,jax._src.compiler,jax._src.compilation_cache"}),
              run(route="debug_modules", env={"JAX_DEBUG_LOG_MODULES": "jax._src.cache_key,jax._src.compiler,jax._src.compilation_cache"})],
     "expect": NO_LINES},
    {"id": "logging/warning-only", "sample": False, "releases": R3,
     "why": "logging.basicConfig() at WARNING: the cache messages are DEBUG, none is printed.",
     "runs": [run(route="warning"), run(route="warning")], "expect": NO_LINES},
    {"id": "logging/explain-cache-misses", "sample": False, "releases": ["0.12.0.1"],
     "why": "basicConfig at WARNING with jax_explain_cache_misses: compiler.py logs each persistent-cache miss at WARNING (with its key), hits stay DEBUG; run B changes jit_step, so its log shows that one miss only and no digest lines.",
     "runs": [run(route="warning", explain=True), run(route="warning", explain=True, variant="mul")],
     "expect": {"programs": {"a": 2, "b": 1}, "advice_has": ["log_keys"], "advice_lacks": ["nothing_to_do"]}},
    {"id": "logging/srun-label", "sample": False, "releases": R2,
     "why": "Each line of each run carries srun --label's '0: ' prefix (the driver prefixes stderr as srun does): the lines are read through it.",
     "runs": [run(label="0: "), run(label="0: ")], "expect": HIT_ALL},

    # --- several logs and processes -------------------------------------------
    {"id": "processes/rank-prefixes-one-log", "sample": True, "releases": R2,
     "why": "Two processes append to one log with torchrun-style '[rank0]:' and '[rank1]:' prefixes; rank 1 runs with another cache folder. In run B both ranks hit their own folder.",
     "runs": [run(label="[rank0]: ", log="a"), run(label="[rank1]: ", log="a", cache="$CACHE2"),
              run(label="[rank0]: ", log="b"), run(label="[rank1]: ", log="b", cache="$CACHE2")],
     "expect": HIT_ALL},
    {"id": "processes/three-logs-shared", "sample": True, "releases": R2,
     "why": "Three identical runs on one cache: every program has one key in every run.",
     "runs": [run(log="a"), run(log="b"), run(log="c")], "compare": ["a", "b", "c"],
     "expect": {"advice": ["shared_keys"]}},
    {"id": "processes/three-logs-one-quiet", "sample": True, "releases": R2,
     "why": "Three runs, the third logged at WARNING only (no cache lines): the two logs with lines are still compared, and the quiet one is named.",
     "runs": [run(log="a"), run(log="b"), run(log="c", route="warning")], "compare": ["a", "b", "c"],
     "expect": {"programs": {"c": 0}, "advice_has": ["log_outcomes"]}},
    {"id": "processes/three-logs-write-fails", "sample": False, "releases": R2,
     "why": "Three runs; the third sees the cache read-only and changed jit_step: its new entry cannot be written (a write error).",
     "runs": [run(log="a"), run(log="b"), run(log="c", readonly_cache=True, variant="mul")],
     "compare": ["a", "b", "c"],
     "expect": {"advice_has": ["fix_write_error"], "advice_lacks": ["nothing_to_do", "shared_keys"]}},
]


def rank(i, log, label, **spec):
    """Process ``i`` of a real 2-process jax.distributed run appending to ``log``."""
    r = run(log=log, label=label, distributed={"num_processes": 2, "process_id": i}, **spec)
    r["together"] = log
    return r


KINDS += [
    {"id": "processes/two-processes-rank-prefixes", "sample": True, "releases": R2,
     "why": "A real 2-process jax.distributed run (one host, CPU), both processes' stderr in one log with torchrun-style '[rankN]:' prefixes, twice. Each process compiles its programs for its own device, so process 1's keys are not process 0's; only process 0 writes (compiler.py: 'Not writing persistent cache entry since process_id != 0', a line without the program's name). So in run B process 0 hits and process 1 misses its own keys again (observed: jax.monitoring counts 0 hits in process 1).",
     "runs": [rank(0, "a", "[rank0]: "), rank(1, "a", "[rank1]: "),
              rank(0, "b", "[rank0]: "), rank(1, "b", "[rank1]: ")],
     "expect": {"cause": 0, "verdict": {"[rank1]": "same_key_missed", "*": "same_key"},
                "outcome_a": {"[rank1]": "missed_not_written", "*": "missed_written"},
                "outcome_b": {"[rank1]": "missed_not_written", "*": "hit"},
                "advice": ["not_process_zero"]}},
    {"id": "processes/two-processes-srun-label", "sample": False, "releases": R2,
     "why": "As two-processes-rank-prefixes, with srun --label's 'N: ' prefixes.",
     "runs": [rank(0, "a", "0: "), rank(1, "a", "1: "), rank(0, "b", "0: "), rank(1, "b", "1: ")],
     "expect": {"cause": 0, "verdict": {"1]": "same_key_missed", "*": "same_key"},
                "outcome_a": {"1]": "missed_not_written", "*": "missed_written"},
                "outcome_b": {"1]": "missed_not_written", "*": "hit"},
                "advice": ["not_process_zero"]}},
]
