// @ts-check
// Controls for entry 7 (what the process reports as its compression) and
// entry 8 (the string custom_hook() returns).
import { el, put, setText } from '../dom.mjs';
import { COMPRESSION_CHOICES } from '../data.mjs';
import { deepEqual } from '../state.mjs';

/** @param {import('./index.mjs').Controls} controls */
export function bindCompression({ change }) {
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('compression'));
  const note = document.getElementById('compression-note');
  put(select, ...COMPRESSION_CHOICES.map(([id, label]) => el('option', { value: id }, label)));
  select.addEventListener('change', (e) => {
    const c = COMPRESSION_CHOICES.find(([id]) => id === select.value);
    if (c) change(['compression'], c[2], e.target);
  });
  return {
    entry: 7,
    /** @param {import('../engine-types.mjs').ResolvedScenario} r */
    sync(r) {
      const choice = COMPRESSION_CHOICES.find(([, , v]) => deepEqual(v, r.compression));
      let custom = select.querySelector('option[value="__custom"]');
      if (choice) {
        if (custom) custom.remove();
        select.value = choice[0];
      } else {
        if (!custom) select.append(custom = el('option', { value: '__custom' }));
        setText(custom, 'other: ' + JSON.stringify(r.compression));
        select.value = '__custom';
      }
    },
    /** @param {import('../engine-types.mjs').KeyResult} result */
    notes(result) {
      const writes = result.compression_writes;
      setText(note, `Fed to the hash: "${result.compression}".${writes ? ' ' + writes.text : ''}`);
    },
  };
}

/** @param {import('./index.mjs').Controls} controls */
export function bindCustomHook({ change }) {
  const input = /** @type {HTMLInputElement} */ (document.getElementById('custom-hook'));
  input.addEventListener('input', (e) => change(['custom_hook'], input.value, e.target));
  return {
    entry: 8,
    /** @param {import('../engine-types.mjs').ResolvedScenario} r */
    sync(r) { input.value = r.custom_hook ?? ''; },
  };
}
