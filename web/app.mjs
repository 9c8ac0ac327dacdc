// The page: loads the engine (cachekey_engine.js was loaded by a classic
// <script> before this module), registers every captured fixture as a
// scenario base, and renders the baseline and the perturbed scenario side by
// side. State is one thing: a preset id and a JSON merge patch over it.
import { CacheKeyEngine, errorText } from './engine.mjs';
import { el, put, $, $$, setText } from './dom.mjs';
import { patchValue, scenarioOf, splitScenario, describePatch, clone, abbrev, mergePatchFrom } from './state.mjs';
import { buildEntries, renderEntries, liveProducers } from './entries.mjs';
import { setupControls, syncControls, renderControlNotes, mlirReady, mlirFailed } from './controls.mjs';
import { renderFlags } from './flags.mjs';
import { traceText, compareLogsUi, setupLogInputs, clearLogs, setLogFile } from './logs.mjs';
import { renderCases, renderQuestions } from './extras.mjs';
// --- walk hook (branch walk): the code walk, the pipeline picture and the
// flag-filter animation live in their own modules; app.mjs only calls them.
import { setupWalk } from './walk.mjs';
import { renderPipeline } from './pipeline.mjs';
import { setupFlagPlay } from './flagplay.mjs';

const DEFAULT_PRESET = 'add_1x1';
const EXHIBITS = ['entries', 'walk', 'flags', 'trace', 'logs'];
const params = new URLSearchParams(location.search);
const embed = params.has('embed') ? params.get('embed') : null;
const reducedMotion = window.matchMedia ? window.matchMedia('(prefers-reduced-motion: reduce)') : { matches: false };

const statusEl = $('#status');
const setStatus = (text, kind) => {
  statusEl.hidden = !text;
  setText(statusEl, text || '');
  statusEl.className = 'status' + (kind ? ' ' + kind : '');
};

const ctx = {
  engine: null,
  mlir: false,
  fixtures: {},
  presets: new Map(),
  // Presets that need the live MLIR canonicaliser: {title, base, note} from
  // presets.json; their documents come with mlir/modules.json.
  live: new Map(),
  // Module texts (generic form) of the captured fixtures, from
  // mlir/modules.json, and entry1_b64 → fixture id.
  texts: new Map(),
  textByBytes: new Map(),
  mlirLoad: null,
  tpu: null,
  state: { presetId: DEFAULT_PRESET, patch: {} },
  last: null,
  lastResolved: null,
  baseCache: new Map(),
};

ctx.scenario = () => scenarioOf(ctx.state.presetId, ctx.state.patch);

// --- walk hook: exhibits' own state that rides in the link after the
// scenario ("&step=3&entry=5"): name -> {get: () => string|null, set(value)};
// listeners called with each new comparison; relink() rewrites the link.
ctx.linkState = new Map();
const updateListeners = [];
ctx.onUpdate = (fn) => updateListeners.push(fn);
ctx.relink = () => schedulePermalink();
/** The link's exhibit part, "&name=value…" ('' when there is none). */
const linkExtra = () => [...ctx.linkState].map(([k, v]) => [k, v.get()]).filter(([, v]) => v !== null && v !== undefined)
  .map(([k, v]) => `&${k}=${encodeURIComponent(v)}`).join('');
// An address the page did not write (an in-page anchor, a link that failed
// to open) stays in the address bar until the scenario changes (F16).
let keptHash = '';

/** The captured fixture a preset's module comes from (following "base"). */
ctx.rootFixture = (presetId) => {
  let id = presetId;
  for (let i = 0; i < 8 && id !== undefined; i++) {
    if (ctx.fixtures[id]) return id;
    const p = ctx.presets.get(id);
    id = p && p.doc ? p.doc.base : undefined;
  }
  return undefined;
};

/**
 * The MLIR text (generic form) of a resolved module: its own text, or the
 * bundled text of the fixture whose bytes it carries (hint: preferred
 * fixture ids, for fixtures whose canonical bytes are identical).
 */
ctx.textFor = (module, hints = []) => {
  if (!module) return undefined;
  if (typeof module.text === 'string') return module.text;
  for (const id of hints) {
    if (id && ctx.texts.has(id) && ctx.fixtures[id] && ctx.fixtures[id].module.entry1_b64 === module.entry1_b64) return ctx.texts.get(id);
  }
  const id = ctx.textByBytes.get(module.entry1_b64);
  return id === undefined ? undefined : ctx.texts.get(id);
};

/**
 * The module member of a scenario that feeds entry 1 from text (the engine
 * reads sym_name from the text: a patch giving text drops the base's).
 */
ctx.textModule = (text, includeMetadata) => ({ entry1_b64: null, text, include_metadata: !!includeMetadata });

/**
 * When the perturbed module is text, the baseline's module is computed live
 * from its text too (the preset's fixture text), so that the two entry-1
 * bytes come from the same MLIR and compare like for like. null: the baseline
 * is the preset as it is (captured bytes, or a preset that is text already).
 */
