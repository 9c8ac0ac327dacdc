// @ts-check
// Exhibit 4: two runs' logs compared. Logs are hostile input and may be
// large: pasted text or dropped files go to the engine in its worker as they
// are (files streamed in chunks, with progress); the engine reads, pairs and
// explains them (LogCompare.h), and this file only renders its result, as
// text.
import { el, put, $, setText, reducedMotion } from './dom.mjs';
import { abbrev } from './state.mjs';
import { errorText, engineError } from './engine.mjs';
import { ProgramTable } from './programs.mjs';

const MAX_PASTE = 4 << 20; // 4 MiB per pasted log: larger logs are opened as files

/** Which log each side uses: a chosen or dropped file, else the textarea. */
export const logFiles = { a: null, b: null };
/** Runs after A and B (C, D, …): files chosen with "More runs". */
export const moreLogFiles = [];

function sourceOf(ui, side) {
  const f = logFiles[side];
  return f ? { source: f, name: f.name || `run ${side.toUpperCase()}` } : { source: ui[side].value, name: `run ${side.toUpperCase()}` };
}

function sizeText(n) {
  return n < 1024 ? `${n} bytes` : n < 1 << 20 ? `${(n / 1024).toFixed(0)} KB` : `${(n / (1 << 20)).toFixed(1)} MB`;
}

/** Uses `file` for `side` ('a' or 'b'), or the textarea again when null. */
export function setLogFile(ui, side, file) {
  logFiles[side] = file || null;
  setText(ui.fileName[side], file ? `Using the file ${file.name} (${sizeText(file.size)}); type in the box to use text instead.` : '');
}

function hideResult(ui) {
  for (const n of [ui.verdict, ui.how, ui.sentence, ui.summary, ui.notes, ui.error, ui.table, ui.runs, ui.runsH, ui.many, ui.manyH, ui.advice, ui.adviceH]) n.hidden = true;
  ui.programs.hide();
}

/**
 * The answer first: the engine's verdict (two logs: `verdict`, its code and
 * words; more runs: `verdict` too, the box marked `runs` and its code in
 * `data-runs`) in a box at the top, with what to do
 * right under it. The pairing and the per-run sums are folded below it.
 */
function renderVerdict(ui, r, text, code) {
  ui.verdict.hidden = false;
  ui.verdict.dataset.verdict = code || '';
  // A second log that ends inside a key (verdict.cut_at, its line): the
  // outcome of that program is not known, so the box is not marked as a
  // clean all-hit (style.css).
  const cutAt = r.verdict && r.verdict.cut_at;
  if (cutAt) ui.verdict.dataset.cutAt = String(cutAt);
  else delete ui.verdict.dataset.cutAt;
  delete ui.verdict.dataset.runs; // set after this for three or more runs
  setText(ui.verdictText, text || '');
  renderAdvice(ui, r);
}

/** What to do: the engine's advice (its codes and words), one item each. */
function renderAdvice(ui, r) {
  const items = r.what_to_do || [];
  put(ui.advice, ...items.map((a, i) => el('li', { 'data-testid': `log-advice-${i}`, 'data-advice': a.code }, a.text)));
  ui.advice.hidden = ui.adviceH.hidden = items.length === 0;
}

/** One line per run: the engine's summary of it (programs, hits, misses, hit rate, compile seconds, reasons). */
function renderRuns(ui, r) {
  const lines = (r.logs || []).map((l) => l.stats && l.stats.text).filter(Boolean);
  put(ui.runs, ...lines.map((t, i) => el('li', { 'data-testid': `log-run-${i}` }, t)));
  ui.runs.hidden = ui.runsH.hidden = lines.length === 0;
}

function showError(ui, e) {
  ui.error.hidden = false;
  setText(ui.error, errorText(e));
}

// Role codes are snake_case ("with_cause"); CSS classes use dashes.
const roleClass = (code) => String(code).replace(/_/g, '-');
const noteTexts = (r) => ((r.findings && r.findings.notes) || []).map((n) => n.text);

