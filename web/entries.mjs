// @ts-check
// Exhibit 1: the eight entries in JAX's order, baseline and perturbed side by
// side, with the cause and its consequences marked; under them both keys,
// the verdict and the engine's sentence. Renders from the store.
import { el, put, $, setText, setAttr, link, reducedMotion } from './dom.mjs';
import { entrySource, UPSTREAM, upstreamUrl } from './data.mjs';
import { abbrev, describePatch } from './state.mjs';
import { errorText } from './engine.mjs';
import { inEmbed } from './embed.mjs';

const rows = [];
let flip = false;

function digestCell(cls, who) {
  const code = el('code', { class: 'dg ' + cls });
  return el('span', { class: 'dcell' }, el('span', { class: 'visually-hidden' }, who + ': '), code);
}

/**
 * One row per entry (`count`: the engine's, catalog.entryCount).
 * @param {Element} list
 * @param {number} count
 */
export function buildEntries(list, count) {
  list.replaceChildren();
  for (let i = 1; i <= count; i++) {
    const src = entrySource(i);
    const li = el('li', { class: 'entry', 'data-testid': `entry-${i}`, 'data-role': 'same' },
      el('div', { class: 'entry-head' },
        el('span', { class: 'idx', 'aria-hidden': 'true' }, String(i)),
        el('h3', { class: 'entry-name' }, el('span', { class: 'visually-hidden' }, `Entry ${i}: `), el('span', { class: 'nm' })),
        el('span', { class: 'badge role-same role-badge' }, 'same'),
        el('span', { class: 'badge stand-in', hidden: true }, 'stand-in'),
        i === 1 ? el('span', { class: 'badge live', 'data-testid': 'entry1-live-badge', hidden: true }) : null,
        el('span', { class: 'spacer' }),
        link(upstreamUrl(src), [el('code', { class: 'fn' }, UPSTREAM[src].label), ' \u2197'])),
      el('p', { class: 'entry-summary' }),
      i === 1 ? el('p', { class: 'entry-live', 'data-testid': 'entry1-live', hidden: true }) : null,
      el('p', { class: 'entry-bytes' },
        el('span', { class: 'len' }), ' ',
        el('code', { class: 'hex' }),
        el('span', { class: 'hex-base', hidden: true }, ' (baseline: ', el('code', { class: 'hex-a' }), ')')),
      el('p', { class: 'entry-parts hint', hidden: true }),
      el('div', { class: 'digests' },
        el('span', { 'aria-hidden': 'true' }), el('span', { class: 'colh', 'aria-hidden': 'true' }, 'baseline'), el('span', { class: 'colh', 'aria-hidden': 'true' }, 'perturbed'),
        el('span', { class: 'colh2', 'aria-hidden': 'true' }), el('span', { class: 'colh colh2', 'aria-hidden': 'true' }, 'baseline'), el('span', { class: 'colh colh2', 'aria-hidden': 'true' }, 'perturbed'),
        el('span', { class: 'dlabel' }, 'own digest'), digestCell('d-a', 'baseline'), digestCell('d-b', 'perturbed'),
        el('span', { class: 'dlabel dlabel2' }, 'running'), digestCell('r-a', 'baseline'), digestCell('r-b', 'perturbed')),
      el('p', { class: 'also hint', hidden: true }, 'Its own digest differs too: another ingredient moved as well.'));
    list.append(li);
    rows.push({
      li,
      nm: li.querySelector('.nm'),
      badge: li.querySelector('.role-badge'),
      standIn: li.querySelector('.stand-in'),
      liveBadge: li.querySelector('.badge.live'),
      live: li.querySelector('.entry-live'),
      summary: li.querySelector('.entry-summary'),
      len: li.querySelector('.len'),
      hex: li.querySelector('.hex'),
      hexBase: li.querySelector('.hex-base'),
      hexA: li.querySelector('.hex-a'),
      parts: li.querySelector('.entry-parts'),
      da: li.querySelector('.d-a'), db: li.querySelector('.d-b'),
      ra: li.querySelector('.r-a'), rb: li.querySelector('.r-b'),
      also: li.querySelector('.also'),
      source: li.querySelector('.entry-head a'),
      src,
    });
  }
}

