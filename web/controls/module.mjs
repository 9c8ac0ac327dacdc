// @ts-check
// Control for entry 1, the module: bytes of a captured fixture, the
// include_metadata switch, and the module text editor, which loads the live
// MLIR canonicaliser (canonicaliser.mjs) and feeds entry 1 from text, typed
// or opened from a file. The text is canonicalised in the engine's worker;
// <html data-module-pending> is set from the edit until its keys are shown.
// A text longer than LARGE (transfer.mjs) stays in the engine's worker: the
// page holds a TextHandle, the box shows a read-only preview of its start,
// labelled as such, and a changed file replaces it whole.
import { el, setText, setAttr } from '../dom.mjs';
import { deepEqual, getPath, moduleOf } from '../state.mjs';
import { Catalog } from '../catalog.mjs';
import { TextHandle, isTextValue } from '../transfer.mjs';
import { mlirBuildingText } from '../canonicaliser.mjs';

// The fixtures captured with and without locations (include_metadata on and
// off): lines_a_meta / lines_a_nometa, lines_b_meta / lines_b_nometa.
const LINES = /^lines_([ab])_(meta|nometa)$/;

/** Texts longer than this (in characters) are not put into the text box: a browser's text box does not hold tens of megabytes well. */
const MAX_SHOWN = 4 << 20;

/** Decoded length of base64 text: padding '=' is not data (F10). */
function base64Length(b64) {
  const t = String(b64 || '');
  return Math.floor(t.length * 3 / 4) - (t.endsWith('==') ? 2 : t.endsWith('=') ? 1 : 0);
}

/** An option of the module-source picker. */
const sourceOption = (id, symName, bytes, withLocations) => el('option', { value: id },
  `${id} — ${symName}, ${bytes} bytes${withLocations ? ', with locations' : ''}`);

const sizeText = (n) => (n < 1 << 20 ? `${Math.ceil(n / 1024)} KB` : `${(n / (1 << 20)).toFixed(1)} MB`);

