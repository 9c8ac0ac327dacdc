// @ts-check
// Embed mode (?embed=entries|walk|flags|trace|logs, docs/embed.md): one
// exhibit alone, without the page's chrome, telling its parent frame its
// height. Its text refers only to what it shows (F11): prose marked
// .not-in-embed is hidden (walk.css), and panes word their hints with
// inEmbed().
import { $, $$ } from './dom.mjs';
import { setStatus } from './status.mjs';

/** The exhibits that can be embedded. */
export const EXHIBITS = ['entries', 'walk', 'flags', 'trace', 'logs'];

/**
 * The scenario an embed opens when its link names none: the flags embed
 * opens on a captured preset with flags set (fixtures/derived/flags_ab), so
 * that its steps show flags, not an empty filter. The others open the page's
 * default scenario.
 * @type {Record<string, string>}
 */
export const EMBED_PRESET = { flags: 'flags_ab' };

/** Whether the page is an embedded exhibit (setupEmbed ran). */
export const inEmbed = () => document.body.classList.contains('embed');

/**
 * Shows only exhibit `name` and posts {type: 'cachekey-embed-height', height}
 * to the parent whenever the page's height may have changed. Returns the
 * function that posts it.
 * @param {string} name
 */
export function setupEmbed(name) {
  document.body.classList.add('embed');
  if (EXHIBITS.includes(name)) document.body.classList.add(`embed-${name}`);
  const known = EXHIBITS.includes(name);
  for (const n of $$('.chrome, .skip')) n.hidden = true;
  for (const s of $$('[data-exhibit]')) s.hidden = known && s.getAttribute('data-exhibit') !== name;
  if (!known) {
    for (const s of $$('[data-exhibit]')) s.hidden = true;
    setStatus(`Unknown exhibit “${String(name).slice(0, 40)}”: use ?embed=entries, walk, flags, trace or logs.`, 'error');
  }
  if (name === 'flags') $('#flags-embed-slot').append($('#flags-fieldset'));
  // The entries embed is compact: the pipeline picture and the final keys
  // in one column beside the entries (style.css).
  if (name === 'entries') {
    const side = document.createElement('div');
    side.className = 'entries-side';
    $('#pipeline').before(side);
    side.append($('#pipeline'), $('#exhibit-entries .final'));
  }
  // The page's own h1 is chrome, hidden here: the embedded page gets a
  // level-one heading for assistive technology, naming what it shows, so
  // that the exhibit's h2 and its h3s keep their order.
  const section = known ? $(`[data-exhibit="${name}"]`) : null;
  const h2 = section ? section.querySelector('h2') : null;
  if (section && h2) {
    const h1 = document.createElement('h1');
    h1.className = 'visually-hidden';
    h1.textContent = `JAX compilation cache key: ${h2.textContent}`;
    section.before(h1);
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