function setDigest(code, hex, full, differs) {
  // An entry the release does not hash has no digest of its own (the engine
  // sends ""): nothing is shown that JAX does not compute.
  setText(code, hex === '' ? 'none (not hashed)' : full ? hex : abbrev(hex));
  setAttr(code, 'title', hex === '' ? 'JAX computes no digest for an entry this release does not hash' : hex);
  code.classList.toggle('differs', differs);
}

/**
 * Which sides of a comparison computed entry 1 live (from module text), and
 * the producer strings (e.g. "MLIR19.1.7") of those that did.
 */
export function liveProducers(cmp) {
  const a = !!(cmp.a.computation && cmp.a.computation.live);
  const b = !!(cmp.b.computation && cmp.b.computation.live);
  const producers = [...new Set([a ? cmp.a.computation.producer : null, b ? cmp.b.computation.producer : null].filter(Boolean))];
  return { a, b, producers };
}

/** Entry 1 computed live: the producer, and the engine's own note on it. */
function renderLive(r, cmp) {
  const { a, b, producers } = liveProducers(cmp);
  r.liveBadge.hidden = !a && !b;
  r.live.hidden = !a && !b;
  if (!a && !b) return;
  setText(r.liveBadge, `live: ${producers.join(', ')}`);
  const who = a && b ? 'Baseline and perturbed: computed live in this page from module text, producer'
    : b ? 'Perturbed: computed live in this page from module text, producer' : 'Baseline: computed live in this page from module text, producer';
  // The engine's notes about a live entry 1 (code live_entry1), by code.
  const live = (res) => (res.notes || []).filter((n) => n.code === 'live_entry1').map((n) => n.text);
  const notes = [...new Set([...(a ? live(cmp.a) : []), ...(b ? live(cmp.b) : [])])];
  const mixed = a !== b ? ` The ${a ? 'perturbed' : 'baseline'} entry 1 is the bytes jaxlib hashed, so entry 1 differs even for the same module.` : '';
  setText(r.live, `${who} ${producers.join(', ')}. ${notes.length ? notes.join(' ') : 'jaxlib\u2019s MLIR is a different version, so these bytes (and the key) differ from jaxlib\u2019s.'}${mixed}`);
}

/** Renders a compareScenarios result. Returns true when any role changed. */
export function renderEntries(list, cmp, { full, animate }) {
  const { comparison: c, a, b } = cmp;
  const also = new Set(c.also_changed || []);
  rows.forEach((r, i) => {
    const n = i + 1;
    const ea = a.entries[i];
    const eb = b.entries[i];
    // The engine's roles; an entry that moved with the cause or for another
    // reason shows as a consequence with the "also changed" note.
    const engineRole = c.roles[i];
    const role = engineRole.code === 'cause' || engineRole.code === 'same' ? engineRole.code : 'consequence';
    if (engineRole.code === 'with_cause') also.add(n);
    setAttr(r.li, 'data-role', role);
    // Entry 3 does not exist before jax 0.6.0: the row says so.
    setAttr(r.li, 'data-hashed', String(eb.hashed !== false));
    r.li.classList.toggle('not-hashed', eb.hashed === false);
    setAttr(r.li, 'data-digest', eb.digest);
    setAttr(r.li, 'data-running', eb.running);
    setAttr(r.li, 'data-baseline-digest', ea.digest);
    setAttr(r.li, 'data-baseline-running', ea.running);
    // The badge says what the engine says (an entry whose own digest moved
    // for a second reason is "also changed", not a mere consequence).
    const shown = engineRole.code !== 'same' ? engineRole : { code: role, text: role };
    setText(r.badge, shown.text);
    r.badge.className = 'badge role-badge role-' + shown.code.replace(/_/g, '-');
    setText(r.nm, eb.name);
    // The link goes to this release's own cache_key.py, at the line the
    // build found there (upstream-links.json), not to one pinned release.
    setAttr(r.source, 'href', upstreamUrl(r.src, b.profile));
    setAttr(r.source, 'title', `${UPSTREAM[r.src].label} in jax ${b.profile}`);
    setText(r.summary, eb.summary);
    setText(r.len, eb.hashed === false ? 'not hashed by this release' : `${eb.bytes_len} byte${eb.bytes_len === 1 ? '' : 's'}`);
    setText(r.hex, eb.preview_hex === '' ? '(nothing)' : eb.preview_hex);
    const bytesDiffer = ea.digest !== eb.digest;
    r.hexBase.hidden = !bytesDiffer;
    if (bytesDiffer) setText(r.hexA, ea.preview_hex === '' ? '(nothing)' : ea.preview_hex);
    const parts = eb.parts || [];
    r.parts.hidden = parts.length < 2;
    if (parts.length >= 2) setText(r.parts, 'Fed in this order: ' + parts.map((p) => `${p.label} (${p.bytes_len} bytes${p.preview_hex ? ': ' + p.preview_hex : ''})`).join(' \u2192 '));
    setDigest(r.da, ea.digest, full, bytesDiffer);
    setDigest(r.db, eb.digest, full, bytesDiffer);
    setDigest(r.ra, ea.running, full, ea.running !== eb.running);
    setDigest(r.rb, eb.running, full, ea.running !== eb.running);
    r.also.hidden = !(also.has(n) && role !== 'cause');
    setText(r.also, engineRole.code === 'with_cause'
      ? 'Its own digest differs too, moved by the same change as the cause.'
      : 'Its own digest differs too: another ingredient moved as well.');
    r.li.toggleAttribute('data-own-changed', bytesDiffer);
    if (n === 6) r.standIn.hidden = !(b.accelerator && b.accelerator.stand_in);
    if (n === 1) renderLive(r, cmp);
  });
  list.classList.toggle('full', !!full);
  if (animate) {
    // Two identical keyframe sets, alternated, restart the flow without
    // forcing a reflow.
    flip = !flip;
    list.classList.remove('flow-a', 'flow-b');
    list.classList.add(flip ? 'flow-a' : 'flow-b');
  }
}

