// The engine's worker: the work that can take long runs here, off the
// page's main thread, so that the page never freezes (issue 13).
//   - canonicalising module text (the engine with the live MLIR
//     canonicaliser is loaded here, never on the main thread) and computing
//     the keys of scenarios with module text;
//   - decoding and encoding permalinks;
//   - reading two runs' logs (files streamed in chunks, with progress);
//   - keeping large texts (transfer.mjs LARGE: a module text file of tens of
//     megabytes, a captured entry 1 in base64): they stay here, the page
//     holds a TextHandle, and everything computed from them (keys, digests,
//     the trace, the comparison with the baseline, the link, the scenario
//     file) is computed here. No answer carries a string longer than LARGE:
//     such a string goes back as a handle.
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

/**
 * Large texts kept here, by handle id: {text, source}. A text with a source
 * (the file it was read from) may be dropped and read again; one without is
 * kept while the worker lives.
 * @type {Map<string, {text: string, source: ?Object}>}
 */
const texts = new Map();
/** Texts with a source kept at most (the oldest beyond are read again when needed). */
const KEEP = 3;

/** Keeps `text` and returns its handle's marker ({__text: id, length, preview, source}). */
async function keep(text, source) {
  const { PREVIEW } = await transfer;
  const id = crypto.randomUUID();
  texts.set(id, { text, source: source || null });
  const sourced = [...texts].filter(([, t]) => t.source);
  for (const [old] of sourced.slice(0, Math.max(0, sourced.length - KEEP))) texts.delete(old);
  return { __text: id, length: text.length, preview: text.slice(0, PREVIEW), source: source || null };
}

/** The text a marker stands for: kept here, or read again from its source. */
async function textOf(marker) {
  const kept = texts.get(marker.__text);
  if (kept) return kept.text;
  const src = marker.source;
  if (!src || !src.blob) throw new Error('a large text this page opened is no longer held by the engine\u2019s worker; open its file again');
  let text;
  if (src.encoding === 'base64') {
    const { bytesToBase64 } = await transfer;
    text = bytesToBase64(new Uint8Array(await src.blob.arrayBuffer()));
  } else if (src.encoding === 'json') {
    let v = JSON.parse(await src.blob.text());
    for (const k of src.path || []) v = v && typeof v === 'object' ? v[k] : undefined;
    if (typeof v !== 'string') throw new Error(`${src.blob.name || 'the file'} no longer holds the text it held`);
    text = v;
  } else text = await src.blob.text();
  if (text.length !== marker.length) throw new Error(`${src.blob.name || 'the file'} changed since it was opened; open it again`);
  texts.set(marker.__text, { text, source: src });
  return text;
}

/** `value` with every handle marker replaced by its text. */
async function restore(value) {
  const { isTextMarker } = await transfer;
  const walk = async (v) => {
    if (isTextMarker(v)) return textOf(v);
    if (v === null || typeof v !== 'object' || v instanceof Blob) return v;
    // One after the other: a text used twice is read (again) once.
    for (const k of Object.keys(v)) v[k] = await walk(v[k]);
    return v;
  };
  return walk(value);
}

/** The marker of a kept text equal to `s`, or of `s` kept now (without a source). */
async function markerFor(s) {
  const { PREVIEW } = await transfer;
  for (const [id, t] of texts) {
    if (t.text.length === s.length && t.text === s) return { __text: id, length: s.length, preview: s.slice(0, PREVIEW), source: t.source };
  }
  return keep(s, null);
}

/** `value` (an answer) with every string longer than LARGE replaced by a handle marker. */
async function shrink(value) {
  const { LARGE, isTextMarker } = await transfer;
  const walk = async (v) => {
    if (typeof v === 'string') return v.length > LARGE ? markerFor(v) : v;
    if (v === null || typeof v !== 'object' || isTextMarker(v) || v instanceof Blob) return v;
    for (const k of Object.keys(v)) v[k] = await walk(v[k]);
    return v;
  };
  return walk(value);
}

/** Files of one choice at most (the CLI refuses inputs over 1 GiB as well). */
const MAX_FILE_BYTES = 1 << 30;