ctx.liveBaselineModule = () => {
  const m = ctx.state.patch.module;
  if (!ctx.mlir || !m || typeof m !== 'object' || typeof m.text !== 'string') return null;
  const base = ctx.baseResolved().module;
  if (!base || typeof base.text === 'string') return null;
  const text = ctx.textFor(base, [ctx.state.presetId, ctx.rootFixture(ctx.state.presetId)]);
  if (text === undefined) return null;
  return ctx.textModule(text, base.include_metadata);
};
ctx.baseline = () => {
  const doc = { schema: 1, base: ctx.state.presetId };
  const m = ctx.liveBaselineModule();
  if (m) doc.module = m;
  return doc;
};
ctx.resolvedOf = (presetId) => {
  if (!ctx.baseCache.has(presetId)) {
    const r = ctx.engine.resolveScenario({ schema: 1, base: presetId });
    ctx.baseCache.set(presetId, r.error ? {} : r);
  }
  return ctx.baseCache.get(presetId);
};
ctx.baseResolved = () => ctx.resolvedOf(ctx.state.presetId);
ctx.resolved = () => ctx.lastResolved || ctx.baseResolved();
/** The engine's description of profile `id` (an id from a result). */
ctx.profileOf = (id) => (ctx.profiles && ctx.profiles.profiles || []).find((p) => p.id === id) || null;

// ------------------------------------------------------------------ update
const E = {};
let lastKey = null;
let announceTimer = 0;
let fullDigests = false;
let tracePrefix = false;

function announce(cmp) {
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    const equal = cmp.a.key === cmp.b.key;
    setText(E.announce, `${equal ? 'Keys equal.' : 'Key changed.'} ${cmp.comparison.sentence} Perturbed key ends in ${cmp.b.key.slice(-8)}.`);
  }, 400);
}

/**
 * Recomputes and redraws. origin: the control that made the change (its
 * fieldset is not re-synced); sync: write the scenario back into controls.
 */
function update({ origin = null, sync = false, announce: forceAnnounce = false } = {}) {
  const t0 = performance.now();
  const liveBase = ctx.liveBaselineModule();
  const cmp = ctx.engine.compareScenarios(ctx.baseline(), ctx.scenario());
  const moduleError = cmp.error && String(cmp.error.path).startsWith('$.module')
    ? `${cmp.error.source === 'a' ? 'baseline ' : ''}${cmp.error.path}: ${cmp.error.message}` : '';
  E.moduleTextError.hidden = !moduleError;
  setText(E.moduleTextError, moduleError ? `The module text cannot be used: ${moduleError}` : '');
  if (cmp.error) {
    E.scenarioError.hidden = false;
    const side = cmp.error.source === 'a' ? 'The baseline' : cmp.error.source === 'b' ? 'The perturbed scenario' : 'This scenario';
    setText(E.scenarioError, `${side} cannot be computed: ${errorText({ ...cmp.error, source: '' })}`);
    E.entries.classList.add('stale');
    // The status beside the controls and the verdict say so too (F5): the
    // last keys shown are not this scenario's.
    setText(E.controlsStatus, `${side} cannot be computed — ${moduleError ? 'see the module text error' : 'see the error above the entries'}`);
    E.controlsStatus.className = 'controls-status error';
    setText(E.verdict, `No key: ${side.toLowerCase()} cannot be computed. The entries below are the last ones computed.`);
    E.verdict.className = 'verdict miss';
    setText(E.sentence, '');
    put(E.details);
    clearTimeout(linkTimer);
    document.documentElement.removeAttribute('data-link-pending');
    updatePermalink(true);
    return false;
  }
  E.scenarioError.hidden = true;
  E.entries.classList.remove('stale');
  ctx.last = cmp;
  const resolved = ctx.engine.resolveScenario(ctx.scenario());
  ctx.lastResolved = resolved.error ? null : resolved;

  const keyChanged = cmp.b.key !== lastKey;
  renderEntries(E.entries, cmp, { full: fullDigests, animate: keyChanged && lastKey !== null && !reducedMotion.matches });
  setText(E.finalKey, cmp.b.key);
  // Where the engine cannot reproduce JAX (a kernel MLIR 19 cannot read), it
  // says so beside the key.
  const notJax = (r) => !!(r.fidelity && r.fidelity.unreadable_kernels > 0);
  $('[data-testid="baseline-key-not-jax"]').hidden = !notJax(cmp.a);
  $('[data-testid="final-key-not-jax"]').hidden = !notJax(cmp.b);
  const why = [cmp.a, cmp.b].filter(notJax).flatMap((r) => r.notes.filter((n) => n.startsWith("Not JAX's key")));
  setText($('[data-testid="not-jax-key"]'), [...new Set(why)].join(' '));
  $('[data-testid="not-jax-key"]').hidden = why.length === 0;
  setText(E.baselineKey, cmp.a.key);
  const equal = cmp.a.key === cmp.b.key;
  const nameOnly = !equal && cmp.a.entries[7].running === cmp.b.entries[7].running;
  setText(E.verdict, equal ? 'The keys are equal: the perturbed run would hit the baseline\u2019s cache entry.'
    : nameOnly ? 'Only the module-name prefix differs; the digests are equal. (In JAX the name is read from the module bytes, so this happens only when a scenario states sym_name separately.)'
      : 'The keys differ: the perturbed run misses the cache and compiles again.');
  E.verdict.className = 'verdict ' + (equal ? 'ok' : 'miss');
  setText(E.sentence, cmp.comparison.sentence);
  const c = cmp.comparison;
  const digest = abbrev(cmp.b.key.split('-').pop(), 12);
  setText(E.controlsStatus, equal ? `Keys equal \u2014 ${digest}` : c.cause > 0 ? `Cause: entry ${c.cause} (${c.cause_name}) \u2014 key ${digest}` : `Only the module name differs \u2014 ${digest}`);
  E.controlsStatus.className = 'controls-status ' + (equal ? 'ok' : 'miss');
  put(E.details, ...(cmp.comparison.details || []).map((d) => el('li', null, d)));
  const meta = ctx.presets.get(ctx.state.presetId);
  setText(E.baselineDesc, `${ctx.state.presetId}${meta ? ' \u2014 ' + meta.title : ''}${meta && meta.derived ? ' (derived)' : ''}${liveBase ? ' \u2014 its module computed live from the preset\u2019s text, like the perturbed one' : ''}`);
  const patchText = Object.keys(ctx.state.patch).length ? 'baseline + ' + describePatch(ctx.state.patch) : `the baseline, unchanged${embed ? '' : ' (change an ingredient in \u201cChange one ingredient\u201d)'}`;
  setText(E.perturbedDesc, patchText);
  setText(E.notes, (cmp.b.notes || []).join(' '));
  renderLiveKeyNote(cmp);

  renderFlags(E.flags, cmp.b, ctx.profileOf(cmp.b.profile));
  E.trace.textContent = traceText(cmp.b.trace, tracePrefix);
  renderControlNotes(cmp.b);
  if (ctx.lastResolved && (sync || origin)) syncControls(ctx.lastResolved, origin);
  schedulePermalink();
  if (keyChanged || forceAnnounce) announce(cmp);
  lastKey = cmp.b.key;
  for (const fn of updateListeners) fn(cmp); // walk hook
  document.documentElement.setAttribute('data-update-ms', (performance.now() - t0).toFixed(2));
  return true;
}

