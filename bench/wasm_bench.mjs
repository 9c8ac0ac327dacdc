// Wasm engine under Node: the key recomputed after one perturbation (median,
// same scenario as the native engine_bench), and the 200 MB entry-1 case
// (time and peak wasm memory). Prints one JSON line each.
//   node bench/wasm_bench.mjs [--big]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'build/web');
const require = createRequire(import.meta.url);
const { CacheKeyEngine } = await import(path.join(web, 'engine.mjs'));
const load = () => CacheKeyEngine.load({
  factory: require(path.join(web, 'cachekey_engine.js')),
  wasmBinary: fs.readFileSync(path.join(web, 'cachekey_engine.wasm')),
});
const engine = await load();
const fixture = JSON.parse(fs.readFileSync(path.join(root, 'fixtures/add_1x1.json'), 'utf8'));
engine.registerFixture('add_1x1', fixture);

function median(f, runs = 2001) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = f(i);
    times.push(performance.now() - t);
    if (r.error) throw new Error(r.error.message);
  }
  times.sort((a, b) => a - b);
  return { median_ms: +times[runs >> 1].toFixed(4), p90_ms: +times[Math.floor(runs * 0.9)].toFixed(4), runs };
}

// What the page does after one perturbation: a preset base plus one changed
// ingredient, through the JS API (JSON in, JSON out).
console.log(JSON.stringify({ bench: 'wasm_recompute_after_perturbation',
  ...median((i) => engine.computeKey({ schema: 1, base: 'add_1x1', flags: { XLA_FLAGS: '--xla_gpu_autotune_level=' + (i % 5) } })) }));

// As the native engine_bench: a scenario carrying 10 KB of entry-1 bytes
// (base64 in the JSON), one flag perturbed per run.
const tenKb = Buffer.alloc(10 * 1024);
for (let i = 0; i < tenKb.length; i++) tenKb[i] = (i * 2654435761) >>> 24;
const b64 = tenKb.toString('base64');
console.log(JSON.stringify({ bench: 'wasm_recompute_key_10kb',
  ...median((i) => engine.computeKey({ schema: 1, base: 'add_1x1', module: { entry1_b64: b64 },
    flags: { XLA_FLAGS: '--xla_gpu_autotune_level=' + (i % 5) } })) }));

if (process.argv.includes('--big')) {
  const big = await load();
  big.registerFixture('add_1x1', fixture);
  const bytes = new Uint8Array(200 << 20).fill(0x5a);
  const t = performance.now();
  const r = big.computeKeyWithModuleBytes({ schema: 1, base: 'add_1x1' }, bytes);
  const ms = performance.now() - t;
  console.log(JSON.stringify({ bench: 'wasm_200mb_entry1', ok: !r.error, error: r.error ? r.error.message : undefined,
    ms: Math.round(ms), peak_wasm_memory_mib: big.module.HEAP8.length / 2 ** 20,
    after: big.computeKey({ schema: 1, base: 'add_1x1' }).key === fixture.expected.key }));
}
