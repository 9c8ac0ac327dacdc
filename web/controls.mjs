// Exhibit 2: one control per ingredient. Every control writes a value at a
// scenario path through ctx.change(path, value, origin); the patch over the
// baseline preset is the only state. sync() writes the resolved perturbed
// scenario back into the controls (skipping the fieldset being edited).
import { el, put, $, setText, setAttr } from './dom.mjs';
import { COMPRESSION_CHOICES, GPU_NAMES, PLATFORM_VERSIONS } from './data.mjs';
import { deepEqual, getPath, clone } from './state.mjs';
import { errorText } from './engine.mjs';
import { tpuGroups, tpuById, tpuByFingerprint, tpuLabel, tpuAccelerator, tpuNote, libtpuBuilds, libtpuForProfile, tpuPlatformVersion, tpuPlatformVersionChoices } from './tpu.mjs';

const MODULE_KEYS = ['sym_name', 'entry1_b64', 'include_metadata', 'ignore_callbacks'];
const pickModule = (m) => {
  const out = {};
  for (const k of MODULE_KEYS) if (m && m[k] !== undefined) out[k] = m[k];
  if (out.include_metadata === undefined) out.include_metadata = false;
  if (out.ignore_callbacks === undefined) out.ignore_callbacks = 'NO';
  return out;
};
const LINES = /^lines_([ab])_(meta|nometa)$/;

let ctx;
let ui;
let accelKind = 'captured';
let libtpuChosen = false; // the user picked a libtpu build: keep it across profiles

const numOrUndef = (input) => {
  const v = input.value.trim();
  if (v === '') return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : NaN;
};

function fieldsetOf(node) {
  return node && node.closest ? node.closest('fieldset') : null;
}

// ---------------------------------------------------------------- module
function moduleSourceId(resolved) {
  const b64 = resolved.module && resolved.module.entry1_b64;
  if (!b64) return resolved.module && typeof resolved.module.text === 'string' ? '__text' : '__custom';
  for (const [id, fx] of Object.entries(ctx.fixtures)) if (fx.module.entry1_b64 === b64) return id;
  return '__custom';
}

function setModuleFrom(id, origin) {
  const fx = ctx.fixtures[id];
  if (!fx) return;
  const base = ctx.baseResolved();
  const value = pickModule(fx.module);
  if (deepEqual(value, pickModule(base.module))) ctx.change(['module'], base.module, origin);
  else ctx.change(['module'], value, origin);
  syncModule(ctx.resolved());
}

const isText = (r) => !!(r && r.module && typeof r.module.text === 'string');
const textHints = () => [ctx.state.presetId, ctx.rootFixture(ctx.state.presetId)];

function syncModule(r) {
  const id = moduleSourceId(r);
  let opt = ui.moduleSource.querySelector('option[value="__custom"]');
  if (id === '__custom' || id === '__text') {
    if (!opt) ui.moduleSource.append(opt = el('option', { value: '__custom' }));
    setText(opt, id === '__text' ? 'module text (canonicalised live)' : 'other bytes (from a link or file)');
  } else if (opt) opt.remove();
  ui.moduleSource.value = id === '__text' ? '__custom' : id;
  const m = LINES.exec(id);
  const text = isText(r);
  const known = ctx.mlir && ctx.textFor(r.module, textHints()) !== undefined;
  ui.includeMetadata.checked = !!(r.module && r.module.include_metadata);
  ui.includeMetadata.disabled = !(text || m || known);
  setText(ui.includeMetadataWhy, text
    ? 'Canonicalises the text with its locations kept (jax_compilation_cache_include_metadata_in_key): then a location edit moves entry 1 too.'
    : m ? 'Switches between the bytes jaxlib hashed with and without locations (captured both ways).'
      : known ? 'Turns the module into text canonicalised live, with its locations kept.'
        : ctx.mlir ? 'No text is bundled for these bytes: paste the module\u2019s text (generic form) to use it.'
          : 'Available for the lines_a / lines_b modules, which were captured both ways. For other modules only one set of bytes was captured; open the module text to canonicalise it live.');
  if (ctx.mlir && document.activeElement !== ui.moduleText) {
    const t = ctx.textFor(r.module, textHints());
    if (ui.moduleText.value !== (t ?? '')) ui.moduleText.value = t ?? '';
    ui.moduleText.placeholder = t === undefined ? 'No text is bundled for this module. Paste MLIR in generic form.' : '';
  }
}

