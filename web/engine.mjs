// @ts-check
// The JavaScript API over the wasm binding (wasm/KeyApi.cpp, WorkerApi.cpp, MlirApi.cpp), in the manner of
// sql.js: the C++ engine computes, the binding converts, this file gives
// JavaScript callers plain objects. Every method returns either a result
// object or {error: {code, path, message, source?, subject?}} (the engine's
// Error, see engine/include/cachekey/Support.h; `code` is a stable name such
// as "unknown_fixture"); none throws on bad input. Callers branch on `code`
// and never on the message.
//
// Browser:  const engine = await CacheKeyEngine.load({ baseUrl: './' });
// Node:     const engine = await CacheKeyEngine.load({ wasmBinary: fs.readFileSync(...) , factory });
//
// The results' shapes are declared in engine-types.mjs.

/**
 * An error in the engine's shape (errorToJson, Support.h): the one way this
 * page makes an error of its own. `code` is one of the engine's ErrorCode
 * names ("internal", "io", "too_large", "invalid", "type", …).
 * @param {string} code
 * @param {string} message
 * @param {{path?: string, source?: string, subject?: string}} [where]
 * @returns {{error: {code: string, path: string, message: string, source?: string, subject?: string}}}
 */
export function engineError(code, message, where = {}) {
  const { path = '', source, subject } = where;
  /** @type {{code: string, path: string, message: string, source?: string, subject?: string}} */
  const error = { code, path, message };
  if (source) error.source = source;
  if (subject) error.subject = subject;
  return { error };
}

const decode = (text) => {
  try {
    return JSON.parse(text);
  } catch (e) {
    return engineError('internal', 'engine returned malformed JSON: ' + e.message, { source: 'engine' });
  }
};

/**
 * An error as one line: "<source>: <path>: <message>", leaving out what is
 * empty (the CLI prints the same).
 * @param {{path?: string, message: string, source?: string}} error
 * @returns {string}
 */
export function errorText(error) {
  const where = [error.source, error.path].filter((x) => x).join(': ');
  return where ? `${where}: ${error.message}` : String(error.message);
}

const asText = (scenario) => (typeof scenario === 'string' ? scenario : JSON.stringify(scenario));

export class CacheKeyEngine {
  /**
   * @param {object} module the instantiated Embind module
   * @param {() => Promise<object>} [instantiate] makes a fresh instance, used
   *   to recover after a trap
   */
  constructor(module, instantiate) {
    this.module = module;
    this.instantiate = instantiate;
    this.fixtures = new Map(); // re-registered on a fresh instance
    this.restarting = null;
  }

  /**
   * Instantiates the wasm module.
   * @param {{factory?: Function, baseUrl?: string, wasmBinary?: Uint8Array}} options
   *   factory: the Emscripten factory (createCacheKeyEngine); defaults to the
   *   global one that cachekey_engine_key.js (or cachekey_engine.js) defines.
   *   wasmBinary: the .wasm bytes (required under Node 20, whose fetch cannot
   *   read file paths).
   */
  static async load({ factory, baseUrl = './', wasmBinary } = {}) {
    // In a page, cachekey_engine_key.js (the first view's key module) is
    // loaded by a <script> tag first and defines the global factory; in a
    // worker or in Node, cachekey_engine.js (the whole API) does.
    factory = factory || globalThis.createCacheKeyEngineKey || globalThis.createCacheKeyEngine;
    if (typeof factory !== 'function') throw new Error('cachekey_engine_key.js is not loaded');
    const opts = () => {
      const o = { locateFile: (p) => baseUrl + p };
      if (wasmBinary) o.wasmBinary = wasmBinary;
      return o;
    };
    const instantiate = () => factory(opts());
    return new CacheKeyEngine(await instantiate(), instantiate);
  }

  /**
   * Calls the binding. The engine reports bad input as {error}; a wasm trap
   * (which only a bug in the engine or in MLIR could cause) is caught here:
   * the broken instance is discarded and a fresh one is made in the
   * background, so the caller gets an error and the next call works.
   */
  call(name, ...args) {
    if (this.restarting) {
      return engineError('internal', 'the engine is restarting after an internal error; try again in a moment', { source: 'engine' });
    }
    try {
      return decode(this.module[name](...args));
    } catch (e) {
      this.restart();
      return engineError('internal', `the engine failed on this input (${e && e.message ? e.message : e}); it is being restarted`, { source: 'engine' });
    }
  }

