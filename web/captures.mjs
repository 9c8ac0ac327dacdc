// @ts-check
// Exhibit "captures": two capture folders (python -m cachekey.capture --out
// DIR) compared as `cachekey diff DIR_A DIR_B` compares them. The folders
// are chosen with a folder picker or dropped; their files are read in the
// engine's worker and compared there by the engine (CaptureDiff.h: programs
// paired by key first, then by name, then by order within a name; the cause at field level; a
// unified diff of the module text when entry 1 moved). This file only
// renders the engine's answer. Nothing is uploaded.
import { el, put, $, setText } from './dom.mjs';
import { errorText, engineError } from './engine.mjs';
import { abbrev } from './state.mjs';

/**
 * A chosen or dropped folder: its name and its files (File objects, by
 * their names inside the folder; sub-folders are not part of a capture).
 * @typedef {{name: string, files: File[]}} Folder
 */

/**
 * The folders among files chosen with a folder picker (each File's
 * webkitRelativePath starts with its folder's name): one per top-level
 * folder, in order of first appearance. Files of sub-folders are left out.
 * @param {File[]} files
 * @returns {Folder[]}
 */
export function foldersOfPicked(files) {
  /** @type {Map<string, File[]>} */
  const by = new Map();
  for (const f of files) {
    const parts = String(f.webkitRelativePath || f.name).split('/');
    const dir = parts.length > 1 ? parts[0] : '';
    if (parts.length > 2) continue;
    if (!by.has(dir)) by.set(dir, []);
    by.get(dir).push(f);
  }
  return [...by].map(([name, list]) => ({ name: name || 'chosen files', files: list }));
}

/** Every entry of a dropped directory (readEntries answers in batches). */
export function readAll(reader) {
  return new Promise((resolve, reject) => {
    const out = [];
    const next = () => reader.readEntries((batch) => {
      if (!batch.length) resolve(out);
      else { out.push(...batch); next(); }
    }, reject);
    next();
  });
}

/**
 * The folders dropped on a target (DataTransfer items that are
 * directories), each with the files directly inside it.
 * @param {DataTransfer} dt
 * @returns {Promise<Folder[]>}
 */
export async function foldersOfDrop(dt) {
  const entries = [...(dt.items || [])].map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null)).filter(Boolean);
  const folders = [];
  for (const entry of entries) {
    if (!entry.isDirectory) continue;
    const dir = /** @type {FileSystemDirectoryEntry} */ (entry);
    const children = await readAll(dir.createReader());
    const files = await Promise.all(children.filter((c) => c.isFile).map((c) => new Promise((res, rej) => /** @type {FileSystemFileEntry} */ (c).file(res, rej))));
    folders.push({ name: entry.name, files });
  }
  return folders;
}