/** The live MLIR module is loaded: the editor opens. */
export function mlirReady() {
  ui.moduleText.disabled = false;
  document.getElementById('module-text-box').hidden = false;
  ui.loadMlir.hidden = true;
  ui.loadMlir.disabled = false;
  setText(ui.moduleTextWhy, 'Live MLIR loaded: the text is canonicalised in your browser (strip-debuginfo, and on main the Pallas kernel strip, then bytecode), for the perturbed module and, from the preset\u2019s own text, for the baseline, so the two compare like for like. Generic form only: this build registers no StableHLO dialect, so jaxlib\u2019s pretty form does not parse. Its MLIR release is not jaxlib\u2019s, so these keys are not the ones real JAX computes.');
  const group = ui.preset.querySelector('optgroup[data-live]');
  if (group) setAttr(group, 'label', 'Needs live MLIR (loaded)');
}

/** Loading the live MLIR module failed; the button stays for another try. */
export function mlirFailed(e) {
  ui.loadMlir.disabled = false;
  ui.loadMlir.hidden = false;
  setText(ui.moduleTextWhy, 'The live MLIR canonicaliser could not be loaded (' + e.message + '). It is built by scripts/build-web and served from mlir/. The presets\u2019 captured bytes still feed entry 1.');
}

/** A text edit (or the include_metadata switch in text mode). */
function setModuleText(text, origin) {
  if (text.trim() === '') ctx.change(['module'], ctx.baseResolved().module, origin);
  else ctx.change(['module'], ctx.textModule(text, ui.includeMetadata.checked), origin);
}

// ---------------------------------------------------------------- compile options
function debugEdits(r) {
  return getPath(r, ['compile_options', 'edits', 'debug_options']) || {};
}

function syncCompileOptions(r) {
  const edits = debugEdits(r);
  put(ui.dbgList, ...Object.entries(edits).map(([name, value]) => el('li', null,
    el('code', null, `${name} = ${JSON.stringify(value)}`), ' ',
    el('button', { type: 'button', class: 'small secondary', 'data-remove-dbg': name, 'aria-label': `Remove ${name}` }, 'Remove'))));
  const env = getPath(r, ['compile_options', 'edits', 'env_option_overrides']) || [];
  put(ui.envList, ...env.map((pair, i) => el('li', null,
    el('code', null, Array.isArray(pair) ? `${pair[0]} = ${JSON.stringify(pair[1])}` : JSON.stringify(pair)), ' ',
    el('button', { type: 'button', class: 'small secondary', 'data-remove-env': String(i), 'aria-label': `Remove override ${Array.isArray(pair) ? pair[0] : i}` }, 'Remove'))));
  const da = getPath(r, ['compile_options', 'edits', 'device_assignment']);
  ui.daOn.checked = Array.isArray(da);
  if (Array.isArray(da) && da.length && Array.isArray(da[0])) {
    ui.daRows.value = String(da.length);
    ui.daCols.value = String(da[0].length);
    ui.daIds.value = da.flat().join(' ');
  } else {
    ui.daRows.value = '1';
    ui.daCols.value = '1';
    ui.daIds.value = '';
  }
  setText(ui.daNote, '');
  const nr = getPath(r, ['compile_options', 'edits', 'num_replicas']);
  const np = getPath(r, ['compile_options', 'edits', 'num_partitions']);
  ui.numReplicas.value = nr === undefined ? '' : String(nr);
  ui.numPartitions.value = np === undefined ? '' : String(np);
  ui.numReplicas.placeholder = 'as is';
  ui.numPartitions.placeholder = 'as is';
  const fdo = getPath(r, ['compile_options', 'edits', 'fdo_profile_b64']);
  ui.fdo.value = fdo === undefined ? '' : String(fdo);
}

/** The value typed for a DebugOptions field of the engine's `kind`. */
function parseDebugValue(kind, text) {
  const t = text.trim();
  if (kind === 'bool') {
    if (/^(true|1)$/i.test(t)) return true;
    if (/^(false|0)$/i.test(t)) return false;
    return { error: 'a bool field takes true or false' };
  }
  if (kind === 'float') {
    if (t === '' || !Number.isFinite(Number(t))) return { error: 'a float field takes a number' };
    return Number(t);
  }
  if (kind !== 'string') {
    if (!/^-?\d+$/.test(t) || !Number.isSafeInteger(Number(t))) return { error: `an integer field (${kind}) takes a whole number` };
    return Number(t);
  }
  return text;
}

/** The engine's DebugOptions field named `name`, if it knows one. */
const debugField = (name) => ctx.debugFields.find((x) => x.name === name);

