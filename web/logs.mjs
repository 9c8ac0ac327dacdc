// Exhibit 4: the trace of the current scenario, and two pasted logs paired
// entry by entry. Pasted text is hostile: it is only matched with regular
// expressions and shown as text; the engine decides what moved.
import { el, put, setText } from './dom.mjs';
import { ENTRY_NAMES } from './data.mjs';
import { abbrev } from './state.mjs';

const PREFIX = { debug: 'DEBUG:jax._src.cache_key:', info: 'INFO:jax._src.cache_key:' };

export function traceText(lines, withPrefix) {
  if (!withPrefix) return lines.join('\n');
  return lines.map((l) => (l.startsWith('get (') ? PREFIX.info : PREFIX.debug) + l).join('\n');
}

const OWN = /get_cache_key hash of serialized (.+?): ([0-9a-f]{64})\b/;
const RUN = /get_cache_key hash after serializing (.+?): ([0-9a-f]{64})\b/;

/** The first digest of each entry found in a log (display only). */
export function digestsOf(text) {
  const own = {};
  const run = {};
  for (const line of String(text).split(/\r?\n/)) {
    let m = OWN.exec(line);
    if (m && !(m[1] in own)) own[m[1]] = m[2];
    m = RUN.exec(line);
    if (m && !(m[1] in run)) run[m[1]] = m[2];
  }
  return ENTRY_NAMES.map((n) => ({ own: own[n] || '', run: run[n] || '' }));
}

const MAX_LOG = 4 << 20; // 4 MiB per log: more is not a cache-key log

export function compareLogsUi(engine, ui) {
  const a = ui.a.value;
  const b = ui.b.value;
  ui.sentence.hidden = true;
  ui.error.hidden = true;
  ui.table.hidden = true;
  if (a.length > MAX_LOG || b.length > MAX_LOG) {
    ui.error.hidden = false;
    setText(ui.error, 'A log is larger than 4 MiB; paste only the lines of logger jax._src.cache_key.');
    return;
  }
  const r = engine.compareLogs(a, b);
  if (!r || r.error) {
    ui.error.hidden = false;
    const e = (r && r.error) || { path: 'logs', message: 'no answer from the engine' };
    setText(ui.error, `${e.path}: ${e.message}`);
    return;
  }
  ui.sentence.hidden = false;
  setText(ui.sentence, r.sentence);
  const da = digestsOf(a);
  const db = digestsOf(b);
  const cons = new Set(r.consequences || []);
  put(ui.tbody, ...ENTRY_NAMES.map((name, i) => {
    const n = i + 1;
    const role = r.cause === n ? 'cause' : (cons.has(n) ? 'consequence' : 'same');
    const pair = (x, y) => el('span', { class: 'pair' },
      el('code', { title: x, class: x !== y ? 'differs' : '' }, abbrev(x, 12)), ' / ',
      el('code', { title: y, class: x !== y ? 'differs' : '' }, abbrev(y, 12)));
    return el('tr', { class: 'role-row-' + role, 'data-testid': `log-row-${n}`, 'data-role': role },
      el('td', null, String(n)), el('td', null, name),
      el('td', null, pair(da[i].own, db[i].own)), el('td', null, pair(da[i].run, db[i].run)),
      el('td', null, el('span', { class: 'badge role-' + role }, role)));
  }));
  ui.table.hidden = false;
}
