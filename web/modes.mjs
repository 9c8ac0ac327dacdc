// @ts-check
// The page's two modes (issue 36, item 1): "Why did my run recompile?" (the
// log reader, the captured runs, the cache folder) and "How the key is made"
// (the entries and the ingredients, the walk, the flags, the trace). Each
// pane says which mode it belongs to (data-in-mode="why" or "how"; a pane
// without one shows in both); the root's data-mode hides the other mode's
// panes (style.css). The switch is a nav of two links in the header.
//
// The mode is in the address (?mode=why or ?mode=how), beside the scenario
// in the fragment, so a link says which mode it opens; every switch is a
// history entry (back and forward switch back). An address without a mode
// opens the mode of what it names: an in-page place (#exhibit-logs) opens
// that place's mode, a scenario (#s1=…, #entry=5) opens "how", nothing
// opens DEFAULT_MODE. Embeds (?embed=NAME) have no modes.
//
// The mode must work before the engine (and with it the store) is there,
// and when it fails to load: until connectModes(store), this module holds
// it; from then on the store does (state.mode, a 'mode' action) and the
// page renders it from the store's changes.
import { $$, scrollAndFocus } from './dom.mjs';

/** @typedef {'why'|'how'} Mode */

/**
 * The mode of an address that names neither a mode nor a place: "how", the
 * page's title and first view (the key, which loads with the small key
 * module alone, and the "Try:" line). "Why" is one tap away on the same
 * first screen; flipping this constant flips the default.
 */
export const DEFAULT_MODE = 'how';

/** Each mode's name, as its switch and the page's title say it. */
export const MODE_NAMES = { why: 'Why did my run recompile?', how: 'How the key is made' };

const TITLE = document.title;

/** @type {?Mode} the mode shown; null in an embed (modes are off) */
let current = null;
/** @type {?import('./store.mjs').Store} */
let store = null;

/** @param {*} m @returns {m is Mode} */
const isMode = (m) => m === 'why' || m === 'how';

/**
 * The mode a node belongs to (its pane's data-in-mode); null when it shows
 * in both modes.
 * @param {?Element} node
 * @returns {?Mode}
 */
export function modeOf(node) {
  const pane = node ? node.closest('[data-in-mode]') : null;
  const m = pane ? pane.getAttribute('data-in-mode') : null;
  return isMode(m) ? m : null;
}

/**
 * The in-page element a fragment names (#exhibit-logs), or null (no
 * fragment, or a scenario's).
 * @param {string} hash
 */
function placeOf(hash) {
  if (!hash || hash === '#' || hash.length > 200) return null;
  let id = hash.slice(1);
  try { id = decodeURIComponent(id); } catch { /* keep it raw */ }
  return document.getElementById(id);
}

/**
 * The mode the address opens: the mode of the place its fragment names,
 * else its ?mode=, else "how" for a scenario in the fragment, else
 * DEFAULT_MODE.
 * @returns {Mode}
 */
export function modeOfAddress() {
  const place = placeOf(location.hash);
  if (place && modeOf(place)) return /** @type {Mode} */ (modeOf(place));
  const named = new URLSearchParams(location.search).get('mode');
  if (isMode(named)) return named;
  if (!place && location.hash.length > 1) return 'how';
  return DEFAULT_MODE;
}

/**
 * The address of the page in `mode`: this one with ?mode= set, without a
 * fragment that names a place in the other mode.
 * @param {Mode} mode
 */
function addressOf(mode) {
  const u = new URL(location.href);
  u.searchParams.set('mode', mode);
  const place = placeOf(u.hash);
  if (place && modeOf(place) && modeOf(place) !== mode) u.hash = '';
  return u.pathname + u.search + u.hash;
}

/** @param {Mode} mode */
function render(mode) {
  current = mode;
  const root = document.documentElement;
  if (root.getAttribute('data-mode') !== mode) root.setAttribute('data-mode', mode);
  for (const a of $$('[data-mode-link]')) {
    if (a.getAttribute('data-mode-link') === mode) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${MODE_NAMES[mode]} · ${TITLE}`;
}

/** The mode shown (null in an embed). */
export const currentMode = () => current;

/**
 * Shows `mode`. history: 'push' makes the switch a history entry (the
 * reader's switch), 'replace' writes it into the current one, 'none'
 * leaves the address alone (it already says the mode: back, forward).
 * @param {Mode} mode
 * @param {{history?: 'push'|'replace'|'none'}} [opts]
 */
export function setMode(mode, opts = {}) {
  if (current === null || !isMode(mode)) return;
  const h = opts.history || 'push';
  if (h !== 'none') {
    const to = addressOf(mode);
    if (h === 'push' && mode !== current) history.pushState(null, '', to);
    else if (to !== location.pathname + location.search + location.hash) history.replaceState(null, '', to);
  }
  if (store) { if (store.state.mode !== mode) store.dispatch({ type: 'mode', mode }); } else render(mode);
}

/**
 * Shows the mode `node` belongs to, when another is shown (a history
 * entry, as the reader's switch is).
 * @param {?Element} node
 */
export function enterModeOf(node) {
  const m = modeOf(node);
  if (current !== null && m && m !== current) setMode(m);
}

/**
 * Moves to `node` wherever it is: switches to its mode first when it is in
 * the other one, then scrolls it into view and focuses it. Every in-page
 * move goes through here (the nav, the "Try:" line, the questions, the
 * case studies, in-page links).
 * @param {HTMLElement} node
 * @param {ScrollLogicalPosition} [block]
 */
export function reveal(node, block = 'start') {
  enterModeOf(node);
  scrollAndFocus(node, block);
}

/**
 * Starts the modes (before the engine loads: the switch works at once).
 * In an embed it does nothing: an embed shows one exhibit, whatever its mode.
 * @param {{embed: boolean}} opts
 */
export function mountModes({ embed }) {
  if (embed) return;
  current = modeOfAddress();
  render(current);
  // The address says the mode from the start, so that a copied address
  // opens what the reader sees.
  setMode(current, { history: 'replace' });
  document.addEventListener('click', (e) => {
    const a = /** @type {Element} */ (e.target).closest && /** @type {Element} */ (e.target).closest('a[data-mode-link]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    const m = a.getAttribute('data-mode-link');
    if (isMode(m)) setMode(m);
  });
  // Back and forward, and a fragment typed or followed natively
  // (#exhibit-logs): the mode of the new address, written into the entry
  // the browser made for it; a place newly shown is scrolled to (the
  // browser tried while it was hidden). Chrome fires both events for a
  // fragment: the second finds the mode shown.
  const follow = () => {
    const before = current;
    const m = modeOfAddress();
    setMode(m, { history: 'replace' });
    const place = placeOf(location.hash);
    if (place && modeOf(place) && m !== before) place.scrollIntoView({ block: 'start' });
  };
  window.addEventListener('popstate', follow);
  window.addEventListener('hashchange', follow);
  // An address naming a place in the mode it opens: the browser tried to
  // scroll to it before the mode showed it.
  const place = placeOf(location.hash);
  if (place && modeOf(place)) requestAnimationFrame(() => place.scrollIntoView({ block: 'start' }));
}

/**
 * From now on the store holds the mode (state.mode) and the page renders
 * it from there.
 * @param {import('./store.mjs').Store} s
 */
export function connectModes(s) {
  if (current === null) return;
  store = s;
  s.subscribe((state) => { if (isMode(state.mode) && state.mode !== current) render(state.mode); });
  s.dispatch({ type: 'mode', mode: current });
}
