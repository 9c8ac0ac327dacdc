"""Seeded generator of perturbed cache-key recipes for the differential oracle.

A *recipe* is a plain JSON-able dict that says how to set up one call of the
real ``jax._src.cache_key.get`` (which program, which environment, which
CompileOptions calls, which devices...).  ``realjax.RealJax.run`` turns a
recipe into a real key plus the matching engine scenario.

Recipe ``n`` of seed ``S`` depends only on ``(S, n)``, so any single case can
be regenerated with ``tools/oracle --seed S --only n``.

``NEUTRAL`` holds, for every knob, the value that means "not perturbed"; the
oracle's shrinker resets knobs to these values to find a minimal reproducer.
"""

from __future__ import annotations

import base64
import random

# Exclusion list of jax 0.10.2 (the first 24 names of the main list).
EXCLUDED_FLAGS_0_10_2 = [
    "--xla_dump_compress_protos", "--xla_dump_module_metadata", "--xla_dump_max_hlo_modules",
    "--xla_dump_include_timestamp", "--xla_dump_hlo_pass_re", "--xla_dump_hlo_module_re",
    "--xla_dump_hlo_snapshots", "--xla_dump_fusion_visualization", "--xla_dump_hlo_as_url",
    "--xla_dump_hlo_as_proto", "--xla_dump_hlo_as_text", "--xla_dump_hlo_as_long_text",
    "--xla_dump_hlo_as_html", "--xla_dump_hlo_as_dot", "--xla_dump_to",
    "--xla_force_host_platform_device_count", "--xla_dump_disable_metadata",
    "--xla_dump_hlo_pipeline_re", "--xla_tpu_sdc_checker_streamz_metric",
    "--xla_tpu_sdc_checker_enable_sdc_event_callbacks",
    "--xla_tpu_sdc_checker_enable_coresweep_ng_callbacks",
    "--xla_tpu_sdc_checker_no_logging_if_callbacks_are_present", "--xla_gpu_cuda_data_dir",
    "--xla_gpu_experimental_autotune_cache_mode",
]
# Names excluded only on main: kept (hashed) by 0.10.2.
MAIN_ONLY_EXCLUDED = ["--xla_gpu_per_fusion_autotune_cache_dir", "--xla_tpu_compiler_variant"]

KEPT_FLAGS = [
    "--xla_gpu_autotune_level=2", "--xla_gpu_autotune_level=0", "--xla_cpu_enable_fast_math=true",
    "--xla_backend_optimization_level=0", "--xla_cpu_multi_thread_eigen=false",
    "--xla_gpu_enable_latency_hiding_scheduler=true", "--xla_dump_to_x=1", "-xla_dump_to=/tmp/d",
    "xla_dump_to=/tmp/d", "--XLA_DUMP_TO=/tmp/d", "--xla_dump_tox", "--xla", "--xla=", "=", "==",
    "--xla_flag_\u00fcn\u00efcode=\u00e9", "--xla_emoji=\U0001F600", "--xla_zero\u200bwidth=1",
    "--xla_tpu_megacore_fusion_allow_ags=false", "--xla_gpu_per_fusion_autotune_cache_dir=/c",
    "--xla_tpu_compiler_variant=v", "--xla_gpu_cuda_data_dir_extra=/x", "--jax_like_flag=1",
    "--xla_a=b=c", "--xla_\x7fdel=1",
]

# Python str.split() separators (Unicode whitespace), and non-separators
# that look like whitespace.
SPLIT_WS = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85",
            "\xa0", "\u1680", "\u2000", "\u2005", "\u200a", "\u2028", "\u2029", "\u202f",
            "\u205f", "\u3000"]
NOT_WS = ["\u200b", "\u180e", "\ufeff", "\x00"]

