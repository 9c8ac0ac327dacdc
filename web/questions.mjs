// @ts-check
// Questions (#questions) answered beside small live exhibits: each computes
// its keys with the engine and offers to open the scenario in the key exhibit.
import { el, put, link, setText } from './dom.mjs';
import { upstreamUrl, UPSTREAM } from './data.mjs';
import { abbrev } from './state.mjs';
import { errorText } from './engine.mjs';
import { EXAMPLE_LOGS, fixtureLog } from './logs.mjs';

function srcLinks(keys) {
  return el('p', { class: 'src-links' }, 'In the source (jax-v0.10.2): ',
    keys.flatMap((k, i) => [i ? ', ' : '', link(upstreamUrl(k), el('code', { class: 'fn' }, UPSTREAM[k].label))]));
}

/** A small live comparison: both keys, equal or not, and the engine's sentence. */
function miniCompare(catalog, a, b, labels) {
  const r = catalog.engine.compareScenarios(a, b);
  if (r.error) return el('p', { class: 'banner error' }, errorText(r.error));
  const equal = r.a.key === r.b.key;
  return el('div', { class: 'mini' },
    el('p', null, el('span', { class: 'mini-label' }, labels[0]), ' ', el('code', { class: 'key' }, r.a.key)),
    el('p', null, el('span', { class: 'mini-label' }, labels[1]), ' ', el('code', { class: 'key' }, r.b.key)),
    el('p', { class: equal ? 'verdict ok' : 'verdict miss' }, equal ? 'Equal keys: a cache hit.' : 'Different keys: a cache miss.'),
    el('p', { class: 'hint' }, r.comparison.sentence));
}

/**
 * Renders the questions into `root`.
 * @param {Element} root
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {{show: (presetId: string, patch: Object) => void, openExampleLogs: () => void}} actions
 */
