// @ts-check
// Facts the page shows next to the engine's output (the engine itself gives
// every JAX rule: releases, exclusion lists, zeroed and known DebugOptions
// fields, entry names, the compressions and platform_version strings the
// pickers offer): links to the upstream functions, the derived presets, the case studies and the questions.
// The prose is this project's own; upstream code is only linked to.

export const issue = (n) => `https://github.com/jax-ml/jax/issues/${n}`;
export const pull = (n) => `https://github.com/jax-ml/jax/pull/${n}`;

/**
 * The places of jax/_src/cache_key.py the page links to, by the anchor ids
 * of tools/walk_annotations.json. Their line numbers are not written here:
 * the build finds each anchor in every release's own file (upstream-links.json,
 * tools/walk_anchors.py), and setUpstreamLinks gives them to this module.
 */
export const UPSTREAM = {
  get: { anchor: 'get', label: 'get' },
  entries: { anchor: 'entry-1', label: 'get: the entry list' },
  jaxlib: { anchor: 'entry-2', label: 'get: jax_lib version' },
  compression: { anchor: 'entry-7', label: 'get: compression' },
  custom_hook: { anchor: 'custom-hook', label: 'custom_hook' },
  log: { anchor: 'log', label: '_log_cache_key_hash' },
  canonicalize: { anchor: 'canonicalize', label: '_canonicalize_ir' },
  computation: { anchor: 'computation', label: '_hash_computation' },
  accelerator: { anchor: 'accelerator', label: '_hash_accelerator_config' },
  compile_options: { anchor: 'compile-options', label: '_hash_serialized_compile_options' },
  strip: { anchor: 'entry-5', label: 'get: strip_device_assignment on gpu' },
  platform: { anchor: 'platform', label: '_hash_platform' },
  flags: { anchor: 'flags', label: '_hash_xla_flags' },
  string: { anchor: 'hash-string', label: '_hash_string' },
};

/**
 * walk/links.json as the build wrote it, once loaded: each release's line of
 * every anchor, and the anchor behind each entry (tools/walk_annotations.json
 * "source_of", checked against every release's call graph by the build).
 * @type {{aliases: Object<string, string>, releases: Object<string, Object<string, number>>, entry_sources: string[]}}
 */
let links = { aliases: {}, releases: {}, entry_sources: [] };
/** @param {{aliases?: Object<string, string>, releases?: Object<string, Object<string, number>>, entry_sources?: string[]}} json */
export function setUpstreamLinks(json) {
  if (json && typeof json === 'object') {
    links = { aliases: json.aliases || {}, releases: json.releases || {}, entry_sources: Array.isArray(json.entry_sources) ? json.entry_sources : [] };
  }
}

/**
 * The link to `key`'s place (UPSTREAM) in jax `release`'s cache_key.py (the
 * release's tag), at the line the build found for it there; without a line
 * when the anchor is absent in that release or the links are not loaded.
 * @param {string} key
 * @param {string} [release] a release or an alias ("main"); 0.10.2 by default
 */
export function upstreamUrl(key, release = '0.10.2') {
  const rel = links.aliases[release] || release;
  const line = (links.releases[rel] || {})[UPSTREAM[key].anchor];
  return `https://github.com/jax-ml/jax/blob/jax-v${rel}/jax/_src/cache_key.py${line ? '#L' + line : ''}`;
}

/**
 * The UPSTREAM place behind entry `n` (1-based): the one whose anchor the
 * build's links name for it (entry_sources); `get`, which lists every
 * entry, when the links are not loaded or name an anchor UPSTREAM lacks.
 * @param {number} n
 * @returns {string} a key of UPSTREAM
 */
export function entrySource(n) {
  const anchor = links.entry_sources[n - 1];
  return Object.keys(UPSTREAM).find((k) => UPSTREAM[k].anchor === anchor) || 'get';
}

/**
 * Case studies: each is one click. preset: the baseline; patch: the
 * perturbation over it. alt: an optional second scenario.
 */
