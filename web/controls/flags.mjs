// @ts-check
// Control for entry 4: the three places JAX collects XLA flags from
// (XLA_FLAGS, LIBTPU_INIT_ARGS, sys.argv) and the extra prefixes. The engine
// collects and filters them; the flag exhibit (flags.mjs) shows how.
import { getPath } from '../state.mjs';

/** @param {import('./index.mjs').Controls} controls */
export function bindFlags({ change, baseline }) {
  /** @param {string} id */
  const q = (id) => /** @type {HTMLInputElement | HTMLTextAreaElement} */ (document.getElementById(id));
  const ui = { xlaFlags: q('xla-flags'), libtpu: q('libtpu-args'), argv: q('argv'), prefixes: q('extra-prefixes') };
  const envInput = (input, key) => input.addEventListener('input', (e) =>
    change(['flags', key], input.value === '' ? undefined : input.value, e.target));
  envInput(ui.xlaFlags, 'XLA_FLAGS');
  envInput(ui.libtpu, 'LIBTPU_INIT_ARGS');
  /** A list typed in `input` (split by `sep`); the preset's own list when both are empty. */
  const listInput = (input, key, sep) => input.addEventListener('input', (e) => {
    const v = input.value.split(sep).filter((s) => s !== '');
    const base = getPath(baseline(), ['flags', key]) || [];
    change(['flags', key], v.length || base.length ? v : base, e.target);
  });
  listInput(ui.argv, 'argv', '\n');
  listInput(ui.prefixes, 'extra_prefixes', /\s+/);
  return {
    entry: 4,
    /** @param {import('../engine-types.mjs').ResolvedScenario} r */
    sync(r) {
      const f = r.flags || {};
      ui.xlaFlags.value = f.XLA_FLAGS ?? '';
      ui.libtpu.value = f.LIBTPU_INIT_ARGS ?? '';
      ui.argv.value = (f.argv || []).join('\n');
      ui.prefixes.value = (f.extra_prefixes || []).join(' ');
    },
  };
}