/** @param {import('./index.mjs').Controls} controls */
export function bindModule({ store, catalog, loader, change, resolved, baseline }) {
  /** @param {string} id */
  const q = (id) => document.getElementById(id);
  const ui = {
    source: /** @type {HTMLSelectElement} */ (q('module-source')), includeMetadata: /** @type {HTMLInputElement} */ (q('include-metadata')), includeMetadataWhy: q('include-metadata-why'),
    text: /** @type {HTMLTextAreaElement} */ (q('module-text')), textBox: q('module-text-box'), why: q('module-text-why'), load: /** @type {HTMLButtonElement} */ (q('load-mlir')),
    error: q('module-text-error'), preset: /** @type {HTMLSelectElement} */ (q('preset')), file: /** @type {HTMLInputElement} */ (q('module-file')), fileName: q('module-file-name'),
    preview: q('module-text-preview'), sourceNote: q('module-source-note'),
  };
  const root = document.documentElement;
  let typing = false; // an edit waits for its debounce
  const hints = () => catalog.textHints(store.state.presetId);
  const isText = (r) => !!(r && r.module && isTextValue(r.module.text));

  /** The captured fixture whose bytes the module is, '__text' or '__custom'. */
  function sourceId(r) {
    const b64 = r.module && r.module.entry1_b64;
    if (!b64) return isText(r) ? '__text' : '__custom';
    for (const [id, fx] of Object.entries(catalog.fixtures)) if (fx.module.entry1_b64 === b64) return id;
    return '__custom';
  }

  function setFrom(id, origin) {
    if (!catalog.fixtures[id]) return;
    const base = baseline();
    const value = catalog.fixtureModule(id);
    change(['module'], deepEqual(value, moduleOf(base.module)) ? base.module : value, origin);
    sync(resolved());
  }

  /** A text edit (or the include_metadata switch in text mode): a string or a TextHandle. */
  function setModuleText(text, origin) {
    if (typeof text === 'string' && text.trim() === '') change(['module'], baseline().module, origin);
    else change(['module'], Catalog.textModule(text, ui.includeMetadata.checked), origin);
  }

  function sync(r) {
    const id = sourceId(r);
    let opt = ui.source.querySelector('option[value="__custom"]');
    if (id === '__custom' || id === '__text') {
      if (!opt) ui.source.append(opt = el('option', { value: '__custom' }));
      setText(opt, id === '__text' ? 'module text (canonicalised live)' : 'other bytes (from a link or file)');
    } else if (opt) opt.remove();
    ui.source.value = id === '__text' ? '__custom' : id;
    if (id !== '__text') setText(ui.fileName, '');
    const m = LINES.exec(id);
    const text = isText(r);
    const known = catalog.mlir && catalog.textFor(r.module, hints()) !== undefined;
    ui.includeMetadata.checked = !!(r.module && r.module.include_metadata);
    ui.includeMetadata.disabled = !(text || m || known);
    setText(ui.includeMetadataWhy, text
      ? 'Canonicalises the text with its locations kept (jax_compilation_cache_include_metadata_in_key): then a location edit moves entry 1 too.'
      : m ? 'Switches between the bytes jaxlib hashed with and without locations (captured both ways).'
        : known ? 'Turns the module into text canonicalised live, with its locations kept.'
          : catalog.mlir ? 'No text is bundled for these bytes: paste the module\u2019s text (generic form) to use it.'
            : 'Available for the lines_a / lines_b modules, which were captured both ways. For other modules only one set of bytes was captured; open the module text to canonicalise it live.');
    if (catalog.mlir && (document.activeElement !== ui.text || ui.text.readOnly)) showText(catalog.textFor(r.module, hints()));
  }

  /**
   * Shows the module's text in the box: the text itself, or for a text kept
   * in the worker (a TextHandle) a read-only preview of its start, said to
   * be one.
   * @param {string|TextHandle|undefined} t
   */
  function showText(t) {
    const handle = t instanceof TextHandle;
    const shown = handle ? t.preview : t !== undefined && t.length <= MAX_SHOWN ? t : '';
    if (ui.text.value !== shown) ui.text.value = shown;
    ui.text.readOnly = handle;
    ui.preview.hidden = !handle;
    setText(ui.preview, handle ? `Preview, read-only: the first ${sizeText(t.preview.length)} of ${sizeText(t.length)} of module text. A text this large stays in the engine’s worker and is not edited here; open a changed file to replace it whole.` : '');
    ui.text.placeholder = t === undefined ? 'No text is bundled for this module. Paste MLIR in generic form.'
      : handle || shown === t ? '' : `The module text (${sizeText(t.length)}) is too large to show here. Open a changed file to edit it, or type here to replace it.`;
  }

  /** The live MLIR module is loaded: the editor opens. */
  function mlirReady() {
    ui.text.disabled = false;
    ui.textBox.hidden = false;
    ui.load.hidden = true;
    ui.load.disabled = false;
    setText(ui.why, 'Live MLIR loaded: the text is canonicalised in your browser (strip-debuginfo, and on main the Pallas kernel strip, then bytecode), for the perturbed module and, from the preset\u2019s own text, for the baseline, so the two compare like for like. Generic form only: this build registers no StableHLO dialect, so jaxlib\u2019s pretty form does not parse. Its MLIR release is not jaxlib\u2019s, so these keys are not the ones real JAX computes.');
    const group = ui.preset.querySelector('optgroup[data-live]');
    if (group) setAttr(group, 'label', 'Needs live MLIR (loaded)');
  }

  /** Loading the live MLIR module failed; the button stays for another try. */
  function mlirFailed(message) {
    ui.load.disabled = false;
    ui.load.hidden = false;
    setText(ui.why, 'The live MLIR canonicaliser could not be loaded (' + message + '). It is built by scripts/build-web and served from mlir/. The presets\u2019 captured bytes still feed entry 1.');
  }

  /**
   * Opens the module text editor: loads MLIR, then feeds entry 1 of the
   * perturbed scenario from the text of its module (and the baseline's from
   * the preset's text), so that both are computed the same way.
   */
  async function openEditor() {
    opening = true;
    try {
      await loader.load();
    } catch {
      opening = false;
      return false;
    }
    const r = resolved();
    const text = r.module && !isText(r) ? catalog.textFor(r.module, hints()) : undefined;
    if (text !== undefined) store.dispatch({ type: 'edit', path: ['module'], value: Catalog.textModule(text, r.module.include_metadata), sync: true });
    else store.dispatch({ type: 'recompute' });
    // The editor opens on its text's keys, not before.
    await store.settled();
    opening = false;
    if (store.state.mlir === 'ready') mlirReady();
    return true;
  }

  // The captures presets-more.json brings are listed too, and fetched when picked.
  ui.source.replaceChildren(
    ...Object.entries(catalog.fixtures).map(([id, fx]) => sourceOption(id, fx.module.sym_name, base64Length(fx.module.entry1_b64), fx.module.include_metadata)),
    ...[...catalog.more].filter(([id]) => !catalog.fixtures[id]).map(([id, m]) => sourceOption(id, m.module.sym_name, m.module.bytes, m.module.include_metadata)));
  // The first view's engine has no MLIR; the editor loads it.
  ui.text.disabled = true;
  ui.text.value = '';
  ui.text.placeholder = 'Open module text to edit it';
  const WHY_OFF = 'Editing module text needs the live MLIR canonicaliser, which the first view\u2019s engine does not include (it reports mlir: false). “Open module text” loads it (about 0.7 MB gzipped) with the presets\u2019 module texts. The presets carry the exact bytes jaxlib hashed, so their keys match real JAX; keys computed from text do not.';
  setText(ui.why, WHY_OFF);
  ui.load.hidden = false;

  ui.source.addEventListener('change', async (e) => {
    const id = ui.source.value;
    if (id === '__custom') return;
    if (catalog.isMore(id)) {
      setText(ui.sourceNote, `Loading ${id}\u2019s bytes (presets-more.json)\u2026`);
      try {
        await catalog.loadMore();
      } catch (err) {
        setText(ui.sourceNote, `${id} could not be loaded: ${err.message}. The module is unchanged.`);
        sync(resolved());
        return;
      }
      setText(ui.sourceNote, '');
      if (ui.source.value !== id) return; // another pick came meanwhile
    }
    setFrom(id, e.target);
  });
  ui.includeMetadata.addEventListener('change', (e) => {
    const patchText = getPath(store.state.patch, ['module', 'text']);
    if (catalog.mlir && isTextValue(patchText)) {
      setModuleText(patchText instanceof TextHandle ? patchText : ui.text.value || patchText, e.target);
      return;
    }
    const r = resolved();
    const m = LINES.exec(sourceId(r));
    if (m && !isText(r)) {
      setFrom(`lines_${m[1]}_${ui.includeMetadata.checked ? 'meta' : 'nometa'}`, e.target);
      return;
    }
    const t = catalog.mlir ? catalog.textFor(r.module, hints()) : undefined;
    if (t !== undefined) setModuleText(t, e.target);
    else ui.includeMetadata.checked = !ui.includeMetadata.checked;
  });
  // Edits are applied a moment after the last keystroke; data-module-pending
  // is set on <html> meanwhile.
  let textTimer = 0;
  ui.text.addEventListener('input', (e) => {
    clearTimeout(textTimer);
    typing = true;
    root.setAttribute('data-module-pending', '');
    textTimer = setTimeout(() => {
      typing = false;
      setModuleText(ui.text.value, e.target);
      settle(store.state);
    }, 250);
  });
  // A text file is read in the worker (a large file is decoded off this
  // thread), then canonicalised there like typed text. A text longer than
  // LARGE stays there: the answer is its TextHandle.
  ui.file.addEventListener('change', async (e) => {
    const file = ui.file.files && ui.file.files[0];
    if (!file) return;
    typing = true;
    root.setAttribute('data-module-pending', '');
    setText(ui.fileName, `Reading ${file.name} (${sizeText(file.size)})…`);
    let text;
    try {
      text = await catalog.worker.call('readText', [file], { label: `Reading ${file.name}` });
    } catch {
      text = null;
    }
    typing = false;
    ui.file.value = '';
    if (!isTextValue(text)) {
      setText(ui.fileName, text && text.error ? `${file.name} could not be read: ${text.error.message}` : `Reading ${file.name} was cancelled.`);
      settle(store.state);
      return;
    }
    setText(ui.fileName, `The module text of ${file.name} (${sizeText(text.length)}).`);
    showText(text);
    setModuleText(text, e.target);
    settle(store.state);
  });

  /** data-module-pending ends when no edit waits and no text is being canonicalised. */
  function settle(state) {
    if (!typing && !state.pending) root.removeAttribute('data-module-pending');
  }
  ui.load.addEventListener('click', async () => {
    ui.load.disabled = true;
    setText(ui.why, 'Loading the live MLIR canonicaliser (about 0.7 MB gzipped)\u2026');
    if (await openEditor()) ui.text.focus();
  });

  let mlirShown = 'off';
  /** @type {?import('../canonicaliser.mjs').MlirBuild} */
  let buildShown = null;
  let opening = false; // openEditor() shows the editor itself, once its text is computed
  return {
    entry: 1,
    sync,
    /** Every dispatch: the module's error, and the MLIR module's status. */
    render(state) {
      settle(state);
      const e = state.error && state.error.error;
      const moduleError = e && String(e.path).startsWith('$.module') ? `${e.source === 'a' ? 'baseline ' : ''}${e.path}: ${e.message}` : '';
      ui.error.hidden = !moduleError;
      setText(ui.error, moduleError ? `The module text cannot be used: ${moduleError}` : '');
      if (state.mlir !== mlirShown) {
        mlirShown = state.mlir;
        if (state.mlir === 'ready' && !opening) mlirReady();
        if (state.mlir === 'failed') mlirFailed(state.mlirError);
      }
      // The module still being built (build-status.json): the button waits,
      // and the sentence says how far the build is; once built, it is the
      // usual button again.
      const b = state.mlirBuild;
      if (b !== buildShown && state.mlir === 'off') {
        const was = buildShown;
        buildShown = b;
        if (b && b.state === 'building') {
          ui.load.disabled = true;
          ui.load.setAttribute('data-mlir-build', 'building');
          setText(ui.why, mlirBuildingText(b));
        } else if (b && b.state === 'ready' && was && was.state === 'building') {
          ui.load.disabled = false;
          ui.load.removeAttribute('data-mlir-build');
          setText(ui.why, 'The live MLIR canonicaliser is built now. ' + WHY_OFF);
        } else if (b && b.state === 'failed') {
          ui.load.removeAttribute('data-mlir-build');
          mlirFailed(`its background build failed${b.log ? `; see ${b.log}` : ''}`);
        }
      }
    },
  };
}
