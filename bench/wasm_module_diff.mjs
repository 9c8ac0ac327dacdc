// The structural module diff in wasm against the native one, side by side
// (issue 35's budget: under 1 s natively for two ~5 MB modules, and under
// 3x that in the browser). Both diff the same two files, written once by the
// native bench (build/native/bin/module_diff_bench --write: the largest
// captured real module, fixtures/large_mlp.json, with @main cloned twice,
// about 5 MB each, the second with one attribute set on one operation).
// Rounds alternate: one native run (its own timing of diffModules, so
// process start-up is not counted), then one wasm run (diffModules of the
// MLIR engine, build/web/mlir/, in this Node's V8: the same wasm the page's
// worker runs, measured outside a browser). Prints one JSON line: medians,
// spreads (min, max), the median of the per-round ratios, and whether both
// name exactly the one attribute the bench set.
//   node bench/wasm_module_diff.mjs [ROUNDS] [WEB_DIR]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const rounds = Number(process.argv[2] || 5);
const web = path.resolve(process.argv[3] || path.join(root, 'build/web'));
const native = path.join(root, 'build/native/bin/module_diff_bench');
const require = createRequire(import.meta.url);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cachekey-module-diff-'));
try {
  const sizes = JSON.parse(execFileSync(native, ['--write', dir], { encoding: 'utf8' }));
  const a = fs.readFileSync(path.join(dir, 'a.mlir'), 'utf8');
  const b = fs.readFileSync(path.join(dir, 'b.mlir'), 'utf8');
  const { CacheKeyEngine } = await import(path.join(web, 'engine.mjs'));
  const wasmBinary = fs.readFileSync(path.join(web, 'mlir/cachekey_engine_mlir.wasm'));
  const engine = await CacheKeyEngine.load({ factory: require(path.join(web, 'mlir/cachekey_engine_mlir.js')), wasmBinary });

  const named = (findings) => findings.length === 1 && findings[0].code === 'structural' &&
    findings[0].changes.length === 1 && findings[0].changes[0].attr === 'bench.mutated';
  const nativeMs = [], wasmMs = [], ratios = [];
  let nativeOk = true, wasmOk = true;
  for (let r = 0; r < rounds; r++) {
    const n = JSON.parse(execFileSync(native, ['--files', path.join(dir, 'a.mlir'), path.join(dir, 'b.mlir'), '1'], { encoding: 'utf8' }));
    nativeOk = nativeOk && named(n.findings);
    const t0 = performance.now();
    const w = engine.call('diffModules', a, b);
    const ms = performance.now() - t0;
    if (w.error) throw new Error(`wasm diffModules: ${w.error.message}`);
    wasmOk = wasmOk && named(w.findings);
    nativeMs.push(n.ms[0]);
    wasmMs.push(ms);
    ratios.push(ms / n.ms[0]);
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
  const round1 = (x) => +x.toFixed(1);
  const ratio = median(ratios);
  console.log(JSON.stringify({
    bench: 'module_diff_wasm_vs_native', bytes_a: sizes.bytes_a, bytes_b: sizes.bytes_b, rounds,
    native_median_ms: round1(median(nativeMs)), native_min_ms: round1(Math.min(...nativeMs)), native_max_ms: round1(Math.max(...nativeMs)),
    wasm_median_ms: round1(median(wasmMs)), wasm_min_ms: round1(Math.min(...wasmMs)), wasm_max_ms: round1(Math.max(...wasmMs)),
    ratio_median: +ratio.toFixed(2), ratio_budget: 3, native_budget_ms: 1000,
    within_budget: ratio <= 3 && median(nativeMs) <= 1000,
    findings_as_expected: nativeOk && wasmOk,
    where: 'wasm in Node ' + process.version + ' (V8), not in a browser worker',
  }));
  if (!(nativeOk && wasmOk)) process.exitCode = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
