// @ts-check
// Embed mode (?embed=entries|flags|trace|logs, docs/embed.md): one exhibit
// alone, without the page's chrome, telling its parent frame its height.
import { $, $$ } from './dom.mjs';
import { setStatus } from './status.mjs';

/** The exhibits that can be embedded. */
export const EXHIBITS = ['entries', 'flags', 'trace', 'logs'];

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
    setStatus(`Unknown exhibit “${String(name).slice(0, 40)}”: use ?embed=entries, flags, trace or logs.`, 'error');
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
