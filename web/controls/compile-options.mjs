// @ts-check
// Control for entry 5, the compile options: DebugOptions fields (the
// engine's table, zeroed fields first), env_option_overrides, the device
// assignment, num_replicas / num_partitions and the FDO profile; and what
// the engine's cache-key edits did.
import { el, put, setText, numberIn } from '../dom.mjs';
import { getPath, clone } from '../state.mjs';

const EDITS = ['compile_options', 'edits'];

/** The value typed for a DebugOptions field of the engine's `kind`, or {error}. */
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

/** @param {import('./index.mjs').Controls} controls */
export function bindCompileOptions({ catalog, change, resolved, baseline }) {
  /** @param {string} id */
  const q = (id) => document.getElementById(id);
  const ui = {
    dbgField: /** @type {HTMLSelectElement} */ (q('dbg-field')), dbgValue: /** @type {HTMLInputElement} */ (q('dbg-value')), dbgAdd: /** @type {HTMLButtonElement} */ (q('dbg-add')), dbgNote: q('dbg-field-note'), dbgList: q('dbg-list'),
    envList: q('env-list'), envName: /** @type {HTMLInputElement} */ (q('env-name')), envType: /** @type {HTMLSelectElement} */ (q('env-type')), envValue: /** @type {HTMLInputElement} */ (q('env-value')), envAdd: /** @type {HTMLButtonElement} */ (q('env-add')),
    daOn: /** @type {HTMLInputElement} */ (q('da-on')), daRows: /** @type {HTMLInputElement} */ (q('da-rows')), daCols: /** @type {HTMLInputElement} */ (q('da-cols')), daIds: /** @type {HTMLInputElement} */ (q('da-ids')), daNote: q('da-note'),
    numReplicas: /** @type {HTMLInputElement} */ (q('num-replicas')), numPartitions: /** @type {HTMLInputElement} */ (q('num-partitions')), fdo: /** @type {HTMLInputElement} */ (q('fdo-profile')), changes: q('co-changes'),
  };
  /** The profile id of the last result (set by notes()). */
  let currentProfile = null;

  // The engine's DebugOptions table: first the fields some release zeroes
  // before hashing, then every other field it knows.
  const fields = catalog.engine.debugOptionFields();
  const debugField = (name) => fields.find((x) => x.name === name);
  const zeroedAnywhere = new Set((catalog.profiles.profiles || []).flatMap((p) => p.zeroed_fields.map((z) => z.name)));
  const option = (f) => el('option', { value: f.name }, `${f.name} (${f.kind}, field ${f.number})`);
  const byName = (a, b) => (a.name < b.name ? -1 : 1);
  put(ui.dbgField,
    el('optgroup', { label: 'Zeroed before hashing by some release' }, fields.filter((f) => zeroedAnywhere.has(f.name)).sort(byName).map(option)),
    el('optgroup', { label: 'Other DebugOptions fields' }, fields.filter((f) => !zeroedAnywhere.has(f.name)).sort(byName).map(option)));
  if (debugField('xla_gpu_autotune_level')) ui.dbgField.value = 'xla_gpu_autotune_level';

  /** The note under the DebugOptions field picker, from the engine's profile. */
  function syncDbgNote() {
    const f = debugField(ui.dbgField.value);
    if (!f) return;
    const profile = currentProfile ? catalog.profileOf(currentProfile) : null;
    const zeroed = profile && profile.zeroed_fields.some((z) => z.name === f.name);
    setText(ui.dbgNote, !profile ? '' : zeroed
      ? `Zeroed before hashing by jax ${profile.id}: setting it does not move the key.`
      : `Not zeroed by jax ${profile.id}: setting it moves the key.`);
    ui.dbgValue.placeholder = f.kind === 'bool' ? 'true or false' : f.kind === 'string' ? 'text' : f.kind === 'float' ? 'a number' : 'a whole number';
  }

  function sync(r) {
    const edits = getPath(r, [...EDITS, 'debug_options']) || {};
    put(ui.dbgList, ...Object.entries(edits).map(([name, value]) => el('li', null,
      el('code', null, `${name} = ${JSON.stringify(value)}`), ' ',
      el('button', { type: 'button', class: 'small secondary', 'data-remove-dbg': name, 'aria-label': `Remove ${name}` }, 'Remove'))));
    const env = getPath(r, [...EDITS, 'env_option_overrides']) || [];
    put(ui.envList, ...env.map((pair, i) => el('li', null,
      el('code', null, Array.isArray(pair) ? `${pair[0]} = ${JSON.stringify(pair[1])}` : JSON.stringify(pair)), ' ',
      el('button', { type: 'button', class: 'small secondary', 'data-remove-env': String(i), 'aria-label': `Remove override ${Array.isArray(pair) ? pair[0] : i}` }, 'Remove'))));
    const da = getPath(r, [...EDITS, 'device_assignment']);
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
    const nr = getPath(r, [...EDITS, 'num_replicas']);
    const np = getPath(r, [...EDITS, 'num_partitions']);
    ui.numReplicas.value = nr === undefined ? '' : String(nr);
    ui.numPartitions.value = np === undefined ? '' : String(np);
    ui.numReplicas.placeholder = 'as is';
    ui.numPartitions.placeholder = 'as is';
    const fdo = getPath(r, [...EDITS, 'fdo_profile_b64']);
    ui.fdo.value = fdo === undefined ? '' : String(fdo);
  }

  function deviceAssignmentValue() {
    const R = numberIn(ui.daRows);
    const C = numberIn(ui.daCols);
    if (!Number.isInteger(R) || !Number.isInteger(C) || R < 1 || C < 1 || R * C > 4096) return { error: 'R and C must be whole numbers ≥ 1 (R·C ≤ 4096)' };
    const ids = ui.daIds.value.trim() === '' ? Array.from({ length: R * C }, (_, i) => i)
      : ui.daIds.value.trim().split(/[\s,]+/).map(Number);
    if (ids.length !== R * C || ids.some((x) => !Number.isSafeInteger(x) || x < 0)) return { error: `give ${R * C} device ids (whole numbers ≥ 0)` };
    return Array.from({ length: R }, (_, row) => ids.slice(row * C, row * C + C));
  }

  ui.dbgField.addEventListener('change', syncDbgNote);
  ui.dbgAdd.addEventListener('click', (e) => {
    const f = debugField(ui.dbgField.value);
    if (!f) return;
    const v = parseDebugValue(f.kind, ui.dbgValue.value);
    if (v && typeof v === 'object') { setText(ui.dbgNote, v.error); return; }
    change([...EDITS, 'debug_options', f.name], v, e.target);
    sync(resolved());
  });
  ui.dbgValue.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); ui.dbgAdd.click(); } });
  ui.dbgList.addEventListener('click', (e) => {
    const b = /** @type {Element} */ (e.target).closest('button[data-remove-dbg]');
    if (!b) return;
    // undefined: dropped from the patch, or written as null (a merge-patch
    // delete) when the preset itself makes that edit.
    change([...EDITS, 'debug_options', b.getAttribute('data-remove-dbg')], undefined, ui.dbgAdd);
    sync(resolved());
    ui.dbgField.focus();
  });
  const envPath = [...EDITS, 'env_option_overrides'];
  const envChange = (list, origin) => {
    const base = getPath(baseline(), envPath);
    change(envPath, list.length === 0 && base === undefined ? undefined : list, origin);
    sync(resolved());
  };
  ui.envAdd.addEventListener('click', (e) => {
    const name = ui.envName.value;
    if (name === '') { ui.envName.focus(); return; }
    const t = ui.envType.value;
    const raw = ui.envValue.value.trim();
    /** @type {string | number | boolean} */
    let v = ui.envValue.value;
    if (t === 'bool') v = /^(true|1)$/i.test(raw);
    else if (t === 'int') { v = Number(raw); if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(v)) { ui.envValue.focus(); return; } }
    else if (t === 'float') { v = Number(raw); if (raw === '' || !Number.isFinite(v)) { ui.envValue.focus(); return; } }
    const cur = clone(getPath(resolved(), envPath) || []);
    cur.push([name, v]);
    envChange(cur, e.target);
    ui.envName.value = '';
    ui.envValue.value = '';
  });
  ui.envList.addEventListener('click', (e) => {
    const b = /** @type {Element} */ (e.target).closest('button[data-remove-env]');
    if (!b) return;
    const cur = clone(getPath(resolved(), envPath) || []);
    cur.splice(Number(b.getAttribute('data-remove-env')), 1);
    envChange(cur, ui.envAdd);
    ui.envName.focus();
  });
  const daChange = (e) => {
    const path = [...EDITS, 'device_assignment'];
    if (!ui.daOn.checked) {
      setText(ui.daNote, '');
      change(path, undefined, e.target);
      return;
    }
    const v = deviceAssignmentValue();
    if ('error' in v) { setText(ui.daNote, v.error); return; }
    setText(ui.daNote, `replica r, computation c \u2192 device id; ${JSON.stringify(v)}`);
    change(path, v, e.target);
  };
  for (const n of [ui.daOn, ui.daRows, ui.daCols, ui.daIds]) n.addEventListener(n === ui.daOn ? 'change' : 'input', daChange);
  const numEdit = (input, key) => input.addEventListener('input', (e) => {
    const v = numberIn(input);
    if (Number.isNaN(v)) return;
    change([...EDITS, key], v, e.target);
  });
  numEdit(ui.numReplicas, 'num_replicas');
  numEdit(ui.numPartitions, 'num_partitions');
  ui.fdo.addEventListener('input', (e) => change([...EDITS, 'fdo_profile_b64'], ui.fdo.value === '' ? undefined : ui.fdo.value, e.target));

  return {
    entry: 5,
    sync,
    /** @param {import('../engine-types.mjs').KeyResult} result */
    notes(result) {
      put(ui.changes, ...((result.compile_options && result.compile_options.edits) || []).map((e) => el('li', { 'data-edit': e.code }, e.text)));
      currentProfile = result.profile;
      syncDbgNote();
    },
  };
}