function pairCell(x, y) {
  const differs = x !== y;
  return el('span', { class: 'pair' },
    el('code', { title: x || 'not logged', class: differs ? 'differs' : '' }, x ? abbrev(x, 12) : '\u2014'), ' / ',
    el('code', { title: y || 'not logged', class: differs ? 'differs' : '' }, y ? abbrev(y, 12) : '\u2014'));
}

function renderEntries(ui, r) {
  const x = r.explained;
  if (!x) return;
  setText(ui.pairCaption, r.cause ? `Entries of ${x.label}, the pair the sentence names (A / B)` : `Entries of ${x.label}, the first pair (its keys are equal; A / B)`);
  const decoded = new Map((x.decoded || []).map((d) => [d.entry, d]));
  put(ui.tbody, ...(r.entry_names || []).map((name, i) => {
    const n = i + 1;
    const role = (r.roles && r.roles[i]) || { code: 'same', text: 'same' };
    const d = decoded.get(n);
    const value = d && (d.a || d.b) ? (d.a === d.b ? d.a : `${d.a || 'unknown'} \u2192 ${d.b || 'unknown'}`) : '';
    return el('tr', { class: 'role-row-' + roleClass(role.code), 'data-testid': `log-row-${n}`, 'data-role': role.code },
      el('td', null, String(n)), el('td', null, name),
      el('td', null, pairCell(x.a.own[i], x.b.own[i])), el('td', null, pairCell(x.a.running[i], x.b.running[i])),
      el('td', { 'data-testid': `log-value-${n}` }, value),
      el('td', null, el('span', { class: 'badge role-' + roleClass(role.code) }, role.text)));
  }));
  ui.table.hidden = false;
}

/** Shows an engine result (logComparisonToJson, or manyLogComparisonToJson for three or more runs) or its error. */
export function renderLogComparison(ui, r) {
  hideResult(ui);
  if (!r || r.error) {
    showError(ui, (r && r.error) || engineError('internal', 'no answer from the engine', { source: 'logs' }).error);
    return;
  }
  renderRuns(ui, r);
  ui.how.hidden = false;
  if (!r.pairs && Array.isArray(r.programs)) {
    // three or more runs: the verdict (its words: how many programs share
    // one key in every run, and the odd runs), then per program, which runs
    // share a key and the odd ones out
    renderVerdict(ui, r, r.verdict.text, 'runs');
    ui.verdict.dataset.runs = r.verdict.code;
    put(ui.notes, ...noteTexts(r).map((n) => el('li', null, n)));
    ui.notes.hidden = !noteTexts(r).length;
    put(ui.many, ...r.programs.map((p, i) => el('li', { 'data-testid': `log-many-${i}`, 'data-groups': String((p.groups || []).length) }, p.text)));
    ui.many.hidden = ui.manyH.hidden = r.programs.length === 0;
    return;
  }
  renderVerdict(ui, r, r.verdict ? r.verdict.text : r.summary, r.verdict ? r.verdict.code : '');
  ui.sentence.hidden = false;
  setText(ui.sentence, r.sentence);
  ui.summary.hidden = false;
  setText(ui.summary, r.summary);
  put(ui.notes, ...noteTexts(r).map((n) => el('li', null, n)));
  ui.notes.hidden = !noteTexts(r).length;
  ui.programs.show(r);
  renderEntries(ui, r);
}

/**
 * Compares the two logs (files or pasted text) in the engine's worker and
 * renders the result.
 * @param {import('./worker-client.mjs').EngineWorker} worker
 */