function deviceAssignmentValue() {
  const R = numOrUndef(ui.daRows);
  const C = numOrUndef(ui.daCols);
  if (!Number.isInteger(R) || !Number.isInteger(C) || R < 1 || C < 1 || R * C > 4096) return { error: 'R and C must be whole numbers ≥ 1 (R·C ≤ 4096)' };
  const ids = ui.daIds.value.trim() === '' ? Array.from({ length: R * C }, (_, i) => i)
    : ui.daIds.value.trim().split(/[\s,]+/).map(Number);
  if (ids.length !== R * C || ids.some((x) => !Number.isSafeInteger(x) || x < 0)) return { error: `give ${R * C} device ids (whole numbers ≥ 0)` };
  return Array.from({ length: R }, (_, r) => ids.slice(r * C, r * C + C));
}

// ---------------------------------------------------------------- accelerator
function baseCpuTopology() {
  const base = ctx.baseResolved();
  if (base.accelerator && base.accelerator.cpu_topology) return base.accelerator.cpu_topology;
  const add = ctx.fixtures.add_1x1;
  return add && add.accelerator && add.accelerator.cpu_topology;
}

function detectAccelKind(r) {
  const base = ctx.baseResolved();
  if (deepEqual(r.accelerator, base.accelerator)) return 'captured';
  const a = r.accelerator || {};
  if (a.cpu_topology) return 'cpu';
  if (a.gpu_topology) return 'gpu';
  if (a.fingerprint) return 'tpu';
  if (a.device_kinds) return 'fallback';
  return 'captured';
}

function showAccelPanel(kind) {
  ui.accelKind.value = kind;
  for (const k of ['cpu', 'gpu', 'tpu', 'fallback']) $('#accel-' + k).hidden = k !== kind;
}

function syncAccel(r) {
  accelKind = detectAccelKind(r);
  showAccelPanel(accelKind);
  const a = r.accelerator || {};
  const cpu = a.cpu_topology || baseCpuTopology();
  if (cpu) {
    ui.cpuName.value = (cpu.target_machine && cpu.target_machine.cpu) || '';
    ui.cpuDevices.value = String((cpu.devices || []).length || 1);
  }
  if (a.gpu_topology) {
    ui.gpuName.value = a.gpu_topology.platform_version || '';
    ui.gpuPartitions.value = String(a.gpu_topology.num_partitions ?? 1);
    ui.gpuHosts.value = String(a.gpu_topology.num_hosts_per_partition ?? 1);
    ui.gpuDevices.value = String(a.gpu_topology.num_devices_per_host ?? 1);
  } else if (!ui.gpuName.value) ui.gpuName.value = GPU_NAMES[0];
  let customFp = ui.tpuTopology.querySelector('option[value="__custom"]');
  if (a.fingerprint) {
    const t = tpuByFingerprint(ctx.tpu, a.fingerprint.value);
    if (t) {
      ui.tpuTopology.value = t.id;
      if (customFp) customFp.remove();
    } else {
      if (!customFp) ui.tpuTopology.append(customFp = el('option', { value: '__custom' }));
      setText(customFp, `fingerprint ${a.fingerprint.value}${a.fingerprint.stand_in ? ' (stand-in)' : ''}`);
      ui.tpuTopology.value = '__custom';
    }
  }
  if (!libtpuChosen && ctx.tpu) ui.tpuLibtpu.value = libtpuForProfile(ctx.tpu, r.profile);
  syncTpuNote(a.fingerprint);
  if (a.device_kinds) ui.deviceKinds.value = a.device_kinds.join(', ');
  else if (!ui.deviceKinds.value) ui.deviceKinds.value = 'cpu';
}

function syncTpuNote(fp) {
  const t = tpuById(ctx.tpu, ui.tpuTopology.value);
  ui.tpuStandIn.hidden = !(t ? t.fingerprint.stand_in : fp && fp.stand_in);
  ui.tpuBackend.disabled = !t || tpuPlatformVersion(t, ui.tpuLibtpu.value) === undefined;
  if (t) setText(ui.tpuText, tpuNote(t, ui.tpuLibtpu.value));
  else if (fp) setText(ui.tpuText, `Fingerprint ${fp.value}: ${fp.stand_in ? 'a stand-in, not libtpu\u2019s value.' : 'given in the scenario, not one of the measured topologies.'} ${fp.provenance || ''}`);
}