PLATFORMS = ["cpu", "cpu", "gpu", "gpu", "tpu", " gpu", "gpu\n", "GPU", "cuda", "rocm", "", "\u3000gpu"]
PLATFORM_VERSIONS = [
    "cpu", "cuda 12030", "PJRT C API\ncuda 12080", "rocm 60200",
    "PJRT C API\nTFRT TPU v5 lite\nBuilt on Jun  1 2026 (1717200000) cl/640000000",
    "  cpu  ", "\n\tcuda 12030 \r\n", "\u3000cpu\u3000", "\x85cpu", "\x1ccpu\x1f", "\xa0cpu",
    "", "   ", "multi\n\nline\n", "caf\u00e9 \U0001F600",
]
JAXLIB_VERSIONS = [" 0.10.2", "0.10.2\n", "0.11.1.dev20260801", "", "\u00e9"]
COMPRESSION_NAMES = ["zstandard", "zlib", " zlib\n", "\tzstandard ", "zstd", "", "\u3000zlib", "ZLIB"]
CUSTOM_HOOKS = ["abc", "  padded \n", "multi\nline", "\U0001F600", "\x0b\x0c", "\u2028hook"]
DEVICE_KINDS = ["TPU v2", "TPU v3", "TPU v4", "TPU v4 lite", "TPU v5 lite", "TPU v5", "TPU v6 lite",
                "TPU7x", "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "cpu", "  TPU v4 \n",
                "", "\u3000kind", "kind\nwith newline", "\u00e9t\u00e9"]
RUNTIME_ERRORS = ["UNIMPLEMENTED: GetTopologyDescription is not supported",
                  "INVALID_ARGUMENT: no topology", "", "caf\u00e9 error\nsecond line"]

DEBUG_OPTION_VALUES = {
    # the fields cache_key zeroes in 0.10.2
    "xla_force_host_platform_device_count": [0, 4, 8, -3],
    "xla_dump_to": ["/tmp/dump", "", "sponge", "caf\u00e9"],
    "xla_dump_hlo_module_re": [".*", "jit_f"],
    "xla_dump_hlo_pass_re": [".*"],
    "xla_dump_hlo_as_text": [True, False],
    "xla_dump_hlo_as_proto": [True],
    "xla_dump_hlo_as_dot": [True],
    "xla_dump_hlo_as_url": [True],
    "xla_dump_hlo_as_html": [True],
    "xla_dump_fusion_visualization": [True],
    "xla_dump_hlo_snapshots": [True],
    "xla_dump_max_hlo_modules": [5, -1, 0],
    "xla_dump_module_metadata": [True],
    "xla_dump_compress_protos": [True],
    "xla_dump_hlo_as_long_text": [False, True],
    "xla_dump_disable_metadata": [True],
    "xla_dump_hlo_pipeline_re": ["gpu"],
    "xla_gpu_experimental_autotune_cache_mode": [0, 1, 2],
    "xla_gpu_cuda_data_dir": ["/usr/local/cuda", "", "./cuda_sdk_lib"],
    # not zeroed in 0.10.2 (main zeroes the first)
    "xla_gpu_per_fusion_autotune_cache_dir": ["/tmp/jax-cache/xla_gpu_per_fusion_autotune_cache_dir", ""],
    "xla_backend_optimization_level": [0, 1, 3],
    "xla_cpu_enable_fast_math": [True, False],
    "xla_cpu_fast_math_honor_nans": [False],
    "xla_detailed_logging": [False, True],
    "xla_enable_dumping": [False],
    "xla_gpu_kernel_cache_file": ["/tmp/kernels"],
    "xla_gpu_enable_llvm_module_compilation_parallelism": [True],
    "xla_llvm_disable_expensive_passes": [True],
    "xla_test_all_input_layouts": [True],
    "xla_gpu_dump_autotune_results_to": ["/tmp/at"],
}

OVERRIDE_NAMES = (
    [n.strip("-") for n in EXCLUDED_FLAGS_0_10_2]
    + ["--xla_dump_to", "-xla_dump_to", "xla_dump_to-", "--xla_gpu_cuda_data_dir",
       "xla_gpu_per_fusion_autotune_cache_dir", "xla_tpu_compiler_variant",
       "xla_gpu_autotune_level", "xla_cpu_enable_fast_math", "some_option", "", "\u00e9",
       "xla_dump_to ", "XLA_DUMP_TO"]
)
OVERRIDE_VALUES = ["x", "", "true", True, False, 0, 1, -1, 1 << 40, -(1 << 62), 0.5, 2.0, -0.0,
                   1e300, 1e-300, "\u00e9\U0001F600"]