/** One program whose keys differ: its cause, keys, outcomes and text diff. */
function differingCard(d, i) {
  const c = d.comparison || {};
  const label = `${d.program} #${d.occurrence}${d.occurrence_b && d.occurrence_b !== d.occurrence ? ` (#${d.occurrence_b} in B)` : ''}`;
  // A unified diff is coloured line by line; the engine's sentence saying why
  // there is none (module_text.code other than 'diff') is shown as it is.
  const isDiff = !d.module_text || d.module_text.code === 'diff';
  const diff = d.text_diff ? el('pre', { class: 'textdiff', 'data-testid': `capture-textdiff-${i}`, tabindex: '0', 'aria-label': `module text diff of ${label}` },
    ...String(d.text_diff).split('\n').map((line) => el('span', { class: !isDiff ? '' : line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : '' }, line + '\n'))) : null;
  return el('article', { class: 'capture-card', 'data-testid': `capture-program-${i}`, 'data-program': d.program, 'data-cause': String(c.cause || '') },
    el('h3', null, label, ': the keys differ'),
    el('p', { class: 'sentence', 'data-testid': `capture-sentence-${i}` }, c.sentence || ''),
    c.advice ? el('p', { class: 'advice', 'data-testid': `capture-advice-${i}`, 'data-advice': c.advice.code }, el('strong', null, 'What to do: '), c.advice.text) : null,
    (d.also_findings || []).length ? el('ul', { class: 'small-list' }, ...d.also_findings.map((f) => el('li', { 'data-code': f.code }, f.text))) : null,
    el('dl', { class: 'capture-keys' },
      el('dt', null, 'A'), el('dd', null, el('code', { title: d.key_a }, abbrev(d.key_a, 24)), ` (${d.file_a}${d.outcome_a ? ', ' + d.outcome_a : ''})`),
      el('dt', null, 'B'), el('dd', null, el('code', { title: d.key_b }, abbrev(d.key_b, 24)), ` (${d.file_b}${d.outcome_b ? ', ' + d.outcome_b : ''})`)),
    diff);
}

/**
 * Shows the engine's comparison (captureComparisonToJson plus `text`) or
 * its error.
 */
export function renderCaptureComparison(ui, r, names) {
  ui.summary.hidden = ui.error.hidden = ui.notes.hidden = ui.textWrap.hidden = true;
  put(ui.programs);
  if (!r || r.error) {
    ui.error.hidden = false;
    setText(ui.error, `Not compared: ${errorText((r && r.error) || engineError('internal', 'no answer from the engine').error)}`);
    return;
  }
  const differing = r.differing || [];
  const one = (list) => list.map((u) => `${u.program} #${u.occurrence}`).join(', ');
  // The engine's own sentence (captureSummaryText: pairing by key first).
  const parts = [r.summary ? r.summary.text : ''];
  if ((r.only_a || []).length) parts.push(`Only in ${names[0]}: ${one(r.only_a)}.`);
  if ((r.only_b || []).length) parts.push(`Only in ${names[1]}: ${one(r.only_b)}.`);
  ui.summary.hidden = false;
  const unreadable = r.unreadable || [];
  ui.summary.dataset.identical = String(differing.length === 0 && !(r.only_a || []).length && !(r.only_b || []).length && !unreadable.length);
  setText(ui.summary, parts.join(' '));
  // A damaged program file is one line here (the engine's words, its code
  // and its error's code); every other program is still compared.
  const lines = [...unreadable.map((u) => el('li', { 'data-code': u.code, 'data-error-code': (u.error && u.error.code) || '', 'data-testid': 'capture-unreadable' }, u.text)),
    ...(r.notes || []).map((n) => el('li', { 'data-code': n.code }, n.text))];
  put(ui.notes, ...lines);
  ui.notes.hidden = !lines.length;
  put(ui.programs, ...differing.map(differingCard));
  setText(ui.text, r.text || '');
  ui.textWrap.hidden = !r.text;
}

/**
 * @param {import('./catalog.mjs').Catalog} catalog
 */
export function mountCaptures(catalog) {
  const root = $('#exhibit-captures');
  if (!root) return null;
  const ui = {
    root,
    summary: $('#captures-summary'), error: $('#captures-error'), notes: $('#captures-notes'),
    programs: $('#captures-programs'), text: $('#captures-text'), textWrap: $('#captures-text-wrap'),
    status: $('#captures-status'), compare: /** @type {HTMLButtonElement} */ ($('#captures-compare')),
  };
  /** @type {{a: ?Folder, b: ?Folder}} */
  const chosen = { a: null, b: null };
  const nameNode = { a: $('#capture-name-a'), b: $('#capture-name-b') };

  function use(side, folder) {
    chosen[side] = folder;
    const hasIndex = folder && folder.files.some((f) => f.name === 'index.json');
    setText(nameNode[side], folder ? `${folder.name}: ${folder.files.length} file${folder.files.length === 1 ? '' : 's'}${hasIndex ? '' : ' (no index.json: not a capture folder)'}` : '');
    ui.compare.disabled = !(chosen.a && chosen.b);
    setText(ui.status, ui.compare.disabled ? 'Choose both folders to compare them.' : '');
  }

  async function compare() {
    if (!chosen.a || !chosen.b) return;
    root.setAttribute('data-busy', 'true');
    setText(ui.status, 'Comparing the captures\u2026');
    const names = [chosen.a.name, chosen.b.name];
    try {
      const r = await catalog.worker.call('compareCaptureFolders', [chosen.a, chosen.b], { label: 'Comparing the captures' });
      renderCaptureComparison(ui, r, names);
      setText(ui.status, r && !r.error ? `Compared ${names[0]} (A) and ${names[1]} (B).` : '');
    } catch (e) {
      renderCaptureComparison(ui, engineError(e && e.cancelled ? 'io' : 'internal', e && e.cancelled ? 'the comparison was cancelled' : String((e && e.message) || e)), names);
      setText(ui.status, '');
    } finally {
      root.removeAttribute('data-busy');
    }
  }

  for (const side of /** @type {const} */ (['a', 'b'])) {
    const input = /** @type {HTMLInputElement} */ ($(`#capture-dir-${side}`));
    input.addEventListener('change', () => {
      const folders = foldersOfPicked([...(input.files || [])]);
      use(side, folders[0] || null);
      input.value = '';
    });
    const zone = $(`#capture-drop-${side}`);
    zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('dragging'); });
    zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
    zone.addEventListener('drop', async (e) => {
      e.preventDefault();
      zone.classList.remove('dragging');
      const folders = await foldersOfDrop(e.dataTransfer);
      if (!folders.length) { setText(ui.status, 'Drop a folder (a capture directory), not single files.'); return; }
      // Two folders dropped at once fill both sides, in the order given.
      if (folders.length >= 2) { use('a', folders[0]); use('b', folders[1]); } else use(side, folders[0]);
    });
  }
  ui.compare.addEventListener('click', compare);
  return { use, compare };
}
