// @ts-check
// Exhibit "cachedir": a JAX cache folder read as `cachekey cache-dir DIR`
// reads it (engine/include/cachekey/CacheDir.h). The folder is chosen with a
// folder picker or dropped; the worker hands the engine the listing and reads
// only the bytes the entry reader asks for (FileReaderSync over slices), so
// the main thread never reads a file. This file only renders the engine's
// findings: their codes go into data- attributes, their words are the
// engine's. Nothing is uploaded and nothing in the folder changes.
import { el, put, $, setText } from './dom.mjs';
import { errorText, engineError } from './engine.mjs';
import { readAll } from './captures.mjs';

/**
 * A cache folder: the files directly in it and the names of its sub-folders
 * (XLA's own sub-caches sit there).
 * @typedef {{name: string, files: File[], dirs: string[]}} CacheFolder
 */

/**
 * The cache folder among files chosen with a folder picker: files directly
 * in the top folder, and the first path part of anything deeper (a
 * sub-folder, listed as a directory).
 * @param {File[]} files
 * @returns {?CacheFolder}
 */
export function cacheFolderOfPicked(files) {
  if (!files.length) return null;
  const top = String(files[0].webkitRelativePath || files[0].name).split('/')[0];
  /** @type {File[]} */
  const own = [];
  const dirs = new Set();
  for (const f of files) {
    const parts = String(f.webkitRelativePath || f.name).split('/');
    if (parts.length <= 1 || parts[0] !== top) continue;
    if (parts.length === 2) own.push(f);
    else dirs.add(parts[1]);
  }
  return { name: top, files: own, dirs: [...dirs].sort() };
}

/**
 * The first folder dropped, as a CacheFolder.
 * @param {DataTransfer} dt
 * @returns {Promise<?CacheFolder>}
 */
export async function cacheFolderOfDrop(dt) {
  const entry = [...(dt.items || [])].map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null)).find((e) => e && e.isDirectory);
  if (!entry) return null;
  const children = await readAll(/** @type {FileSystemDirectoryEntry} */ (entry).createReader());
  const files = await Promise.all(children.filter((c) => c.isFile).map((c) => new Promise((res, rej) => /** @type {FileSystemFileEntry} */ (c).file(res, rej))));
  return { name: entry.name, files, dirs: children.filter((c) => c.isDirectory).map((c) => c.name).sort() };
}

const kib = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);

/** One bar per program: its size on disk (width) and its number of keys. */
function programBars(programs) {
  const largest = Math.max(1, ...programs.map((p) => p.size || 0));
  return programs.map((p, i) => el('li', { class: 'cachedir-bar', 'data-testid': `cachedir-program-${i}`, 'data-module': p.module, 'data-keys': String(p.keys) },
    el('span', { class: 'bar-label' }, el('code', null, p.module), ` ${p.keys} key${p.keys === 1 ? '' : 's'}, ${kib(p.size)}`),
    el('span', { class: 'bar-track', 'aria-hidden': 'true' },
      // one segment per key, so churn shows as many segments
      ...(p.entries || []).map((e) => el('span', { class: 'bar-seg' + (e.status && e.status !== 'ok' ? ' bad' : ''), 'data-width': String(Math.max(0.5, 100 * (e.size || 0) / largest)) }))),
    el('span', { class: 'bar-text' }, p.text)));
}

/** Segment widths from data-width (the CSP allows no inline styles from strings). */
function sizeSegments(root) {
  for (const s of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('.bar-seg'))) s.style.width = `${s.dataset.width}%`;
}

/**
 * Shows the engine's report (cacheReportToJson plus `text`) or its error.
 * @param {import('./engine-types.mjs').Result<import('./engine-types.mjs').CacheReport>} r
 */