export async function compareLogsUi(worker, ui) {
  hideResult(ui);
  for (const side of ['a', 'b']) {
    if (!logFiles[side] && ui[side].value.length > MAX_PASTE) {
      showError(ui, engineError('too_large', 'more than 4 MiB of pasted text; open or drop the log file instead (files of any size are read in chunks)', { source: `run ${side.toUpperCase()}` }).error);
      return;
    }
  }
  ui.root.setAttribute('data-busy', 'true');
  setText(ui.status, 'Reading the logs\u2026');
  try {
    const more = moreLogFiles.map((f) => ({ source: f, name: f.name }));
    renderLogComparison(ui, more.length
      ? await worker.call('compareManyLogs', [[sourceOf(ui, 'a'), sourceOf(ui, 'b'), ...more]], { label: 'Reading the logs' })
      : await worker.call('compareLogs', [sourceOf(ui, 'a'), sourceOf(ui, 'b')], { label: 'Reading the logs' }));
  } catch (e) {
    renderLogComparison(ui, engineError(e && e.cancelled ? 'io' : 'internal', e && e.cancelled ? 'reading the logs was cancelled'
      : 'the log could not be read: ' + (e && e.message ? e.message : e), { source: 'logs' }));
  } finally {
    setText(ui.status, '');
    ui.root.removeAttribute('data-busy');
  }
}

/** File inputs and drop targets for both sides. */
export function setupLogInputs(ui, onChange) {
  for (const side of ['a', 'b']) {
    ui.file[side].addEventListener('change', (e) => {
      setLogFile(ui, side, e.target.files[0]);
      onChange();
    });
    ui[side].addEventListener('input', () => {
      if (logFiles[side]) {
        setLogFile(ui, side, null);
        ui.file[side].value = '';
      }
    });
    const zone = ui.drop[side];
    zone.addEventListener('dragover', (e) => {
      e.preventDefault();
      zone.classList.add('dragging');
    });
    zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
    zone.addEventListener('drop', (e) => {
      e.preventDefault();
      zone.classList.remove('dragging');
      const file = e.dataTransfer && e.dataTransfer.files && e.dataTransfer.files[0];
      if (!file) return;
      setLogFile(ui, side, file);
      onChange();
    });
  }
}

/**
 * Uses `files` as the runs after A and B, each listed with a button that
 * removes that run alone (and compares again when a result is shown).
 */
export function setMoreLogFiles(ui, files) {
  moreLogFiles.splice(0, moreLogFiles.length, ...files);
  if (!files.length) {
    put(ui.moreName);
    return;
  }
  const runName = (i) => `run ${String.fromCharCode(67 + i)}`;
  put(ui.moreName, 'Also: ', ...files.flatMap((f, i) => [
    i ? ', ' : '',
    el('span', { class: 'more-run', 'data-testid': `log-more-${i}` }, `${runName(i)} ${f.name} `,
      el('button', { type: 'button', class: 'secondary small', 'data-testid': `log-more-remove-${i}`, 'aria-label': `Remove ${runName(i)} (${f.name})` }, 'Remove')),
  ]), '.');
  ui.moreName.querySelectorAll('button[data-testid^="log-more-remove-"]').forEach((b, i) => b.addEventListener('click', () => {
    const rest = moreLogFiles.filter((_, j) => j !== i);
    ui.more.value = '';
    setMoreLogFiles(ui, rest);
    if (!ui.verdict.hidden && ui.onRunsChanged) ui.onRunsChanged();
  }));
}

/** The mounted exhibit's elements (mountLogs). */
let mounted = null;

/**
 * Shows an engine result of compareLogs or compareManyLogs computed
 * elsewhere (a saved answer, or a page test's) in the mounted exhibit, as
 * if the worker had just answered.
 * @param {object} r the engine's JSON result
 */
export function showLogResult(r) {
  if (mounted) renderLogComparison(mounted, r);
}

/** Clears both sides and the result. */
export function clearLogs(ui) {
  ui.more.value = '';
  setMoreLogFiles(ui, []);
  for (const side of ['a', 'b']) {
    ui[side].value = '';
    ui.file[side].value = '';
    setLogFile(ui, side, null);
  }
  hideResult(ui);
}