function accelValue(kind) {
  const base = ctx.baseResolved();
  if (kind === 'captured') return base.accelerator;
  if (kind === 'cpu') {
    const cpu = clone(baseCpuTopology());
    if (!cpu) return { error: 'no CPU topology to start from' };
    const n = numOrUndef(ui.cpuDevices);
    if (!Number.isInteger(n) || n < 1 || n > 4096) return { error: 'devices: a whole number from 1 to 4096' };
    if (n !== (cpu.devices || []).length) cpu.devices = Array.from({ length: n }, (_, i) => ({ process_index: 0, local_hardware_id: i }));
    cpu.target_machine = Object.assign({}, cpu.target_machine, { cpu: ui.cpuName.value });
    return { cpu_topology: cpu };
  }
  if (kind === 'gpu') {
    const nums = [ui.gpuPartitions, ui.gpuHosts, ui.gpuDevices].map(numOrUndef);
    if (nums.some((x) => !Number.isInteger(x) || x < 1)) return { error: 'partitions, hosts and devices: whole numbers ≥ 1' };
    return { gpu_topology: { platform_version: ui.gpuName.value, num_partitions: nums[0], num_hosts_per_partition: nums[1], num_devices_per_host: nums[2] } };
  }
  if (kind === 'tpu') {
    const t = tpuById(ctx.tpu, ui.tpuTopology.value);
    if (!t) {
      const cur = ctx.resolved().accelerator;
      return cur && cur.fingerprint ? cur : { error: 'choose a TPU topology' };
    }
    return tpuAccelerator(t);
  }
  const kinds = ui.deviceKinds.value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (!kinds.length) return { error: 'give at least one device_kind' };
  return { device_kinds: kinds };
}

function applyAccel(origin) {
  const v = accelValue(accelKind);
  if (v && v.error) {
    setText(ui.accelNote, v.error);
    return;
  }
  ctx.change(['accelerator'], v, origin);
}

// ---------------------------------------------------------------- compression
function syncCompression(r) {
  const choice = COMPRESSION_CHOICES.find(([, , v]) => deepEqual(v, r.compression));
  let custom = ui.compression.querySelector('option[value="__custom"]');
  if (choice) {
    if (custom) custom.remove();
    ui.compression.value = choice[0];
  } else {
    if (!custom) ui.compression.append(custom = el('option', { value: '__custom' }));
    setText(custom, 'other: ' + JSON.stringify(r.compression));
    ui.compression.value = '__custom';
  }
}

// ---------------------------------------------------------------- sync
/** Writes the resolved perturbed scenario into the controls. */
export function syncControls(r, origin) {
  const skip = fieldsetOf(origin);
  const want = (id) => {
    const fs = $(`fieldset[data-entry="${id}"]`);
    return fs !== skip;
  };
  ui.preset.value = ctx.state.presetId;
  ui.profile.value = r.profile || 'main';
  if (ui.profile.value === '' && r.profile) {
    // A release this page lists under another spelling: add it as given.
    ui.profile.append(el('option', { value: r.profile }, r.profile));
    ui.profile.value = r.profile;
  }
  const meta = ctx.presets.get(ctx.state.presetId);
  setText(ui.presetNote, meta ? (meta.derived ? 'Derived, not captured: ' + meta.note : 'Captured from real JAX (' + (meta.provenance || 'jax 0.10.2') + ').') : '');
  if (want(1)) syncModule(r);
  if (want(2)) ui.jaxlib.value = r.jaxlib_version ?? '';
  if (want(3)) {
    ui.platform.value = (r.backend && r.backend.platform) ?? '';
    ui.platformVersion.value = (r.backend && r.backend.platform_version) ?? '';
  }
  if (want(4)) {
    const f = r.flags || {};
    ui.xlaFlags.value = f.XLA_FLAGS ?? '';
    ui.libtpu.value = f.LIBTPU_INIT_ARGS ?? '';
    ui.argv.value = (f.argv || []).join('\n');
    ui.prefixes.value = (f.extra_prefixes || []).join(' ');
  }
  if (want(5)) syncCompileOptions(r);
  if (want(6)) syncAccel(r);
  if (want(7)) syncCompression(r);
  if (want(8)) ui.customHook.value = r.custom_hook ?? '';
}

