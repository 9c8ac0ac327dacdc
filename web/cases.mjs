// @ts-check
// Case studies (#cases): real cache misses, one click each. A case loads a
// baseline preset and one perturbation into the key exhibit; a case computed
// live loads the MLIR canonicaliser first.
import { el, put, link } from './dom.mjs';
import { caseStudies } from './data.mjs';
import { tpuCaseStudies } from './tpu.mjs';

/**
 * A source link's address: a string, or a function giving it once
 * upstream-links.json is loaded.
 * @param {string | (() => string)} h
 * @returns {string}
 */
const hrefOf = (h) => (typeof h === 'function' ? h() : h);

/**
 * One case study (data.mjs caseStudies, tpu.mjs tpuCaseStudies).
 * @typedef {Object} CaseStudy
 * @property {string} id
 * @property {string} title
 * @property {string} text
 * @property {Array<*>} source [address, label]: the upstream source it cites
 * @property {Array<*>} [source2] a second one
 * @property {string} preset the baseline preset it loads
 * @property {Object} [patch] the perturbation it applies
 * @property {(catalog: import('./catalog.mjs').Catalog) => Object} [livePatch]
 *   the perturbation, made once the MLIR canonicaliser is loaded
 * @property {{preset: string, label: string, patch?: Object,
 *   livePatch?: (catalog: import('./catalog.mjs').Catalog) => Object}} [alt]
 *   a second view of the case
 * @property {boolean} [needsMlir] computed live: loads the MLIR canonicaliser first
 * @property {boolean} [stand_in] its TPU fingerprint is a stand-in, not libtpu's value
 */

/**
 * Renders the case studies into `root`.
 * @param {Element} root
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {import('./canonicaliser.mjs').MlirLoader} loader
 * @param {(presetId: string, patch: Object) => void} show opens a scenario in the key exhibit
 */
export function mountCases(root, catalog, loader, show) {
  /** @type {CaseStudy[]} */
  const cases = [...caseStudies(catalog), ...tpuCaseStudies(catalog.fixtures)];
  put(root, ...cases.map((c) => {
    const has = (id) => catalog.presets.has(id) || catalog.live.has(id);
    const available = has(c.preset);
    return el('article', { class: 'card', 'data-testid': `case-${c.id}`, 'aria-labelledby': `case-h-${c.id}` },
      el('h3', { id: `case-h-${c.id}` }, c.title),
      c.stand_in ? el('p', null, el('span', { class: 'badge stand-in' }, 'stand-in'), ' TPU fingerprint: not libtpu\u2019s value.') : null,
      c.needsMlir ? el('p', null, el('span', { class: 'badge warnb' }, 'needs live MLIR'), ' Computed live: the first click loads the MLIR canonicaliser (about 0.7 MB gzipped).') : null,
      el('p', null, c.text),
      el('p', { class: 'src-links' }, 'Source: ', link(hrefOf(c.source[0]), c.source[1]), c.source2 ? [', ', link(hrefOf(c.source2[0]), c.source2[1])] : null),
      el('div', { class: 'row' },
        el('button', { type: 'button', 'data-case': c.id, disabled: !available }, 'Show this case'),
        c.alt ? el('button', { type: 'button', class: 'secondary', 'data-case-alt': c.id, disabled: !has(c.alt.preset) }, c.alt.label) : null),
      c.needsMlir ? el('p', { class: 'hint', 'data-case-status': c.id, 'aria-live': 'polite' }) : null);
  }));
  root.addEventListener('click', async (e) => {
    const b = /** @type {?HTMLButtonElement} */ (/** @type {Element} */ (e.target).closest('button[data-case],button[data-case-alt]'));
    if (!b) return;
    const c = cases.find((x) => x.id === (b.getAttribute('data-case') || b.getAttribute('data-case-alt')));
    if (!c) return;
    const which = b.hasAttribute('data-case-alt') ? c.alt : c;
    if (c.needsMlir && !catalog.mlir) {
      const status = root.querySelector(`[data-case-status="${CSS.escape(c.id)}"]`);
      b.disabled = true;
      if (status) status.textContent = 'Loading the live MLIR canonicaliser\u2026';
      try {
        await loader.load();
        if (status) status.textContent = '';
      } catch (err) {
        if (status) status.textContent = 'The live MLIR canonicaliser could not be loaded: ' + err.message;
        return;
      } finally {
        b.disabled = false;
      }
    }
    show(which.preset, which.livePatch ? which.livePatch(catalog) : which.patch);
  });
}