export function mountQuestions(root, catalog, { show, openExampleLogs }) {
  const mod = (id) => catalog.fixtureModule(id) || null;
  const S = (base, patch = {}) => Object.assign({ schema: 1, base }, patch);
  const openBtn = (label, preset, patch) => el('button', { type: 'button', class: 'secondary', 'data-open': JSON.stringify([preset, patch]) }, label);

  const items = [];

  // 1. What goes into the key?
  {
    const r = catalog.engine.computeKey(S('add_1x1'));
    const table = r.error ? el('p', { class: 'banner error' }, r.error.message) : el('div', { class: 'table-wrap' }, el('table', { class: 'mini-table' },
      el('caption', null, `Live: the ${r.entries.length} entries of add_1x1 (captured from real JAX)`),
      el('thead', null, el('tr', null, ['#', 'entry', 'bytes fed', 'own digest'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', null, r.entries.map((e) => el('tr', null, el('td', null, String(e.index)), el('td', null, e.name), el('td', null, String(e.bytes_len)), el('td', null, el('code', { title: e.digest }, abbrev(e.digest, 12))))))));
    items.push(['what', 'What goes into the key?', [
      'Eight things, always in the same order, all fed into one running SHA-256: the program (MLIR bytecode with source locations stripped by default), the jaxlib version, the platform and its version string, the XLA flags that are not on the exclusion list (sorted), the compile options with their debugging fields zeroed, a fingerprint of the accelerator topology, the name of the compression algorithm, and the string a custom hook returns (empty unless you install one).',
      'The key is the module name, a dash, and the final digest. Because one hash object runs through all eight, a change in any entry changes every running digest after it: the first entry whose own digest differs is the cause, the rest are consequences.',
    ], table, ['get', 'computation', 'canonicalize', 'platform', 'flags', 'compile_options', 'accelerator', 'string'], openBtn('Open it in the key exhibit', 'add_1x1', {})]);
  }

  // 2. Does a dump flag change the key?
  {
    const patch = { flags: { XLA_FLAGS: '--xla_dump_to=/tmp/xla-dump' }, compile_options: { edits: { debug_options: { xla_dump_to: '/tmp/xla-dump' } } } };
    items.push(['dump', 'Does setting a dump flag change the key?', [
      'No, for the dump flags JAX knows about. --xla_dump_to and the other names on the exclusion list are logged as “Not including XLA flag in cache key” and feed no bytes to entry 4, and the matching DebugOptions fields are set to zero before the compile options are hashed in entry 5. Dumping therefore does not force a recompilation.',
      'Two caveats: a flag is excluded only by its exact name, and a few dump-related DebugOptions fields (xla_dump_include_timestamp, for one) are not zeroed, so setting them inside the compile options does move entry 5.',
    ], miniCompare(catalog, S('add_1x1'), S('add_1x1', patch), ['Without dumping:', 'With --xla_dump_to:']),
    ['flags', 'compile_options'], openBtn('Open it in the key exhibit', 'add_1x1', patch)]);
  }

  // 3. Identical functions, different keys
  if (mod('lines_b_meta') && mod('lines_b_nometa')) {
    items.push(['identical', 'Why can two identical functions get different keys?', [
      'Because entry 1 hashes the module, and the module can carry more than the computation. With jax_compilation_cache_include_metadata_in_key on, every operation keeps its source location (file, line, call stack), so the same function at another line or in another checkout hashes differently. By default JAX runs strip-debuginfo first and the locations vanish.',
      'Other things ride along in the module too: custom_partitioning stores a Python object id in backend_config (a new key on every run unless the pointer is removed), and before main, Pallas TPU kernels kept their own file paths inside an encoded body.',
    ], el('div', null,
      miniCompare(catalog, S('lines_a_meta'), S('lines_a_meta', { module: mod('lines_b_meta') }), ['Line A, metadata in key:', 'Line B, metadata in key:']),
      miniCompare(catalog, S('lines_a_nometa'), S('lines_a_nometa', { module: mod('lines_b_nometa') }), ['Line A, default:', 'Line B, default:'])),
    ['computation', 'canonicalize'], openBtn('Open it in the key exhibit', 'lines_a_meta', { module: mod('lines_b_meta') })]);
  }

  // 4. Multi-process GPU
  if (catalog.presets.has('gpu_2proc')) {
    const da1 = { compile_options: { edits: { device_assignment: [[1]] } } };
    items.push(['gpu', 'Why does a multi-process GPU job compile once, not once per process?', [
      'Every process of the job compiles the same program, but each one\u2019s device assignment names its own devices, and the compile options (entry 5) contain that assignment. On platform "gpu", JAX rewrites the assignment to the plain numbering 0, 1, \u2026 before hashing, so all processes arrive at one key: one compilation is written to the cache and the others read it. The rule looks at the platform string only; on CPU and TPU the assignment is hashed as given, and different assignments mean different keys.',
    ], el('div', null,
      miniCompare(catalog, S('gpu_2proc'), S('gpu_2proc', da1), ['GPU, process 0 ([[0]]):', 'GPU, process 1 ([[1]]):']),
      miniCompare(catalog, S('add_1x1', { compile_options: { edits: { device_assignment: [[0]] } } }), S('add_1x1', da1), ['CPU, [[0]]:', 'CPU, [[1]]:'])),
    ['compile_options', 'strip'], openBtn('Open it in the key exhibit', 'gpu_2proc', da1)]);
  }

  // 5. Debugging a miss
  {
    // The logs are compared by the worker's engine (the first view's key
    // module has no log reader), when the question is first in view.
    const live = el('p', { class: 'hint', 'data-testid': 'debug-example-sentence' }, 'Comparing the two logs\u2026');
    const compare = () => catalog.worker.call('compareLogs', [
      { name: 'log A', source: fixtureLog(catalog, EXAMPLE_LOGS[0]) },
      { name: 'log B', source: fixtureLog(catalog, EXAMPLE_LOGS[1]) }], { label: 'Reading the example logs' })
      .then((r) => setText(live, r.error ? r.error.message : r.sentence))
      .catch(() => setText(live, 'The example logs were not compared (the job was cancelled).'));
    if (typeof IntersectionObserver === 'function') {
      const seen = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { seen.disconnect(); compare(); }
      });
      queueMicrotask(() => seen.observe(live));
    } else compare();
    items.push(['debug', 'How do I find out why I got a cache miss?', [
      'Turn on the key\u2019s logger before compiling: logging.getLogger("jax._src.cache_key").setLevel(logging.DEBUG) (with a handler, for example logging.basicConfig()). For every key, JAX then logs each entry\u2019s own digest and the running digest after it, 16 lines in entry order, plus one line per XLA flag. Capture these lines from the run that wrote the cache and from the run that missed it.',
      'Compare the two logs line by line. The first entry whose own digest differs names the ingredient that moved; every running digest after it differs only as a consequence. The log reader below does this for whole logs: it pairs the programs by name, names the one cause, and says why each program hit or missed (set jax._src.compiler to DEBUG too, for the hits, misses and writes). Setting jax_explain_cache_misses also makes JAX log each miss with its key.',
    ], el('div', { class: 'mini' },
      el('p', { class: 'mini-label' }, 'Live: two real captured logs (add_1x1 and mul_2x2)'),
      live),
    ['log', 'get'], el('button', { type: 'button', class: 'secondary', 'data-open-logs': '1' }, 'Open the two-log panel with these logs')]);
  }

  put(root, ...items.map(([id, q, paras, exhibit, srcs, action]) => el('article', { class: 'question', id: `q-${id}`, 'data-testid': `question-${id}`, 'aria-labelledby': `q-h-${id}` },
    el('h3', { id: `q-h-${id}` }, q),
    el('div', { class: 'q-grid' },
      el('div', { class: 'q-text' }, paras.map((p) => el('p', null, p)), srcLinks(srcs)),
      el('div', { class: 'q-exhibit' }, exhibit, el('div', { class: 'row' }, action))))));

  root.addEventListener('click', (e) => {
    const b = /** @type {Element} */ (e.target).closest('button[data-open],button[data-open-logs]');
    if (!b) return;
    if (b.hasAttribute('data-open-logs')) { openExampleLogs(); return; }
    const [preset, patch] = JSON.parse(b.getAttribute('data-open'));
    show(preset, patch);
  });
}

