// Exhibit 1: the eight entries in JAX's order, baseline and perturbed side by
// side, with the cause and its consequences marked.
import { el, setText, setAttr, link } from './dom.mjs';
import { ENTRY_SOURCE, UPSTREAM, upstreamUrl } from './data.mjs';
import { abbrev } from './state.mjs';

const rows = [];
let flip = false;

function digestCell(cls, who) {
  const code = el('code', { class: 'dg ' + cls });
  return el('span', { class: 'dcell' }, el('span', { class: 'visually-hidden' }, who + ': '), code);
}

export function buildEntries(list) {
  list.replaceChildren();
  for (let i = 1; i <= 8; i++) {
    const src = ENTRY_SOURCE[i - 1];
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
    });
  }
}

function setDigest(code, hex, full, differs) {
  setText(code, full ? hex : abbrev(hex));
  setAttr(code, 'title', hex);
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
  const notes = [...new Set([...(a ? cmp.a.notes || [] : []), ...(b ? cmp.b.notes || [] : [])]
    .filter((t) => producers.some((p) => String(t).includes(p))))];
  const mixed = a !== b ? ` The ${a ? 'perturbed' : 'baseline'} entry 1 is the bytes jaxlib hashed, so entry 1 differs even for the same module.` : '';
  setText(r.live, `${who} ${producers.join(', ')}. ${notes.length ? notes.join(' ') : 'jaxlib\u2019s MLIR is a different version, so these bytes (and the key) differ from jaxlib\u2019s.'}${mixed}`);
}

/** Renders a compareScenarios result. Returns true when any role changed. */
export function renderEntries(list, cmp, { full, animate }) {
  const { comparison: c, a, b } = cmp;
  const also = new Set(c.also_changed || []);
  const cons = new Set(c.consequences || []);
  rows.forEach((r, i) => {
    const n = i + 1;
    const ea = a.entries[i];
    const eb = b.entries[i];
    // The engine's roles; an entry that moved with the cause or for another
    // reason shows as a consequence with the "also changed" note.
    const engineRole = c.roles ? c.roles[i] : null;
    const role = engineRole === 'cause' ? 'cause' : engineRole && engineRole !== 'same' ? 'consequence'
      : engineRole === 'same' ? 'same'
        : c.cause === n ? 'cause' : (cons.has(n) || (c.cause > 0 && n > c.cause) ? 'consequence' : 'same');
    if (engineRole === 'with cause') also.add(n);
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
    const shown = engineRole && engineRole !== 'same' ? engineRole : role;
    setText(r.badge, shown);
    r.badge.className = 'badge role-badge role-' + shown.replace(/ /g, '-');
    setText(r.nm, eb.name);
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
    setText(r.also, engineRole === 'with cause'
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
