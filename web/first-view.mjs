// @ts-check
// The first screen's first actions ("Try: …"): each one makes a change
// through the page's own controls (the same input events a reader's typing
// makes), then shows the key. Nothing here knows a JAX rule: the engine
// says what moved. Also the narrow-screen shortcut to the controls.
import { $, $$ } from './dom.mjs';
import { reveal } from './modes.mjs';

/** Types `value` into the control `selector` as a reader would. */
function type(selector, value) {
  const input = /** @type {HTMLInputElement} */ ($(selector));
  input.value = value;
  input.dispatchEvent(new Event('input', { bubbles: true }));
  input.dispatchEvent(new Event('change', { bubbles: true }));
}

/**
 * @param {{openExampleLogs: () => void}} actions
 */
export function mountFirstView({ openExampleLogs }) {
  const tries = {
    // A dump flag is on JAX's exclusion list: nothing moves, and the page says why.
    dump: () => { type('#xla-flags', '--xla_dump_to=/tmp/xla-dump'); reveal($('#entries-h')); },
    // Another jaxlib version string: entry 2 moves, and every running digest after it.
    jaxlib: () => { type('#jaxlib', '0.10.3'); reveal($('#entries-h')); },
    logs: () => { openExampleLogs(); reveal($('#logs-h')); },
  };
  // The shortcut on narrow screens moves to the controls and focuses their heading.
  const to = $('[data-testid="to-controls"]');
  if (to) to.addEventListener('click', (e) => { e.preventDefault(); reveal($('#controls-h')); });
  // It floats over the page: it shows only while the key is in view (where
  // it leads from), never over the other exhibits' text (the log reader's).
  const key = $('#exhibit-entries');
  if (to && key && 'IntersectionObserver' in window) {
    new IntersectionObserver((es) => { to.hidden = !es[es.length - 1].isIntersecting; }).observe(key);
  }
  for (const b of $$('[data-try]')) {
    const act = tries[b.getAttribute('data-try') || ''];
    if (act) b.addEventListener('click', act);
  }
}