export function caseStudies(catalog) {
  const mod = (id) => catalog.fixtureModule(id);
  return [
    {
      id: 'custom-partitioning',
      title: 'custom_partitioning puts a Python object id into the program',
      source: [issue(21159), 'jax-ml/jax#21159'],
      text: 'A custom_partitioning op is lowered to a CustomSPMDPartitioning custom call whose backend_config holds the id of a Python object. The id differs in every process, so entry 1 differs on every run and the cache never hits. The baseline is the captured program with the pointer left in; the perturbation swaps in the bytes captured with jax_remove_custom_partitioning_ptr_from_cache_key on, where the pointer reads "REMOVED". Only entry 1 moves: with the switch on, the bytes no longer depend on the run.',
      preset: 'custom_partitioning_off',
      patch: { module: mod('custom_partitioning_on') },
    },
    {
      id: 'source-lines',
      title: 'Source locations in the module make a new key',
      source: [issue(16649), 'jax-ml/jax#16649'],
      text: 'Issue #16649 reported identical calls getting a new key on every run. Anything that differs between runs and lands in the module bytes does that, and source locations are a common way for the bytes to differ while the computation stays the same: with jax_compilation_cache_include_metadata_in_key on, each operation keeps its file, line and call stack, so the same function at another line (here) or in another checkout gets a new key. By default JAX strips the locations before hashing and the two keys are equal (second button).',
      preset: 'lines_a_meta',
      patch: { module: mod('lines_b_meta') },
      alt: { label: 'Same move, default (locations stripped)', preset: 'lines_a_nometa', patch: { module: mod('lines_b_nometa') } },
    },
    {
      id: 'gpu-multiprocess',
      title: 'A multi-process GPU job compiles once, not once per process',
      source: [() => upstreamUrl('strip'), 'cache_key.py: strip_device_assignment when platform is gpu'],
      text: 'Each process of a multi-process GPU job sees a device assignment naming its own device: [[0]] in one, [[1]] in the next. On platform "gpu" JAX renumbers the assignment to 0\u2026R\u00b7C\u22121 before hashing, so every process computes the same key and one compilation serves all. On CPU and TPU the assignment is hashed as it is. (Derived preset: GPU strings over the CPU capture.)',
      preset: 'gpu_2proc',
      patch: { compile_options: { edits: { device_assignment: [[1]] } } },
    },
    {
      id: 'flag-order',
      title: 'Flag order does not matter: flags are sorted',
      source: [pull(8090), 'jax-ml/jax#8090 (XLA flags enter the key)'],
      source2: [() => upstreamUrl('flags'), '_hash_xla_flags at jax-v0.10.2'],
      text: 'The same two XLA flags in the opposite order. JAX sorts the collected flags before hashing them, so the keys are equal. (Sorting is by code point, and there is no separator between flags: ["ab","c"] and ["a","bc"] feed the same bytes.)',
      preset: 'flags_ab',
      patch: { flags: { XLA_FLAGS: '--xla_gpu_autotune_level=2 --xla_cpu_multi_thread_eigen=false' } },
    },
    {
      id: 'dump-flag',
      title: 'A dump flag does not move the key',
      source: [pull(8090), 'jax-ml/jax#8090 (dump flags excluded)'],
      source2: [() => upstreamUrl('compile_options'), '_hash_serialized_compile_options at jax-v0.10.2'],
      text: 'Turning on --xla_dump_to to look at what XLA does should not force a recompilation. A flag in XLA_FLAGS reaches the key twice: as text in entry 4, and parsed into DebugOptions inside the compile options (entry 5). JAX leaves the dump flags out of entry 4 and zeroes the matching DebugOptions fields in entry 5, so the key stays the same. Not every dump setting is zeroed in entry 5: try xla_dump_include_timestamp in the compile-options control.',
      preset: 'add_1x1',
      patch: {
        flags: { XLA_FLAGS: '--xla_dump_to=/tmp/xla-dump --xla_dump_hlo_as_text' },
        compile_options: { edits: { debug_options: { xla_dump_to: '/tmp/xla-dump', xla_dump_hlo_as_text: true } } },
      },
    },
    {
      id: 'pallas',
      title: 'Pallas kernel paths: stripped on main, hashed on 0.10.2',
      source: [pull(35699), 'jax-ml/jax#35699'],
      text: 'A Pallas TPU kernel travels inside the module as the base64 body of a tpu_custom_call\u2019s backend_config, where strip-debuginfo does not reach: on 0.10.2 the kernel\u2019s file paths stay in the key, so the same kernel built in two checkouts never shares a cache entry. On main, JAX decodes each kernel body, strips its locations and writes it back before hashing. Here one small hand-written module is computed live (it loads the MLIR canonicaliser, about 0.7 MB gzipped), twice: the kernel\u2019s one source location differs, nothing else. On main the keys are equal; the second button makes the same move on 0.10.2, where entry 1 moves. (Derived, not captured: the live MLIR is not jaxlib\u2019s. A real Pallas kernel captured with libtpu: the case \u201cA Pallas kernel at another source line\u201d.)',
      preset: 'pallas_kernel',
      // The other checkout's module text, from the derived preset that holds it.
      livePatch: (catalog) => ({ module: { text: catalog.resolvedOf('pallas_kernel_moved').module.text } }),
      alt: { label: 'Same move on 0.10.2', preset: 'pallas_kernel_0102',
        livePatch: (catalog) => ({ module: { text: catalog.resolvedOf('pallas_kernel_moved').module.text } }) },
      needsMlir: true,
    },
    {
      id: 'python314',
      title: 'Python 3.14: the key says "zlib", the payload is zstd',
      source: [() => upstreamUrl('compression'), 'get: compression at jax-v0.10.2'],
      text: 'On Python 3.14 JAX (0.10.2 as well as main) compresses with the standard library\u2019s compression.zstd but reports "zlib" to the key. A Python 3.13 process without the zstandard package also reports "zlib" and writes zlib. The keys are equal, the payloads are not compatible.',
      preset: 'py313_zlib',
      patch: { compression: { python: '3.14', zstandard_installed: true } },
    },
  ];
}