  restart() {
    if (!this.instantiate || this.restarting) return this.restarting;
    this.restarting = this.instantiate().then((m) => {
      this.module = m;
      for (const [id, text] of this.fixtures) m.registerFixture(id, text);
    }).finally(() => { this.restarting = null; });
    return this.restarting;
  }

  /**
   * {engine, schema, profiles, mlir, permalink_max_chars, permalink_max_json_bytes, fresh_digest, fixtures}
   * @returns {import('./engine-types.mjs').Result<import('./engine-types.mjs').Version>}
   */
  version() {
    return this.call('version');
  }

  /**
   * Every reproduced jax release, grouped by profile:
   * {newest, aliases: {main}, profiles: [{id, releases, entries, entry3,
   * entry6, fallback, callbacks, mosaic, compression, excluded_flags,
   * zeroed_fields: [{name, number, kind}], log_formats, changes, verified}]}.
   * @returns {import('./engine-types.mjs').Result<import('./engine-types.mjs').Profiles>}
   */
  profiles() {
    return this.call('profiles');
  }

  /** The DebugOptions fields the engine knows: [{name, number, kind}]. */
  debugOptionFields() {
    return this.call('debugOptionFields');
  }

  /** One profile (as in profiles()) by id, release or "main", or {error}. */
  describeProfile(name) {
    return this.call('describeProfile', String(name));
  }

  /** {from, to, differences: [sentence]} between two profiles, or {error}. */
  profileDifferences(from, to) {
    return this.call('profileDifferences', String(from), String(to));
  }

  /** Makes a fixture (object or JSON text) available as a scenario "base". */
  registerFixture(id, fixture) {
    const text = asText(fixture);
    const r = this.call('registerFixture', String(id), text);
    if (!r.error) this.fixtures.set(String(id), text);
    return r;
  }

  /**
   * The key, its entries, flag steps and trace for a scenario.
   * @returns {import('./engine-types.mjs').Result<import('./engine-types.mjs').KeyResult>}
   */
  computeKey(scenario) {
    return this.call('computeKey', asText(scenario));
  }

  /**
   * computeKey with entry 1's bytes as a Uint8Array (large modules): the
   * scenario's module.entry1_b64 / module.text are replaced by `bytes`.
   */
  computeKeyWithModuleBytes(scenario, bytes) {
    if (!(bytes instanceof Uint8Array)) {
      return engineError('type', 'entry-1 bytes must be a Uint8Array', { path: '$.module' });
    }
    return this.call('computeKeyWithModuleBytes', asText(scenario), bytes);
  }

  /**
   * The scenario with its "base" chain merged in.
   * @returns {import('./engine-types.mjs').Result<import('./engine-types.mjs').ResolvedScenario>}
   */
  resolveScenario(scenario) {
    return this.call('resolveScenario', asText(scenario));
  }

  /**
   * {comparison: {cause, consequences, findings, sentence, …}, a, b}
   * @returns {import('./engine-types.mjs').Result<import('./engine-types.mjs').CompareResult>}
   */
  compareScenarios(a, b) {
    return this.call('compareScenarios', asText(a), asText(b));
  }

  /**
   * Compares two runs' JAX logs held as text: programs paired by name, the
   * root cause of the first pair whose keys differ, every program's outcome
   * and a summary line (LogCompare.h, logComparisonToJson).
   * @returns {import('./engine-types.mjs').Result<import('./engine-types.mjs').LogComparison>}
   */
  compareLogs(logA, logB, nameA = 'log A', nameB = 'log B') {
    return this.call('compareLogs', String(logA), String(logB), String(nameA), String(nameB));
  }

  /**
   * Like compareLogs, for logs of any size: each source is a Blob (a dropped
   * File) or a string, with a name. Files are streamed into the engine's log
   * reader in chunks as they are read; neither side is held whole in memory.
   * Resolves to the same result object (or {error}).
   * @param {{source: Blob|string, name: string}} a
   * @param {{source: Blob|string, name: string}} b
   * @param {(n: number) => void} [onProgress] called after each chunk with
   *   its size (bytes of a Blob, characters of a string)
   */
  async compareLogSources(a, b, onProgress) {
    return this.compareManyLogSources([a, b], onProgress);
  }

