// The lazily loaded engine-with-MLIR module (build/web/mlir/): entry 1
// computed live from module text must be byte-identical to the native build
// for every captured module, and malformed MLIR must not break the instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cli, loadEngine, root } from './fixtures.mjs';

const engine = await loadEngine('mlir/cachekey_engine_mlir');
const fixture = (id) => JSON.parse(fs.readFileSync(path.join(root, 'fixtures', id + '.json'), 'utf8'));
const ids = fs.readdirSync(path.join(root, 'fixtures')).filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -5)).filter((id) => { const j = fixture(id); return j.capture && j.capture.module_generic; });
for (const id of ids) engine.registerFixture(id, fixture(id));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cachekey-mlir-'));

test('the MLIR module reports live canonicalisation', () => {
  assert.equal(engine.version().mlir, true);
  assert.ok(ids.length >= 9, ids.join(','));
});

for (const id of ids) {
  for (const profile of ['0.10.2', 'main']) {
    test(`${id} (${profile}): native and wasm canonicalise to identical bytes`, () => {
      const fx = fixture(id);
      const scenario = { schema: 1, base: id, profile,
        module: { entry1_b64: null, text: fx.capture.module_generic, include_metadata: !!fx.module.include_metadata } };
      const file = path.join(tmp, `${id}-${profile}.json`);
      fs.writeFileSync(file, JSON.stringify(scenario));
      const native = JSON.parse(execFileSync(cli, ['explain', '--json', file], { maxBuffer: 256 << 20 }).toString());
      const wasm = engine.computeKey(scenario);
      assert.equal(wasm.error, undefined, JSON.stringify(wasm.error));
      assert.equal(wasm.computation.live, true);
      assert.match(wasm.computation.producer, /MLIR19\.1\.7/);
      assert.deepEqual(wasm, native);
    });
  }
}

test('malformed MLIR is an error with line:column, and the next call works', () => {
  const bad = engine.computeKey({ schema: 1, base: 'add_1x1',
    module: { entry1_b64: null, text: 'module {\n  "foo.bar"(%0) : () -> ()\n' } });
  assert.ok(bad.error);
  assert.match(bad.error.message, /\d+:\d+/);
  const ok = engine.computeKey({ schema: 1, base: 'add_1x1',
    module: { entry1_b64: null, text: fixture('add_1x1').capture.module_generic } });
  assert.equal(ok.error, undefined);
});
