// The page: loads the engine (cachekey_engine.js was loaded by a classic
// <script> before this module), registers every captured fixture as a
// scenario base, and renders the baseline and the perturbed scenario side by
// side. State is one thing: a preset id and a JSON merge patch over it.
import { CacheKeyEngine } from './engine.mjs';
import { el, put, $, $$, setText } from './dom.mjs';
import { patchValue, scenarioOf, splitScenario, describePatch, clone, abbrev } from './state.mjs';
import { buildEntries, renderEntries } from './entries.mjs';
import { setupControls, syncControls, renderControlNotes } from './controls.mjs';
import { renderFlags } from './flags.mjs';
import { traceText, compareLogsUi } from './logs.mjs';
import { renderCases, renderQuestions } from './extras.mjs';

const DEFAULT_PRESET = 'add_1x1';
const EXHIBITS = ['entries', 'flags', 'trace', 'logs'];
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
  tpu: null,
  state: { presetId: DEFAULT_PRESET, patch: {} },
  last: null,
  lastResolved: null,
  baseCache: new Map(),
};

ctx.scenario = () => scenarioOf(ctx.state.presetId, ctx.state.patch);
ctx.baseline = () => ({ schema: 1, base: ctx.state.presetId });
ctx.resolvedOf = (presetId) => {
  if (!ctx.baseCache.has(presetId)) {
    const r = ctx.engine.resolveScenario({ schema: 1, base: presetId });
    ctx.baseCache.set(presetId, r.error ? {} : r);
  }
  return ctx.baseCache.get(presetId);
};
ctx.baseResolved = () => ctx.resolvedOf(ctx.state.presetId);
ctx.resolved = () => ctx.lastResolved || ctx.baseResolved();

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
  const cmp = ctx.engine.compareScenarios(ctx.baseline(), ctx.scenario());
  if (cmp.error) {
    E.scenarioError.hidden = false;
    setText(E.scenarioError, `This scenario cannot be computed: ${cmp.error.path}: ${cmp.error.message}`);
    E.entries.classList.add('stale');
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
  setText(E.baselineDesc, `${ctx.state.presetId}${meta ? ' \u2014 ' + meta.title : ''}${meta && meta.derived ? ' (derived)' : ''}`);
  const patchText = Object.keys(ctx.state.patch).length ? 'baseline + ' + describePatch(ctx.state.patch) : 'the baseline, unchanged (change an ingredient below)';
  setText(E.perturbedDesc, patchText);
  setText(E.notes, (cmp.b.notes || []).join(' '));

  renderFlags(E.flags, cmp.b, ctx.lastResolved);
  E.trace.textContent = traceText(cmp.b.trace, tracePrefix);
  renderControlNotes(cmp.b);
  if (ctx.lastResolved && (sync || origin)) syncControls(ctx.lastResolved, origin);
  schedulePermalink();
  if (keyChanged || forceAnnounce) announce(cmp);
  lastKey = cmp.b.key;
  document.documentElement.setAttribute('data-update-ms', (performance.now() - t0).toFixed(2));
  return true;
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
ctx.setPreset = (id) => ctx.apply(id, {});
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
  const hash = isDefault ? '' : '#' + enc.fragment;
  if (!embed && location.hash !== hash) history.replaceState(null, '', location.pathname + location.search + hash);
  E.permalink.value = new URL('#' + enc.fragment, location.href).href;
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

/** Opens the scenario in location.hash, if there is one. */
function applyHash() {
  const h = location.hash;
  if (!h || h === '#') return false;
  let id = h.slice(1);
  try { id = decodeURIComponent(id); } catch { /* keep raw */ }
  if (id.length < 200 && document.getElementById(id)) return false; // an in-page anchor
  let r = ctx.engine.decodePermalink(h);
  // The engine lets a patch inherit "schema" from its base; a link must say
  // which version it is written in.
  if (r && r.scenario && r.scenario.schema === undefined) r = { error: { path: 'permalink $.schema', message: 'missing: the link does not say which scenario version it uses (this page reads schema 1)' } };
  if (!r || r.error || !r.scenario || typeof r.scenario !== 'object') {
    const e = (r && r.error) || { message: 'unreadable link' };
    ctx.state = { presetId: DEFAULT_PRESET, patch: {} };
    update({ sync: true });
    showLinkError(`${e.path ? e.path + ': ' : ''}${e.message}.`);
    return true;
  }
  return openScenario(r.scenario, 'link');
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
        showLinkError(`${reg.error.path}: ${reg.error.message}.`);
        return false;
      }
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

async function uploadScenario(file) {
  const say = (t) => setText(E.uploadStatus, t);
  if (!file) return;
  if (file.size > 8 << 20) { say(`Not opened: the file is ${file.size} bytes; a scenario file is at most 8 MiB.`); return; }
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch (e) {
    say(`Not opened: the file is not JSON (${e.message}).`);
    return;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) { say('Not opened: a scenario is a JSON object.'); return; }
  if (doc.schema !== 1) { say(`Not opened: $.schema: ${doc.schema === undefined ? 'missing' : 'unsupported version ' + JSON.stringify(doc.schema)} (this page reads schema 1).`); return; }
  const r = ctx.engine.computeKey(doc);
  if (r.error) { say(`Not opened: ${r.error.path}: ${r.error.message}`); return; }
  openScenario(doc, 'file');
  say(`Opened ${file.name}: key ${r.key}.`);
}

// ------------------------------------------------------------------ MLIR
ctx.loadMlir = async () => {
  const why = $('#module-text-why');
  const src = 'mlir/cachekey_engine_mlir.js';
  try {
    const head = await fetch(src, { method: 'HEAD' });
    if (!head.ok) throw new Error('not built');
    await new Promise((res, rej) => {
      const s = el('script', { src });
      s.addEventListener('load', res);
      s.addEventListener('error', () => rej(new Error('failed to load')));
      document.head.append(s);
    });
    const factory = globalThis.createCacheKeyEngineMlir;
    const eng = await CacheKeyEngine.load({ factory, baseUrl: 'mlir/' });
    if (!eng.version().mlir) throw new Error('the module reports no MLIR');
    for (const [id, fx] of Object.entries(ctx.fixtures)) eng.registerFixture(id, fx);
    for (const p of ctx.presets.values()) if (p.doc) eng.registerFixture(p.id, p.doc);
    ctx.engine = eng;
    ctx.mlir = true;
    $('#module-text').disabled = false;
    $('#load-mlir').hidden = true;
    setText(why, 'Live MLIR loaded. Text is canonicalised in the browser; its bytecode comes from a different MLIR release than jaxlib\u2019s, so compare text with text.');
    update({ sync: true });
  } catch (e) {
    setText(why, 'The live MLIR canonicaliser is not part of this site (' + e.message + '). It is built separately (scripts/build-mlir-wasm) and served from mlir/cachekey_engine_mlir.js. Until then the presets\u2019 captured bytes are the only way to feed entry 1.');
  }
};

// ------------------------------------------------------------------ logs
ctx.loadExampleLogs = (focus) => {
  const log = (id) => ((ctx.fixtures[id] && ctx.fixtures[id].capture && ctx.fixtures[id].capture.debug_log_formatted) || []).join('\n');
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
    setStatus(`Unknown exhibit “${String(embed).slice(0, 40)}”: use ?embed=entries, flags, trace or logs.`, 'error');
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
async function boot() {
  const t0 = performance.now();
  Object.assign(E, {
    entries: $('#entries'), finalKey: $('#final-key'), baselineKey: $('#baseline-key'), verdict: $('#keys-verdict'),
    sentence: $('#sentence'), details: $('#details'), baselineDesc: $('#baseline-desc'), perturbedDesc: $('#perturbed-desc'),
    notes: $('#notes'), announce: $('#announce'), controlsStatus: $('#controls-status'), scenarioError: $('#scenario-error'), trace: $('#trace'),
    permalink: $('#permalink'), linkInfo: $('#link-info'), tooLong: $('#too-long'), tooLongText: $('#too-long-text'),
    linkError: $('#link-error'), uploadStatus: $('#upload-status'),
    flags: {
      collected: $('#flags-collected'), tbody: $('#flags-tbody'), empty: $('#flags-empty'), bytes: $('#flags-bytes'),
      digest: $('#flags-digest'), exclCount: $('#excl-count'), exclProfile: $('#excl-profile'), exclList: $('#excl-list'),
    },
    logs: {
      a: $('#log-a'), b: $('#log-b'), sentence: $('#logs-sentence'), error: $('#logs-error'), table: $('#logs-table'), tbody: $('#logs-tbody'),
    },
  });
  const postHeight = embed !== null ? setupEmbed() : null;

  const fetchJson = async (url) => {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return r.json();
  };
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
  for (const [id, fx] of Object.entries(presets.fixtures || {})) {
    const r = ctx.engine.registerFixture(id, fx);
    if (r.error) continue;
    ctx.fixtures[id] = fx;
    const prov = fx.provenance || {};
    ctx.presets.set(id, { id, title: fx.title || id, derived: false, provenance: `jax ${prov.jax || '?'}, ${prov.date ? prov.date.slice(0, 10) : ''}` });
  }
  // Derived presets are fixtures too (fixtures/derived/: a patch over a
  // captured fixture), so the CLI resolves links that name them.
  for (const [id, doc] of Object.entries(presets.derived || {})) {
    if (!ctx.presets.has(doc.base) || ctx.engine.registerFixture(id, doc).error) continue;
    const prov = doc.provenance || {};
    ctx.presets.set(id, { id, title: doc.title || id, derived: true, note: prov.note || '', doc, stand_in: !!prov.stand_in });
  }
  if (!ctx.presets.has(DEFAULT_PRESET)) {
    setStatus('presets.json has no add_1x1 fixture; the page cannot show its default scenario.', 'error');
    return;
  }

  buildEntries(E.entries);
  setupControls(ctx);

  $('#full-digests').addEventListener('change', (e) => { fullDigests = e.target.checked; update(); });
  $('#trace-prefix').addEventListener('change', (e) => { tracePrefix = e.target.checked; update(); });
  $('#copy-trace').addEventListener('click', () => copyText(E.trace.textContent, $('#copy-trace-status'), 'Trace copied.'));
  $('#copy-link').addEventListener('click', () => copyText(E.permalink.value, E.linkInfo, 'Link copied.'));
  $('#download-scenario').addEventListener('click', downloadScenario);
  $('#upload-scenario').addEventListener('change', (e) => { uploadScenario(e.target.files[0]); e.target.value = ''; });
  $('#logs-compare').addEventListener('click', () => compareLogsUi(ctx.engine, E.logs));
  $('#logs-example').addEventListener('click', () => ctx.loadExampleLogs(false));
  $('#logs-clear').addEventListener('click', () => {
    E.logs.a.value = '';
    E.logs.b.value = '';
    for (const n of [E.logs.sentence, E.logs.error, E.logs.table]) n.hidden = true;
  });
  window.addEventListener('hashchange', () => applyHash());
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

  if (!applyHash()) update({ sync: true });
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