BUILD_OPTION_OVERRIDES = {  # names get_compile_options moves onto build options
    "exec_time_optimization_effort": [0.5, -1.0, 0.0],
    "memory_fitting_effort": [0.25, 1.0],
}

# Knob -> neutral value (used by the shrinker).  Paths are dotted.
NEUTRAL = {
    "module.program": "add",
    "module.include_metadata": False,
    "module.ignore_callbacks": "NO",
    "jaxlib_version": None,
    "backend.platform": "cpu",
    "backend.platform_version": "cpu",
    "backend.runtime_type": "pjrt_ifrt",
    "flags.XLA_FLAGS": None,
    "flags.LIBTPU_INIT_ARGS": None,
    "flags.argv": ["oracle"],
    "flags.extra_prefixes": [],
    "compile_options.num_replicas": 1,
    "compile_options.num_partitions": 1,
    "compile_options.device_assignment": None,
    "compile_options.env_overrides": None,
    "compile_options.overrides_via": "get_compile_options",
    "compile_options.fdo_profile_b64": None,
    "compile_options.debug_options": {},
    "compile_options.encoding": "proto",
    "accelerator.mode": "topology",
    "accelerator.client_devices": 1,
    "accelerator.device_shape": [1],
    "accelerator.engine_form": "cpu_topology",
    "accelerator.device_kinds": None,
    "accelerator.error": None,
    "compression": "zlib",
    "custom_hook": "",
    "mosaic": None,
}

CLIENT_DEVICE_COUNTS = [1, 2, 3, 4, 8]

# backend.runtime_type: hashed by jax 0.6.0-0.8.1 (entry 3) and 0.4.30-0.5.3
# (entry-6 fallback); the CPU client says "tfrt" (0.4.x) or "pjrt_ifrt".
RUNTIME_TYPES = ["pjrt_ifrt", "pjrt_ifrt", "tfrt", "", " pjrt_ifrt\n", "\u3000tfrt", "ifrt\nproxy",
                 "caf\u00e9"]

# Mosaic (tpu_custom_call) knobs: how each op's backend_config is written.
MOSAIC_CONFIG_FORMS = [("json_dict", 76), ("missing", 4), ("dict_attr", 4), ("empty_string", 4),
                       ("invalid_json", 4), ("json_list", 4), ("json_number", 4)]
MOSAIC_CC_FORMS = [("dict", 82), ("missing", 5), ("string", 5), ("list", 4), ("null", 4)]
MOSAIC_BODIES = [("kernel_text", 20), ("kernel_bytecode", 12), ("pallas", 12), ("missing", 8),
                 ("empty", 8), ("null", 4), ("number", 3), ("false", 3), ("invalid_base64", 5),
                 ("non_ascii", 3), ("junk_base64", 3), ("unparsable", 8), ("urlsafe", 3),
                 ("kernel_text_unpadded", 3)]
MOSAIC_DEBUG_LOCATIONS = ["/src/kernels/scale.py:12:4", "", {"0": "loc(\"a.py\":1:2)"}, None, [1, 2]]
MOSAIC_EXTRA_CONFIG = [
    ["serialization_format", 1], ["needs_layout_passes", True], ["vmem_limit_bytes", 1 << 40],
    ["cost", 1.5], ["ratio", 1e-7], ["neg_zero", -0.0], ["name", "k\u00e9rnel"], ["emoji", "\U0001F600"],
    ["ctrl", "a\x01b\n\t\"q\"\\"], ["nested", {"b": [1, 2.0, None], "a": {}}], ["nan", float("nan")],
    ["inf", float("-inf")], ["big", 1e300], ["bigint", 12345678901234567890], ["float_int", 3.0],
    ["slash", "a/b"], ["small", 5e-324], ["third", 1 / 3], ["lone_surrogate", "\ud800x"],
]
MOSAIC_EXTRA_TOP = [["flags", {"x": 1}], ["output_memory_colors", [1]], ["kernel_name", "k"],
                    ["\u00e9", 1], ["body", "top-level body is not the kernel"]]