/** Per-result notes beside the controls (after every update). */
export function renderControlNotes(result) {
  put(ui.coChanges, ...((result.compile_options && result.compile_options.changes) || []).map((c) => el('li', null, c)));
  const acc = result.accelerator || {};
  const e6 = (result.entries || [])[5] || {};
  setText(ui.accelNote, `Entry 6 feeds ${e6.summary || ''} (${e6.bytes_len} bytes)${acc.fingerprint && !acc.fallback ? `; fingerprint ${acc.fingerprint}` : ''}. ${acc.provenance || ''}`);
  const stdlib = (result.notes || []).find((n) => /standard library's zstd/.test(n));
  setText(ui.compressionNote, `Fed to the hash: "${result.compression}".${stdlib ? ' ' + stdlib : ''}`);
  currentProfile = result.profile;
  const profile = ctx.profileOf(result.profile);
  setText(ui.profileNote, profile ? `Profile ${profile.id}: jax ${profile.releases.join(', ')}; ${profile.entry_count} entries. ${profile.changes}.` : '');
  syncDbgNote();
}

/** The profile id of the last result (set by renderControlNotes). */
let currentProfile = null;

/** The note under the DebugOptions field picker, from the engine's profile. */
function syncDbgNote() {
  const f = debugField(ui.dbgField.value);
  if (!f) return;
  const profile = currentProfile ? ctx.profileOf(currentProfile) : null;
  const zeroed = profile && profile.zeroed_fields.some((z) => z.name === f.name);
  setText(ui.dbgNote, !profile ? '' : zeroed
    ? `Zeroed before hashing by jax ${profile.id}: setting it does not move the key.`
    : `Not zeroed by jax ${profile.id}: setting it moves the key.`);
  ui.dbgValue.placeholder = f.kind === 'bool' ? 'true or false' : f.kind === 'string' ? 'text' : f.kind === 'float' ? 'a number' : 'a whole number';
}

// ---------------------------------------------------------------- setup
export function setupControls(context) {
  ctx = context;
  const q = (id) => document.getElementById(id);
  ui = {
    preset: q('preset'), presetNote: q('preset-note'), profile: q('profile'), reset: q('reset'),
    profileNote: q('profile-note'), profileFrom: q('profile-from'), profileTo: q('profile-to'), profileChanges: q('profile-changes'),
    moduleSource: q('module-source'), includeMetadata: q('include-metadata'), includeMetadataWhy: q('include-metadata-why'),
    moduleText: q('module-text'), moduleTextWhy: q('module-text-why'), loadMlir: q('load-mlir'),
    jaxlib: q('jaxlib'), platform: q('platform'), platformVersion: q('platform-version'), pvPick: q('platform-version-pick'),
    xlaFlags: q('xla-flags'), libtpu: q('libtpu-args'), argv: q('argv'), prefixes: q('extra-prefixes'),
    dbgField: q('dbg-field'), dbgValue: q('dbg-value'), dbgAdd: q('dbg-add'), dbgNote: q('dbg-field-note'), dbgList: q('dbg-list'),
    envList: q('env-list'), envName: q('env-name'), envType: q('env-type'), envValue: q('env-value'), envAdd: q('env-add'),
    daOn: q('da-on'), daRows: q('da-rows'), daCols: q('da-cols'), daIds: q('da-ids'), daNote: q('da-note'),
    numReplicas: q('num-replicas'), numPartitions: q('num-partitions'), fdo: q('fdo-profile'), coChanges: q('co-changes'),
    accelKind: q('accel-kind'), cpuName: q('cpu-name'), cpuDevices: q('cpu-devices'),
    gpuName: q('gpu-name'), gpuPartitions: q('gpu-partitions'), gpuHosts: q('gpu-hosts'), gpuDevices: q('gpu-devices'),
    tpuTopology: q('tpu-topology'), tpuText: q('tpu-standin-text'), tpuBackend: q('tpu-backend'),
    tpuLibtpu: q('tpu-libtpu'), tpuStandIn: document.querySelector('#accel-tpu .stand-in'),
    deviceKinds: q('device-kinds'), accelNote: q('accel-note'),
    compression: q('compression'), compressionNote: q('compression-note'), customHook: q('custom-hook'),
  };

  // options
  const onTpu = (p) => !!(ctx.fixtures[p.id] && ctx.fixtures[p.id].backend && ctx.fixtures[p.id].backend.platform === 'tpu');
  const captured = [...ctx.presets.values()].filter((p) => !p.derived && !onTpu(p));
  const capturedTpu = [...ctx.presets.values()].filter((p) => !p.derived && onTpu(p));
  const derived = [...ctx.presets.values()].filter((p) => p.derived);
  const live = [...ctx.live.values()];
  put(ui.preset,
    el('optgroup', { label: 'Captured from real JAX 0.10.2' }, captured.map((p) => el('option', { value: p.id }, `${p.id} — ${p.title}`))),
    capturedTpu.length ? el('optgroup', { label: 'Captured from real JAX with libtpu (TPU, deviceless)' }, capturedTpu.map((p) => el('option', { value: p.id }, `${p.id} — ${p.title}`))) : null,
    derived.length ? el('optgroup', { label: 'Derived (a patch over a capture)' }, derived.map((p) => el('option', { value: p.id }, `${p.id} — ${p.title}`))) : null,
    live.length ? el('optgroup', { label: 'Needs live MLIR (loads about 0.7 MB)', 'data-live': '' }, live.map((p) => el('option', { value: p.id }, `${p.id} — ${p.title}`))) : null);
  put(ui.moduleSource, ...Object.entries(ctx.fixtures).map(([id, fx]) => el('option', { value: id },
    `${id} — ${fx.module.sym_name}, ${base64Length(fx.module.entry1_b64)} bytes${fx.module.include_metadata ? ', with locations' : ''}`)));
  // Releases, grouped by the profile (behaviour) that covers them.
  const profiles = (ctx.profiles && ctx.profiles.profiles) || [];
  const newest = ctx.profiles ? ctx.profiles.newest : '';
  const releaseOptions = () => profiles.slice().reverse().map((p) => el('optgroup', { label: `profile ${p.id}` },
    p.releases.slice().reverse().map((r) => el('option', { value: r }, `jax ${r}`))));
  put(ui.profile, el('option', { value: 'main' }, `main (the newest: jax ${newest})`), ...releaseOptions());
  put(ui.profileFrom, ...releaseOptions());
  put(ui.profileTo, el('option', { value: 'main' }, `main (jax ${newest})`), ...releaseOptions());
  ui.profileFrom.value = '0.10.2';
  ui.profileTo.value = 'main';
  const showChanges = () => {
    const d = ctx.engine.profileDifferences(ui.profileFrom.value, ui.profileTo.value);
    if (d.error) {
      put(ui.profileChanges, el('li', { class: 'error' }, errorText(d.error)));
      return;
    }
    put(ui.profileChanges, ...(d.differences.length ? d.differences.map((t) => el('li', null, t))
      : [el('li', null, d.from === d.to
        ? `jax ${ui.profileFrom.value} and ${ui.profileTo.value} compute the key the same way (profile ${d.from}).`
        : `Profiles ${d.from} and ${d.to} differ in nothing this page can list.`)]));
  };
  ui.profileFrom.addEventListener('change', showChanges);
  ui.profileTo.addEventListener('change', showChanges);
  showChanges();
  // The engine's DebugOptions table: first the fields some release zeroes
  // before hashing, then every other field it knows.
  ctx.debugFields = ctx.engine.debugOptionFields();
  const zeroedAnywhere = new Set(profiles.flatMap((p) => p.zeroed_fields.map((z) => z.name)));
  const option = (f) => el('option', { value: f.name }, `${f.name} (${f.kind}, field ${f.number})`);
  const byName = (a, b) => (a.name < b.name ? -1 : 1);
  put(ui.dbgField,
    el('optgroup', { label: 'Zeroed before hashing by some release' }, ctx.debugFields.filter((f) => zeroedAnywhere.has(f.name)).sort(byName).map(option)),
    el('optgroup', { label: 'Other DebugOptions fields' }, ctx.debugFields.filter((f) => !zeroedAnywhere.has(f.name)).sort(byName).map(option)));
  if (debugField('xla_gpu_autotune_level')) ui.dbgField.value = 'xla_gpu_autotune_level';
  put(q('gpu-list'), ...GPU_NAMES.map((n) => el('option', { value: n })));
  put(ui.pvPick, el('option', { value: '' }, 'Pick one…'),
    ...PLATFORM_VERSIONS.map(([v, label]) => el('option', { value: v }, label)),
    ...tpuPlatformVersionChoices(ctx.tpu).map(([v, label]) => el('option', { value: v }, label)));
  put(ui.tpuTopology, ...tpuGroups(ctx.tpu).map(([gen, ts]) => el('optgroup', { label: gen }, ts.map((t) => el('option', { value: t.id }, tpuLabel(t))))));
  put(ui.tpuLibtpu, ...libtpuBuilds(ctx.tpu).map((b) => el('option', { value: b.libtpu }, `libtpu ${b.libtpu} (jax ${b.jax})`)));
  if (tpuById(ctx.tpu, 'v5e:2x4')) ui.tpuTopology.value = 'v5e:2x4';
  put(ui.compression, ...COMPRESSION_CHOICES.map(([id, label]) => el('option', { value: id }, label)));
  ui.dbgField.addEventListener('change', syncDbgNote);

  // MLIR text: the first view's engine has no MLIR; the editor loads it.
  ui.moduleText.disabled = true;
  ui.moduleText.value = '';
  ui.moduleText.placeholder = 'Open module text to edit it';
  setText(ui.moduleTextWhy, 'Editing module text needs the live MLIR canonicaliser, which the first view\u2019s engine does not include (it reports mlir: false). “Open module text” loads it (about 0.7 MB gzipped) with the presets\u2019 module texts. The presets carry the exact bytes jaxlib hashed, so their keys match real JAX; keys computed from text do not.');
  ui.loadMlir.hidden = false;

  // events
  ui.preset.addEventListener('change', () => ctx.setPreset(ui.preset.value));
  ui.profile.addEventListener('change', (e) => ctx.change(['profile'], ui.profile.value, e.target));
  ui.reset.addEventListener('click', () => ctx.reset());
  ui.moduleSource.addEventListener('change', (e) => { if (ui.moduleSource.value !== '__custom') setModuleFrom(ui.moduleSource.value, e.target); });
  ui.includeMetadata.addEventListener('change', (e) => {
    const patchText = getPath(ctx.state.patch, ['module', 'text']);
    if (ctx.mlir && typeof patchText === 'string') {
      setModuleText(ui.moduleText.value || patchText, e.target);
      return;
    }
    const r = ctx.resolved();
    const m = LINES.exec(moduleSourceId(r));
    if (m && !isText(r)) {
      setModuleFrom(`lines_${m[1]}_${ui.includeMetadata.checked ? 'meta' : 'nometa'}`, e.target);
      return;
    }
    const t = ctx.mlir ? ctx.textFor(r.module, textHints()) : undefined;
    if (t !== undefined) setModuleText(t, e.target);
    else ui.includeMetadata.checked = !ui.includeMetadata.checked;
  });
  // Edits are applied a moment after the last keystroke; data-module-pending
  // is set on <html> meanwhile.
  let textTimer = 0;
  ui.moduleText.addEventListener('input', (e) => {
    clearTimeout(textTimer);
    document.documentElement.setAttribute('data-module-pending', '');
    textTimer = setTimeout(() => {
      document.documentElement.removeAttribute('data-module-pending');
      setModuleText(ui.moduleText.value, e.target);
    }, 250);
  });
  ui.loadMlir.addEventListener('click', async () => {
    ui.loadMlir.disabled = true;
    setText(ui.moduleTextWhy, 'Loading the live MLIR canonicaliser (about 0.7 MB gzipped)\u2026');
    if (await ctx.openEditor()) ui.moduleText.focus();
  });

  ui.jaxlib.addEventListener('input', (e) => ctx.change(['jaxlib_version'], ui.jaxlib.value, e.target));
  ui.platform.addEventListener('input', (e) => ctx.change(['backend', 'platform'], ui.platform.value, e.target));
  ui.platformVersion.addEventListener('input', (e) => ctx.change(['backend', 'platform_version'], ui.platformVersion.value, e.target));
  ui.pvPick.addEventListener('change', (e) => {
    if (ui.pvPick.value === '') return;
    ui.platformVersion.value = ui.pvPick.value;
    ctx.change(['backend', 'platform_version'], ui.pvPick.value, e.target);
    ui.pvPick.value = '';
  });

  const flagsInput = (input, key) => input.addEventListener('input', (e) =>
    ctx.change(['flags', key], input.value === '' ? undefined : input.value, e.target));
  flagsInput(ui.xlaFlags, 'XLA_FLAGS');
  flagsInput(ui.libtpu, 'LIBTPU_INIT_ARGS');
  ui.argv.addEventListener('input', (e) => {
    const v = ui.argv.value.split('\n').filter((s) => s !== '');
    const base = getPath(ctx.baseResolved(), ['flags', 'argv']) || [];
    ctx.change(['flags', 'argv'], v.length || base.length ? v : base, e.target);
  });
  ui.prefixes.addEventListener('input', (e) => {
    const v = ui.prefixes.value.split(/\s+/).filter((s) => s !== '');
    const base = getPath(ctx.baseResolved(), ['flags', 'extra_prefixes']) || [];
    ctx.change(['flags', 'extra_prefixes'], v.length || base.length ? v : base, e.target);
  });

  ui.dbgAdd.addEventListener('click', (e) => {
    const f = debugField(ui.dbgField.value);
    if (!f) return;
    const v = parseDebugValue(f.kind, ui.dbgValue.value);
    if (v && typeof v === 'object') { setText(ui.dbgNote, v.error); return; }
    ctx.change(['compile_options', 'edits', 'debug_options', f.name], v, e.target);
    syncCompileOptions(ctx.resolved());
  });
  ui.dbgValue.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); ui.dbgAdd.click(); } });
  ui.dbgList.addEventListener('click', (e) => {
    const b = e.target.closest('button[data-remove-dbg]');
    if (!b) return;
    const name = b.getAttribute('data-remove-dbg');
    const path = ['compile_options', 'edits', 'debug_options', name];
    // undefined: dropped from the patch, or written as null (a merge-patch
    // delete) when the preset itself makes that edit.
    ctx.change(path, undefined, ui.dbgAdd);
    syncCompileOptions(ctx.resolved());
    ui.dbgField.focus();
  });
  const envChange = (list, origin) => {
    const path = ['compile_options', 'edits', 'env_option_overrides'];
    const base = getPath(ctx.baseResolved(), path);
    ctx.change(path, list.length === 0 && base === undefined ? undefined : list, origin);
    syncCompileOptions(ctx.resolved());
  };
  ui.envAdd.addEventListener('click', (e) => {
    const name = ui.envName.value;
    if (name === '') { ui.envName.focus(); return; }
    const t = ui.envType.value;
    const raw = ui.envValue.value.trim();
    let v = ui.envValue.value;
    if (t === 'bool') v = /^(true|1)$/i.test(raw);
    else if (t === 'int') { v = Number(raw); if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(v)) { ui.envValue.focus(); return; } }
    else if (t === 'float') { v = Number(raw); if (raw === '' || !Number.isFinite(v)) { ui.envValue.focus(); return; } }
    const cur = clone(getPath(ctx.resolved(), ['compile_options', 'edits', 'env_option_overrides']) || []);
    cur.push([name, v]);
    envChange(cur, e.target);
    ui.envName.value = '';
    ui.envValue.value = '';
  });
  ui.envList.addEventListener('click', (e) => {
    const b = e.target.closest('button[data-remove-env]');
    if (!b) return;
    const i = Number(b.getAttribute('data-remove-env'));
    const cur = clone(getPath(ctx.resolved(), ['compile_options', 'edits', 'env_option_overrides']) || []);
    cur.splice(i, 1);
    envChange(cur, ui.envAdd);
    ui.envName.focus();
  });
  const daChange = (e) => {
    const path = ['compile_options', 'edits', 'device_assignment'];
    if (!ui.daOn.checked) {
      setText(ui.daNote, '');
      ctx.change(path, undefined, e.target);
      return;
    }
    const v = deviceAssignmentValue();
    if (v.error) { setText(ui.daNote, v.error); return; }
    setText(ui.daNote, `replica r, computation c \u2192 device id; ${JSON.stringify(v)}`);
    ctx.change(path, v, e.target);
  };
  for (const n of [ui.daOn, ui.daRows, ui.daCols, ui.daIds]) n.addEventListener(n === ui.daOn ? 'change' : 'input', daChange);
  const numEdit = (input, key) => input.addEventListener('input', (e) => {
    const v = numOrUndef(input);
    if (Number.isNaN(v)) return;
    ctx.change(['compile_options', 'edits', key], v, e.target);
  });
  numEdit(ui.numReplicas, 'num_replicas');
  numEdit(ui.numPartitions, 'num_partitions');
  ui.fdo.addEventListener('input', (e) => ctx.change(['compile_options', 'edits', 'fdo_profile_b64'], ui.fdo.value === '' ? undefined : ui.fdo.value, e.target));

  ui.accelKind.addEventListener('change', (e) => {
    accelKind = ui.accelKind.value;
    showAccelPanel(accelKind);
    applyAccel(e.target);
  });
  for (const n of [ui.cpuName, ui.cpuDevices, ui.gpuName, ui.gpuPartitions, ui.gpuHosts, ui.gpuDevices, ui.deviceKinds]) {
    n.addEventListener('input', (e) => applyAccel(e.target));
  }
  ui.tpuTopology.addEventListener('change', (e) => { syncTpuNote(); applyAccel(e.target); });
  ui.tpuLibtpu.addEventListener('change', () => { libtpuChosen = true; syncTpuNote(); });
  ui.tpuBackend.addEventListener('click', () => {
    const pv = tpuPlatformVersion(tpuById(ctx.tpu, ui.tpuTopology.value), ui.tpuLibtpu.value);
    if (pv === undefined) return;
    ctx.change(['backend'], Object.assign({}, ctx.resolved().backend, { platform: 'tpu', platform_version: pv }), ui.tpuBackend);
    const r = ctx.resolved();
    ui.platform.value = r.backend.platform;
    ui.platformVersion.value = r.backend.platform_version;
  });

  ui.compression.addEventListener('change', (e) => {
    const c = COMPRESSION_CHOICES.find(([id]) => id === ui.compression.value);
    if (c) ctx.change(['compression'], c[2], e.target);
  });
  ui.customHook.addEventListener('input', (e) => ctx.change(['custom_hook'], ui.customHook.value, e.target));

  // Enter in a text field must not submit anything.
  $('#controls-form').addEventListener('submit', (e) => e.preventDefault());
}

/** Decoded length of base64 text: padding '=' is not data (F10). */
function base64Length(b64) {
  const t = String(b64 || '');
  return Math.floor(t.length * 3 / 4) - (t.endsWith('==') ? 2 : t.endsWith('=') ? 1 : 0);
}
