// The key path in wasm against native, same scenario and same API, side by
// side (issue 40: wasm within 3x of native). Both run the C++ function behind
// the wasm binding computeKey(text) (wasm/KeyApi.cpp computeKeyJson: Run.h's
// computeFromText, then the result as JSON text) on the same scenario texts:
// natively in build/native/bin/key_path_bench, in wasm through the Embind
// binding (build/web/cachekey_engine.wasm) in this Node's V8. Two shapes:
//   perturbation: add_1x1 as base plus one XLA flag (what the page sends
//                 after one perturbation);
//   entry1_10kb:  the same with 10 KB of entry-1 bytes as base64 in the JSON
//                 (as engine_bench's native recompute).
// Rounds alternate native (one process, RUNS calls, its median) and wasm
// (RUNS calls, median); the figure is the median of the per-round ratios,
// with the spread. Also reported: the wasm figure through the JS API
// (engine.computeKey(object): JSON.stringify in, JSON.parse out), which
// the native anchor has no counterpart for.
//   node bench/wasm_key_path.mjs [ROUNDS] [RUNS] [WEB_DIR]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] || 5);
const runs = Number(process.argv[3] || 301);
const web = path.resolve(process.argv[4] || path.join(root, 'build/web'));
const native = path.join(root, 'build/native/bin/key_path_bench');
const require = createRequire(import.meta.url);
const fixturePath = path.join(root, 'fixtures/add_1x1.json');
const fixtureText = fs.readFileSync(fixturePath, 'utf8');

const { CacheKeyEngine } = await import(path.join(web, 'engine.mjs'));
const engine = await CacheKeyEngine.load({
  factory: require(path.join(web, 'cachekey_engine.js')),
  wasmBinary: fs.readFileSync(path.join(web, 'cachekey_engine.wasm')),
});
engine.registerFixture('add_1x1', JSON.parse(fixtureText));

const tenKb = Buffer.alloc(10 * 1024);
for (let i = 0; i < tenKb.length; i++) tenKb[i] = (i * 2654435761) >>> 24;
const b64 = tenKb.toString('base64');
const shapes = {
  perturbation: (i) => ({ schema: 1, base: 'add_1x1', flags: { XLA_FLAGS: '--xla_gpu_autotune_level=' + (i % 5) } }),
  entry1_10kb: (i) => ({ schema: 1, base: 'add_1x1', module: { entry1_b64: b64 }, flags: { XLA_FLAGS: '--xla_gpu_autotune_level=' + (i % 5) } }),
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const r3 = (x) => +x.toFixed(3);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cachekey-key-path-'));
try {
  for (const [name, make] of Object.entries(shapes)) {
    const objects = [0, 1, 2, 3, 4].map(make);
    const texts = objects.map((o) => JSON.stringify(o));
    const scenFile = path.join(dir, `${name}.json`);
    fs.writeFileSync(scenFile, JSON.stringify(texts));
    const nat = [], bind = [], api = [], ratios = [];
    let sameKey = true;
    for (let r = 0; r < rounds; r++) {
      const n = JSON.parse(execFileSync(native, [fixturePath, scenFile, String(runs)], { encoding: 'utf8' }));
      const nMed = median(n.ms);
      // The binding itself: the same C++ function, text in, text out.
      const b = [];
      let last = '';
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        last = engine.module.computeKey(texts[i % texts.length]);
        b.push(performance.now() - t);
      }
      const bMed = median(b);
      const wasmKey = JSON.parse(last).key;
      sameKey = sameKey && wasmKey === n.key;
      // The JS API as the page calls it.
      const a = [];
      for (let i = 0; i < runs; i++) {
        const t = performance.now();
        const res = engine.computeKey(objects[i % objects.length]);
        a.push(performance.now() - t);
        if (res.error) throw new Error(res.error.message);
      }
      nat.push(nMed); bind.push(bMed); api.push(median(a)); ratios.push(bMed / nMed);
    }
    const ratio = median(ratios);
    console.log(JSON.stringify({
      bench: `key_path_${name}`, rounds, runs_per_round: runs,
      native_median_ms: r3(median(nat)), native_min_ms: r3(Math.min(...nat)), native_max_ms: r3(Math.max(...nat)),
      wasm_median_ms: r3(median(bind)), wasm_min_ms: r3(Math.min(...bind)), wasm_max_ms: r3(Math.max(...bind)),
      wasm_js_api_median_ms: r3(median(api)),
      ratio_median: +ratio.toFixed(2), ratio_min: +Math.min(...ratios).toFixed(2), ratio_max: +Math.max(...ratios).toFixed(2),
      ratio_budget: 3, within_budget: ratio <= 3, same_key: sameKey,
      where: 'wasm in Node ' + process.version + ' (V8)',
    }));
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
