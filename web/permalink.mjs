// @ts-check
// The share pane (#share) and links: the perturbed scenario as a link
// (#s1=…, the engine's encodePermalink), written to the address bar a moment
// after the last change; links opened from the address bar (hostile input,
// decoded by the engine in its worker); and in-page anchors that must not
// replace the scenario link. A scenario with module text is encoded in the
// worker too (compressing a large text takes a while; a scenario too large
// for any link, one with a text kept in the worker for instance, is refused
// at once from its size, without compressing).
import { el, put, $, setText } from './dom.mjs';
import { reveal } from './modes.mjs';
import { splitScenario } from './state.mjs';
import { errorText, engineError } from './engine.mjs';
import { copyText } from './trace.mjs';
import { stubHandles } from './transfer.mjs';

/**
 * The link to a scenario (`hash`, "#s1=…"): on the page it opens "How the
 * key is made", and says so (?mode=how, modes.mjs); an embed's stays an
 * embed's (embeds have no modes).
 * @param {string} hash
 */
function scenarioLink(hash) {
  const u = new URL(hash, location.href);
  if (!u.searchParams.has('embed')) u.searchParams.set('mode', 'how');
  return u.href;
}

const sizeText = (n) => (n < 1 << 20 ? `${Math.ceil(n / 1024)} KB` : `${(n / (1 << 20)).toFixed(1)} MB`);

/**
 * One part of the link after the scenario: the store's state besides the
 * scenario (the code walk's step, entry and line, state.walk) rides there,
 * "#s1=…&step=3&entry=5", or "#entry=5" for the default scenario. get()
 * gives the value to write (null: none), set(value) applies a value read
 * from an opened link.
 * @typedef {{get: () => ?string, set: (value: string) => void}} LinkPart
 */

/**
 * @param {import('./store.mjs').Store} store
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {import('./canonicaliser.mjs').MlirLoader} loader
 * @param {{embed: boolean, defaultPreset: string}} options
 */
