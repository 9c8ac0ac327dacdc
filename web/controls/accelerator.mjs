// @ts-check
// Control for entry 6, the accelerator: as in the preset, an edited CPU
// topology, a GPU topology measured with the CUDA plugin's compile-only
// client (gpu.mjs), a TPU topology measured with libtpu (tpu.mjs), or the
// device_kind fallback. Which panel is open is this pane's own state
// (a kind whose values are not valid yet is not in the scenario).
import { el, put, $, setText, numberIn } from '../dom.mjs';
import { gpuGroups, gpuById, gpuByFingerprint, gpuLabel, gpuAccelerator, gpuNote } from '../gpu.mjs';
import { deepEqual, clone } from '../state.mjs';
import { tpuGroups, tpuById, tpuByFingerprint, tpuLabel, tpuAccelerator, tpuNote, libtpuBuilds, libtpuForProfile, tpuPlatformVersion } from '../tpu.mjs';

const KINDS = ['cpu', 'gpu', 'tpu', 'fallback'];

/** @param {import('./index.mjs').Controls} controls */
export function bindAccelerator({ catalog, change, resolved, baseline }) {
  /** @param {string} id */
  const q = (id) => document.getElementById(id);
  const ui = {
    kind: /** @type {HTMLSelectElement} */ (q('accel-kind')), cpuName: /** @type {HTMLInputElement} */ (q('cpu-name')), cpuDevices: /** @type {HTMLInputElement} */ (q('cpu-devices')),
    gpuTopology: /** @type {HTMLSelectElement} */ (q('gpu-topology')), gpuText: q('gpu-note-text'),
    tpuTopology: /** @type {HTMLSelectElement} */ (q('tpu-topology')), tpuText: q('tpu-standin-text'), tpuBackend: /** @type {HTMLButtonElement} */ (q('tpu-backend')),
    tpuLibtpu: /** @type {HTMLSelectElement} */ (q('tpu-libtpu')), tpuStandIn: $('#accel-tpu .stand-in'),
    deviceKinds: /** @type {HTMLInputElement} */ (q('device-kinds')), note: q('accel-note'), platform: /** @type {HTMLInputElement} */ (q('platform')), platformVersion: /** @type {HTMLTextAreaElement} */ (q('platform-version')),
  };
  const tpu = catalog.tpu;
  const gpu = catalog.gpu;
  let kind = 'captured';
  let libtpuChosen = false; // the user picked a libtpu build: keep it across profiles

  put(ui.gpuTopology, ...gpuGroups(gpu).map(([name, ts]) => el('optgroup', { label: name }, ts.map((t) => el('option', { value: t.id }, gpuLabel(t))))));
  if (gpuById(gpu, 'NVIDIA H100 80GB HBM3/1x1x8')) ui.gpuTopology.value = 'NVIDIA H100 80GB HBM3/1x1x8';
  put(ui.tpuTopology, ...tpuGroups(tpu).map(([gen, ts]) => el('optgroup', { label: gen }, ts.map((t) => el('option', { value: t.id }, tpuLabel(t))))));
  put(ui.tpuLibtpu, ...libtpuBuilds(tpu).map((b) => el('option', { value: b.libtpu }, `libtpu ${b.libtpu} (jax ${b.jax})`)));
  if (tpuById(tpu, 'v5e:2x4')) ui.tpuTopology.value = 'v5e:2x4';

  function baseCpuTopology() {
    const base = baseline();
    if (base.accelerator && base.accelerator.cpu_topology) return base.accelerator.cpu_topology;
    const add = catalog.fixtures.add_1x1;
    return add && add.accelerator && add.accelerator.cpu_topology;
  }

  function detectKind(r) {
    if (deepEqual(r.accelerator, baseline().accelerator)) return 'captured';
    const a = r.accelerator || {};
    if (a.cpu_topology) return 'cpu';
    if (a.fingerprint && gpuByFingerprint(gpu, a.fingerprint.value)) return 'gpu';
    if (a.fingerprint) return 'tpu';
    if (a.device_kinds) return 'fallback';
    return 'captured';
  }

  function showPanel(k) {
    ui.kind.value = k;
    for (const x of KINDS) $('#accel-' + x).hidden = x !== k;
  }

  function syncGpuNote() {
    const t = gpuById(gpu, ui.gpuTopology.value);
    setText(ui.gpuText, t ? gpuNote(gpu, t) : 'No measured GPU topologies (gpu_topologies.json did not load).');
  }

  function syncTpuNote(fp) {
    const t = tpuById(tpu, ui.tpuTopology.value);
    ui.tpuStandIn.hidden = !(t ? t.fingerprint.stand_in : fp && fp.stand_in);
    ui.tpuBackend.disabled = !t || tpuPlatformVersion(t, ui.tpuLibtpu.value) === undefined;
    if (t) setText(ui.tpuText, tpuNote(t, ui.tpuLibtpu.value));
    else if (fp) setText(ui.tpuText, `Fingerprint ${fp.value}: ${fp.stand_in ? 'a stand-in, not libtpu\u2019s value.' : 'given in the scenario, not one of the measured topologies.'} ${fp.provenance || ''}`);
  }

  function sync(r) {
    kind = detectKind(r);
    showPanel(kind);
    const a = r.accelerator || {};
    const cpu = a.cpu_topology || baseCpuTopology();
    if (cpu) {
      ui.cpuName.value = (cpu.target_machine && cpu.target_machine.cpu) || '';
      ui.cpuDevices.value = String((cpu.devices || []).length || 1);
    }
    const g = a.fingerprint && gpuByFingerprint(gpu, a.fingerprint.value);
    if (g) ui.gpuTopology.value = g.id;
    syncGpuNote();
    let customFp = ui.tpuTopology.querySelector('option[value="__custom"]');
    if (a.fingerprint && !g) {
      const t = tpuByFingerprint(tpu, a.fingerprint.value);
      if (t) {
        ui.tpuTopology.value = t.id;
        if (customFp) customFp.remove();
      } else {
        if (!customFp) ui.tpuTopology.append(customFp = el('option', { value: '__custom' }));
        setText(customFp, `fingerprint ${a.fingerprint.value}${a.fingerprint.stand_in ? ' (stand-in)' : ''}`);
        ui.tpuTopology.value = '__custom';
      }
    }
    if (!libtpuChosen && tpu) ui.tpuLibtpu.value = libtpuForProfile(tpu, r.profile && catalog.releaseOf(r.profile));
    syncTpuNote(a.fingerprint);
    if (a.device_kinds) ui.deviceKinds.value = a.device_kinds.join(', ');
    else if (!ui.deviceKinds.value) ui.deviceKinds.value = 'cpu';
  }

  /** The accelerator member for panel `k`, or {error}. */
  function value(k) {
    if (k === 'captured') return baseline().accelerator;
    if (k === 'cpu') {
      const cpu = clone(baseCpuTopology());
      if (!cpu) return { error: 'no CPU topology to start from' };
      const n = numberIn(ui.cpuDevices);
      if (!Number.isInteger(n) || n < 1 || n > 4096) return { error: 'devices: a whole number from 1 to 4096' };
      if (n !== (cpu.devices || []).length) cpu.devices = Array.from({ length: n }, (_, i) => ({ process_index: 0, local_hardware_id: i }));
      cpu.target_machine = Object.assign({}, cpu.target_machine, { cpu: ui.cpuName.value });
      return { cpu_topology: cpu };
    }
    if (k === 'gpu') {
      const t = gpuById(gpu, ui.gpuTopology.value);
      return t ? gpuAccelerator(gpu, t) : { error: 'choose a GPU topology (gpu_topologies.json did not load)' };
    }
    if (k === 'tpu') {
      const t = tpuById(tpu, ui.tpuTopology.value);
      if (!t) {
        const cur = resolved().accelerator;
        return cur && cur.fingerprint ? cur : { error: 'choose a TPU topology' };
      }
      return tpuAccelerator(t);
    }
    const kinds = ui.deviceKinds.value.split(',').map((s) => s.trim()).filter((s) => s !== '');
    if (!kinds.length) return { error: 'give at least one device_kind' };
    return { device_kinds: kinds };
  }

  function apply(origin) {
    const v = value(kind);
    if (v && v.error) {
      setText(ui.note, v.error);
      return;
    }
    change(['accelerator'], v, origin);
  }

  ui.kind.addEventListener('change', (e) => {
    kind = ui.kind.value;
    showPanel(kind);
    apply(e.target);
  });
  for (const n of [ui.cpuName, ui.cpuDevices, ui.deviceKinds]) {
    n.addEventListener('input', (e) => apply(e.target));
  }
  ui.gpuTopology.addEventListener('change', (e) => { syncGpuNote(); apply(e.target); });
  ui.tpuTopology.addEventListener('change', (e) => { syncTpuNote(); apply(e.target); });
  ui.tpuLibtpu.addEventListener('change', () => { libtpuChosen = true; syncTpuNote(); });
  ui.tpuBackend.addEventListener('click', () => {
    const pv = tpuPlatformVersion(tpuById(tpu, ui.tpuTopology.value), ui.tpuLibtpu.value);
    if (pv === undefined) return;
    change(['backend'], Object.assign({}, resolved().backend, { platform: 'tpu', platform_version: pv }), ui.tpuBackend);
    const r = resolved();
    ui.platform.value = r.backend.platform;
    ui.platformVersion.value = r.backend.platform_version;
  });

  return {
    entry: 6,
    sync,
    /** @param {import('../engine-types.mjs').KeyResult} result */
    notes(result) {
      const acc = result.accelerator || {};
      /** @type {{summary?: string, bytes_len?: number}} */
      const e6 = (result.entries || [])[5] || {};
      setText(ui.note, `Entry 6 feeds ${e6.summary || ''} (${e6.bytes_len} bytes)${acc.fingerprint && !acc.fallback ? `; fingerprint ${acc.fingerprint}` : ''}. ${acc.provenance || ''}`);
    },
  };
}