MOSAIC_TARGETS = [("tpu_custom_call", 92), ("tpu_custom_call_v2", 3), ("CustomSPMDPartitioning", 2),
                  ("xla_python_cpu_callback", 3)]
MOSAIC_DUMPS_STYLES = [("spaced", 50), ("compact", 25), ("indent", 10), ("raw_unicode", 15)]


def _weighted(rng: random.Random, table):
    total = sum(w for _, w in table)
    r = rng.random() * total
    for value, w in table:
        r -= w
        if r < 0:
            return value
    return table[-1][0]


def _mosaic_op(rng: random.Random) -> dict:
    op = {
        "target": _weighted(rng, MOSAIC_TARGETS),
        "config_form": _weighted(rng, MOSAIC_CONFIG_FORMS),
        "custom_call_config": _weighted(rng, MOSAIC_CC_FORMS),
        "body": _weighted(rng, MOSAIC_BODIES),
        "extra_config": rng.sample(MOSAIC_EXTRA_CONFIG, k=rng.choice([0, 0, 1, 2, 3])),
        "extra_top": rng.sample(MOSAIC_EXTRA_TOP, k=rng.choice([0, 0, 0, 1, 2])),
        "config_first": rng.random() < 0.8,
        "dumps_style": _weighted(rng, MOSAIC_DUMPS_STYLES),
        "duplicate_key": rng.random() < 0.05,
    }
    if rng.random() < 0.45:
        op["debug_locations"] = rng.choice(MOSAIC_DEBUG_LOCATIONS)
    return op


def make_mosaic(rng: random.Random) -> dict:
    """Recipe of a Mosaic program: 1-3 custom calls, mostly tpu_custom_call."""
    return {"ops": [_mosaic_op(rng) for _ in range(rng.choice([1, 1, 1, 2, 3]))]}


def get_path(recipe: dict, path: str):
    """The value at dotted ``path`` in ``recipe``."""
    node = recipe
    for part in path.split("."):
        node = node[part]
    return node


def set_path(recipe: dict, path: str, value) -> None:
    """Set the value at dotted ``path`` in ``recipe``."""
    parts = path.split(".")
    node = recipe
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value


def neutral_recipe() -> dict:
    """A recipe with every knob at its NEUTRAL value."""
    recipe: dict = {"module": {}, "backend": {}, "flags": {}, "compile_options": {}, "accelerator": {}}
    for path, value in NEUTRAL.items():
        set_path(recipe, path, _copy(value))
    return recipe


def _copy(value):
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def _ws_run(rng: random.Random) -> str:
    return "".join(rng.choice(SPLIT_WS) for _ in range(rng.randint(1, 3)))


