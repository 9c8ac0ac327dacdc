// @ts-check
// Scenario files and captured files (#share): the scenario downloaded as a
// file, and files opened here: one scenario (or one program of a capture,
// checked against the key real JAX computed), or two, compared (the first
// as the baseline, the second as a merge patch over it). Entry-1 sidecars
// are read from the files chosen with their scenario. Nothing is uploaded.
import { el, $, setText } from './dom.mjs';
import { mergePatchFrom } from './state.mjs';
import { errorText } from './engine.mjs';

/** Base64 (RFC 4648) of a byte array, in chunks small enough for apply(). */
function bytesToBase64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * A scenario document from one chosen file: JSON, schema 1, and for a
 * captured file (capture.format) its entry-1 sidecar taken from `others`
 * (the files chosen with it). Returns {doc} or {error}.
 */
async function readScenarioFile(file, others) {
  if (file.size > 8 << 20) return { error: `the file is ${file.size} bytes; a scenario file is at most 8 MiB` };
  let doc;
  try {
    doc = JSON.parse(await file.text());
  } catch (e) {
    return { error: `the file is not JSON (${e.message})` };
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return { error: 'a scenario is a JSON object' };
  if (doc.schema !== 1) return { error: `$.schema: ${doc.schema === undefined ? 'missing' : 'unsupported version ' + JSON.stringify(doc.schema)} (this page reads schema 1)` };
  const e1 = doc.capture && doc.capture.entry1;
  if (e1 && e1.storage === 'omitted') return { error: 'this capture keeps only the digest of entry 1 (--no-entry1-bytes); compare such captures with cachekey diff DIR_A DIR_B' };
  if (e1 && e1.storage === 'sidecar') {
    if (e1.encoding !== 'raw') return { error: `its entry 1 is in a compressed sidecar (${e1.file}); open it with cachekey explain or cachekey diff` };
    const side = others.find((f) => f.name === e1.file);
    if (!side) return { error: `its entry 1 is in ${e1.file}: choose that file too` };
    doc.module = { ...doc.module, entry1_b64: bytesToBase64(new Uint8Array(await side.arrayBuffer())) };
  }
  return { doc };
}

/** Whether the engine's key for a captured `doc` is the key real JAX logged. */
function captureCheck(doc, key) {
  const real = doc.capture && doc.expected && doc.expected.key;
  if (!real) return '';
  return real === key ? ' The engine\u2019s key equals the key real JAX computed.' : ` Not the key real JAX computed (${real}): the engine does not reproduce this capture.`;
}

/**
 * @param {import('./store.mjs').Store} store
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {import('./canonicaliser.mjs').MlirLoader} loader
 * @param {{openScenario: (doc: Object, from: string) => boolean, needsMlir: (doc: Object) => boolean}} share
 */
export function mountScenarioFiles(store, catalog, loader, { openScenario, needsMlir }) {
  const status = $('#upload-status');
  const say = (t) => setText(status, t);

  function download() {
    const state = store.state;
    const blob = new Blob([JSON.stringify(catalog.scenarioOf(state.presetId, state.patch), null, 2) + '\n'], { type: 'application/json' });
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
    const read = [];
    for (const f of scenarios) {
      const r = await readScenarioFile(f, files);
      if (r.error) { say(`Not opened: ${f.name}: ${r.error}.`); return; }
      read.push(r.doc);
    }
    if (read.some(needsMlir)) {
      say('Loading the live MLIR canonicaliser: this file\u2019s module is MLIR text\u2026');
      const loaded = await loader.loadFor('file');
      if (loaded !== true) { say(`Not opened: ${loaded}`); return; }
    }
    const keys = [];
    for (let i = 0; i < read.length; ++i) {
      const r = catalog.engine.computeKey(read[i]);
      if (r.error) { say(`Not opened: ${scenarios[i].name}: ${errorText(r.error)}`); return; }
      keys.push(r.key);
    }
    if (read.length === 1) {
      if (!openScenario(read[0], 'file')) return;
      say(`Opened ${scenarios[0].name}: key ${keys[0]}.${captureCheck(read[0], keys[0])}`);
      return;
    }
    // Two files: the first is the baseline, the second a patch over it.
    if (!openScenario(read[0], 'file')) return;
    store.dispatch({ type: 'open', presetId: store.state.presetId, patch: mergePatchFrom(read[0], read[1]), announce: true });
    say(`Opened ${scenarios[0].name} (baseline, key ${keys[0]}) and ${scenarios[1].name} (compared, key ${keys[1]}).` +
      captureCheck(read[0], keys[0]) + captureCheck(read[1], keys[1]));
  }

  $('#download-scenario').addEventListener('click', download);
  $('#upload-scenario').addEventListener('change', (e) => { upload(e.target.files).finally(() => { e.target.value = ''; }); });
}
