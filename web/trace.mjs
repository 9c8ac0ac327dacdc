// @ts-check
// Exhibit "trace": the DEBUG lines JAX logs for the perturbed scenario, as
// the engine gives them (result.trace), optionally with Python's default
// logging prefix, and a copy button.
import { $, setText } from './dom.mjs';

// Python's default logging format (logging.basicConfig): LEVEL:logger:message.
const PREFIX = { debug: 'DEBUG:jax._src.cache_key:', info: 'INFO:jax._src.cache_key:' };

/**
 * The trace as text: one line each, with Python's default prefix when asked,
 * at the level the engine gives for each line (result.trace_levels).
 * @param {string[]} lines
 * @param {string[]} levels "debug" or "info", one per line
 * @param {boolean} withPrefix
 */
export function traceText(lines, levels, withPrefix) {
  if (!withPrefix) return lines.join('\n');
  return lines.map((l, i) => (levels[i] === 'info' ? PREFIX.info : PREFIX.debug) + l).join('\n');
}

/**
 * Writes `text` to the clipboard and says so (or why not) in `statusNode`.
 * @param {string} text
 * @param {Element} statusNode
 * @param {string} ok
 */
export async function copyText(text, statusNode, ok) {
  try {
    await navigator.clipboard.writeText(text);
    setText(statusNode, ok);
  } catch {
    setText(statusNode, 'Copying was refused by the browser; select the text and copy it by hand.');
  }
}

/**
 * Mounts #exhibit-trace over the store.
 * @param {import('./store.mjs').Store} store
 */
export function mountTrace(store) {
  const trace = $('#trace');
  $('#trace-prefix').addEventListener('change', (e) => store.dispatch({ type: 'view', tracePrefix: e.target.checked }));
  $('#copy-trace').addEventListener('click', () => copyText(trace.textContent, $('#copy-trace-status'), 'Trace copied.'));
  // drawn again only when the trace or its prefix changed (not for the
  // other panes' changes: the walk's steps dispatch while it plays)
  let shown = null;
  let prefixShown = false;
  store.subscribe((state) => {
    if (!state.cmp || (state.cmp === shown && state.tracePrefix === prefixShown)) return;
    shown = state.cmp;
    prefixShown = state.tracePrefix;
    trace.textContent = traceText(state.cmp.b.trace, state.cmp.b.trace_levels || [], state.tracePrefix);
  });
}