  /**
   * Two or more logs ({source, name} each, in run order) compared
   * (compareManyLogReaders: for two, the pair's comparison; for more, which
   * runs share each program's key, the odd ones out and which entry differs).
   * @returns {Promise<import('./engine-types.mjs').Result<import('./engine-types.mjs').LogComparison>
   *   | import('./engine-types.mjs').Result<import('./engine-types.mjs').ManyLogComparison>>}
   */
  async compareManyLogSources(sources, onProgress) {
    const ids = [];
    for (const side of sources) {
      const r = this.call('openLogReader', String(side.name));
      if (r.error) return r;
      ids.push(r.reader);
    }
    for (const [i, side] of sources.entries()) {
      const e = await this.feedLog(ids[i], side.source, onProgress);
      if (e) return e;
    }
    return this.call('compareManyLogReaders', JSON.stringify(ids));
  }

  /**
   * Feeds one source to an open log reader, in chunks of 1 MiB (a string)
   * or as the File's stream decodes; an {error} or undefined.
   * @param {number} id the reader (openLogReader)
   * @param {string | Blob} source the log's text, or a File
   * @param {(n: number) => void} [onProgress] called after each chunk with
   *   its length (characters of a string, bytes of a File)
   */
  async feedLog(id, source, onProgress = () => {}) {
    const feed = (text) => {
      const r = this.call('feedLogReader', id, text);
      return r.error ? r : undefined;
    };
    if (typeof source === 'string') {
      for (let i = 0; i < source.length; i += 1 << 20) {
        const chunk = source.slice(i, i + (1 << 20));
        const e = feed(chunk);
        if (e) return e;
        onProgress(chunk.length);
      }
      return undefined;
    }
    // UTF-8 decoded as a stream: a character split between chunks is kept
    // for the next one.
    const reader = source.stream().getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      const e = feed(done ? decoder.decode() : decoder.decode(value, { stream: true }));
      if (e || done) {
        if (e) reader.cancel();
        return e;
      }
      onProgress(value.length);
    }
  }

  /**
   * {fragment, length, too_long, max_length, json_bytes, max_json_bytes}:
   * too_long at once (length 0) when the scenario's JSON is longer than
   * max_json_bytes, which no link can carry (wasm/WorkerApi.cpp).
   */
  encodePermalink(scenario) {
    return this.call('encodePermalink', asText(scenario));
  }

  /** {scenario} or {error}: a fragment is treated as hostile input. */
  decodePermalink(fragment) {
    return this.call('decodePermalink', String(fragment));
  }

  /**
   * One opened file read as `cachekey explain FILE --json` reads it: a
   * captured file with its sidecars (from `files`) through the engine's
   * capture reader, any other file as a scenario.
   * @param {string} name the file's name, a key of `files`
   * @param {Object<string, Uint8Array>} files every file chosen with it, by name
   * @returns {{scenario: Object, result: Object, capture_check?: Object, captured?: Object} | {error: Object}}
   */
  openScenarioFile(name, files) {
    return this.call('openScenarioFile', String(name), files);
  }

  /**
   * Two capture folders compared as `cachekey diff DIR_A DIR_B` compares
   * them; each folder is {name: Uint8Array} with its index.json.
   * @returns {import('./engine-types.mjs').Result<import('./engine-types.mjs').CaptureComparison>} captureComparisonToJson plus `text`, or {error}
   */
  compareCaptureFolders(filesA, filesB, nameA = 'A', nameB = 'B') {
    return this.call('compareCaptureFolders', filesA, filesB, String(nameA), String(nameB));
  }

  /**
   * A JAX cache folder read as `cachekey cache-dir DIR` reads it.
   * @param {{name: string, type: string, size: number, mtime_ms: number}[]} listing the files directly in it
   * @param {{read: (i: number, offset: number, n: number) => Uint8Array}} reader bytes of listing[i]
   * @param {string} name the folder's name
   * @param {{max_size?: number, release?: string}} [options]
   * @returns {import('./engine-types.mjs').Result<import('./engine-types.mjs').CacheReport>} cacheReportToJson plus `text`, or {error}
   */
  readCacheFolder(listing, reader, name, options = {}) {
    return this.call('readCacheFolder', listing, reader, String(name), options);
  }

  /**
   * The releases a cache folder can be read as, one per eviction rule.
   * @returns {{release: string, rule: string, text: string}[]}
   */
  cacheReleases() {
    return this.call('cacheReleases');
  }

  /**
   * The values the page's pickers offer for the compression (entry 7) and
   * the platform_version (entry 3), with their labels
   * (ScenarioChoices.h scenarioChoicesToJson).
   * @returns {import('./engine-types.mjs').Result<import('./engine-types.mjs').ScenarioChoices>}
   */
  scenarioChoices() {
    return this.call('scenarioChoices');
  }
}
