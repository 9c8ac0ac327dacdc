// The JavaScript API over the wasm binding (wasm/api.cpp), in the manner of
// sql.js: the C++ engine computes, the binding converts, this file gives
// JavaScript callers plain objects. Every method returns either a result
// object or {error: {path, message}}; none throws on bad input.
//
// Browser:  const engine = await CacheKeyEngine.load({ baseUrl: './' });
// Node:     const engine = await CacheKeyEngine.load({ wasmBinary: fs.readFileSync(...) , factory });

const decode = (text) => {
  try {
    return JSON.parse(text);
  } catch (e) {
    return { error: { path: 'engine', message: 'engine returned malformed JSON: ' + e.message } };
  }
};

const asText = (scenario) => (typeof scenario === 'string' ? scenario : JSON.stringify(scenario));

export class CacheKeyEngine {
  /** @param {object} module the instantiated Embind module */
  constructor(module) {
    this.module = module;
  }

  /**
   * Instantiates the wasm module.
   * @param {{factory?: Function, baseUrl?: string, wasmBinary?: Uint8Array}} options
   *   factory: the Emscripten factory (createCacheKeyEngine); in a browser it
   *   is imported from `${baseUrl}cachekey_engine.js` when omitted.
   *   wasmBinary: the .wasm bytes (required under Node 20, whose fetch cannot
   *   read file paths).
   */
  static async load({ factory, baseUrl = './', wasmBinary } = {}) {
    // In a page, cachekey_engine.js is loaded by a <script> tag first and
    // defines the global factory.
    factory = factory || globalThis.createCacheKeyEngine;
    if (typeof factory !== 'function') throw new Error('cachekey_engine.js is not loaded');
    const opts = { locateFile: (p) => baseUrl + p };
    if (wasmBinary) opts.wasmBinary = wasmBinary;
    return new CacheKeyEngine(await factory(opts));
  }

  /** {engine, schema, profiles, mlir, fixtures} */
  version() {
    return decode(this.module.version());
  }

  /** Makes a fixture (object or JSON text) available as a scenario "base". */
  registerFixture(id, fixture) {
    return decode(this.module.registerFixture(String(id), asText(fixture)));
  }

  /** The key, eight entries, flag steps and trace for a scenario. */
  computeKey(scenario) {
    return decode(this.module.computeKey(asText(scenario)));
  }

  /**
   * computeKey with entry 1's bytes as a Uint8Array (large modules): the
   * scenario's module.entry1_b64 / module.text are replaced by `bytes`.
   */
  computeKeyWithModuleBytes(scenario, bytes) {
    if (!(bytes instanceof Uint8Array)) {
      return { error: { path: 'module', message: 'entry-1 bytes must be a Uint8Array' } };
    }
    return decode(this.module.computeKeyWithModuleBytes(asText(scenario), bytes));
  }

  /** The scenario with its "base" chain merged in. */
  resolveScenario(scenario) {
    return decode(this.module.resolveScenario(asText(scenario)));
  }

  /** {comparison: {cause, consequences, details, sentence, …}, a, b} */
  compareScenarios(a, b) {
    return decode(this.module.compareScenarios(asText(a), asText(b)));
  }

  /** Compares two pasted JAX DEBUG logs entry by entry. */
  compareLogs(logA, logB) {
    return decode(this.module.compareLogs(String(logA), String(logB)));
  }

  /** {fragment, length, too_long, max_length} */
  encodePermalink(scenario) {
    return decode(this.module.encodePermalink(asText(scenario)));
  }

  /** {scenario} or {error}: a fragment is treated as hostile input. */
  decodePermalink(fragment) {
    return decode(this.module.decodePermalink(String(fragment)));
  }
}