def _flag_token(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.35:
        name = rng.choice(EXCLUDED_FLAGS_0_10_2)
        form = rng.random()
        if form < 0.5:
            return name + "=" + rng.choice(["1", "true", "/tmp/d", "", "a=b", "\u00e9"])
        if form < 0.7:
            return name
        return name + rng.choice(["=", "==x", "_suffix=1"])
    if r < 0.45:
        return rng.choice(MAIN_ONLY_EXCLUDED) + rng.choice(["", "=x", "=/tmp/c"])
    if r < 0.9:
        return rng.choice(KEPT_FLAGS)
    # a token with a look-alike but non-splitting character inside
    return "--xla_odd" + rng.choice(NOT_WS[:3]) + "flag=1"


def _env_string(rng: random.Random):
    """An XLA_FLAGS / LIBTPU_INIT_ARGS value (None = unset)."""
    r = rng.random()
    if r < 0.3:
        return None
    if r < 0.36:
        return rng.choice(["", " ", "\u3000", "\n\t"])
    tokens = [_flag_token(rng) for _ in range(rng.randint(1, 7))]
    if tokens and rng.random() < 0.3:  # duplicates
        tokens += rng.sample(tokens, k=rng.randint(1, len(tokens)))
    rng.shuffle(tokens)
    out = _ws_run(rng) if rng.random() < 0.4 else ""
    for i, t in enumerate(tokens):
        out += t
        if i + 1 < len(tokens):
            out += _ws_run(rng)
    if rng.random() < 0.4:
        out += _ws_run(rng)
    # Inner whitespace inside a flag value splits it in two: keep some of that.
    if rng.random() < 0.15:
        out += " --xla_split" + rng.choice(SPLIT_WS) + "value=1"
    return out


def _argv(rng: random.Random, prefixes: list[str]) -> list[str]:
    argv = [rng.choice(["oracle", "/usr/bin/python3", "--xla_program_name", "main.py"])]
    pool = ["-v", "--verbose", "input.txt", "--jax_enable_x64", "--other=1", " --xla_leading_space=1",
            "--xla_with space=1", "--xla_tab\tinside", "--xla_dump_to=/tmp/argv",
            "--xla_force_host_platform_device_count=2", "--xla_gpu_autotune_level=1",
            "--xla_gpu_autotune_level=1", "--my_prefix_flag", "-x", "--xla_nul\x00byte",
            "--xla_\u00e9=1", "", "--xla_dump_to", "--xla"]
    pool += [p + "tail" for p in prefixes if p]
    for _ in range(rng.randint(0, 6)):
        argv.append(rng.choice(pool) if rng.random() < 0.8 else _flag_token(rng))
    return argv


def _debug_options(rng: random.Random) -> dict:
    names = sorted(DEBUG_OPTION_VALUES)
    chosen = rng.sample(names, k=rng.randint(0, 8))
    return {n: rng.choice(DEBUG_OPTION_VALUES[n]) for n in sorted(chosen)}


def _overrides(rng: random.Random, via: str, edits_mode: bool):
    if rng.random() < 0.35:
        return None
    out = []
    for _ in range(rng.randint(0, 6)):
        name = rng.choice(OVERRIDE_NAMES)
        value = rng.choice(OVERRIDE_VALUES)
        out.append([name, value])
    if out and rng.random() < 0.3:  # a repeated name: the last value wins
        out.append([out[0][0], rng.choice(OVERRIDE_VALUES)])
    if via == "get_compile_options" and rng.random() < 0.3:
        name = rng.choice(sorted(BUILD_OPTION_OVERRIDES))
        out.append([name, rng.choice(BUILD_OPTION_OVERRIDES[name])])
    if not edits_mode and rng.random() < 0.1:
        out.append(["nan_value", float("nan")])
    return out


def make_recipe(seed: int, index: int) -> dict:
    """The recipe for case ``index`` of ``seed`` (independent of the count)."""
    rng = random.Random(f"cachekey-oracle/{seed}/{index}")
    recipe = neutral_recipe()

    # Entry 1: which lowered program, metadata, callbacks.
    recipe["module"]["program"] = rng.choice(["add", "add", "mlp", "callbacks", "custom_partitioning"])
    recipe["module"]["include_metadata"] = rng.random() < 0.3
    recipe["module"]["ignore_callbacks"] = rng.choice(["NO", "NO", "ALL", "CUSTOM_PARTITIONING"])

    # Entry 2.
    if rng.random() < 0.1:
        recipe["jaxlib_version"] = rng.choice(JAXLIB_VERSIONS)

    # Entry 3.
    recipe["backend"]["platform"] = rng.choice(PLATFORMS)
    recipe["backend"]["platform_version"] = rng.choice(PLATFORM_VERSIONS)

    # Entry 4.
    prefixes = []
    if rng.random() < 0.3:
        prefixes = rng.sample(["--jax", "--my_prefix", "-", "-x", "", "--xla_dump", "input"],
                              k=rng.randint(1, 3))
    recipe["flags"]["extra_prefixes"] = prefixes
    recipe["flags"]["XLA_FLAGS"] = _env_string(rng)
    recipe["flags"]["LIBTPU_INIT_ARGS"] = _env_string(rng) if rng.random() < 0.5 else None
    recipe["flags"]["argv"] = _argv(rng, prefixes) if rng.random() < 0.6 else ["oracle"]

    # Entry 5.
    co = recipe["compile_options"]
    co["encoding"] = "edits" if rng.random() < 0.2 else "proto"
    edits_mode = co["encoding"] == "edits"
    co["overrides_via"] = "direct" if (edits_mode or rng.random() < 0.4) else "get_compile_options"
    r = rng.choice([1, 1, 1, 2, 3])
    c = rng.choice([1, 1, 2, 4])
    co["num_replicas"], co["num_partitions"] = r, c
    if rng.random() < 0.5:
        ids = list(range(16))
        rng.shuffle(ids)
        if rng.random() < 0.2:
            ids = [rng.randrange(16) for _ in ids]
        co["device_assignment"] = [[ids[i * c + j] for j in range(c)] for i in range(r)]
    co["env_overrides"] = _overrides(rng, co["overrides_via"], edits_mode)
    if rng.random() < 0.2:
        data = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 7, 40])))
        co["fdo_profile_b64"] = base64.b64encode(data).decode("ascii")
    co["debug_options"] = _debug_options(rng)

    # Entry 6.
    acc = recipe["accelerator"]
    if rng.random() < 0.25:
        acc["mode"] = "fallback"
        shape = rng.choice([[1], [4], [2, 2], [2, 3], [1, 8], [3]])
        count = 1
        for d in shape:
            count *= d
        acc["device_shape"] = shape
        acc["device_kinds"] = [rng.choice(DEVICE_KINDS) for _ in range(count)]
        acc["error"] = rng.choice(RUNTIME_ERRORS)
        acc["client_devices"] = 1
        acc["engine_form"] = "device_kinds"
    else:
        n = rng.choice(CLIENT_DEVICE_COUNTS)
        acc["client_devices"] = n
        used = rng.randint(1, n)
        acc["device_shape"] = rng.choice([[used], [1, used], [used, 1]])
        acc["engine_form"] = "cpu_topology" if rng.random() < 0.75 else "fingerprint"

    # Entry 7.
    if rng.random() < 0.2:
        recipe["compression"] = {"python": rng.choice(["3.11", "3.13", "3.14", "3.15"]),
                                 "zstandard_installed": rng.random() < 0.5}
    else:
        recipe["compression"] = rng.choice(COMPRESSION_NAMES)

    # Entry 8.
    if rng.random() < 0.2:
        recipe["custom_hook"] = rng.choice(CUSTOM_HOOKS)

    # Knobs added for the multi-release oracle come from a second stream, so
    # the draws above (and the cases of existing seeds) stay as they were.
    rng2 = random.Random(f"cachekey-oracle/{seed}/{index}/releases")
    recipe["backend"]["runtime_type"] = rng2.choice(RUNTIME_TYPES)
    if rng2.random() < 0.15:
        recipe["module"]["program"] = "mosaic"
        recipe["mosaic"] = make_mosaic(rng2)
    return recipe


