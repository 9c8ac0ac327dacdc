// @ts-check
// The live MLIR canonicaliser: the engine with MLIR (mlir/, about 0.7 MB
// gzipped), loaded into the engine's worker (worker.js; never on this
// thread, so that canonicalising a large module never freezes the page),
// and the fixtures' module texts (mlir/modules.json), loaded together only
// when the user opens the module text editor, picks a preset or case that
// needs them, or opens a link or file whose module is text. Never on first
// view. Its status is store.state.mlir ('loading', 'ready', 'failed'), and
// <html data-mlir> mirrors it.
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
  setText($('#about-engine'), `Engine: ${v.engine}; scenario schema ${v.schema}; profiles ${v.profiles.join(', ')}; live MLIR: ${v.mlir ? loadedWord : 'no'}. ${Object.keys(catalog.fixtures).length} captured presets.`);
}

/**
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {import('./store.mjs').Store} store
 */
export function createMlirLoader(catalog, store) {
  /** @type {?Promise<void>} */
  let loading = null;

  async function loadOnce() {
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
    setStatus(`Loading the live MLIR canonicaliser: this ${what}\u2019s module is MLIR text.`);
    try {
      await load();
      setStatus('');
      return true;
    } catch (e) {
      setStatus('');
      return `This ${what}\u2019s module is MLIR text, which needs the live MLIR canonicaliser, and it could not be loaded (${e.message}).`;
    }
  }

  return { load, loadFor };
}

/** @typedef {ReturnType<typeof createMlirLoader>} MlirLoader */
