// @ts-check
// What the page knows besides the scenario: the engine (the first view's, or
// the one with live MLIR once loaded), the captured fixtures, the presets
// built on them, and the fixtures' module texts. Queries over them live here
// so that every pane asks the same way; nothing here knows JAX's rules (the
// engine does).
import { scenarioOf, moduleOf, getPath } from './state.mjs';
import { TextHandle, isTextValue, hasHandles, stubHandles } from './transfer.mjs';

/** Where a scenario document may hold a large text (a TextHandle). */
const TEXT_PATHS = [['module', 'text'], ['module', 'entry1_b64']];

/**
 * @typedef {Object} Preset
 * @property {string} id
 * @property {string} title
 * @property {boolean} derived a patch over a capture, not captured itself
 * @property {string} [note]
 * @property {string} [provenance]
 * @property {Object} [doc] its scenario document (derived presets)
 * @property {boolean} [live] needs the live MLIR canonicaliser
 * @property {boolean} [local] a file the user opened (no link can name it)
 * @property {boolean} [stand_in]
 */

/**
 * A captured fixture the first view leaves to presets-more.json (tools/bundle_presets.py):
 * what the pickers list of it until it is fetched.
 * @typedef {Object} MoreStub
 * @property {string} title
 * @property {Object} provenance
 * @property {{platform?: string}} backend
 * @property {{sym_name?: string, bytes: number, include_metadata: boolean}} module
 */

/** The line a captured preset's note shows of its provenance. */
function provenanceText(prov) {
  return `jax ${prov.jax || '?'}${prov.libtpu ? `, libtpu ${prov.libtpu}, TPU topology ${prov.topology} without a TPU` : ''}${prov.cuda_plugin ? `, jax-cuda12-plugin ${prov.cuda_plugin}, GPU topology ${prov.topology} (${prov.label})` : ''}, ${prov.date ? prov.date.slice(0, 10) : ''}`;
}

export class Catalog {
  /**
   * @param {import('./engine.mjs').CacheKeyEngine} engine this thread's engine (no MLIR)
   * @param {import('./worker-client.mjs').EngineWorker} worker the engine's worker (with MLIR once loaded)
   */
  constructor(engine, worker) {
    this.engine = engine;
    this.worker = worker;
    /** The worker's engine has the live MLIR canonicaliser. */
    this.mlir = false;
    /** @type {Object<string, any>} captured fixtures by id */
    this.fixtures = {};
    /** @type {Map<string, Preset>} */
    this.presets = new Map();
    /** Presets that need live MLIR (from presets.json): {id, title, note}; their documents come with mlir/modules.json. */
    this.live = new Map();
    /**
     * Captured fixtures fetched when picked (presets.json's "more"): their
     * stubs until loadMore() brings the documents.
     * @type {Map<string, MoreStub>}
     */
    this.more = new Map();
    /**
     * Fetches presets-more.json's document (set by the page).
     * @type {() => Promise<any>}
     */
    this.fetchMore = async () => { throw new Error('presets-more.json: no fetcher'); };
    /** @type {Promise<void>|null} */
    this.moreLoading = null;
    /** Module texts (generic form) of captured fixtures, and entry1_b64 → fixture id. */
    this.texts = new Map();
    this.textByBytes = new Map();
    /**
     * The engine's releases and profiles (engine.profiles()).
     * @type {import('./engine-types.mjs').Profiles}
     */
    this.profiles = { newest: '', default: '', aliases: {}, profiles: [] };
    /**
     * The values the pickers offer, with their labels (engine.scenarioChoices()).
     * @type {import('./engine-types.mjs').ScenarioChoices}
     */
    this.choices = { compression: [], platform_versions: [] };
    /** tpu_topologies.json, or null. */
    this.tpu = null;
    /** gpu_topologies.json, or null. */
    this.gpu = null;
    /** The scenario opened from a file or link without a known base. */
    this.openedDoc = null;
    this.baseCache = new Map();
    /**
     * Bases whose documents hold large texts kept in the worker
     * (TextHandles): this thread's engine has them with empty stand-ins;
     * scenarios over them are computed in the worker.
     * @type {Map<string, Object>}
     */
    this.heavy = new Map();
  }

  /**
   * How many entries a key has: the engine lists every entry of every
   * release, those a release does not hash included (profiles()).
   */
  get entryCount() {
    return Math.max(0, ...this.profiles.profiles.map((p) => p.entries.length));
  }

  /** The release an alias of the engine's stands for ("main": the newest), else `name` itself. */
  releaseOf(name) {
    return this.profiles.aliases[name] || name;
  }

  /**
   * The jaxlib pip installs with a release or alias (the engine's
   * profiles()[].jaxlibs), or undefined for a release it does not list.
   * @param {string} name
   * @returns {string|undefined}
   */
  jaxlibOf(name) {
    const release = this.releaseOf(name);
    const p = (this.profiles.profiles || []).find((x) => x.jaxlibs && Object.hasOwn(x.jaxlibs, release));
    return p ? p.jaxlibs[release] : undefined;
  }

