// @ts-check
// The pipeline as a picture: the eight entries from their ingredient, to the
// bytes fed, to the running SHA-256, one row per entry, with the moved
// ingredient (the cause) and its consequences coloured. An SVG drawn from
// the engine's comparison (names, byte counts, digests, roles); it scales
// with its box, and its text is a real <title>/<desc> for screen readers.
import { abbrev, roleOf, roleTextOf } from './state.mjs';

const NS = 'http://www.w3.org/2000/svg';
const W = 360;
const ROW = 36;
const TOP = 30;

function s(tag, attrs, ...children) {
  const n = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null && v !== false) n.setAttribute(k, String(v));
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) n.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return n;
}


/**
 * Mounts the picture in `figure` (#pipeline) over the store: redrawn with
 * each new comparison.
 * @param {import('./store.mjs').Store} store
 * @param {Element} figure
 */
export function mountPipeline(store, figure) {
  let shown = null;
  store.subscribe((state) => {
    if (!state.cmp || state.cmp === shown) return;
    shown = state.cmp;
    renderPipeline(figure, state.cmp);
  });
}

/** Draws comparison `cmp` (compareScenarios) into `figure`. */
export function renderPipeline(figure, cmp) {
  if (!figure) return;
  // as many rows as the engine gives entries
  const count = cmp.b.entries.length;
  const h = TOP + count * ROW + 34;
  const title = s('title', { id: 'pipeline-title' }, `The ${count} entries: ingredient, bytes fed, running SHA-256`);
  const roles = cmp.b.entries.map((_, i) => roleOf(cmp, i + 1));
  const cause = cmp.comparison.cause;
  const desc = s('desc', { id: 'pipeline-desc' }, cause > 0
    ? `Entry ${cause} (${cmp.b.entries[cause - 1].name}) moved; ${roles.filter((r) => r === 'consequence').length} later running digests change with it.`
    : 'Nothing moved: every running digest is the same as the baseline\u2019s.');
  const svg = s('svg', {
    viewBox: `0 0 ${W} ${h}`, role: 'img', 'aria-labelledby': 'pipeline-title pipeline-desc',
    class: 'pipeline-svg', 'data-testid': 'pipeline-svg', preserveAspectRatio: 'xMidYMin meet',
  }, title, desc,
  s('defs', null, s('marker', { id: 'pl-arrow', viewBox: '0 0 6 6', refX: '5', refY: '3', markerWidth: '6', markerHeight: '6', orient: 'auto-start-reverse' },
    s('path', { d: 'M0,0 L6,3 L0,6 z', class: 'pl-arrowhead' }))),
  s('text', { x: 4, y: 16, class: 'pl-head' }, 'entry'),
  s('text', { x: 178, y: 16, class: 'pl-head', 'text-anchor': 'middle' }, 'bytes'),
  s('text', { x: 290, y: 16, class: 'pl-head', 'text-anchor': 'middle' }, 'SHA-256, running'));
  // the running chain: one vertical line through the hash column
  svg.append(s('line', { x1: 290, y1: TOP - 4, x2: 290, y2: TOP + count * ROW + 4, class: 'pl-chain' }));
  cmp.b.entries.forEach((eb, i) => {
    const n = i + 1;
    const ea = cmp.a.entries[i];
    const y = TOP + i * ROW;
    const role = roles[i];
    const hashed = eb.hashed !== false;
    const runDiffers = ea.running !== eb.running;
    const own = ea.digest !== eb.digest;
    const g = s('g', { class: 'pl-row', 'data-entry': n, 'data-role': role.replace(/_/g, '-'), 'data-hashed': String(hashed), 'data-testid': `pipeline-row-${n}` });
    g.append(
      s('rect', { x: 2, y, width: 136, height: ROW - 8, rx: 4, class: 'pl-in' + (own ? ' moved' : '') }),
      s('text', { x: 8, y: y + 18, class: 'pl-name' }, `${n} ${eb.name}`),
      s('line', { x1: 138, y1: y + 14, x2: 150, y2: y + 14, class: 'pl-link', 'marker-end': 'url(#pl-arrow)' }),
      s('rect', { x: 152, y, width: 52, height: ROW - 8, rx: 4, class: 'pl-bytes' + (own ? ' moved' : '') + (hashed ? '' : ' off') }),
      s('text', { x: 178, y: y + 18, class: 'pl-num', 'text-anchor': 'middle' }, hashed ? (eb.bytes_len >= 10000 ? `${Math.round(eb.bytes_len / 1024)} KiB` : `${eb.bytes_len} B`) : 'none'),
      s('line', { x1: 204, y1: y + 14, x2: 236, y2: y + 14, class: 'pl-link', 'marker-end': 'url(#pl-arrow)' }),
      s('rect', { x: 238, y, width: 104, height: ROW - 8, rx: 4, class: 'pl-run' + (runDiffers ? ' differs' : '') }),
      s('text', { x: 290, y: y + 18, class: 'pl-hex', 'text-anchor': 'middle' }, abbrev(eb.running, 8)),
      s('title', null, `Entry ${n} (${eb.name}): ${hashed ? `${eb.bytes_len} bytes, own digest ${eb.digest}; running digest` : 'not hashed by this release; the running digest carries over unchanged,'} ${eb.running}${runDiffers ? ` (baseline ${ea.running})` : ''}; ${roleTextOf(cmp, n)}.`),
    );
    svg.append(g);
  });
  const yk = TOP + count * ROW + 4;
  svg.append(s('text', { x: W - 4, y: yk + 18, class: 'pl-key', 'text-anchor': 'end' }, `key ${abbrev(cmp.b.sym_name, 26)}-${abbrev(cmp.b.entries[count - 1].running, 8)}`));
  const legend = document.createElement('figcaption');
  legend.className = 'hint pipeline-legend';
  legend.textContent = cause > 0
    ? `Red: the moved ingredient (entry ${cause}) and its bytes. Amber: running digests that differ from the baseline\u2019s because of it.`
    : 'No ingredient moved: every box is as in the baseline.';
  figure.replaceChildren(svg, legend);
}
