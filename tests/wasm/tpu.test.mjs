// The wasm API on the TPU captures (fixtures/tpu/: real jax + libtpu,
// deviceless): every key, digest and trace line real JAX logged, the native
// CLI's JSON identical to the wasm module's, and two real TPU logs paired.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const web = path.join(root, 'build/web');
const require = createRequire(import.meta.url);
const factory = require(path.join(web, 'cachekey_engine.js'));
const { CacheKeyEngine } = await import(path.join(web, 'engine.mjs'));
const engine = await CacheKeyEngine.load({
  factory,
  wasmBinary: fs.readFileSync(path.join(web, 'cachekey_engine.wasm')),
});
const cli = path.join(root, 'build/native/bin/cachekey');
const dir = path.join(root, 'fixtures', 'tpu');
const ids = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
const fixture = (id) => JSON.parse(fs.readFileSync(path.join(dir, id + '.json'), 'utf8'));
for (const id of ids) assert.deepEqual(engine.registerFixture(id, fixture(id)), { ok: true });

test('there are TPU captures to check', () => {
  assert.ok(ids.length >= 34, ids.join(','));
});

for (const id of ids) {
  test(`TPU fixture ${id}: wasm reproduces real JAX, as the native CLI does`, () => {
    const fx = fixture(id);
    const r = engine.computeKey(fx);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.equal(r.key, fx.expected.key);
    fx.expected.entries.forEach((e, i) => {
      assert.equal(r.entries[i].name, e.name);
      assert.equal(r.entries[i].digest, e.digest, e.name);
      assert.equal(r.entries[i].running, e.running, e.name);
    });
    assert.deepEqual(r.trace, fx.expected.trace);
    assert.equal(r.accelerator.stand_in, false);
    const native = JSON.parse(execFileSync(cli, ['explain', '--json', path.join(dir, id + '.json')],
      { maxBuffer: 64 << 20 }).toString());
    assert.deepEqual(r, native);
  });
}

test('a scenario based on a TPU capture resolves by id in wasm and in the CLI alike', () => {
  const older = fixture('matmul_v5e_2x2__0.12.0.1__libtpu0.0.50');
  const scenario = { schema: 1, base: 'matmul_v5e_2x2__0.12.0.1', backend: older.backend };
  assert.equal(engine.computeKey(scenario).key, older.expected.key);
  const native = JSON.parse(execFileSync(cli, ['explain', '--json', '-', '--fixtures', path.join(root, 'fixtures')],
    { input: JSON.stringify(scenario) }).toString());
  assert.equal(native.key, older.expected.key);
});

test('two real TPU logs: a libtpu upgrade is entry 3, not entry 6', () => {
  const log = (id) => fixture(id).capture.debug_log_formatted.join('\n');
  const r = engine.compareLogs(log('matmul_v5e_2x2__0.12.0.1__libtpu0.0.50'), log('matmul_v5e_2x2__0.12.0.1'));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.cause, 3);
  assert.deepEqual(r.also_changed, []);
  // The forced fallback's INFO lines are part of a real log too.
  const f = engine.compareLogs(log('fallback_matmul_v5e_2x2__0.12.0.1'), log('matmul_v5e_2x2__0.12.0.1'));
  assert.equal(f.error, undefined, JSON.stringify(f.error));
  assert.equal(f.cause, 6);
});
