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

// Changed words within a line of the module diff: each run of removed lines
// is paired, line by line, with the run of added lines after it, and the
// tokens that differ between the two lines are marked. Presentation only:
// tokens are runs of word characters (a number with its exponent whole),
// runs of spaces, or one other character. The work is capped: runs longer
// than MAX_RUN lines or lines longer than MAX_LINE characters are coloured
// but not marked, and past MAX_LCS_CELLS the whole changed middle of a line
// is marked instead of its tokens.
const TOKEN = /\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\w*|[A-Za-z_][\w.]*|\s+|[^\w\s]/g;
const MAX_RUN = 200;
const MAX_LINE = 2000;
const MAX_LCS_CELLS = 40000;

/**
 * The tokens of a line (their concatenation is the line).
 * @param {string} s
 * @returns {string[]}
 */
export function tokens(s) {
  return s.match(TOKEN) || [];
}

/**
 * Which tokens of two lines differ: those outside a longest common
 * subsequence of their tokens, found between their common prefix and
 * suffix; the whole middle when that would cost more than MAX_LCS_CELLS.
 * A space between two changed tokens is changed too (one mark, not two).
 * @param {string[]} a the removed line's tokens
 * @param {string[]} b the added line's tokens
 * @returns {[boolean[], boolean[]]} for each token of a and of b, whether it changed
 */
export function changedTokens(a, b) {
  const ca = a.map(() => false), cb = b.map(() => false);
  let s = 0;
  while (s < a.length && s < b.length && a[s] === b[s]) s++;
  let ea = a.length, eb = b.length;
  while (ea > s && eb > s && a[ea - 1] === b[eb - 1]) { ea--; eb--; }
  const n = ea - s, m = eb - s;
  if (n * m > MAX_LCS_CELLS) {
    ca.fill(true, s, ea);
    cb.fill(true, s, eb);
    return [ca, cb];
  }
  // lcs[i * w + j]: the LCS length of a[s+i..ea) and b[s+j..eb).
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[s + i] === b[s + j] ? lcs[(i + 1) * w + j + 1] + 1 : Math.max(lcs[(i + 1) * w + j], lcs[i * w + j + 1]);
    }
  }
  let i = 0, j = 0;
  while (i < n && j < m) {
    if (a[s + i] === b[s + j]) { i++; j++; } else if (lcs[(i + 1) * w + j] >= lcs[i * w + j + 1]) ca[s + i++] = true;
    else cb[s + j++] = true;
  }
  ca.fill(true, s + i, ea);
  cb.fill(true, s + j, eb);
  for (const [t, c] of /** @type {const} */ ([[a, ca], [b, cb]])) {
    for (let k = 1; k + 1 < t.length; k++) if (!c[k] && c[k - 1] && c[k + 1] && /^\s+$/.test(t[k])) c[k] = true;
  }
  return [ca, cb];
}

/**
 * A line of the engine's diff (module_text.lines[], CaptureDiffJson.cpp):
 * `op` says what it is; context, del and add carry the line without its
 * sign, the others (file_a, file_b, hunk, cut, too_large) their printed text.
 * @typedef {import('./engine-types.mjs').DiffLine} DiffLine
 */

/** The sign diff -u prints before a line of each op that carries one. */
const SIGN = { context: ' ', del: '-', add: '+' };

/**
 * One line of the diff as a span of class `op`, its text after its sign.
 * @param {DiffLine} l
 */
function plainLine(l) {
  const text = l.op in SIGN ? SIGN[l.op] + l.line : l.text;
  return el('span', { class: l.op, 'data-op': l.op }, text + '\n');
}

/**
 * One removed or added line, its changed tokens inside <mark>.
 * @param {DiffLine} l op 'del' or 'add'
 * @param {string[]} toks the tokens of l.line
 * @param {boolean[]} changed
 */
function markedLine(l, toks, changed) {
  const parts = [SIGN[l.op]];
  for (let k = 0; k < toks.length;) {
    let e = k;
    let text = '';
    while (e < toks.length && changed[e] === changed[k]) text += toks[e++];
    parts.push(changed[k] ? el('mark', null, text) : text);
    k = e;
  }
  return el('span', { class: l.op, 'data-op': l.op, 'data-marked': 'true' }, ...parts, '\n');
}

/**
 * The engine's diff lines as spans, one per line with its newline, of the
 * class of its op (context, del, add, hunk, file_a, …); in each run of
 * removed lines followed by added ones, the changed words of the lines
 * paired in order are marked.
 * @param {DiffLine[]} lines module_text.lines
 * @returns {HTMLElement[]}
 */
export function diffLines(lines) {
  const out = [];
  const is = (k, op) => k < lines.length && lines[k].op === op;
  for (let i = 0; i < lines.length;) {
    if (!is(i, 'del')) { out.push(plainLine(lines[i++])); continue; }
    let j = i;
    while (is(j, 'del')) j++;
    let k = j;
    while (is(k, 'add')) k++;
    const paired = j - i <= MAX_RUN && k - j <= MAX_RUN ? Math.min(j - i, k - j) : 0;
    /** @type {HTMLElement[]} */
    const dels = [], adds = [];
    for (let p = 0; p < j - i; p++) {
      const del = lines[i + p], add = lines[j + p];
      if (p < paired && del.line.length <= MAX_LINE && add.line.length <= MAX_LINE) {
        const ta = tokens(del.line), tb = tokens(add.line);
        const [ca, cb] = changedTokens(ta, tb);
        dels.push(markedLine(del, ta, ca));
        adds.push(markedLine(add, tb, cb));
      } else {
        dels.push(plainLine(del));
        if (p < paired) adds.push(plainLine(add));
      }
    }
    for (let p = adds.length; p < k - j; p++) adds.push(plainLine(lines[j + p]));
    out.push(...dels, ...adds);
    i = k;
  }
  return out;
}

