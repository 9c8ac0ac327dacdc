// @ts-check
// The live MLIR canonicaliser: the engine with MLIR (mlir/, about 0.7 MB
// gzipped), loaded into the engine's worker (worker.js; never on this
// thread, so that canonicalising a large module never freezes the page),
// and the fixtures' module texts (mlir/modules.json), loaded together only
// when the user opens the module text editor, picks a preset or case that
// needs them, or opens a link or file whose module is text. Never on first
// view. Its status is store.state.mlir ('loading', 'ready', 'failed'), and
// <html data-mlir> mirrors it.
//
// Where the module is still being built (scripts/run serves the page first
// and builds MLIR for wasm in the background), build-status.json says so:
// {schema: 1, state: 'building'|'ready'|'failed', step, done, total,
// elapsed_s, eta_s, log} (written by scripts/build-web and
// tools/build_progress.py). The page reads it once after the first view and,
// while it says 'building', again with backoff (2 s, then 1.5 times longer,
// at most 20 s); store.state.mlirBuild holds the last one read. A load asked
// for meanwhile waits for 'ready'. A site without build-status.json (an older
// bundle) has its module built.
import { $, setText } from './dom.mjs';
import { setStatus } from './status.mjs';

/** Fetches JSON, failing with the URL and the HTTP status. */
export async function fetchJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.json();
}

/** The line about the engine under "About this page". */
export function renderAbout(catalog, loadedWord, v = catalog.engine.version()) {
  setText($('#about-engine'), `Engine: ${v.engine}; scenario schema ${v.schema}; profiles ${v.profiles.join(', ')}; live MLIR: ${v.mlir ? loadedWord : 'no'}. ${catalog.capturedCount} captured presets.`);
}

/**
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {import('./store.mjs').Store} store
 */
export function createMlirLoader(catalog, store) {
  /** @type {?Promise<void>} */
  let loading = null;
  /** @type {?Promise<void>} resolved when build-status.json says 'ready' */
  let built = null;
  /** @type {?(() => void)} */
  let markBuilt = null;
  /** @type {?((e: Error) => void)} */
  let markFailed = null;

  /**
   * Reads build-status.json until it says the module is built (or failed),
   * with backoff. Never blocks the first view: called after it.
   */
  function watchBuild() {
    if (built) return built;
    built = new Promise((resolve, reject) => { markBuilt = resolve; markFailed = reject; });
    built.catch(() => {});
    let delay = POLL_FIRST_MS;
    const poll = async () => {
      /** @type {?MlirBuild} */
      let doc = null;
      try {
        const r = await fetch('build-status.json', { cache: 'no-store' });
        // No status file: a site built whole (scripts/build-web, build-site
        // before status files existed); its module is there.
        doc = r.ok ? await r.json() : { schema: 1, state: 'ready' };
      } catch {
        doc = null; // unreadable (mid-write, server restarting): try again
      }
      if (doc && doc.state === 'ready') {
        store.dispatch({ type: 'mlirBuild', build: doc });
        document.documentElement.setAttribute('data-mlir-build', 'ready');
        markBuilt && markBuilt();
        return;
      }
      if (doc && doc.state === 'failed') {
        store.dispatch({ type: 'mlirBuild', build: doc });
        document.documentElement.setAttribute('data-mlir-build', 'failed');
        markFailed && markFailed(new Error(mlirBuildFailedText(doc)));
        return;
      }
      if (doc) {
        store.dispatch({ type: 'mlirBuild', build: doc });
        document.documentElement.setAttribute('data-mlir-build', 'building');
      }
      setTimeout(poll, delay);
      delay = Math.min(POLL_MAX_MS, Math.round(delay * 1.5));
    };
    poll();
    return built;
  }

  async function loadOnce() {
    await watchBuild();
    document.documentElement.setAttribute('data-mlir', 'loading');
    store.dispatch({ type: 'mlir', status: 'loading' });
    const [version, modules] = await Promise.all([
      catalog.worker.callSetup('loadMlir', [], { label: 'Loading the live MLIR canonicaliser' }),
      fetchJson('mlir/modules.json'),
    ]);
    if (!version || version.error || !version.mlir) {
      throw new Error(version && version.error ? version.error.message : 'the module reports no MLIR');
    }
    catalog.loadModules(modules);
    catalog.mlirLoaded();
    document.documentElement.setAttribute('data-mlir', 'ready');
    store.dispatch({ type: 'mlir', status: 'ready' });
    renderAbout(catalog, 'loaded', version);
  }

  /** Loads the MLIR engine once; a failed load may be tried again. */
  function load() {
    if (!loading) {
      loading = loadOnce().catch((e) => {
        loading = null;
        if (e && e.cancelled) e = new Error('cancelled');
        document.documentElement.setAttribute('data-mlir', 'failed');
        store.dispatch({ type: 'mlir', status: 'failed', error: e.message });
        throw e;
      });
    }
    return loading;
  }

  /**
   * Loads the MLIR engine for a link or a file that needs it, saying so in
   * the status line. Returns true, or the message to show.
   * @param {string} what 'link' or 'file'
   */
  async function loadFor(what) {
    const b = store.state.mlirBuild;
    setStatus(b && b.state === 'building'
      ? `This ${what}\u2019s module is MLIR text, and the live MLIR canonicaliser is still being built: ${mlirBuildProgressText(b)} It opens when the module is there.`
      : `Loading the live MLIR canonicaliser: this ${what}\u2019s module is MLIR text.`);
    try {
      await load();
      setStatus('');
      return true;
    } catch (e) {
      setStatus('');
      return `This ${what}\u2019s module is MLIR text, which needs the live MLIR canonicaliser, and it could not be loaded (${e.message}).`;
    }
  }

  return { load, loadFor, watchBuild };
}

