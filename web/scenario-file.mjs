// @ts-check
// Scenario files and captured files (#share): the scenario downloaded as a
// file, and files opened here: one scenario (or one program of a capture,
// checked against the key real JAX computed), or two, compared (the first
// as the baseline, the second as a merge patch over it). The engine reads
// every opened file, in its worker, exactly as `cachekey explain FILE`
// does (captures with their sidecars, raw or zstd, their SHA-256 checked,
// the key compared with real JAX's); this file only says what it answered.
// Nothing is uploaded.
import { el, $, setText } from './dom.mjs';
import { mergePatchFrom } from './state.mjs';
import { errorText, engineError } from './engine.mjs';
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

  /** What a capture is, in a few words: its program, occurrence and outcome. */
  const capturedText = (o) => (o.captured
    ? ` Program ${o.captured.program}${o.captured.occurrence > 1 ? ` #${o.captured.occurrence}` : ''}${o.captured.outcome ? ` (${o.captured.outcome}${o.captured.reason ? ': ' + o.captured.reason : ''})` : ''}.`
    : '');
  const checkText = (o) => (o.capture_check ? ' ' + o.capture_check.sentence : '');

  async function upload(fileList) {
    const files = [...(fileList || [])];
    // Sidecars (entry-1 bytes, module text) travel with their scenario file.
    const sidecar = (f) => /\.(entry1|entry1\.zst|mlir)$/i.test(f.name);
    const scenarios = files.filter((f) => !sidecar(f) && f.name !== 'index.json');
    if (scenarios.length === 0) { if (files.length) say('Not opened: choose a scenario .json file (with its sidecars).'); return; }
    if (scenarios.length > 2) { say(`Not opened: ${scenarios.length} scenario files; choose one, or two to compare (whole capture folders compare under \u201cCompare two captured runs\u201d).`); return; }
    say(`Opening ${scenarios.map((f) => f.name).join(' and ')}\u2026`);
    // Read, sidecars included, and checked (each file's key) by the engine in its worker.
    const readAll = () => catalog.worker.call('readScenarioFiles', [scenarios, files], { label: 'Reading the files' })
      .catch(() => engineError('io', 'reading the files was cancelled'));
    let r = await readAll();
    if (r.error) { say(`Not opened: ${errorText(r.error)}`); return; }
    // A file over a large capture the first view leaves to presets-more.json:
    // fetched, then the files are read again.
    const more = r.opened.map((o) => catalog.unknownMoreBase(o.error)).find(Boolean);
    if (more) {
      try {
        await catalog.loadMore();
      } catch (e) {
        say(`Not opened: ${more}, the file's preset, could not be loaded (${e.message}).`);
        return;
      }
      r = await readAll();
      if (r.error) { say(`Not opened: ${errorText(r.error)}`); return; }
    }
    // A module given as text needs the live MLIR canonicaliser: the engine
    // says so with its code, and the file is read again once it is loaded.
    if (r.opened.some((o) => o.error && o.error.code === 'no_mlir')) {
      say('Loading the live MLIR canonicaliser: this file\u2019s module is MLIR text\u2026');
      const loaded = await loader.loadFor('file');
      if (loaded !== true) { say(`Not opened: ${loaded}`); return; }
      r = await readAll();
      if (r.error) { say(`Not opened: ${errorText(r.error)}`); return; }
    }
    const opened = r.opened;
    for (const o of opened) {
      if (o.error) { say(`Not opened: ${errorText(o.error)}`); return; }
      if (o.captured && o.captured.entry1_omitted) {
        say(`Not opened: ${o.captured.file} keeps only the digest of entry 1 (captured with --no-entry1-bytes), so the page cannot show its entries; compare whole capture folders under \u201cCompare two captured runs\u201d, or use cachekey diff DIR_A DIR_B.`);
        return;
      }
    }
    const keys = opened.map((o) => o.result.key);
    const docs = opened.map((o) => o.scenario);
    if (docs.some(needsMlir) && !catalog.mlir) {
      const loaded = await loader.loadFor('file');
      if (loaded !== true) { say(`Not opened: ${loaded}`); return; }
    }
    if (docs.length === 1) {
      if (!openScenario(docs[0], 'file')) return;
      await store.settled();
      say(`Opened ${scenarios[0].name}: key ${keys[0]}.${capturedText(opened[0])}${checkText(opened[0])}`);
      return;
    }
    // Two files: the first is the baseline, the second a patch over it.
    if (!openScenario(docs[0], 'file')) return;
    store.dispatch({ type: 'open', presetId: store.state.presetId, patch: mergePatchFrom(docs[0], docs[1]), announce: true });
    await store.settled();
    say(`Opened ${scenarios[0].name} (baseline, key ${keys[0]}) and ${scenarios[1].name} (compared, key ${keys[1]}).` +
      capturedText(opened[0]) + checkText(opened[0]) + capturedText(opened[1]) + checkText(opened[1]));
  }

  $('#download-scenario').addEventListener('click', download);
  $('#upload-scenario').addEventListener('change', (e) => { upload(e.target.files).finally(() => { e.target.value = ''; }); });
}