# -- TPU recipes (tools/oracle --tpu) ----------------------------------------

# Knobs of a TPU recipe the shrinker resets (on top of NEUTRAL, whose
# accelerator.mode would leave the TPU).
TPU_NEUTRAL = {
    "accelerator.mode": "tpu_topology",
    "accelerator.error": None,
    "tpu.pick": {"kind": "all", "seed": 0},
    "tpu.layout": "flat",
    "tpu.compile_options": "ids",
    "tpu.backend": "client",
    "tpu.mixed_with": None,
}

TPU_PICKS = [("all", 35), ("one", 25), ("prefix", 15), ("sample", 15), ("reversed", 10)]
TPU_LAYOUTS = [("flat", 40), ("row", 20), ("col", 20), ("grid", 20)]
# ids: a device assignment of the picked devices' TPU ids; recipe: the CPU
# oracle's random one; jit: the CompileOptions real JAX built for the program.
TPU_COMPILE_OPTIONS = [("ids", 55), ("recipe", 15), ("jit", 30)]


# The same knobs of a GPU recipe (tools/oracle --gpu).
GPU_NEUTRAL = {("gpu." + k[4:] if k.startswith("tpu.") else k): v for k, v in TPU_NEUTRAL.items()}
GPU_NEUTRAL["accelerator.mode"] = "gpu_topology"