/** The captured fixtures whose DEBUG logs make the example (a run and a run that missed). */
export const EXAMPLE_LOGS = ['add_1x1', 'mul_2x2'];

/** The DEBUG log real JAX wrote for captured fixture `id` ('' when none). */
export function fixtureLog(catalog, id) {
  const fx = catalog.fixtures[id];
  return ((fx && fx.capture && fx.capture.debug_log_formatted) || []).join('\n');
}

/**
 * Mounts #exhibit-logs: its buttons, file inputs and drop zones. Returns
 * {loadExample(focus)}, which fills both sides with the example logs and
 * compares them.
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {{embed: boolean}} options
 */
export function mountLogs(catalog, { embed }) {
  const ui = {
    root: $('#exhibit-logs'), a: $('#log-a'), b: $('#log-b'), sentence: $('#logs-sentence'), summary: $('#logs-summary'), advice: $('#logs-advice'), adviceH: $('#logs-advice-h'),
    verdict: $('#logs-verdict'), verdictText: $('#logs-verdict-text'), how: /** @type {HTMLDetailsElement} */ ($('#logs-how')),
    notes: $('#logs-notes'), error: $('#logs-error'), status: $('#logs-status'), table: $('#logs-table'), tbody: $('#logs-tbody'),
    pairCaption: $('#logs-pair'),
    // one row per program pair, virtualised, sorted and filtered (programs.mjs)
    programs: new ProgramTable({
      box: $('#logs-programs-box'), table: /** @type {HTMLTableElement} */ ($('#logs-programs')), caption: $('#logs-programs-caption'),
      body: $('#logs-programs-tbody'), scroll: $('#logs-programs-scroll'), count: $('#logs-programs-count'),
      search: /** @type {HTMLInputElement} */ ($('#logs-programs-search')), misses: /** @type {HTMLInputElement} */ ($('#logs-programs-misses')),
      move: /** @type {HTMLSelectElement} */ ($('#logs-programs-move')), verdict: /** @type {HTMLSelectElement} */ ($('#logs-programs-verdict')),
    }),
    file: { a: $('#log-file-a'), b: $('#log-file-b') }, fileName: { a: $('#log-file-a-name'), b: $('#log-file-b-name') },
    drop: { a: $('#log-drop-a'), b: $('#log-drop-b') },
    runs: $('#logs-runs'), runsH: $('#logs-runs-h'), many: $('#logs-many'), manyH: $('#logs-many-h'),
    more: /** @type {HTMLInputElement} */ ($('#log-file-more')), moreName: $('#log-file-more-name'),
  };
  mounted = ui;
  ui.more.addEventListener('change', () => setMoreLogFiles(ui, [...(ui.more.files || [])]));
  const compare = () => compareLogsUi(catalog.worker, ui);
  ui.onRunsChanged = compare;
  const loadExample = (focus) => {
    ui.more.value = '';
    setMoreLogFiles(ui, []);
    setLogFile(ui, 'a', null);
    setLogFile(ui, 'b', null);
    ui.a.value = fixtureLog(catalog, EXAMPLE_LOGS[0]);
    ui.b.value = fixtureLog(catalog, EXAMPLE_LOGS[1]);
    compare();
    if (focus && !embed) {
      ui.root.scrollIntoView({ behavior: reducedMotion() ? 'auto' : 'smooth' });
      ui.a.focus({ preventScroll: true });
    }
  };
  $('#logs-compare').addEventListener('click', compare);
  $('#logs-example').addEventListener('click', () => loadExample(false));
  $('#logs-clear').addEventListener('click', () => clearLogs(ui));
  // A chosen or dropped file compares at once when the other side is there.
  setupLogInputs(ui, () => {
    const ready = (side) => ui.file[side].files.length || ui[side].value.trim() || ui.fileName[side].textContent;
    if (ready('a') && ready('b')) compare();
  });
  return { loadExample };
}