/** Under the keys: which of them use an entry 1 computed in this page. */
function renderLiveKeyNote(cmp) {
  const { producers, a, b } = liveProducers(cmp);
  E.liveKeyNote.hidden = !a && !b;
  setText(E.moduleTextStatus, b ? `Entry 1 of the perturbed scenario is computed live by ${cmp.b.computation.producer}${a ? `, and the baseline\u2019s by ${cmp.a.computation.producer}` : ''}.` : '');
  if (!a && !b) return;
  const who = a && b ? 'Both keys use' : b ? 'The perturbed key uses' : 'The baseline key uses';
  setText(E.liveKeyNote, `${who} an entry 1 computed live in this page by ${producers.join(', ')}. jaxlib\u2019s MLIR is a different version, so these bytes, and the keys, differ from the ones jaxlib computes for the same module: compare them with each other${a && b ? '' : ' only when both are live'}, not with a real JAX key.`);
}

// The link is re-encoded and written to the address bar a moment after the
// last change (history.replaceState is not free, and typing makes many
// changes); data-link-pending is set meanwhile.
let linkTimer = 0;
function schedulePermalink() {
  document.documentElement.setAttribute('data-link-pending', '');
  clearTimeout(linkTimer);
  linkTimer = setTimeout(() => {
    updatePermalink(false);
    document.documentElement.removeAttribute('data-link-pending');
  }, 120);
}

ctx.change = (path, value, origin) => {
  patchValue(ctx.state.patch, ctx.baseResolved(), path, value);
  update({ origin });
};

ctx.apply = (presetId, patch, { focus = false, announce: a = false } = {}) => {
  if (!ctx.presets.has(presetId)) return;
  ctx.state = { presetId, patch: clone(patch || {}) };
  hideLinkError();
  update({ sync: true, announce: a });
  if (focus && !embed) {
    const h = $('#entries-h');
    h.scrollIntoView({ behavior: reducedMotion.matches ? 'auto' : 'smooth', block: 'start' });
    h.focus({ preventScroll: true });
  }
};
ctx.setPreset = async (id) => {
  if (!ctx.presets.has(id) && ctx.live.has(id)) {
    try {
      await ctx.loadMlir();
    } catch {
      syncControls(ctx.resolved(), null);
      return;
    }
  }
  ctx.apply(id, {});
};
ctx.reset = () => ctx.apply(ctx.state.presetId, {});

