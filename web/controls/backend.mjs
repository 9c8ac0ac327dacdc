// @ts-check
// Controls for entry 2 (the jaxlib version string) and entry 3 (platform and
// platform_version), with the known platform_version strings to pick from:
// the engine's (scenarioChoices) and the TPU strings measured with libtpu.
import { el, put } from '../dom.mjs';
import { tpuPlatformVersionChoices } from '../tpu.mjs';

/** @param {import('./index.mjs').Controls} controls */
export function bindJaxlib({ change }) {
  const jaxlib = /** @type {HTMLInputElement} */ (document.getElementById('jaxlib'));
  jaxlib.addEventListener('input', (e) => change(['jaxlib_version'], jaxlib.value, e.target));
  return {
    entry: 2,
    /** @param {import('../engine-types.mjs').ResolvedScenario} r */
    sync(r) { jaxlib.value = r.jaxlib_version ?? ''; },
  };
}

/** @param {import('./index.mjs').Controls} controls */
export function bindBackend({ catalog, change }) {
  const ui = {
    platform: /** @type {HTMLInputElement} */ (document.getElementById('platform')),
    platformVersion: /** @type {HTMLTextAreaElement} */ (document.getElementById('platform-version')),
    pick: /** @type {HTMLSelectElement} */ (document.getElementById('platform-version-pick')),
  };
  put(ui.pick, el('option', { value: '' }, 'Pick one…'),
    ...catalog.choices.platform_versions.map((c) => el('option', { value: c.platform_version }, c.text)),
    ...tpuPlatformVersionChoices(catalog.tpu).map(([v, label]) => el('option', { value: v }, label)));
  ui.platform.addEventListener('input', (e) => change(['backend', 'platform'], ui.platform.value, e.target));
  ui.platformVersion.addEventListener('input', (e) => change(['backend', 'platform_version'], ui.platformVersion.value, e.target));
  ui.pick.addEventListener('change', (e) => {
    if (ui.pick.value === '') return;
    ui.platformVersion.value = ui.pick.value;
    change(['backend', 'platform_version'], ui.pick.value, e.target);
    ui.pick.value = '';
  });
  return {
    entry: 3,
    /** @param {import('../engine-types.mjs').ResolvedScenario} r */
    sync(r) {
      ui.platform.value = (r.backend && r.backend.platform) ?? '';
      ui.platformVersion.value = (r.backend && r.backend.platform_version) ?? '';
    },
  };
}
