// @ts-check
// Controls for entry 7 (what the process reports as its compression) and
// entry 8 (the string custom_hook() returns).
import { el, put, setText } from '../dom.mjs';
import { deepEqual } from '../state.mjs';

/** @param {import('./index.mjs').Controls} controls */
export function bindCompression({ catalog, change }) {
  const select = /** @type {HTMLSelectElement} */ (document.getElementById('compression'));
  const note = document.getElementById('compression-note');
  // The engine's choices: each option's value is its id, its label the engine's words.
  const choices = catalog.choices.compression;
  put(select, ...choices.map((c) => el('option', { value: c.id }, c.text)));
  select.addEventListener('change', (e) => {
    const c = choices.find((x) => x.id === select.value);
    if (c) change(['compression'], c.value, e.target);
  });
  return {
    entry: 7,
    /** @param {import('../engine-types.mjs').ResolvedScenario} r */
    sync(r) {
      const choice = choices.find((c) => deepEqual(c.value, r.compression));
      let custom = select.querySelector('option[value="__custom"]');
      if (choice) {
        if (custom) custom.remove();
        select.value = choice.id;
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