/**
 * Files by name, as bytes: {name: Uint8Array}, or {error} naming a file
 * that is too large (a folder's sub-folders are not read).
 */
async function bytesOf(files) {
  const out = {};
  for (const f of files) {
    if (f.size > MAX_FILE_BYTES) return { error: { code: 'too_large', source: f.name, path: '', message: `is ${f.size} bytes; a file opened here is at most 1 GiB` } };
    out[f.name] = new Uint8Array(await f.arrayBuffer());
  }
  return out;
}

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

  /**
   * The text of a file (UTF-8), read here rather than on the page's thread:
   * the text, or when it is longer than LARGE, the marker of a handle (the
   * text stays here).
   */
  async readText(file) {
    const { LARGE } = await transfer;
    const text = await file.text();
    return text.length > LARGE ? keep(text, { blob: file, encoding: 'text' }) : text;
  },

  /**
   * The scenario as a file (pretty JSON and a newline, application/json),
   * made here: a scenario with a large text is never written out on the
   * page's thread.
   */
  scenarioFile(doc) {
    return new Blob([JSON.stringify(doc, null, 2) + '\n'], { type: 'application/json' });
  },

  /**
   * Opened files read by the engine, exactly as `cachekey explain FILE`
   * reads them (engine.openScenarioFile: a captured file with its sidecars
   * from `files`, through the engine's capture reader and its checks; any
   * other file as a scenario). {opened: [{scenario, result, capture_check?,
   * captured?} or {error}]}, one per scenario file; or {error} when a file
   * cannot be read at all.
   */
  async readScenarioFiles(scenarios, files) {
    const { LARGE } = await transfer;
    // Each scenario is read with the other chosen files that are not
    // scenarios (its sidecars): two captured files of two runs often share
    // their name (0003-jit_f.json), so each is given only itself.
    const others = files.filter((f) => !scenarios.includes(f));
    const seen = new Set();
    for (const f of others) {
      if (seen.has(f.name)) {
        return { error: { code: 'invalid', source: f.name, path: '', message: 'two chosen files have this name, so the page cannot tell whose sidecar it is; compare whole capture folders under \u201cCompare two captured runs\u201d instead' } };
      }
      seen.add(f.name);
    }
    const shared = await bytesOf(others);
    if (shared.error) return shared;
    const opened = [];
    for (const f of scenarios) {
      const own = await bytesOf([f]);
      if (own.error) return own;
      opened.push(engine.openScenarioFile(f.name, { ...shared, ...own }));
    }
    // A large entry 1 (from its raw sidecar) or module text stays here; the
    // page gets a handle that can read it again from the file it came from.
    for (const [i, o] of opened.entries()) {
      if (o.error) continue;
      const m = o.scenario.module;
      const e1 = o.scenario.capture && o.scenario.capture.entry1;
      const sidecar = e1 && e1.storage === 'sidecar' && e1.encoding === 'raw' ? files.find((f) => f.name === e1.file) : null;
      if (m && typeof m.entry1_b64 === 'string' && m.entry1_b64.length > LARGE) {
        m.entry1_b64 = await keep(m.entry1_b64, sidecar ? { blob: sidecar, encoding: 'base64' }
          : e1 && e1.storage === 'sidecar' ? null : { blob: scenarios[i], encoding: 'json', path: ['module', 'entry1_b64'] });
      }
      if (m && typeof m.text === 'string' && m.text.length > LARGE) {
        m.text = await keep(m.text, { blob: scenarios[i], encoding: 'json', path: ['module', 'text'] });
      }
    }
    return { opened };
  },

  /**
   * Two capture folders ({name, files}) compared by the engine as
   * `cachekey diff DIR_A DIR_B` compares them (engine.compareCaptureFolders).
   */
  async compareCaptureFolders(a, b) {
    const fa = await bytesOf(a.files);
    if (fa.error) return fa;
    const fb = await bytesOf(b.files);
    if (fb.error) return fb;
    return engine.compareCaptureFolders(fa, fb, a.name, b.name);
  },

  /**
   * A JAX cache folder ({name, files: File[], dirs: string[]}) read as
   * `cachekey cache-dir DIR` reads it (engine.readCacheFolder). The engine
   * asks for the bytes it needs (an entry's head, an -atime's 8 bytes); they
   * are read here with FileReaderSync over slices of the File, so no whole
   * entry is copied unless its frame must be walked to its end.
   */
  readCacheFolder(folder, options) {
    const listing = [
      ...folder.files.map((f) => ({ name: f.name, type: 'file', size: f.size, mtime_ms: f.lastModified })),
      ...folder.dirs.map((d) => ({ name: d, type: 'dir', size: 0, mtime_ms: 0 })),
    ];
    const sync = new FileReaderSync();
    const reader = {
      read(i, offset, n) {
        try {
          return new Uint8Array(sync.readAsArrayBuffer(folder.files[i].slice(offset, offset + n)));
        } catch (e) {
          return new Uint8Array(0); // unreadable: the entry reader reports a short file
        }
      },
    };
    return engine.readCacheFolder(listing, reader, folder.name, options || {});
  },

  /**
   * The link for a scenario (engine.encodePermalink). A scenario holding a
   * string longer than a link's JSON may be (a text kept here, of
   * megabytes) is refused at once, in the engine's limits, without writing
   * its JSON or copying it into the engine: its JSON is longer still
   * (json_bytes_at_least: UTF-8 bytes are never fewer than UTF-16 code
   * units).
   */
  encodePermalink(doc) {
    const v = engine.version();
    let longest = 0;
    const walk = (x) => {
      if (typeof x === 'string') longest = Math.max(longest, x.length);
      else if (x !== null && typeof x === 'object') Object.values(x).forEach(walk);
    };
    walk(doc);
    if (v.permalink_max_json_bytes && longest > v.permalink_max_json_bytes) {
      return { fragment: '', length: 0, too_long: true, max_length: v.permalink_max_chars,
        json_bytes_at_least: longest, max_json_bytes: v.permalink_max_json_bytes };
    }
    return engine.encodePermalink(doc);
  },
  decodePermalink(fragment) { return engine.decodePermalink(fragment); },
  computeKey(doc) { return engine.computeKey(doc); },

  /** Several logs (File or text, with names) compared, with progress in bytes. */
  compareManyLogs(sources, id) {
    const total = sources.reduce((n, s) => n + (typeof s.source === 'string' ? s.source.length : s.source.size), 0);
    let done = 0;
    return engine.compareManyLogSources(sources, (n) => {
      done += n;
      postMessage({ id, progress: { done, total } });
    });
  },

  /** Two logs (File or text, with names) compared, with progress in bytes. */
  compareLogs(a, b, id) { return ops.compareManyLogs([a, b], id); },
};

