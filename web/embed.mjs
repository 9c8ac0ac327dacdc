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
  const known = EXHIBITS.includes(name);
  for (const n of $$('.chrome, .skip')) n.hidden = true;
  for (const s of $$('[data-exhibit]')) s.hidden = known && s.getAttribute('data-exhibit') !== name;
  if (!known) {
    for (const s of $$('[data-exhibit]')) s.hidden = true;
    setStatus(`Unknown exhibit “${String(name).slice(0, 40)}”: use ?embed=entries, walk, flags, trace or logs.`, 'error');
  }
  if (name === 'flags') $('#flags-embed-slot').append($('#flags-fieldset'));
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
