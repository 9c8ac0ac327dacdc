// @ts-check
// Large strings between the page and the engine's worker, in pieces: a
// postMessage copies its whole payload in one task on each side, and a
// module text of 50 MB copied at once blocks the page's thread for tens of
// milliseconds. Strings longer than PIECE characters are taken out of a
// message, sent as pieces in messages of their own (one task each), and put
// back together on the other side. Used by worker-client.mjs and worker.js.

/** Characters per piece. */
export const PIECE = 1 << 21;

const plain = (v) => v !== null && typeof v === 'object' && (Object.getPrototypeOf(v) === Object.prototype || Array.isArray(v));

/**
 * `value` with every string longer than PIECE replaced by {__piece: n},
 * n indexing `out`, where the string is put.
 * @param {any} value
 * @param {string[]} out
 * @returns {any}
 */
export function takeLongStrings(value, out) {
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