/** @typedef {ReturnType<typeof createMlirLoader>} MlirLoader */

const POLL_FIRST_MS = 2000;
const POLL_MAX_MS = 20000;

/**
 * build-status.json (scripts/build-web, tools/build_progress.py).
 * @typedef {{schema: number, state: 'building'|'ready'|'failed', step?: string,
 *   done?: ?number, total?: ?number, elapsed_s?: number, eta_s?: ?number, log?: string}} MlirBuild
 */

/** What each step code of build-status.json means, in words. */
const BUILD_STEP_WORDS = {
  queued: 'waiting to start',
  sources: 'fetching and unpacking the LLVM 19 sources',
  configure: 'configuring LLVM and MLIR for WebAssembly',
  build: 'compiling MLIR\u2019s libraries',
  module: 'linking the engine with MLIR',
};

/** Minutes left, in words, from seconds (null: not known yet). */
function timeLeftText(s) {
  if (s === null || s === undefined || !Number.isFinite(s)) return 'the time left is not known yet';
  if (s < 60) return 'less than a minute left';
  const m = Math.round(s / 60);
  return `about ${m} minute${m === 1 ? '' : 's'} left`;
}

/**
 * The progress of a build in progress, in words: its step, ninja's count
 * when there is one, and the time left.
 * @param {MlirBuild} b
 */
export function mlirBuildProgressText(b) {
  const step = BUILD_STEP_WORDS[b.step] || 'building';
  const count = Number.isFinite(b.done) && Number.isFinite(b.total) ? `, ${b.done} of ${b.total} steps` : '';
  return `${step}${count}; ${timeLeftText(b.eta_s)}.`;
}

/**
 * The module panel's sentence while the module is being built.
 * @param {MlirBuild} b
 */
export function mlirBuildingText(b) {
  return `The live MLIR canonicaliser is being built on this machine (scripts/run serves the page first and builds MLIR for WebAssembly in the background): ${mlirBuildProgressText(b)} Everything else on the page works now; \u201cOpen module text\u201d becomes available when the module is there.${b.log ? ` Log: ${b.log}.` : ''}`;
}

/** @param {MlirBuild} b */
function mlirBuildFailedText(b) {
  return `its background build failed${b.log ? `; see ${b.log}` : ''}`;
}