/** The side of a comparison that an engine error names, as a sentence's subject. */
const sideOf = (e) => (e.source === 'a' ? 'The baseline' : e.source === 'b' ? 'The perturbed scenario' : 'This scenario');

/** What the error banner says: which side failed, and whether the change was applied. */
function errorBanner(pageError) {
  const e = pageError.error;
  const side = sideOf(e);
  const text = `${side} cannot be computed: ${errorText({ ...e, source: '' })}`;
  return pageError.refused ? `Not applied. ${text} The page, controls included, still shows the scenario before this change.` : text;
}

/** The sentence under the keys when they differ or not. */
function verdictText(cmp) {
  const equal = cmp.a.key === cmp.b.key;
  // the engine's finding (its advice's code), not the digests compared here
  const nameOnly = !equal && !!cmp.comparison.advice && cmp.comparison.advice.code === 'module_name';
  return equal ? 'The keys are equal: the perturbed run would hit the baseline\u2019s cache entry.'
    : nameOnly ? 'Only the module-name prefix differs; the digests are equal. (In JAX the name is read from the module bytes, so this happens only when a scenario states sym_name separately.)'
      : 'The keys differ: the perturbed run misses the cache and compiles again.';
}

/**
 * Mounts exhibit 1 (#exhibit-entries) over the store.
 * @param {import('./store.mjs').Store} store
 * @param {import('./catalog.mjs').Catalog} catalog
 */