// ------------------------------------------------------------------ permalinks
function updatePermalink(broken) {
  const doc = ctx.scenario();
  const isDefault = ctx.state.presetId === DEFAULT_PRESET && Object.keys(ctx.state.patch).length === 0;
  E.tooLong.hidden = true;
  if (broken) {
    setText(E.linkInfo, 'No link: the scenario has an error.');
    return;
  }
  if (ctx.presets.get(ctx.state.presetId)?.local) {
    E.permalink.value = '';
    setText(E.linkInfo, 'No link: this scenario\u2019s base is a file you opened, which other browsers do not have. Download the scenario file instead.');
    return;
  }
  const enc = ctx.engine.encodePermalink(doc);
  if (enc.error) {
    setText(E.linkInfo, `No link: ${enc.error.message}`);
    return;
  }
  if (enc.too_long) {
    E.permalink.value = '';
    E.tooLong.hidden = false;
    setText(E.tooLongText, `This scenario needs ${enc.length} characters as a link, more than the ${enc.max_length} this page will put in a URL. Download the scenario file and open it here with “Open a scenario file” instead.`);
    setText(E.linkInfo, '');
    if (!embed) history.replaceState(null, '', location.pathname + location.search);
    return;
  }
  const extra = linkExtra(); // walk hook
  const hash = isDefault ? (extra ? '#' + extra.slice(1) : '') : '#' + enc.fragment + extra;
  if (!isDefault || extra) keptHash = '';
  if (!embed && !keptHash && location.hash !== hash) history.replaceState(null, '', location.pathname + location.search + hash);
  E.permalink.value = new URL('#' + enc.fragment + extra, location.href).href;
  setText(E.linkInfo, `The link is ${E.permalink.value.length} characters (the scenario part: ${enc.length}; limit ${enc.max_length}).`);
}

function showLinkError(message) {
  E.linkError.hidden = false;
  const dismiss = el('button', { type: 'button', class: 'small secondary dismiss' }, 'Dismiss');
  dismiss.addEventListener('click', hideLinkError);
  put(E.linkError, el('strong', null, 'This link could not be opened. '), message, ' The page shows the default scenario instead. ', dismiss);
}
function hideLinkError() {
  E.linkError.hidden = true;
}

/** The id of a preset that needs MLIR, when an engine error names it as unknown. */
function unknownLiveBase(error) {
  const id = error && error.code === 'unknown_fixture' ? error.subject : null;
  return id && ctx.live.has(id) && !ctx.presets.has(id) ? id : null;
}

/** Whether a scenario document needs the live MLIR canonicaliser. */
function needsMlir(doc) {
  if (ctx.mlir) return false;
  const r = ctx.engine.resolveScenario(doc);
  if (r.error) return !!unknownLiveBase(r.error);
  return !!(r.module && typeof r.module.text === 'string');
}