  /** The engine's description of profile `id` (an id from a result), or null. */
  profileOf(id) {
    return (this.profiles.profiles || []).find((p) => p.id === id) || null;
  }

  /**
   * A preset resolved by the engine ({} when it cannot be). A base with
   * large texts is resolved here with their stand-ins, and its handles are
   * put back where its document has them.
   */
  resolvedOf(presetId) {
    if (!this.baseCache.has(presetId)) {
      const r = this.engine.resolveScenario({ schema: 1, base: presetId });
      const doc = this.heavy.get(presetId);
      if (doc && !r.error && r.module) {
        for (const p of TEXT_PATHS) {
          const h = getPath(doc, p);
          if (h instanceof TextHandle && r.module[p[1]] === '') r.module[p[1]] = h;
        }
      }
      this.baseCache.set(presetId, r.error ? {} : r);
    }
    return this.baseCache.get(presetId);
  }

  /** The worker's engine has the live MLIR canonicaliser now; resolved presets are recomputed. */
  mlirLoaded() {
    this.mlir = true;
    this.baseCache.clear();
  }

  /**
   * Whether a scenario is computed in the worker: its module is text (which
   * only the worker's engine canonicalises), its own or its preset's, or it
   * holds a large text the worker keeps (a TextHandle), itself or in its base.
   */
  needsWorker(presetId, patch) {
    const m = patch && patch.module;
    if (m && typeof m === 'object' && isTextValue(m.text)) return true;
    if (this.heavy.has(presetId) || hasHandles(patch)) return true;
    const base = this.resolvedOf(presetId).module;
    return !!(base && isTextValue(base.text));
  }

  /** What computing a scenario in the worker is called while it runs. */
  jobLabel(presetId, patch) {
    const m = patch && patch.module;
    const text = m && isTextValue(m.text) ? m.text : this.resolvedOf(presetId).module?.text;
    if (!isTextValue(text)) return 'Computing the keys';
    const n = text.length;
    const size = n < 1 << 20 ? `${Math.ceil(n / 1024)} KB` : `${(n / (1 << 20)).toFixed(1)} MB`;
    return `Canonicalising ${size} of module text`;
  }

  /** The captured fixture a preset's module comes from (following "base"). */
  rootFixture(presetId) {
    let id = presetId;
    for (let i = 0; i < 8 && id !== undefined; i++) {
      if (this.fixtures[id]) return id;
      const p = this.presets.get(id);
      id = p && p.doc ? p.doc.base : undefined;
    }
    return undefined;
  }

  /** The module of captured fixture `id`, as a scenario's module member, or undefined. */
  fixtureModule(id) {
    const fx = this.fixtures[id];
    return fx ? moduleOf(fx.module) : undefined;
  }

  /**
   * The MLIR text (generic form) of a resolved module: its own text, or the
   * bundled text of the fixture whose bytes it carries (hints: preferred
   * fixture ids, for fixtures whose canonical bytes are identical).
   */
  textFor(module, hints = []) {
    if (!module) return undefined;
    if (isTextValue(module.text)) return module.text;
    for (const id of hints) {
      if (id && this.texts.has(id) && this.fixtures[id] && this.fixtures[id].module.entry1_b64 === module.entry1_b64) return this.texts.get(id);
    }
    const id = this.textByBytes.get(module.entry1_b64);
    return id === undefined ? undefined : this.texts.get(id);
  }

  /** The fixture ids whose text a preset's module most likely is. */
  textHints(presetId) {
    return [presetId, this.rootFixture(presetId)];
  }

  /**
   * The module member of a scenario that feeds entry 1 from text (the engine
   * reads sym_name from the text: a patch giving text drops the base's).
   */
  static textModule(text, includeMetadata) {
    return { entry1_b64: null, text, include_metadata: !!includeMetadata };
  }

  /**
   * When the perturbed module is text, the baseline's module is computed
   * live from its text too (the preset's fixture text), so that the two
   * entry-1 bytes come from the same MLIR and compare like for like. null:
   * the baseline is the preset as it is.
   */
  liveBaselineModule(presetId, patch) {
    const m = patch.module;
    if (!this.mlir || !m || typeof m !== 'object' || !isTextValue(m.text)) return null;
    const base = this.resolvedOf(presetId).module;
    if (!base || isTextValue(base.text)) return null;
    const text = this.textFor(base, this.textHints(presetId));
    if (text === undefined) return null;
    return Catalog.textModule(text, base.include_metadata);
  }

  /** The baseline scenario document for a preset and the patch over it. */
  baselineOf(presetId, patch) {
    /** @type {{schema: number, base: string, module?: Object}} */
    const doc = { schema: 1, base: presetId };
    const m = this.liveBaselineModule(presetId, patch);
    if (m) doc.module = m;
    return doc;
  }

  /** The perturbed scenario document. */
  scenarioOf(presetId, patch) {
    return scenarioOf(presetId, patch);
  }

  /**
   * Registers scenario bases ({id: document}) on this thread's engine (with
   * stand-ins for large texts the worker keeps) and in the worker; the ids
   * registered.
   */
  register(docs) {
    const ok = {};
    for (const [id, doc] of Object.entries(docs)) if (!this.registerHere(id, doc).error) ok[id] = doc;
    this.worker.addSetup('register', [ok]);
    return ok;
  }

