// Exhibit 3: entry 4, step by step. The engine decides (flags: flag, source,
// name, included, hashed_hex; trace: JAX's log lines); the page only lays the
// steps out. Collection order is shown with a Python-compatible split.
import { el, put, setText } from './dom.mjs';
import { EXCLUDED_FLAGS } from './data.mjs';
import { pySplit } from './state.mjs';

const FLAG_LINE = /^(Including|Not including) XLA flag in cache key: /;

function collected(flags) {
  const groups = [];
  const xla = pySplit(flags.XLA_FLAGS);
  const tpu = pySplit(flags.LIBTPU_INIT_ARGS);
  const prefixes = ['--xla', ...((flags.extra_prefixes || []).filter((p) => typeof p === 'string'))];
  const argv = (flags.argv || []).filter((a) => typeof a === 'string' && prefixes.some((p) => a.startsWith(p)));
  groups.push(['XLA_FLAGS', xla], ['LIBTPU_INIT_ARGS', tpu], ['argv', argv]);
  return groups;
}

export function renderFlags(root, result, resolved) {
  const flags = result.flags || [];
  const profile = result.profile || 'main';
  const excl = new Set(EXCLUDED_FLAGS[profile] || EXCLUDED_FLAGS.main);

  // 1. collected, per source, in collection order
  const groups = collected((resolved && resolved.flags) || {});
  put(root.collected, ...groups.map(([src, list]) => el('div', { class: 'chip-group' },
    el('span', { class: 'chip-src' }, src + ': '),
    list.length ? list.map((f) => el('code', { class: 'chip' }, f)) : el('span', { class: 'hint' }, src === 'argv' ? 'no matching element' : 'unset or empty'))));

  // 2. sorted, split, tested, kept or dropped, with the log line
  const lines = (result.trace || []).filter((l) => FLAG_LINE.test(l)).slice(0, flags.length);
  root.empty.hidden = flags.length > 0;
  put(root.tbody, ...flags.map((f, i) => {
    const isExcluded = !f.included;
    return el('tr', { class: f.included ? 'kept' : 'dropped', 'data-testid': 'flag-row', 'data-flag': f.flag, 'data-included': String(!!f.included) },
      el('td', null, String(i + 1)),
      el('td', null, el('code', null, f.flag)),
      el('td', null, f.source),
      el('td', null, el('code', null, f.name)),
      el('td', null, el('span', { class: 'badge ' + (isExcluded ? 'role-cause' : 'role-same') }, isExcluded ? (excl.has(f.name) ? 'excluded: dropped' : 'dropped') : 'not listed: kept')),
      el('td', { class: 'logline' }, el('code', null, lines[i] || '')));
  }));

  // 3. the bytes of each kept flag, in order, as they enter the digest
  const kept = flags.filter((f) => f.included);
  put(root.bytes, ...(kept.length ? kept.map((f) => el('div', { class: 'byte-chunk', 'data-testid': 'flag-bytes' },
    el('span', { class: 'chip-src' }, f.flag.trim() === f.flag ? f.flag : f.flag + ' (stripped)'),
    el('code', { class: 'hexwrap' }, f.hashed_hex),
    el('span', { class: 'hint' }, ` ${f.hashed_hex.length / 2} bytes`))) : [el('span', { class: 'hint' }, 'No bytes: nothing is kept.')]));
  setText(root.digest, result.entries[3].digest);
  setText(root.exclCount, String(excl.size));
  setText(root.exclProfile, profile);
  setText(root.exclList, [...excl].join('  '));
}
