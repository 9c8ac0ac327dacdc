// @ts-check
// Exhibit 2: one control per ingredient, one pane per fieldset. Every
// control writes a value at a scenario path (store action "edit"); the patch
// over the baseline preset is the only scenario state. After a change the
// resolved scenario is written back into every pane but the one being edited;
// after a change the engine refused, into every pane (so that the controls
// show the scenario the page shows).
import { $ } from '../dom.mjs';
import { bindRelease } from './release.mjs';
import { bindModule } from './module.mjs';
import { bindJaxlib, bindBackend } from './backend.mjs';
import { bindFlags } from './flags.mjs';
import { bindCompileOptions } from './compile-options.mjs';
import { bindAccelerator } from './accelerator.mjs';
import { bindCompression, bindCustomHook } from './compression.mjs';

/**
 * What every control pane is given.
 * @typedef {Object} Controls
 * @property {import('../store.mjs').Store} store
 * @property {import('../catalog.mjs').Catalog} catalog
 * @property {import('../canonicaliser.mjs').MlirLoader} loader
 * @property {(path: string[], value: *, origin: ?EventTarget) => void} change writes `value` at `path` of the scenario
 * @property {(edits: Array<[string[], *]>, origin: ?EventTarget) => void} changeMany writes several values as one change
 * @property {() => import('../engine-types.mjs').ResolvedScenario} resolved the perturbed scenario, resolved
 * @property {() => import('../engine-types.mjs').ResolvedScenario} baseline the baseline preset, resolved
 */
/**
 * One pane: `entry` is its fieldset's data-entry (0: the baseline fieldset,
 * always synced).
 * @typedef {{entry: number, sync: (r: import('../engine-types.mjs').ResolvedScenario) => void,
 *   notes?: (result: import('../engine-types.mjs').KeyResult) => void,
 *   render?: (state: import('../store.mjs').PageState) => void}} Pane
 */

/**
 * Mounts the controls (#controls) over the store.
 * @param {import('../store.mjs').Store} store
 * @param {import('../catalog.mjs').Catalog} catalog
 * @param {import('../canonicaliser.mjs').MlirLoader} loader
 */
export function mountControls(store, catalog, loader) {
  /** @type {Controls} */
  const controls = {
    store, catalog, loader,
    // `origin` is the event's target: a control (an Element).
    change: (path, value, origin) => { store.dispatch({ type: 'edit', path, value, origin: /** @type {?Element} */ (origin) }); },
    changeMany: (edits, origin) => { store.dispatch({ type: 'edit', edits, origin: /** @type {?Element} */ (origin) }); },
    resolved: () => store.state.resolved || catalog.resolvedOf(store.state.presetId),
    baseline: () => catalog.resolvedOf(store.state.presetId),
  };
  /** @type {Pane[]} */
  const panes = [bindRelease, bindModule, bindJaxlib, bindBackend, bindFlags, bindCompileOptions, bindAccelerator,
    bindCompression, bindCustomHook].map((bind) => bind(controls));

  store.subscribe((state, change) => {
    for (const p of panes) if (p.render) p.render(state);
    if (change.computed && state.cmp) for (const p of panes) if (p.notes) p.notes(state.cmp.b);
    if (state.resolved && (change.sync || (change.computed && change.origin))) {
      const skip = change.origin && change.origin.closest ? change.origin.closest('fieldset') : null;
      for (const p of panes) {
        if (p.entry === 0 || $(`fieldset[data-entry="${p.entry}"]`) !== skip) p.sync(state.resolved);
      }
    }
  });
  // Enter in a text field must not submit anything.
  $('#controls-form').addEventListener('submit', (e) => e.preventDefault());
}