  /** Registers one base on this thread's engine; {ok} or {error}. */
  registerHere(id, doc) {
    const heavy = hasHandles(doc);
    const r = this.engine.registerFixture(id, heavy ? stubHandles(doc) : doc);
    if (!r.error) {
      if (heavy) this.heavy.set(id, doc);
      else this.heavy.delete(id);
      this.baseCache.delete(id);
    }
    return r;
  }

  /** Fills the catalog from presets.json on its engine; false when the default preset is missing. */
  load(presets, defaultPreset) {
    this.addFixtures(presets.fixtures || {});
    // Derived presets are fixtures too (fixtures/derived/: a patch over a
    // captured fixture), so the CLI resolves links that name them.
    for (const [id, doc] of Object.entries(presets.derived || {})) {
      if (!this.presets.has(doc.base) || !this.register({ [id]: doc })[id]) continue;
      const prov = doc.provenance || {};
      this.presets.set(id, { id, title: doc.title || id, derived: true, note: prov.note || '', doc, stand_in: !!prov.stand_in });
    }
    for (const [id, stub] of Object.entries(presets.live || {})) {
      if (stub && typeof stub === 'object' && !this.presets.has(id)) this.live.set(id, { id, title: String(stub.title || id), note: String(stub.note || '') });
    }
    for (const [id, stub] of Object.entries(presets.more || {})) {
      if (stub && typeof stub === 'object' && !this.presets.has(id)) {
        this.more.set(id, { title: String(stub.title || id), provenance: stub.provenance || {}, backend: stub.backend || {},
          module: { sym_name: stub.module?.sym_name, bytes: Number(stub.module?.bytes) || 0, include_metadata: !!stub.module?.include_metadata } });
      }
    }
    return this.presets.has(defaultPreset);
  }

  /** Registers captured fixtures ({id: document}) and offers each as a preset. */
  addFixtures(docs) {
    for (const [id, fx] of Object.entries(this.register(docs))) {
      this.fixtures[id] = fx;
      this.presets.set(id, { id, title: fx.title || id, derived: false, provenance: provenanceText(fx.provenance || {}) });
    }
  }

  /** A captured fixture's document, or its stub while it waits in presets-more.json; undefined for neither. */
  fixtureInfo(id) {
    return this.fixtures[id] || this.more.get(id);
  }

  /** How many captured fixtures the page offers, those still in presets-more.json included. */
  get capturedCount() {
    return Object.keys(this.fixtures).length + [...this.more.keys()].filter((id) => !this.fixtures[id]).length;
  }

  /** Whether `id` is a captured fixture not fetched yet (presets-more.json). */
  isMore(id) {
    return this.more.has(id) && !this.fixtures[id];
  }

  /**
   * Fetches presets-more.json once and registers its fixtures (then they
   * are presets like the others). Rejects with the fetch's error; a later
   * call tries again.
   * @returns {Promise<void>}
   */
  loadMore() {
    if (!this.moreLoading) {
      this.moreLoading = this.fetchMore().then((doc) => {
        const wanted = Object.fromEntries(Object.entries((doc && doc.fixtures) || {}).filter(([id]) => this.more.has(id)));
        this.addFixtures(wanted);
      }).catch((e) => {
        this.moreLoading = null;
        throw e;
      });
    }
    return this.moreLoading;
  }

  /** The id of a fixture in presets-more.json, when an engine error names it as unknown. */
  unknownMoreBase(error) {
    const id = error && error.code === 'unknown_fixture' ? error.subject : null;
    return id && this.isMore(id) ? id : null;
  }

  /** Adds what mlir/modules.json brings: the presets that need live MLIR and the fixtures' texts. */
  loadModules(modules) {
    const live = this.register(Object.fromEntries(Object.entries((modules && modules.live) || {}).filter(([id]) => this.live.has(id))));
    for (const [id, doc] of Object.entries(live)) {
      const prov = doc.provenance || {};
      this.presets.set(id, { id, title: doc.title || id, derived: true, live: true, note: prov.note || '', doc, stand_in: !!prov.stand_in });
    }
    for (const [id, text] of Object.entries((modules && modules.texts) || {})) {
      if (typeof text !== 'string' || !this.fixtures[id]) continue;
      this.texts.set(id, text);
      const b64 = this.fixtures[id].module.entry1_b64;
      if (!this.textByBytes.has(b64)) this.textByBytes.set(b64, id);
    }
  }

  /** A complete scenario without a known base becomes the preset "opened_file"; an {error} or {id}. */
  openDocument(doc, from) {
    const id = 'opened_file';
    const reg = this.registerHere(id, doc);
    if (reg.error) return reg;
    this.worker.addSetup('register', [{ [id]: doc }]);
    this.openedDoc = doc;
    this.presets.set(id, { id, title: 'the scenario you opened', derived: true, local: true, note: 'a complete scenario from a ' + from });
    return { id };
  }
}
