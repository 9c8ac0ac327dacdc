// Live canonicalisation in wasm (build/web/mlir/) on the largest captured
// module (fixtures/large_mlp.json, capture.module_generic), median of RUNS:
// computeKey from module text, minus computeKey of the same scenario with
// captured entry-1 bytes (the non-MLIR part). Also the module's size, raw and
// gzipped. Prints one JSON line.
//   node bench/wasm_canonicalize.mjs [RUNS]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'build/web');
const require = createRequire(import.meta.url);
const { CacheKeyEngine } = await import(path.join(web, 'engine.mjs'));
const wasmPath = path.join(web, 'mlir/cachekey_engine_mlir.wasm');
const wasmBinary = fs.readFileSync(wasmPath);
const engine = await CacheKeyEngine.load({ factory: require(path.join(web, 'mlir/cachekey_engine_mlir.js')), wasmBinary });
const fx = JSON.parse(fs.readFileSync(path.join(root, 'fixtures/large_mlp.json'), 'utf8'));
engine.registerFixture('large_mlp', fx);
const runs = Number(process.argv[2] || 7);
const time = (scenario) => {
  const t = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    const r = engine.computeKey(scenario);
    t.push(performance.now() - s);
    if (r.error) throw new Error(r.error.message);
  }
  return t.sort((a, b) => a - b)[runs >> 1];
};
const text = time({ schema: 1, base: 'large_mlp', module: { entry1_b64: null, text: fx.capture.module_generic } });
const bytes = time({ schema: 1, base: 'large_mlp' });
console.log(JSON.stringify({ bench: 'wasm_canonicalize_large_mlp', canonicalize_ms: +(text - bytes).toFixed(1),
  text_total_ms: +text.toFixed(1), bytes_total_ms: +bytes.toFixed(1), runs,
  wasm_bytes: wasmBinary.length, wasm_gzip_bytes: zlib.gzipSync(wasmBinary, { level: 9 }).length }));