def neutral_value(recipe: dict, path: str):
    """The value the shrinker resets ``path`` of ``recipe`` to."""
    if "tpu" in recipe and path in TPU_NEUTRAL:
        return _copy(TPU_NEUTRAL[path])
    if "gpu" in recipe and path in GPU_NEUTRAL:
        return _copy(GPU_NEUTRAL[path])
    return _copy(NEUTRAL[path])


def has_path(recipe: dict, path: str) -> bool:
    """Whether ``recipe`` has a value at dotted ``path``."""
    node = recipe
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def make_tpu_recipe(seed: int, index: int, topology_ids: list[str]) -> dict:
    """Recipe ``index`` of ``seed`` for the TPU oracle: every knob of
    ``make_recipe(seed, index)`` (flags, compile options, compression, hook,
    program...), then, from a stream of its own, the TPU ones: a topology
    out of ``topology_ids`` (fixtures/tpu_topologies.json), which of its
    devices and in which array shape, where the device assignment comes from,
    the real client or a wrapper with the recipe's platform string, a
    program lowered for the topology (``tpu_add`` / ``tpu_matmul``) in about
    a third of the cases, and the device_kind fallback in a fifth (sometimes
    with one device of a second topology)."""
    return _accelerator_recipe("tpu", seed, index, topology_ids)


def make_gpu_recipe(seed: int, index: int, topology_ids: list[str]) -> dict:
    """Recipe ``index`` of ``seed`` for the GPU oracle: ``make_tpu_recipe``'s
    knobs under ``"gpu"``, drawn from a stream of their own, over the
    topologies ``topology_ids`` of fixtures/gpu_topologies.json (the CUDA
    plugin's compile-only client); programs ``gpu_add`` / ``gpu_matmul``,
    fallback mode ``gpu_fallback``.  On platform ``gpu`` real JAX strips the
    device assignment, so the ``ids`` compile options (the picked devices'
    GPU ids) exercise ``strip_device_assignment``."""
    return _accelerator_recipe("gpu", seed, index, topology_ids)


def _accelerator_recipe(kind: str, seed: int, index: int, topology_ids: list[str]) -> dict:
    """make_tpu_recipe / make_gpu_recipe for ``kind`` "tpu" / "gpu"."""
    recipe = make_recipe(seed, index)
    rng = random.Random(f"cachekey-oracle/{seed}/{index}/{kind}")
    tpu = {
        "topology": rng.choice(topology_ids),
        "pick": {"kind": _weighted(rng, TPU_PICKS), "seed": rng.randrange(1 << 31)},
        "layout": _weighted(rng, TPU_LAYOUTS),
        "compile_options": _weighted(rng, TPU_COMPILE_OPTIONS),
        "backend": "client" if rng.random() < 0.8 else "wrapper",
        "mixed_with": None,
    }
    if rng.random() < 0.35:
        recipe["module"]["program"] = rng.choice([f"{kind}_add", f"{kind}_matmul"])
        recipe["mosaic"] = None
    acc = recipe["accelerator"]
    for path in ("accelerator.client_devices", "accelerator.device_shape", "accelerator.engine_form",
                 "accelerator.device_kinds", "accelerator.error"):
        set_path(recipe, path, _copy(NEUTRAL[path]))
    if rng.random() < 0.2:
        acc["mode"] = f"{kind}_fallback"
        acc["error"] = rng.choice(RUNTIME_ERRORS)
        if rng.random() < 0.25:
            tpu["mixed_with"] = rng.choice(topology_ids)
    else:
        acc["mode"] = f"{kind}_topology"
    recipe[kind] = tpu
    return recipe