/** Opens the scenario in location.hash, if there is one. */
async function applyHash() {
  // walk hook: "&name=value" parts after the scenario are exhibits' state.
  const parts = location.hash.split('&');
  const extras = [];
  if (/^#[a-z]+=/.test(parts[0]) && ctx.linkState.has(parts[0].slice(1).split('=')[0])) extras.push(parts.shift().slice(1));
  extras.push(...parts.slice(1));
  for (const kv of extras) {
    const [k, v = ''] = kv.split('=');
    const st = ctx.linkState.get(k);
    if (st) { try { st.set(decodeURIComponent(v)); } catch { /* a malformed part is ignored */ } }
  }
  const h = parts[0] || '';
  if (!h || h === '#') return false;
  let id = h.slice(1);
  try { id = decodeURIComponent(id); } catch { /* keep raw */ }
  if (id.length < 200 && document.getElementById(id)) { // an in-page anchor
    keptHash = location.hash;
    return false;
  }
  let r = ctx.engine.decodePermalink(h);
  // A link whose base is a preset that needs MLIR: the engine without MLIR
  // does not know that preset; the engine with MLIR does.
  if (r && r.error && unknownLiveBase(r.error)) {
    const loaded = await loadMlirFor('link');
    if (loaded !== true) return failLink(loaded);
    r = ctx.engine.decodePermalink(h);
  }
  if (!r || r.error || !r.scenario || typeof r.scenario !== 'object') {
    const e = (r && r.error) || { message: 'unreadable link' };
    return failLink(`${e.path ? e.path + ': ' : ''}${e.message}.`);
  }
  if (needsMlir(r.scenario)) {
    const loaded = await loadMlirFor('link');
    if (loaded !== true) return failLink(loaded);
  }
  return openScenario(r.scenario, 'link');
}

function failLink(message) {
  keptHash = location.hash; // the reader can see and fix what they opened (F16)
  ctx.state = { presetId: DEFAULT_PRESET, patch: {} };
  update({ sync: true });
  showLinkError(message);
  return true;
}

/**
 * Loads the MLIR module for a link or a file that needs it. Returns true, or
 * the message to show.
 */
async function loadMlirFor(what) {
  setStatus(`Loading the live MLIR canonicaliser: this ${what}\u2019s module is MLIR text.`);
  try {
    await ctx.loadMlir();
    setStatus('');
    return true;
  } catch (e) {
    setStatus('');
    return `This ${what}\u2019s module is MLIR text, which needs the live MLIR canonicaliser, and it could not be loaded (${e.message}).`;
  }
}

/** Opens a validated scenario document (from a link or a file). */
function openScenario(doc, from) {
  const { base, patch } = splitScenario(doc);
  {
    if (typeof base === 'string' && ctx.presets.has(base)) {
      ctx.state = { presetId: base, patch };
    } else {
      // A complete scenario without a known base: it becomes its own baseline.
      const id = 'opened_file';
      const reg = ctx.engine.registerFixture(id, doc);
      if (reg.error) {
        showLinkError(`${errorText(reg.error)}.`);
        return false;
      }
      ctx.openedDoc = doc;
      ctx.baseCache.delete(id);
      ctx.presets.set(id, { id, title: 'the scenario you opened', derived: true, local: true, note: 'a complete scenario from a ' + from });
      ensurePresetOption(id);
      ctx.state = { presetId: id, patch: {} };
    }
    hideLinkError();
    update({ sync: true, announce: true });
  }
  return true;
}

function ensurePresetOption(id) {
  const sel = $('#preset');
  if (!sel.querySelector(`option[value="${CSS.escape(id)}"]`)) sel.append(el('option', { value: id }, `${id} — ${ctx.presets.get(id).title}`));
}

// ------------------------------------------------------------------ files
function downloadScenario() {
  const blob = new Blob([JSON.stringify(ctx.scenario(), null, 2) + '\n'], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: `cachekey-scenario-${ctx.state.presetId}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Base64 (RFC 4648) of a byte array, in chunks small enough for apply(). */
function bytesToBase64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * A scenario document from one chosen file: JSON, schema 1, and for a
 * captured file (capture.format) its entry-1 sidecar taken from `others`
 * (the files chosen with it). Returns {doc} or {error}.
 */
async function readScenarioFile(file, others) {
  if (file.size > 8 << 20) return { error: `the file is ${file.size} bytes; a scenario file is at most 8 MiB` };
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch (e) {
    return { error: `the file is not JSON (${e.message})` };
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return { error: 'a scenario is a JSON object' };
  if (doc.schema !== 1) return { error: `$.schema: ${doc.schema === undefined ? 'missing' : 'unsupported version ' + JSON.stringify(doc.schema)} (this page reads schema 1)` };
  const e1 = doc.capture && doc.capture.entry1;
  if (e1 && e1.storage === 'omitted') return { error: 'this capture keeps only the digest of entry 1 (--no-entry1-bytes); compare such captures with cachekey diff DIR_A DIR_B' };
  if (e1 && e1.storage === 'sidecar') {
    if (e1.encoding !== 'raw') return { error: `its entry 1 is in a compressed sidecar (${e1.file}); open it with cachekey explain or cachekey diff` };
    const side = others.find((f) => f.name === e1.file);
    if (!side) return { error: `its entry 1 is in ${e1.file}: choose that file too` };
    doc.module = { ...doc.module, entry1_b64: bytesToBase64(new Uint8Array(await side.arrayBuffer())) };
  }
  return { doc };
}

/** Whether the engine's key for a captured `doc` is the key real JAX logged. */
function captureCheck(doc, key) {
  const real = doc.capture && doc.expected && doc.expected.key;
  if (!real) return '';
  return real === key ? ' The engine\u2019s key equals the key real JAX computed.' : ` Not the key real JAX computed (${real}): the engine does not reproduce this capture.`;
}

async function uploadScenario(fileList) {
  const say = (t) => setText(E.uploadStatus, t);
  const files = [...(fileList || [])];
  // Sidecars (entry-1 bytes, module text) travel with their scenario file.
  const sidecar = (f) => /\.(entry1|entry1\.zst|mlir)$/i.test(f.name);
  const scenarios = files.filter((f) => !sidecar(f) && f.name !== 'index.json');
  if (scenarios.length === 0) { if (files.length) say('Not opened: choose a scenario .json file (with its sidecars).'); return; }
  if (scenarios.length > 2) { say(`Not opened: ${scenarios.length} scenario files; choose one, or two to compare.`); return; }
  const read = [];
  for (const f of scenarios) {
    const r = await readScenarioFile(f, files);
    if (r.error) { say(`Not opened: ${f.name}: ${r.error}.`); return; }
    read.push(r.doc);
  }
  if (read.some(needsMlir)) {
    say('Loading the live MLIR canonicaliser: this file\u2019s module is MLIR text\u2026');
    const loaded = await loadMlirFor('file');
    if (loaded !== true) { say(`Not opened: ${loaded}`); return; }
  }
  const keys = [];
  for (let i = 0; i < read.length; ++i) {
    const r = ctx.engine.computeKey(read[i]);
    if (r.error) { say(`Not opened: ${scenarios[i].name}: ${errorText(r.error)}`); return; }
    keys.push(r.key);
  }
  if (read.length === 1) {
    if (!openScenario(read[0], 'file')) return;
    say(`Opened ${scenarios[0].name}: key ${keys[0]}.${captureCheck(read[0], keys[0])}`);
    return;
  }
  // Two files: the first is the baseline, the second a patch over it.
  if (!openScenario(read[0], 'file')) return;
  ctx.state = { presetId: ctx.state.presetId, patch: mergePatchFrom(read[0], read[1]) };
  update({ sync: true, announce: true });
  say(`Opened ${scenarios[0].name} (baseline, key ${keys[0]}) and ${scenarios[1].name} (compared, key ${keys[1]}).` +
    captureCheck(read[0], keys[0]) + captureCheck(read[1], keys[1]));
}

// ------------------------------------------------------------------ MLIR
// The engine with the live MLIR canonicaliser (mlir/, about 0.7 MB gzipped)
// and the module texts (mlir/modules.json) are loaded together, only when
// the user opens the module text editor, picks a preset or case that needs
// them, or opens a link or file whose module is text. Never on first view.
ctx.loadMlir = () => {
  if (!ctx.mlirLoad) {
    ctx.mlirLoad = loadMlirOnce().catch((e) => {
      ctx.mlirLoad = null; // a later click may try again
      document.documentElement.setAttribute('data-mlir', 'failed');
      mlirFailed(e);
      throw e;
    });
  }
  return ctx.mlirLoad;
};

async function loadMlirOnce() {
  document.documentElement.setAttribute('data-mlir', 'loading');
  const src = 'mlir/cachekey_engine_mlir.js';
  const script = globalThis.createCacheKeyEngineMlir ? Promise.resolve() : new Promise((res, rej) => {
    const s = el('script', { src });
    s.addEventListener('load', res);
    s.addEventListener('error', () => { s.remove(); rej(new Error(`${src} could not be loaded`)); });
    document.head.append(s);
  });
  const [, modules] = await Promise.all([script, fetchJson('mlir/modules.json')]);
  const factory = globalThis.createCacheKeyEngineMlir;
  if (typeof factory !== 'function') throw new Error(`${src} did not define createCacheKeyEngineMlir`);
  const eng = await CacheKeyEngine.load({ factory, baseUrl: 'mlir/' });
  if (!eng.version().mlir) throw new Error('the module reports no MLIR');
  for (const [id, fx] of Object.entries(ctx.fixtures)) eng.registerFixture(id, fx);
  for (const p of ctx.presets.values()) if (p.doc && !p.local) eng.registerFixture(p.id, p.doc);
  if (ctx.presets.has('opened_file') && ctx.openedDoc) eng.registerFixture('opened_file', ctx.openedDoc);
  const live = (modules && modules.live) || {};
  for (const [id, doc] of Object.entries(live)) {
    if (!ctx.live.has(id) || eng.registerFixture(id, doc).error) continue;
    const prov = doc.provenance || {};
    ctx.presets.set(id, { id, title: doc.title || id, derived: true, live: true, note: prov.note || '', doc, stand_in: !!prov.stand_in });
  }
  for (const [id, text] of Object.entries((modules && modules.texts) || {})) {
    if (typeof text !== 'string' || !ctx.fixtures[id]) continue;
    ctx.texts.set(id, text);
    const b64 = ctx.fixtures[id].module.entry1_b64;
    if (!ctx.textByBytes.has(b64)) ctx.textByBytes.set(b64, id);
  }
  ctx.engine = eng;
  ctx.mlir = true;
  ctx.baseCache.clear();
  document.documentElement.setAttribute('data-mlir', 'ready');
  mlirReady();
  const v = eng.version();
  setText($('#about-engine'), `Engine: ${v.engine}; scenario schema ${v.schema}; profiles ${v.profiles.join(', ')}; live MLIR: ${v.mlir ? 'loaded' : 'no'}. ${Object.keys(ctx.fixtures).length} captured presets.`);
}

/**
 * Opens the module text editor: loads MLIR, then feeds entry 1 of the
 * perturbed scenario from the text of its module (and the baseline's from
 * the preset's text), so that both are computed the same way.
 */
ctx.openEditor = async () => {
  try {
    await ctx.loadMlir();
  } catch {
    return false;
  }
  const r = ctx.resolved();
  if (r.module && typeof r.module.text !== 'string') {
    const text = ctx.textFor(r.module, [ctx.state.presetId, ctx.rootFixture(ctx.state.presetId)]);
    if (text !== undefined) patchValue(ctx.state.patch, ctx.baseResolved(), ['module'], ctx.textModule(text, r.module.include_metadata));
  }
  update({ sync: true });
  return true;
};

// ------------------------------------------------------------------ logs
ctx.loadExampleLogs = (focus) => {
  const log = (id) => ((ctx.fixtures[id] && ctx.fixtures[id].capture && ctx.fixtures[id].capture.debug_log_formatted) || []).join('\n');
  setLogFile(E.logs, 'a', null);
  setLogFile(E.logs, 'b', null);
  E.logs.a.value = log('add_1x1');
  E.logs.b.value = log('mul_2x2');
  compareLogsUi(ctx.engine, E.logs);
  if (focus && !embed) {
    $('#exhibit-logs').scrollIntoView({ behavior: reducedMotion.matches ? 'auto' : 'smooth' });
    E.logs.a.focus({ preventScroll: true });
  }
};

// ------------------------------------------------------------------ embed
function setupEmbed() {
  document.body.classList.add('embed');
  const known = EXHIBITS.includes(embed);
  for (const n of $$('.chrome, .skip')) n.hidden = true;
  for (const s of $$('[data-exhibit]')) s.hidden = known && s.getAttribute('data-exhibit') !== embed;
  if (!known) {
    for (const s of $$('[data-exhibit]')) s.hidden = true;
    setStatus(`Unknown exhibit “${String(embed).slice(0, 40)}”: use ?embed=entries, walk, flags, trace or logs.`, 'error');
  }
  if (embed === 'flags') {
    const fs = $('#flags-fieldset');
    $('#flags-embed-slot').append(fs);
  }
  const post = () => {
    const h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (window.parent && window.parent !== window) window.parent.postMessage({ type: 'cachekey-embed-height', height: h }, '*');
  };
  if (window.ResizeObserver) new ResizeObserver(post).observe(document.body);
  window.addEventListener('resize', post);
  window.addEventListener('load', post);
  post();
  return post;
}

// ------------------------------------------------------------------ boot
async function fetchJson(url) {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return r.json();
}

async function boot() {
  const t0 = performance.now();
  Object.assign(E, {
    entries: $('#entries'), finalKey: $('#final-key'), baselineKey: $('#baseline-key'), verdict: $('#keys-verdict'),
    sentence: $('#sentence'), details: $('#details'), baselineDesc: $('#baseline-desc'), perturbedDesc: $('#perturbed-desc'),
    notes: $('#notes'), announce: $('#announce'), controlsStatus: $('#controls-status'), scenarioError: $('#scenario-error'), trace: $('#trace'),
    permalink: $('#permalink'), linkInfo: $('#link-info'), tooLong: $('#too-long'), tooLongText: $('#too-long-text'),
    linkError: $('#link-error'), uploadStatus: $('#upload-status'),
    liveKeyNote: $('#live-key-note'), moduleTextError: $('#module-text-error'), moduleTextStatus: $('#module-text-status'),
    flags: {
      collected: $('#flags-collected'), tbody: $('#flags-tbody'), empty: $('#flags-empty'), bytes: $('#flags-bytes'),
      digest: $('#flags-digest'), exclCount: $('#excl-count'), exclProfile: $('#excl-profile'), exclList: $('#excl-list'),
    },
    logs: {
      root: $('#exhibit-logs'), a: $('#log-a'), b: $('#log-b'), sentence: $('#logs-sentence'), summary: $('#logs-summary'),
      notes: $('#logs-notes'), error: $('#logs-error'), status: $('#logs-status'), table: $('#logs-table'), tbody: $('#logs-tbody'),
      pairCaption: $('#logs-pair'), programs: $('#logs-programs'), programsBody: $('#logs-programs-tbody'),
      programsCaption: $('#logs-programs-caption'),
      file: { a: $('#log-file-a'), b: $('#log-file-b') }, fileName: { a: $('#log-file-a-name'), b: $('#log-file-b-name') },
      drop: { a: $('#log-drop-a'), b: $('#log-drop-b') },
    },
  });
  const postHeight = embed !== null ? setupEmbed() : null;

  let presets;
  try {
    const [engine, p, tpu] = await Promise.all([
      CacheKeyEngine.load({ baseUrl: './' }),
      fetchJson('presets.json'),
      fetchJson('tpu_topologies.json').catch(() => null),
    ]);
    ctx.engine = engine;
    presets = p;
    ctx.tpu = tpu;
  } catch (e) {
    setStatus('The key engine could not be loaded: ' + e.message, 'error');
    return;
  }
  const v = ctx.engine.version();
  ctx.mlir = !!v.mlir;
  // The releases and their rules, as the engine knows them (never copied here).
  ctx.profiles = ctx.engine.profiles();
  for (const [id, fx] of Object.entries(presets.fixtures || {})) {
    const r = ctx.engine.registerFixture(id, fx);
    if (r.error) continue;
    ctx.fixtures[id] = fx;
    const prov = fx.provenance || {};
    ctx.presets.set(id, { id, title: fx.title || id, derived: false, provenance: `jax ${prov.jax || '?'}${prov.libtpu ? `, libtpu ${prov.libtpu}, TPU topology ${prov.topology} without a TPU` : ''}, ${prov.date ? prov.date.slice(0, 10) : ''}` });
  }
  // Derived presets are fixtures too (fixtures/derived/: a patch over a
  // captured fixture), so the CLI resolves links that name them.
  for (const [id, doc] of Object.entries(presets.derived || {})) {
    if (!ctx.presets.has(doc.base) || ctx.engine.registerFixture(id, doc).error) continue;
    const prov = doc.provenance || {};
    ctx.presets.set(id, { id, title: doc.title || id, derived: true, note: prov.note || '', doc, stand_in: !!prov.stand_in });
  }
  for (const [id, stub] of Object.entries(presets.live || {})) {
    if (stub && typeof stub === 'object' && !ctx.presets.has(id)) ctx.live.set(id, { id, title: String(stub.title || id), note: String(stub.note || '') });
  }
  if (!ctx.presets.has(DEFAULT_PRESET)) {
    setStatus('presets.json has no add_1x1 fixture; the page cannot show its default scenario.', 'error');
    return;
  }

  buildEntries(E.entries);
  setupControls(ctx);
  // walk hook: the code walk, the pipeline picture, the flag-filter player
  const walk = setupWalk(ctx, $('#walk'));
  ctx.onUpdate((cmp) => walk.render(cmp));
  ctx.onUpdate((cmp) => renderPipeline($('#pipeline'), cmp));
  const flagPlay = setupFlagPlay(ctx, $('#exhibit-flags'));
  ctx.onUpdate((cmp) => flagPlay.render(cmp));

  $('#full-digests').addEventListener('change', (e) => { fullDigests = e.target.checked; update(); });
  $('#trace-prefix').addEventListener('change', (e) => { tracePrefix = e.target.checked; update(); });
  $('#copy-trace').addEventListener('click', () => copyText(E.trace.textContent, $('#copy-trace-status'), 'Trace copied.'));
  $('#copy-link').addEventListener('click', () => copyText(E.permalink.value, E.linkInfo, 'Link copied.'));
  $('#download-scenario').addEventListener('click', downloadScenario);
  $('#upload-scenario').addEventListener('change', (e) => { uploadScenario(e.target.files).finally(() => { e.target.value = ''; }); });
  $('#logs-compare').addEventListener('click', () => compareLogsUi(ctx.engine, E.logs));
  $('#logs-example').addEventListener('click', () => ctx.loadExampleLogs(false));
  $('#logs-clear').addEventListener('click', () => clearLogs(E.logs));
  // A chosen or dropped file compares at once when the other side is there.
  setupLogInputs(E.logs, () => {
    const ready = (side) => E.logs.file[side].files.length || E.logs[side].value.trim() || E.logs.fileName[side].textContent;
    if (ready('a') && ready('b')) compareLogsUi(ctx.engine, E.logs);
  });
  window.addEventListener('hashchange', () => { applyHash(); });
  // In-page links scroll and move focus without replacing the scenario link
  // in the address bar.
  document.addEventListener('click', (e) => {
    const a = e.target.closest && e.target.closest('a[href^="#"]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const target = document.getElementById(a.getAttribute('href').slice(1));
    if (!target) return;
    e.preventDefault();
    if (!target.hasAttribute('tabindex') && !/^(INPUT|SELECT|TEXTAREA|BUTTON|A)$/.test(target.tagName)) target.setAttribute('tabindex', '-1');
    target.scrollIntoView({ behavior: reducedMotion.matches ? 'auto' : 'smooth', block: 'start' });
    target.focus({ preventScroll: true });
  });

  if (!(await applyHash())) update({ sync: true });
  if (embed === null) {
    renderCases(ctx, $('#cases-list'));
    renderQuestions(ctx, $('#questions-list'));
    setText($('#about-engine'), `Engine: ${v.engine}; scenario schema ${v.schema}; profiles ${v.profiles.join(', ')}; live MLIR: ${v.mlir ? 'yes' : 'no'}. ${presets && Object.keys(ctx.fixtures).length} captured presets.`);
  }
  if (embed === null || EXHIBITS.includes(embed)) setStatus('');
  document.documentElement.setAttribute('data-ready', 'true');
  document.documentElement.setAttribute('data-boot-ms', String(Math.round(performance.now() - t0)));
  document.documentElement.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  if (postHeight) postHeight();
}

async function copyText(text, statusNode, ok) {
  try {
    await navigator.clipboard.writeText(text);
    setText(statusNode, ok);
  } catch {
    setText(statusNode, 'Copying was refused by the browser; select the text and copy it by hand.');
  }
}

window.addEventListener('error', (e) => setStatus('Something went wrong: ' + (e.message || 'unknown error'), 'error'));
boot().catch((e) => setStatus('The page failed to start: ' + e.message, 'error'));

export { ctx, update, abbrev };
