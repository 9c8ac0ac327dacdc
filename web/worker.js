// The engine's worker: the work that can take long runs here, off the
// page's main thread, so that the page never freezes (issue 13).
//   - canonicalising module text (the engine with the live MLIR
//     canonicaliser is loaded here, never on the main thread) and computing
//     the keys of scenarios with module text;
//   - decoding and encoding permalinks;
//   - reading two runs' logs (files streamed in chunks, with progress).
// A classic worker: the Emscripten factories are classic scripts
// (importScripts); the JS API over them, engine.mjs, is imported. The page
// cancels a job by terminating this worker and starting a new one, which it
// sets up again (web/worker-client.mjs).
//
// Protocol: the page posts {id, op, args}; the worker answers {id, result},
// or {id, error: {code, path, message}} when the op itself failed (engine
// errors are results: {error} objects, as engine.mjs returns them), and may
// post {id, progress: {done, total}} meanwhile.
/* global importScripts, createCacheKeyEngine, createCacheKeyEngineMlir */
importScripts('cachekey_engine.js');

const api = import('./engine.mjs');
const transfer = import('./transfer.mjs');
/** Pieces of long strings received, by message id (transfer.mjs). */
const received = new Map();
let engine = null;
const ready = api.then(async ({ CacheKeyEngine }) => {
  engine = await CacheKeyEngine.load({ factory: createCacheKeyEngine, baseUrl: './' });
});
/** Every fixture registered, in order, to register again on the MLIR engine. */
const fixtures = new Map();

const ops = {
  /** Registers fixtures ({id: document}) as scenario bases. */
  register(docs) {
    const errors = {};
    for (const [id, doc] of Object.entries(docs)) {
      const r = engine.registerFixture(id, doc);
      if (r.error) errors[id] = r.error;
      else fixtures.set(id, doc);
    }
    return { errors };
  },

  /** Replaces the engine by the one with the live MLIR canonicaliser. */
  async loadMlir() {
    if (engine.version().mlir) return engine.version();
    importScripts('mlir/cachekey_engine_mlir.js');
    const { CacheKeyEngine } = await api;
    const eng = await CacheKeyEngine.load({ factory: createCacheKeyEngineMlir, baseUrl: 'mlir/' });
    for (const [id, doc] of fixtures) eng.registerFixture(id, doc);
    engine = eng;
    return eng.version();
  },

  /**
   * compareScenarios(baseline, scenario) and the scenario resolved. The
   * module text the page sent is not sent back: resolved.module.text is
   * left out when it is the scenario's own text (textOmitted), so that a
   * large text never crosses again.
   */
  compare(baseline, scenario) {
    const cmp = engine.compareScenarios(baseline, scenario);
    const resolved = engine.resolveScenario(scenario);
    const own = scenario && scenario.module && scenario.module.text;
    let textOmitted = false;
    if (!resolved.error && typeof own === 'string' && resolved.module && resolved.module.text === own) {
      delete resolved.module.text;
      textOmitted = true;
    }
    return { cmp, resolved, textOmitted };
  },

  /** The text of a file (UTF-8), read here rather than on the page's thread. */
  readText(file) { return file.text(); },

  /**
   * Scenario files (and captured files with their entry-1 sidecars, from
   * `files`) read, and each one's key computed: {docs, keys} where a key is
   * {key} or {error}; or {error} naming the file that cannot be read.
   */
  async readScenarioFiles(scenarios, files) {
    const { readScenarioFile } = await import('./scenario-read.mjs');
    const docs = [];
    for (const f of scenarios) {
      const r = await readScenarioFile(f, files);
      if (r.error) return { error: `${f.name}: ${r.error}.` };
      docs.push(r.doc);
    }
    return { docs, keys: docs.map((d) => engine.computeKey(d)) };
  },

  encodePermalink(doc) { return engine.encodePermalink(doc); },
  decodePermalink(fragment) { return engine.decodePermalink(fragment); },
  computeKey(doc) { return engine.computeKey(doc); },

  /** Two logs (File or text, with names) compared, with progress in bytes. */
  compareLogs(a, b, id) {
    const total = [a, b].reduce((n, s) => n + (typeof s.source === 'string' ? s.source.length : s.source.size), 0);
    let done = 0;
    return engine.compareLogSources(a, b, (n) => {
      done += n;
      postMessage({ id, progress: { done, total } });
    });
  },
};

// One message at a time, in order: a setup call (loading MLIR) finishes
// before the next job starts.
let queue = ready.catch((e) => { loadError = e; });
let loadError = null;
/** Posts a result, its long strings in pieces first. */
async function reply(id, result) {
  const { takeLongStrings, pieces } = await transfer;
  const long = [];
  const r = takeLongStrings(result, long);
  for (const piece of pieces(long)) postMessage({ id, piece });
  postMessage({ id, result: r });
}

async function handle({ id, op, args }) {
  try {
    if (!engine) throw loadError || new Error('the engine could not be loaded');
    if (!Object.prototype.hasOwnProperty.call(ops, op)) throw new Error(`unknown operation ${op}`);
    const { putLongStrings } = await transfer;
    const whole = putLongStrings(args, received.get(id) || []);
    received.delete(id);
    const result = await ops[op](...(op === 'compareLogs' ? [...whole, id] : whole));
    await reply(id, result);
  } catch (err) {
    postMessage({ id, error: { code: 'internal', path: '', message: String((err && err.message) || err) } });
  }
}
self.onmessage = (e) => {
  if (e.data.piece) {
    const [n, text] = e.data.piece;
    if (!received.has(e.data.id)) received.set(e.data.id, []);
    const parts = received.get(e.data.id);
    (parts[n] = parts[n] || []).push(text);
    return;
  }
  queue = queue.then(() => handle(e.data));
};
