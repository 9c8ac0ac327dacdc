// @ts-check
// Large strings between the page and the engine's worker, in pieces: a
// postMessage copies its whole payload in one task on each side, and a
// module text of 50 MB copied at once blocks the page's thread for tens of
// milliseconds. Strings longer than PIECE characters are taken out of a
// message, sent as pieces in messages of their own (one task each), and put
// back together on the other side. Used by worker-client.mjs and worker.js.
//
// Texts longer than LARGE characters (a module text of tens of megabytes, a
// large captured entry 1 in base64) never come to the page at all: the
// worker keeps them and the page holds a TextHandle (its id, its length, a
// bounded preview, and the file it was read from, so that a new worker can
// read it again after a cancel). A handle crosses to the worker as
// {__text: id, ...}, which the worker replaces by the text it keeps.

/** Characters per piece. */
export const PIECE = 1 << 21;

/** Texts longer than this many characters stay in the worker (the page holds a TextHandle). */
export const LARGE = 1 << 20;

/** Characters of a large text the page keeps to show. */
export const PREVIEW = 16 * 1024;

/**
 * Where the worker reads a large text again when it no longer has it (a new
 * worker after a cancel): the file it came from, read as UTF-8 ('text'), as
 * base64 of its bytes ('base64'), or as JSON whose member at `path` is the
 * text ('json').
 * @typedef {{blob: Blob, encoding: 'text'|'base64'|'json', path?: string[]}} TextSource
 */

/**
 * A large text kept in the engine's worker, as the page holds it: immutable,
 * shared (state.mjs clone() keeps class instances as they are), and never
 * serialised as JSON on the page (toJSON throws).
 */
export class TextHandle {
  /**
   * @param {{id: string, length: number, preview: string, source?: ?TextSource}} t
   *   length in UTF-16 code units (JavaScript's string length); preview: the
   *   first PREVIEW characters
   */
  constructor({ id, length, preview, source = null }) {
    this.id = id;
    this.length = length;
    this.preview = preview;
    this.source = source;
    Object.freeze(this);
  }

  toJSON() {
    throw new Error(`a text of ${this.length} characters kept in the engine's worker cannot be written as JSON on the page`);
  }

  /** How the handle crosses to the worker. */
  marker() {
    return { __text: this.id, length: this.length, preview: '', source: this.source };
  }
}

/** A text value of a scenario: a string, or a TextHandle to one kept in the worker. */
export const isTextValue = (v) => typeof v === 'string' || v instanceof TextHandle;

/** Whether `v` is a handle's marker as it crossed between page and worker. */
export const isTextMarker = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.__text === 'string';

/** Whether any TextHandle is in `value` (a scenario, a patch). */
export function hasHandles(value) {
  if (value instanceof TextHandle) return true;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(hasHandles);
}

/**
 * `value` with every TextHandle replaced by an empty string: the scenario as
 * this thread's engine may see it (to register or resolve it) when what is
 * computed from the text is computed in the worker.
 */
export function stubHandles(value) {
  if (value instanceof TextHandle) return '';
  if (Array.isArray(value)) return value.map(stubHandles);
  if (value === null || typeof value !== 'object') return value;
  const copy = {};
  for (const k of Object.keys(value)) {
    Object.defineProperty(copy, k, { value: stubHandles(value[k]), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/**
 * `value` (a message from the worker) with each handle marker replaced by a
 * TextHandle (`make(marker)`, so that one id keeps one handle).
 * @param {any} value
 * @param {(marker: any) => TextHandle} make
 */
export function putHandles(value, make) {
  if (isTextMarker(value)) return make(value);
  if (!plain(value)) return value;
  if (Array.isArray(value)) return value.map((x) => putHandles(x, make));
  for (const k of Object.keys(value)) value[k] = putHandles(value[k], make);
  return value;
}

const plain = (v) => v !== null && typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Array.isArray(v));

/**
 * `value` with every string longer than PIECE replaced by {__piece: n},
 * n indexing `out`, where the string is put, and every TextHandle by its
 * marker.
 * @param {any} value
 * @param {string[]} out
 * @returns {any}
 */
export function takeLongStrings(value, out) {
  if (value instanceof TextHandle) return value.marker();
  if (typeof value === 'string' && value.length > PIECE) {
    out.push(value);
    return { __piece: out.length - 1 };
  }
  if (!plain(value)) return value;
  if (Array.isArray(value)) return value.map((x) => takeLongStrings(x, out));
  const copy = {};
  for (const k of Object.keys(value)) {
    Object.defineProperty(copy, k, { value: takeLongStrings(value[k], out), enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/**
 * `value` with each {__piece: n} replaced by the string whose pieces are
 * parts[n].
 * @param {any} value
 * @param {string[][]} parts
 * @returns {any}
 */
export function putLongStrings(value, parts) {
  if (!plain(value)) return value;
  if (Array.isArray(value)) return value.map((x) => putLongStrings(x, parts));
  if (typeof value.__piece === 'number' && Object.keys(value).length === 1) return (parts[value.__piece] || []).join('');
  for (const k of Object.keys(value)) value[k] = putLongStrings(value[k], parts);
  return value;
}

/**
 * Elements per message of a long array of an answer (a comparison's
 * `pairs`): copying 100,000 program pairs into the page at once blocks its
 * thread for about 0.4 s; 2,000 a message take a few milliseconds each.
 */
export const ROWS = 2000;

/**
 * `result` (an answer, an object) with each of its own arrays longer than
 * ROWS replaced by {__rows: n}, n indexing `out`, where the array is put.
 * `result` itself is not changed.
 * @param {any} result
 * @param {any[][]} out
 * @returns {any}
 */
export function takeLongArrays(result, out) {
  if (!plain(result) || Array.isArray(result)) return result;
  let copy = null;
  for (const k of Object.keys(result)) {
    const v = result[k];
    if (!Array.isArray(v) || v.length <= ROWS) continue;
    copy = copy || { ...result };
    out.push(v);
    Object.defineProperty(copy, k, { value: { __rows: out.length - 1 }, enumerable: true, writable: true, configurable: true });
  }
  return copy || result;
}

/**
 * The slices of long arrays: [index, slice] messages' payloads, in order.
 * @param {any[][]} arrays
 */
export function* rowSlices(arrays) {
  for (const [n, a] of arrays.entries()) {
    for (let i = 0; i < a.length; i += ROWS) yield [n, a.slice(i, i + ROWS)];
  }
}

/**
 * `result` with each {__rows: n} member replaced by the array whose slices
 * are rows[n], in order.
 * @param {any} result
 * @param {any[][][]} rows
 * @returns {any}
 */
export function putLongArrays(result, rows) {
  if (!plain(result) || Array.isArray(result)) return result;
  for (const k of Object.keys(result)) {
    const v = result[k];
    if (plain(v) && !Array.isArray(v) && typeof v.__rows === 'number' && Object.keys(v).length === 1) result[k] = (rows[v.__rows] || []).flat();
  }
  return result;
}

/** The pieces of a long string: [index, piece] messages' payloads, in order. */
export function* pieces(strings) {
  for (const [n, s] of strings.entries()) {
    for (let i = 0; i < s.length; i += PIECE) yield [n, s.slice(i, i + PIECE)];
  }
}

/** Resolves in a later task (not a microtask): lets the page handle input between pieces. */
export function nextTask() {
  return new Promise((resolve) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => { c.port1.close(); resolve(undefined); };
    c.port2.postMessage(null);
  });
}

/** Base64 (RFC 4648) of a byte array, in chunks small enough for apply(). */
export function bytesToBase64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}