export function mountShare(store, catalog, loader, { embed, defaultPreset }) {
  const E = {
    permalink: $('#permalink'), linkInfo: $('#link-info'), tooLong: $('#too-long'), tooLongText: $('#too-long-text'),
    linkError: $('#link-error'),
  };
  const root = document.documentElement;
  /** @type {Map<string, LinkPart>} the link's parts after the scenario, by parameter name */
  const linkState = new Map();
  // The code walk's selection (store.mjs, state.walk): the step when not the
  // last (every entry fed), the selected entry, the selected line. A part of
  // an opened link is held in the store until the walk shows it.
  /** @param {'step'|'entry'|'line'} name */
  const walkPart = (name) => ({
    get: () => {
      const v = store.state.walk[name];
      return (name === 'step' ? v < catalog.entryCount : v > 0) ? String(v) : null;
    },
    set: (/** @type {string} */ v) => { store.dispatch({ type: 'walk', [name]: Number(v), from: 'link' }); },
  });
  for (const name of /** @type {const} */ (['step', 'entry', 'line'])) linkState.set(name, walkPart(name));
  /** The link's exhibit part, "&name=value…" ('' when there is none). */
  const linkExtra = () => [...linkState].map(([k, v]) => [k, v.get()]).filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `&${k}=${encodeURIComponent(v)}`).join('');
  // An address the page did not write (an in-page anchor, a link that failed
  // to open, with or without exhibits' parts) stays in the address bar until
  // the scenario changes or the reader changes an exhibit's state (F16).
  let keptHash = '';

  /** Copy link works only when there is a link; otherwise it is disabled and #link-info says why. */
  const copyButton = /** @type {HTMLButtonElement} */ ($('#copy-link'));
  const noLink = (why) => {
    E.permalink.value = '';
    copyButton.disabled = true;
    setText(E.linkInfo, why);
  };

  /**
   * Shows a written link: `hash` in the address bar (unless an address the
   * page did not write is kept there), its link in the field, and `info`.
   * @param {string} hash
   * @param {(length: number) => string} info the note, given the link's length
   */
  function showLink(hash, info) {
    if (!embed && !keptHash && location.hash !== hash) history.replaceState(null, '', location.pathname + location.search + hash);
    E.permalink.value = scenarioLink(hash);
    copyButton.disabled = false;
    setText(E.linkInfo, info(E.permalink.value.length));
  }

  async function write(broken) {
    const state = store.state;
    const isDefault = state.presetId === defaultPreset && Object.keys(state.patch).length === 0;
    E.tooLong.hidden = true;
    if (broken) {
      noLink('No link: the scenario has an error.');
      return;
    }
    if (catalog.presets.get(state.presetId)?.local) {
      noLink('No link: this scenario\u2019s base is a file you opened, which other browsers do not have. Download the scenario file instead.');
      return;
    }
    // The default scenario's link is the page's own address, with the
    // exhibits' part: nothing to encode, so the first view never starts the
    // worker's engine for it.
    if (isDefault) {
      const extra = linkExtra();
      showLink(extra ? '#' + extra.slice(1) : '',
        (n) => `The link is ${n} characters (the default scenario: the page’s address${extra ? ' and the code walk’s place' : ''}).`);
      return;
    }
    // Links are written by the worker's engine: the first view's key module
    // has no zstd (nor anything else that only links, logs and files need).
    const doc = catalog.scenarioOf(state.presetId, state.patch);
    let enc;
    try {
      enc = await catalog.worker.call('encodePermalink', [doc], { label: 'Writing the link' });
    } catch {
      enc = { error: { message: 'writing the link was cancelled' } };
    }
    if (store.state !== state && (store.state.presetId !== state.presetId || store.state.patch !== state.patch)) return;
    if (enc.error) {
      noLink(`No link: ${enc.error.message}`);
      return;
    }
    if (enc.too_long) {
      noLink('No link: this scenario is too long for one (see below).');
      E.tooLong.hidden = false;
      const why = enc.json_bytes_at_least ? `This scenario\u2019s JSON is over ${sizeText(enc.json_bytes_at_least)}, more than the ${sizeText(enc.max_json_bytes)} a link may carry.`
        : enc.json_bytes > enc.max_json_bytes ? `This scenario\u2019s JSON is ${sizeText(enc.json_bytes)}, more than the ${sizeText(enc.max_json_bytes)} a link may carry.`
          : `This scenario needs ${enc.length} characters as a link, more than the ${enc.max_length} this page will put in a URL.`;
      setText(E.tooLongText, `${why} Download the scenario file and open it here with “Open a scenario file” instead.`);
      if (!embed) history.replaceState(null, '', location.pathname + location.search);
      return;
    }
    keptHash = ''; // another scenario: a kept address no longer says what is shown
    showLink('#' + enc.fragment + linkExtra(),
      (n) => `The link is ${n} characters (the scenario part: ${enc.length}; limit ${enc.max_length}).`);
  }

  // The link is re-encoded and written to the address bar a moment after the
  // last change (history.replaceState is not free, and typing makes many
  // changes); data-link-pending is set meanwhile.
  let timer = 0;
  let written = 0;
  function schedule() {
    root.setAttribute('data-link-pending', '');
    clearTimeout(timer);
    const mine = ++written;
    timer = setTimeout(async () => {
      await write(false);
      if (mine === written) root.removeAttribute('data-link-pending');
    }, 120);
  }
  store.subscribe((state, change) => {
    // The walk's selection moved: the link follows once the player rests
    // (an opened link's part, held until the walk shows it, is already in it).
    if (change.type === 'walk') {
      if (!state.walk.linked && !state.walk.playing) relink({ fromLink: change.walkFrom === 'apply' });
      return;
    }
    // The page shows something else than the default it fell back to.
    if (change.type === 'open' || change.type === 'edit') hideLinkError();
    if (state.error && !state.error.refused) {
      clearTimeout(timer);
      root.removeAttribute('data-link-pending');
      write(true);
    } else if (change.computed) schedule();
  });
  /**
   * Rewrites the link after a part of it (a LinkPart) changed.
   * fromLink: the change applies an opened link's part (not the reader's
   * choice), so a link kept in the address bar (F16) stays.
   * @param {{fromLink?: boolean}} [opts]
   */
  function relink(opts = {}) {
    if (!opts.fromLink) keptHash = '';
    const state = store.state;
    if (!(state.error && !state.error.refused)) schedule();
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
    return id && catalog.live.has(id) && !catalog.presets.has(id) ? id : null;
  }

  /** Whether a scenario document needs the live MLIR canonicaliser. */
  function needsMlir(doc) {
    if (catalog.mlir) return false;
    const r = catalog.engine.resolveScenario(stubHandles(doc));
    if (r.error) return !!unknownLiveBase(r.error);
    return !!(r.module && typeof r.module.text === 'string');
  }

  /** Opens a validated scenario document (from a link or a file); false when it cannot be. */
  function openScenario(doc, from) {
    const { base, patch } = splitScenario(doc);
    if (typeof base === 'string' && catalog.presets.has(base)) {
      store.dispatch({ type: 'open', presetId: base, patch, announce: true });
      return true;
    }
    // A complete scenario without a known base: it becomes its own baseline.
    const reg = catalog.openDocument(doc, from);
    if (reg.error) {
      showLinkError(`${errorText(reg.error)}.`);
      return false;
    }
    store.dispatch({ type: 'open', presetId: reg.id, patch: {}, announce: true });
    return true;
  }

  function failLink(message) {
    keptHash = location.hash; // the reader can see and fix what they opened (F16)
    store.dispatch({ type: 'open', presetId: defaultPreset, patch: {} });
    showLinkError(message);
    return true;
  }

  /** Opens the scenario in location.hash, if there is one; false when there is none. */
  async function applyHash() {
    // A new address: the banner about the last one goes, and what the page
    // kept of it is no longer there.
    hideLinkError();
    // Until it is read, the address stays as it was opened: an exhibit that
    // applies its part of the link meanwhile (the walk, once its file loads)
    // must not replace a link that may yet fail (F16).
    keptHash = location.hash;
    // "&name=value" parts after the scenario are exhibits' state; a link to
    // the default scenario starts with one ("#entry=5").
    const [head, ...extras] = location.hash.split('&');
    let h = head;
    const first = /^#([a-z]+)=/.exec(head);
    if (first && linkState.has(first[1])) {
      extras.unshift(head.slice(1));
      h = '';
    }
    for (const kv of extras) {
      const at = kv.indexOf('=');
      const part = linkState.get(at < 0 ? kv : kv.slice(0, at));
      if (part) { try { part.set(decodeURIComponent(at < 0 ? '' : kv.slice(at + 1))); } catch { /* a malformed part is ignored */ } }
    }
    if (!h || h === '#') { keptHash = ''; return false; }
    let id = h.slice(1);
    try { id = decodeURIComponent(id); } catch { /* keep raw */ }
    if (id.length < 200 && document.getElementById(id)) { // an in-page anchor
      keptHash = location.hash;
      return false;
    }
    const decode = () => catalog.worker.call('decodePermalink', [h], { label: 'Reading the link' })
      .catch(() => ({ error: { message: 'reading the link was cancelled' } }));
    let r = await decode();
    // A link whose base is a large capture the first view leaves to
    // presets-more.json: fetched, then the link is read again.
    if (r && r.error && catalog.unknownMoreBase(r.error)) {
      try {
        await catalog.loadMore();
      } catch (e) {
        return failLink(`${r.error.subject}, the link's preset, could not be loaded (${e.message}).`);
      }
      r = await decode();
    }
    // A link whose base is a preset that needs MLIR: the engine without MLIR
    // does not know that preset; the engine with MLIR does.
    if (r && r.error && unknownLiveBase(r.error)) {
      const loaded = await loader.loadFor('link');
      if (loaded !== true) return failLink(loaded);
      r = await decode();
    }
    if (!r || r.error || !r.scenario || typeof r.scenario !== 'object') {
      const e = (r && r.error) || engineError('invalid', 'unreadable link').error;
      return failLink(`${errorText(e)}.`);
    }
    if (needsMlir(r.scenario)) {
      const loaded = await loader.loadFor('link');
      if (loaded !== true) return failLink(loaded);
    }
    if (!openScenario(r.scenario, 'link')) return true;
    keptHash = ''; // opened: the page writes the link of what it shows
    await store.settled();
    return true;
  }

  copyButton.addEventListener('click', () => { if (E.permalink.value) copyText(E.permalink.value, E.linkInfo, 'Link copied.'); });
  window.addEventListener('hashchange', () => { applyHash(); });
  // In-page links scroll and move focus without replacing the scenario link
  // in the address bar.
  document.addEventListener('click', (e) => {
    const t = /** @type {Element} */ (e.target);
    const a = t.closest && t.closest('a[href^="#"]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const target = document.getElementById(a.getAttribute('href').slice(1));
    if (!target) return;
    e.preventDefault();
    if (!target.hasAttribute('tabindex') && !/^(INPUT|SELECT|TEXTAREA|BUTTON|A)$/.test(target.tagName)) target.setAttribute('tabindex', '-1');
    reveal(target);
  });

  return { applyHash, openScenario, needsMlir };
}