export function renderCacheReport(ui, r) {
  for (const n of [ui.summary, ui.error, ui.problems, ui.problemsH, ui.hints, ui.hintsH, ui.programs, ui.programsH, ui.evict, ui.evictH, ui.evictText, ui.textWrap]) n.hidden = true;
  if (!r || r.error) {
    ui.error.hidden = false;
    setText(ui.error, `Not read: ${errorText((r && r.error) || engineError('internal', 'no answer from the engine').error)}`);
    return;
  }
  ui.summary.hidden = false;
  // The engine's summary finding: its code and its words (never a line cut from `text`).
  ui.summary.setAttribute('data-code', r.summary ? r.summary.code : '');
  setText(ui.summary, r.summary ? r.summary.text : '');
  const problems = r.problems || [];
  put(ui.problems, ...problems.map((p, i) => el('li', { 'data-testid': `cachedir-problem-${i}`, 'data-code': p.code, 'data-file': p.file || '' }, p.text)));
  ui.problems.hidden = ui.problemsH.hidden = problems.length === 0;
  const hints = r.hints || [];
  put(ui.hints, ...hints.map((h, i) => el('li', { 'data-testid': `cachedir-hint-${i}`, 'data-code': h.code }, h.text)));
  ui.hints.hidden = ui.hintsH.hidden = hints.length === 0;
  const programs = r.programs || [];
  put(ui.programs, ...programBars(programs));
  sizeSegments(ui.programs);
  ui.programs.hidden = ui.programsH.hidden = programs.length === 0;
  const ev = r.eviction;
  if (ev) {
    ui.evictH.hidden = ui.evictText.hidden = false;
    setText(ui.evictText, ev.text || '');
    put(ui.evict, ...(ev.evicted || []).map((e, i) => el('li', { 'data-testid': `cachedir-evicted-${i}`, 'data-file': e.file }, el('code', null, e.file), ` ${e.size} B`)));
    ui.evict.hidden = (ev.evicted || []).length === 0;
  }
  setText(ui.text, r.text || '');
  ui.textWrap.hidden = !r.text;
}

/**
 * @param {import('./catalog.mjs').Catalog} catalog
 */
export function mountCacheDir(catalog) {
  const root = $('#exhibit-cachedir');
  if (!root) return null;
  const ids = ['summary', 'error', 'problems', 'hints', 'programs', 'evict', 'text', 'status', 'name', 'read'];
  /** @type {Object<string, HTMLElement>} */
  const ui = Object.fromEntries(ids.map((k) => [k, $(`#cachedir-${k}`)]));
  Object.assign(ui, { problemsH: $('#cachedir-problems-h'), hintsH: $('#cachedir-hints-h'), programsH: $('#cachedir-programs-h'),
    evictH: $('#cachedir-evict-h'), evictText: $('#cachedir-evict-text'), textWrap: $('#cachedir-text-wrap') });
  const maxSize = /** @type {HTMLInputElement} */ ($('#cachedir-max-size'));
  const release = /** @type {HTMLSelectElement} */ ($('#cachedir-release'));
  // One option per eviction rule, named by the engine (cacheReleasesToJson).
  const choices = catalog.engine.cacheReleases();
  if (Array.isArray(choices)) {
    for (const c of choices) {
      const o = document.createElement('option');
      o.value = c.release;
      o.textContent = c.text;
      o.dataset.rule = c.rule;
      release.append(o);
    }
  }
  const readButton = /** @type {HTMLButtonElement} */ (ui.read);
  /** @type {?CacheFolder} */
  let chosen = null;

  async function read() {
    if (!chosen) return;
    const options = {};
    if (maxSize.value.trim() !== '') options.max_size = Number(maxSize.value);
    if (release.value) options.release = release.value;
    root.setAttribute('data-busy', 'true');
    setText(ui.status, `Reading ${chosen.name}\u2026`);
    try {
      const r = await catalog.worker.call('readCacheFolder', [chosen, options], { label: 'Reading the cache folder' });
      renderCacheReport(ui, r);
      setText(ui.status, r && !r.error ? `Read ${chosen.name}: ${chosen.files.length} file${chosen.files.length === 1 ? '' : 's'}${chosen.dirs.length ? ` and ${chosen.dirs.length} folder${chosen.dirs.length === 1 ? '' : 's'}` : ''}.` : '');
    } catch (e) {
      renderCacheReport(ui, engineError(e && e.cancelled ? 'io' : 'internal', e && e.cancelled ? 'reading the folder was cancelled' : String((e && e.message) || e)));
      setText(ui.status, '');
    } finally {
      root.removeAttribute('data-busy');
    }
  }

  function use(folder) {
    chosen = folder;
    setText(ui.name, folder ? `${folder.name}: ${folder.files.length} file${folder.files.length === 1 ? '' : 's'}` : '');
    readButton.disabled = !folder;
    if (folder) read();
  }

  const input = /** @type {HTMLInputElement} */ ($('#cachedir-input'));
  input.addEventListener('change', () => {
    use(cacheFolderOfPicked([...(input.files || [])]));
    input.value = '';
  });
  const zone = $('#cachedir-drop');
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('dragging'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', async (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    const folder = await cacheFolderOfDrop(e.dataTransfer);
    if (!folder) { setText(ui.status, 'Drop a folder (the cache directory), not single files.'); return; }
    use(folder);
  });
  readButton.addEventListener('click', read);
  return { use, read };
}
