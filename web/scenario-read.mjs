// @ts-check
// Reading scenario files and captured files (python -m cachekey.capture):
// JSON, schema 1, and a capture's raw entry-1 sidecar from the files chosen
// with it. Runs in the engine's worker (worker.js), where a large sidecar is
// read and encoded off the page's thread. No DOM here.

/** Base64 (RFC 4648) of a byte array, in chunks small enough for apply(). */
export function bytesToBase64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * A scenario document from one chosen file: JSON, schema 1, and for a
 * captured file (capture.format) its entry-1 sidecar taken from `others`
 * (the files chosen with it). Returns {doc, file, sidecar} (sidecar: the
 * entry-1 file read, or null) or {error}.
 */
export async function readScenarioFile(file, others) {
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
  let sidecar = null;
  if (e1 && e1.storage === 'omitted') return { error: 'this capture keeps only the digest of entry 1 (--no-entry1-bytes); compare such captures with cachekey diff DIR_A DIR_B' };
  if (e1 && e1.storage === 'sidecar') {
    if (e1.encoding !== 'raw') return { error: `its entry 1 is in a compressed sidecar (${e1.file}); open it with cachekey explain or cachekey diff` };
    const side = others.find((f) => f.name === e1.file);
    if (!side) return { error: `its entry 1 is in ${e1.file}: choose that file too` };
    doc.module = { ...doc.module, entry1_b64: bytesToBase64(new Uint8Array(await side.arrayBuffer())) };
    sidecar = side;
  }
  return { doc, file, sidecar };
}

/** Whether the engine's key for a captured `doc` is the key real JAX logged. */
export function captureCheck(doc, key) {
  const real = doc.capture && doc.expected && doc.expected.key;
  if (!real) return '';
  return real === key ? ' The engine\u2019s key equals the key real JAX computed.' : ` Not the key real JAX computed (${real}): the engine does not reproduce this capture.`;
}

