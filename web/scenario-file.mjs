// @ts-check
// Scenario files and captured files (#share): the scenario downloaded as a
// file, and files opened here: one scenario (or one program of a capture,
// checked against the key real JAX computed), or two, compared (the first
// as the baseline, the second as a merge patch over it). Entry-1 sidecars
// are read from the files chosen with their scenario. Nothing is uploaded.
import { el, $, setText } from './dom.mjs';
import { mergePatchFrom } from './state.mjs';
import { captureCheck } from './scenario-read.mjs';
import { errorText } from './engine.mjs';
import { hasHandles } from './transfer.mjs';

/**
 * @param {import('./store.mjs').Store} store
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {import('./canonicaliser.mjs').MlirLoader} loader
 * @param {{openScenario: (doc: Object, from: string) => boolean, needsMlir: (doc: Object) => boolean}} share
 */
export function mountScenarioFiles(store, catalog, loader, { openScenario, needsMlir }) {
  const status = $('#upload-status');
  const say = (t) => setText(status, t);

  /**
   * Downloads the scenario as a file. One holding a large text kept in the
   * engine's worker is written there.
   */
  async function download() {
    const state = store.state;
    const doc = catalog.scenarioOf(state.presetId, state.patch);
    let blob;
    if (hasHandles(doc)) {
      try {
        blob = await catalog.worker.call('scenarioFile', [doc], { label: 'Writing the scenario file' });
      } catch {
        say('Writing the scenario file was cancelled.');
        return;
      }
      if (!(blob instanceof Blob)) { say(`The scenario file could not be written: ${blob && blob.error ? blob.error.message : 'no answer'}.`); return; }
    } else blob = new Blob([JSON.stringify(doc, null, 2) + '\n'], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: `cachekey-scenario-${state.presetId}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  async function upload(fileList) {
    const files = [...(fileList || [])];
    // Sidecars (entry-1 bytes, module text) travel with their scenario file.
    const sidecar = (f) => /\.(entry1|entry1\.zst|mlir)$/i.test(f.name);
    const scenarios = files.filter((f) => !sidecar(f) && f.name !== 'index.json');
    if (scenarios.length === 0) { if (files.length) say('Not opened: choose a scenario .json file (with its sidecars).'); return; }
    if (scenarios.length > 2) { say(`Not opened: ${scenarios.length} scenario files; choose one, or two to compare.`); return; }
    say(`Opening ${scenarios.map((f) => f.name).join(' and ')}\u2026`);
    // Read, sidecars included, and checked (each file's key) in the worker.
    const readAll = () => catalog.worker.call('readScenarioFiles', [scenarios, files], { label: 'Reading the files' })
      .catch(() => ({ error: 'reading the files was cancelled' }));
    let r = await readAll();
    if (r.error) { say(`Not opened: ${r.error}`); return; }
    if (r.docs.some(needsMlir)) {
      say('Loading the live MLIR canonicaliser: this file\u2019s module is MLIR text\u2026');
      const loaded = await loader.loadFor('file');
      if (loaded !== true) { say(`Not opened: ${loaded}`); return; }
      r = await readAll();
      if (r.error) { say(`Not opened: ${r.error}`); return; }
    }
    const read = r.docs;
    const keys = [];
    for (let i = 0; i < read.length; ++i) {
      if (r.keys[i].error) { say(`Not opened: ${scenarios[i].name}: ${errorText(r.keys[i].error)}`); return; }
      keys.push(r.keys[i].key);
    }
    if (read.length === 1) {
      if (!openScenario(read[0], 'file')) return;
      await store.settled();
      say(`Opened ${scenarios[0].name}: key ${keys[0]}.${captureCheck(read[0], keys[0])}`);
      return;
    }
    // Two files: the first is the baseline, the second a patch over it.
    if (!openScenario(read[0], 'file')) return;
    store.dispatch({ type: 'open', presetId: store.state.presetId, patch: mergePatchFrom(read[0], read[1]), announce: true });
    await store.settled();
    say(`Opened ${scenarios[0].name} (baseline, key ${keys[0]}) and ${scenarios[1].name} (compared, key ${keys[1]}).` +
      captureCheck(read[0], keys[0]) + captureCheck(read[1], keys[1]));
  }

  $('#download-scenario').addEventListener('click', download);
  $('#upload-scenario').addEventListener('change', (e) => { upload(e.target.files).finally(() => { e.target.value = ''; }); });
}