/**
 * The engine's findings about the module for one pair
 * (comparison.findings.details[] of code 'module_finding'): each finding's
 * words, its code as a badge and as data-code.
 * @param {any} c the pair's comparison (comparisonToJson)
 * @param {number} i the card's index
 * @param {string} label
 */
function moduleFindingList(c, i, label) {
  const found = ((c.findings && c.findings.details) || []).filter((x) => x && x.code === 'module_finding' && x.finding);
  if (!found.length) return null;
  return el('ul', { class: 'module-findings', 'data-testid': `capture-module-findings-${i}`, 'aria-label': `what changed in the module of ${label}` },
    ...found.map(({ finding: f }) => el('li', { 'data-code': f.code },
      el('span', { class: 'badge finding-code' }, f.code), ' ', f.text)));
}

/** One program whose keys differ: its cause, keys, outcomes, the engine's module findings and the text diff. */
function differingCard(d, i) {
  const c = d.comparison || {};
  const label = `${d.program} #${d.occurrence}${d.occurrence_b && d.occurrence_b !== d.occurrence ? ` (#${d.occurrence_b} in B)` : ''}`;
  // The engine's diff lines are coloured by their op, their changed words
  // marked; the engine's sentence saying why there is no diff
  // (module_text.code other than 'diff') is shown as it is.
  const m = d.module_text;
  const diff = m && m.code !== 'none' ? el('pre', { class: 'textdiff', 'data-testid': `capture-textdiff-${i}`, tabindex: '0', 'aria-label': `module text diff of ${label}` },
    ...(m.code === 'diff' ? diffLines(m.lines || []) : [el('span', null, m.text)])) : null;
  return el('article', { class: 'capture-card', 'data-testid': `capture-program-${i}`, 'data-program': d.program, 'data-cause': String(c.cause || '') },
    el('h3', null, label, ': the keys differ'),
    el('p', { class: 'sentence', 'data-testid': `capture-sentence-${i}` }, c.sentence || ''),
    c.advice ? el('p', { class: 'advice', 'data-testid': `capture-advice-${i}`, 'data-advice': c.advice.code }, el('strong', null, 'What to do: '), c.advice.text) : null,
    (d.also_findings || []).length ? el('ul', { class: 'small-list' }, ...d.also_findings.map((f) => el('li', { 'data-code': f.code }, f.text))) : null,
    el('dl', { class: 'capture-keys' },
      el('dt', null, 'A'), el('dd', null, el('code', { title: d.key_a }, abbrev(d.key_a, 24)), ` (${d.file_a}${d.outcome_a ? ', ' + d.outcome_a : ''})`),
      el('dt', null, 'B'), el('dd', null, el('code', { title: d.key_b }, abbrev(d.key_b, 24)), ` (${d.file_b}${d.outcome_b ? ', ' + d.outcome_b : ''})`)),
    moduleFindingList(c, i, label),
    diff);
}

/**
 * Shows the engine's comparison (captureComparisonToJson plus `text`) or
 * its error.
 * @param {import('./engine-types.mjs').Result<import('./engine-types.mjs').CaptureComparison>} r
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
 * Whether a comparison has a program whose entry 1 (the module) moved: the
 * engine with MLIR compares such modules structurally (its module findings).
 * @param {import('./engine-types.mjs').Result<import('./engine-types.mjs').CaptureComparison>} r the engine's comparison
 */
function moduleMoved(r) {
  return !!r && !r.error && (r.differing || []).some((d) => d.comparison && d.comparison.cause === 1);
}

/**
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {?import('./canonicaliser.mjs').MlirLoader} [loader] loads the engine
 *   with MLIR into the worker, whose comparison names what changed in a module
 * @param {?import('./store.mjs').Store} [store] for whether the MLIR module is still being built
 */
export function mountCaptures(catalog, loader = null, store = null) {
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
      /** @type {() => Promise<import('./engine-types.mjs').Result<import('./engine-types.mjs').CaptureComparison>>} */
      const call = () => catalog.worker.call('compareCaptureFolders', [chosen.a, chosen.b], { label: 'Comparing the captures' });
      let r = await call();
      let note = '';
      // A moved module is compared structurally by the engine with MLIR:
      // it is loaded once (unless its build is still running) and the
      // folders compared again.
      if (moduleMoved(r) && !catalog.mlir && loader) {
        const build = store && store.state.mlirBuild;
        if (build && build.state === 'building') {
          note = ' The modules are compared as text only: the live MLIR module, which names what changed in them, is still being built.';
        } else {
          setText(ui.status, 'Loading the live MLIR module to compare the modules…');
          try {
            await loader.load();
            r = await call();
          } catch (e) {
            note = ` The modules are compared as text only: the live MLIR module could not be loaded (${(e && e.message) || e}).`;
          }
        }
      }
      renderCaptureComparison(ui, r, names);
      setText(ui.status, r && !r.error ? `Compared ${names[0]} (A) and ${names[1]} (B).${note}` : '');
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