// One message at a time, in order: a setup call (loading MLIR) finishes
// before the next job starts.
let queue = ready.catch((e) => { loadError = e; });
let loadError = null;
/**
 * Posts a result: its long strings in pieces first, then its long arrays
 * (a comparison's pairs) in slices, each a message the page copies in a task
 * of its own, then the rest.
 */
async function reply(id, result) {
  const { takeLongStrings, pieces, takeLongArrays, rowSlices } = await transfer;
  const long = [];
  const arrays = [];
  const r = takeLongStrings(takeLongArrays(result, arrays), long);
  const slices = [...rowSlices(arrays)].map(([n, slice]) => [n, takeLongStrings(slice, long)]);
  for (const piece of pieces(long)) postMessage({ id, piece });
  for (const rows of slices) postMessage({ id, rows });
  postMessage({ id, result: r });
}

async function handle({ id, op, args }) {
  try {
    if (!engine) throw loadError || new Error('the engine could not be loaded');
    if (!Object.prototype.hasOwnProperty.call(ops, op)) throw new Error(`unknown operation ${op}`);
    const { putLongStrings } = await transfer;
    const whole = await restore(putLongStrings(args, received.get(id) || []));
    received.delete(id);
    const result = await ops[op](...(op === 'compareLogs' || op === 'compareManyLogs' ? [...whole, id] : whole));
    await reply(id, await shrink(result));
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
