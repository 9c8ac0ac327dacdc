// @ts-check
// Pure helpers for scenario patches (JSON merge patch, RFC 7386, as the
// engine applies "base"). No DOM here.

export function deepEqual(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

/**
 * The JSON merge patch (RFC 7386) that turns object `a` into `b`: members of
 * `b` that differ (recursively for objects; arrays and scalars whole), and
 * null for members only `a` has. A non-object `a` or `b` gives `b`.
 */
export function mergePatchFrom(a, b) {
  if (!isObj(a) || !isObj(b)) return b;
  const patch = {};
  for (const k of Object.keys(b)) {
    if (!Object.prototype.hasOwnProperty.call(a, k)) patch[k] = b[k];
    else if (!deepEqual(a[k], b[k])) patch[k] = mergePatchFrom(a[k], b[k]);
  }
  for (const k of Object.keys(a)) if (!Object.prototype.hasOwnProperty.call(b, k)) patch[k] = null;
  return patch;
}

/**
 * A deep copy of a JSON value (objects and arrays copied, strings shared: a
 * module text of many megabytes is never copied or re-parsed). Members whose
 * value is undefined are dropped, as JSON would. Instances of a class (a
 * TextHandle, transfer.mjs: a large text kept in the engine's worker) are
 * immutable and shared too.
 */
export function clone(v) {
  if (Array.isArray(v)) return v.map((x) => (x === undefined ? null : clone(x)));
  if (v === null || typeof v !== 'object') return v;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  const out = {};
  for (const k of Object.keys(v)) {
    if (v[k] === undefined) continue;
    // defineProperty: a member named "__proto__" stays an ordinary member.
    Object.defineProperty(out, k, { value: clone(v[k]), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

export function getPath(obj, path) {
  let cur = obj;
  for (const k of path) {
    if (!isObj(cur) || !Object.prototype.hasOwnProperty.call(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/** Sets obj[path] = value, creating objects on the way (replacing non-objects). */
export function setPath(obj, path, value) {
  let cur = obj;
  for (const k of path.slice(0, -1)) {
    if (!isObj(cur[k])) cur[k] = {};
    cur = cur[k];
  }
  cur[path[path.length - 1]] = value;
}

/** Deletes obj[path] and then every parent object left empty. */
export function deletePath(obj, path) {
  const chain = [obj];
  let cur = obj;
  for (const k of path.slice(0, -1)) {
    if (!isObj(cur[k])) return;
    cur = cur[k];
    chain.push(cur);
  }
  delete cur[path[path.length - 1]];
  for (let i = path.length - 2; i >= 0; i--) {
    if (Object.keys(chain[i + 1]).length === 0) delete chain[i][path[i]];
    else break;
  }
}

/**
 * The patch that makes `resolvedBaseline` read `value` at `path`, applied to
 * `patch` (mutated): when the value equals the baseline's, the path is
 * removed from the patch, so patches stay minimal and links short. A value of
 * undefined means "absent" (written as null, which deletes in a merge patch).
 */
export function patchValue(patch, resolvedBaseline, path, value) {
  const base = getPath(resolvedBaseline, path);
  const same = value === undefined ? base === undefined || base === null : deepEqual(value, base);
  if (same) deletePath(patch, path);
  else setPath(patch, path, value === undefined ? null : clone(value));
}

/** The scenario document: schema and base first, then the patch. */
export function scenarioOf(presetId, patch) {
  const out = { schema: 1, base: presetId };
  const p = clone(patch) || {};
  // defineProperty, not assignment: a key named "__proto__" from a hostile
  // document stays an ordinary key (which the engine then rejects).
  for (const k of Object.keys(p)) Object.defineProperty(out, k, { value: p[k], enumerable: true, writable: true, configurable: true });
  return out;
}

/** Splits a scenario (from a link or a file) into base and patch. */
export function splitScenario(doc) {
  const patch = clone(doc);
  delete patch.schema;
  const base = patch.base;
  delete patch.base;
  return { base, patch };
}

/** A short, human description of a patch: long strings are elided. */
export function describePatch(patch) {
  // In words, one change per leaf of the merge patch ("XLA_FLAGS =
  // “--xla_…”; custom_hook = “x”"), never the JSON itself. A large text
  // kept in the engine's worker (a TextHandle, which has no JSON form on the
  // page) is described by its length.
  const isHandle = (v) => v !== null && typeof v === 'object' && ![Object.prototype, Array.prototype, null].includes(Object.getPrototypeOf(v));
  const value = (k, v) => {
    if (v === null) return 'removed (back to the baseline\u2019s default)';
    if (isHandle(v)) return `a text of ${v.length} characters`;
    if (typeof v === 'string') {
      if (/_b64$/.test(k)) return `${Math.floor((v.replace(/=+$/, '').length * 3) / 4)} bytes given in base64`;
      return v.length > 48 ? `\u201c${v.slice(0, 40)}\u2026\u201d (${v.length} characters)` : `\u201c${v}\u201d`;
    }
    if (Array.isArray(v)) return v.length <= 3 && v.every((x) => x === null || typeof x !== 'object') ? `[${v.map((x) => JSON.stringify(x)).join(', ')}]` : `a list of ${v.length} items`;
    return String(v);
  };
  // "flags.XLA_FLAGS" reads as "XLA_FLAGS": the flag sources are names of their own.
  const label = (path) => (path[0] === 'flags' && path.length === 2 ? path[1] : path.join('.'));
  const parts = [];
  const walk = (v, path) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !isHandle(v) && Object.keys(v).length) {
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    } else parts.push(`${label(path)} = ${value(path[path.length - 1] || '', v)}`);
  };
  walk(patch, []);
  const text = parts.join('; ');
  return text.length > 400 ? text.slice(0, 400) + '\u2026' : text;
}

/**
 * The engine's role of entry n (1-based) in a comparison, as its code:
 * "cause", "with_cause", "also_changed", "consequence" or "same"
 * (compareResults always sends all eight; the page never derives them).
 * @param {{comparison: {roles: {code: string, text: string}[]}}} cmp
 * @param {number} n
 */
export const roleOf = (cmp, n) => cmp.comparison.roles[n - 1].code;

/**
 * The engine's words for that role ("with cause", …), to show.
 * @param {{comparison: {roles: {code: string, text: string}[]}}} cmp
 * @param {number} n
 */
export const roleTextOf = (cmp, n) => cmp.comparison.roles[n - 1].text;

export const abbrev = (hex, n = 16) => (typeof hex === 'string' && hex.length > n ? hex.slice(0, n) + '\u2026' : String(hex ?? ''));

/**
 * A module given as bytes (a fixture's, or a resolved scenario's), as a
 * scenario's module member: sym_name and entry1_b64 when present, with
 * include_metadata (default false) and ignore_callbacks (default "NO") always
 * stated, so that two modules compare by value.
 */
export function moduleOf(m) {
  const out = {};
  if (m && m.sym_name !== undefined) out.sym_name = m.sym_name;
  if (m && m.entry1_b64 !== undefined) out.entry1_b64 = m.entry1_b64;
  out.include_metadata = !!(m && m.include_metadata);
  out.ignore_callbacks = (m && m.ignore_callbacks) || 'NO';
  return out;
}