export function mountKeyExhibit(store, catalog) {
  const E = {
    entries: $('#entries'), finalKey: $('#final-key'), baselineKey: $('#baseline-key'), verdict: $('#keys-verdict'),
    sentence: $('#sentence'), advice: $('#advice'), details: $('#details'), baselineDesc: $('#baseline-desc'), perturbedDesc: $('#perturbed-desc'),
    notes: $('#notes'), announce: $('#announce'), controlsStatus: $('#controls-status'), scenarioError: $('#scenario-error'),
    liveKeyNote: $('#live-key-note'), moduleTextStatus: $('#module-text-status'),
    baselineNotJax: $('[data-testid="baseline-key-not-jax"]'), finalNotJax: $('[data-testid="final-key-not-jax"]'), notJax: $('[data-testid="not-jax-key"]'),
  };
  buildEntries(E.entries, catalog.entryCount);
  $('#full-digests').addEventListener('change', (e) => store.dispatch({ type: 'view', fullDigests: e.target.checked }));
  let shown = null;
  let broken = false; // the last render showed an error instead of keys
  let announceTimer = 0;

  function announce(cmp) {
    clearTimeout(announceTimer);
    announceTimer = setTimeout(() => {
      const equal = cmp.a.key === cmp.b.key;
      setText(E.announce, `${equal ? 'Keys equal.' : 'Key changed.'} ${cmp.comparison.sentence} Perturbed key ends in ${cmp.b.key.slice(-8)}.`);
    }, 400);
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

  store.subscribe((state, change) => {
    E.scenarioError.hidden = !state.error;
    if (state.error) setText(E.scenarioError, errorBanner(state.error));
    E.entries.classList.toggle('stale', !!state.error && !state.error.refused);
    if (state.error && !state.error.refused) {
      // The status beside the controls and the verdict say so too (F5): the
      // keys still shown are not this scenario's.
      const e = state.error.error;
      const side = sideOf(e);
      setText(E.controlsStatus, `${side} cannot be computed \u2014 ${String(e.path).startsWith('$.module') ? 'see the module text error' : 'see the error above the entries'}`);
      E.controlsStatus.className = 'controls-status error';
      setText(E.verdict, `No key: ${side.toLowerCase()} cannot be computed. The entries below are the last ones computed.`);
      E.verdict.className = 'verdict miss';
      setText(E.sentence, '');
      put(E.details);
      broken = true;
      return;
    }
    const cmp = state.cmp;
    if (!cmp || (cmp === shown && change.type !== 'view' && !broken)) return;
    broken = false;
    const first = shown === null;
    shown = cmp;
    renderEntries(E.entries, cmp, { full: state.fullDigests, animate: change.keyChanged && !first && !reducedMotion() });
    setText(E.finalKey, cmp.b.key);
    // Where the engine cannot reproduce JAX (a kernel MLIR 19 cannot read),
    // it says so beside the key.
    const notJax = (r) => !!(r.fidelity && r.fidelity.unreadable_kernels > 0);
    E.baselineNotJax.hidden = !notJax(cmp.a);
    E.finalNotJax.hidden = !notJax(cmp.b);
    const why = [cmp.a, cmp.b].filter(notJax).map((r) => r.fidelity.text).filter(Boolean);
    setText(E.notJax, [...new Set(why)].join(' '));
    E.notJax.hidden = why.length === 0;
    setText(E.baselineKey, cmp.a.key);
    const equal = cmp.a.key === cmp.b.key;
    setText(E.verdict, verdictText(cmp));
    E.verdict.className = 'verdict ' + (equal ? 'ok' : 'miss');
    setText(E.sentence, cmp.comparison.sentence);
    // what to do: the engine's advice (its code and words)
    const advice = cmp.comparison.advice;
    put(E.advice, ...(advice ? [el('strong', null, 'What to do: '), advice.text] : []));
    if (advice) E.advice.setAttribute('data-advice', advice.code);
    const c = cmp.comparison;
    // the key's digest: the last entry's running digest (not cut from the key)
    const digest = abbrev(cmp.b.entries[cmp.b.entries.length - 1].running, 12);
    setText(E.controlsStatus, equal ? `Keys equal \u2014 ${digest}` : c.cause > 0 ? `Cause: entry ${c.cause} (${c.cause_name}) \u2014 key ${digest}`
      : advice && advice.code === 'module_name' ? `Only the module name differs \u2014 ${digest}` : `Keys differ \u2014 ${digest}`);
    E.controlsStatus.className = 'controls-status ' + (equal ? 'ok' : 'miss');
    // Every moved field has its line; past six, the rest fold under one.
    const lines = ((c.findings && c.findings.details) || []).map((d) => el('li', { 'data-code': d.code }, d.text));
    put(E.details, ...(lines.length <= 6 ? lines : [...lines.slice(0, 5),
      el('li', { class: 'more-details' }, el('details', { 'data-testid': 'more-details' },
        el('summary', null, `${lines.length - 5} more`), el('ul', null, ...lines.slice(5))))]));
    const meta = catalog.presets.get(state.presetId);
    setText(E.baselineDesc, `${state.presetId}${meta ? ' \u2014 ' + meta.title : ''}${meta && meta.derived ? ' (derived)' : ''}${state.liveBaseline ? ' \u2014 its module computed live from the preset\u2019s text, like the perturbed one' : ''}`);
    setText(E.perturbedDesc, Object.keys(state.patch).length ? 'baseline + ' + describePatch(state.patch)
      : change.type === 'edit'
        ? 'the baseline, unchanged: the value set is the baseline\u2019s own, so there is nothing to move'
        : `the baseline, unchanged${inEmbed() ? '' : ' (change an ingredient in \u201cChange one ingredient\u201d)'}`);
    setText(E.notes, (cmp.b.notes || []).map((n) => n.text).join(' '));
    renderLiveKeyNote(cmp);
    if (change.keyChanged || change.announce) announce(cmp);
  });
}
