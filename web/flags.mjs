// @ts-check
// Exhibit 3: entry 4, step by step. The engine decides (flags: flag, source,
// name, included, hashed_hex, log_line: JAX's log line for it); the page only lays the
// steps out, in collection order (result.collected) and then sorted, with the
// profile's exclusion list as the engine describes it.
import { el, put, $, setText } from './dom.mjs';

/**
 * @param {object} root the exhibit's nodes
 * @param {object} result the engine's result (flags, collected, trace, profile)
 * @param {{excluded_flags: string[], id: string}} profile describeProfile(result.profile)
 */
export function renderFlags(root, result, profile) {
  const flags = result.flags || [];
  const excl = new Set((profile && profile.excluded_flags) || []);

  // 1. collected, per source, in collection order
  const groups = Object.entries(result.collected || {});
  put(root.collected, ...groups.map(([src, list]) => el('div', { class: 'chip-group' },
    el('span', { class: 'chip-src' }, src + ': '),
    list.length ? list.map((f) => el('code', { class: 'chip' }, f)) : el('span', { class: 'hint' }, src === 'argv' ? 'no matching element' : 'unset or empty'))));

  // 2. sorted, split, tested, kept or dropped, with the log line
  root.empty.hidden = flags.length > 0;
  put(root.tbody, ...flags.map((f, i) => {
    const isExcluded = !f.included;
    return el('tr', { class: f.included ? 'kept' : 'dropped', 'data-testid': 'flag-row', 'data-flag': f.flag, 'data-included': String(!!f.included) },
      el('td', null, String(i + 1)),
      el('td', null, el('code', null, f.flag)),
      el('td', null, f.source),
      el('td', null, el('code', null, f.name)),
      el('td', null, el('span', { class: 'badge ' + (isExcluded ? 'role-cause' : 'role-same') }, isExcluded ? (excl.has(f.name) ? 'excluded: dropped' : 'dropped') : 'not listed: kept')),
      el('td', { class: 'logline' }, el('code', null, f.log_line || '')));
  }));

  // 3. the bytes of each kept flag, in order, as they enter the digest
  const kept = flags.filter((f) => f.included);
  put(root.bytes, ...(kept.length ? kept.map((f) => el('div', { class: 'byte-chunk', 'data-testid': 'flag-bytes' },
    el('span', { class: 'chip-src' }, f.flag.trim() === f.flag ? f.flag : f.flag + ' (stripped)'),
    el('code', { class: 'hexwrap' }, f.hashed_hex),
    el('span', { class: 'hint' }, ` ${f.hashed_hex.length / 2} bytes`))) : [el('span', { class: 'hint' }, 'No bytes: nothing is kept.')]));
  setText(root.digest, result.entries[3].digest);
  setText(root.exclCount, String(excl.size));
  setText(root.exclProfile, (profile && profile.id) || '');
  setText(root.exclList, [...excl].join('  '));
}

/**
 * Mounts exhibit 3 (#exhibit-flags) over the store: entry 4 of the
 * perturbed result, with its profile's exclusion list.
 * @param {import('./store.mjs').Store} store
 * @param {import('./catalog.mjs').Catalog} catalog
 */
export function mountFlags(store, catalog) {
  const root = {
    collected: $('#flags-collected'), tbody: $('#flags-tbody'), empty: $('#flags-empty'), bytes: $('#flags-bytes'),
    digest: $('#flags-digest'), exclCount: $('#excl-count'), exclProfile: $('#excl-profile'), exclList: $('#excl-list'),
  };
  let shown = null;
  store.subscribe((state) => {
    if (!state.cmp || state.cmp === shown) return;
    shown = state.cmp;
    renderFlags(root, state.cmp.b, catalog.profileOf(state.cmp.b.profile));
  });
}
