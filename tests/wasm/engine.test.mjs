// Node tests of the wasm API (web/engine.mjs over wasm/*Api.cpp), on the same
// real-JAX fixtures as the C++ tests. The native CLI and the wasm module must
// produce identical JSON for every fixture.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { capturedFixtures, cli, loadEngine, root } from './fixtures.mjs';

const engine = await loadEngine();

// The captured fixtures: CPU (fixtures/), then TPU (fixtures/tpu/, libtpu).
const fixtureFile = capturedFixtures(root);
const fixtureIds = [...fixtureFile.keys()];
const fixture = (id) => JSON.parse(fs.readFileSync(fixtureFile.get(id), 'utf8'));
for (const id of fixtureIds) assert.deepEqual(engine.registerFixture(id, fixture(id)), { ok: true });

test('there are real fixtures to check', () => {
  assert.ok(fixtureIds.length >= 10, fixtureIds.join(','));
  assert.ok(fixtureIds.filter((id) => fixture(id).backend.platform === 'tpu').length >= 34, 'TPU captures');
});

for (const id of fixtureIds) {
  test(`fixture ${id}: wasm reproduces real JAX`, () => {
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
    if (fx.backend.platform === 'tpu') assert.equal(r.accelerator.stand_in, false, 'libtpu\u2019s own value');
  });

  test(`fixture ${id}: native CLI and wasm outputs are identical`, () => {
    const native = JSON.parse(execFileSync(cli, ['explain', '--json', fixtureFile.get(id)],
      { maxBuffer: 64 << 20 }).toString());
    assert.deepEqual(engine.computeKey(fixture(id)), native);
  });
}

// XLA parses --xla_gpu_autotune_level into DebugOptions (entry 5): the flag
// oracle measured real JAX's key moving there too (issue 23), so the flag
// entry is the cause and entry 5 moves with it.
test('a perturbation through "base" moves the flag entry, and the DebugOptions field XLA parses it into', () => {
  const r = engine.compareScenarios(
    { schema: 1, base: 'add_1x1' },
    { schema: 1, base: 'add_1x1', flags: { XLA_FLAGS: '--xla_gpu_autotune_level=1' } });
  assert.equal(r.comparison.cause, 4);
  assert.deepEqual(r.comparison.with_cause, [5]);
  assert.deepEqual(r.comparison.consequences, [6, 7, 8]);
  assert.match(r.comparison.sentence, /added flag --xla_gpu_autotune_level=1/);
  assert.match(r.comparison.sentence, /DebugOptions\.xla_gpu_autotune_level/);
});

// The page's walk shows it at step 0 instead of knowing it (node:crypto
// gives the expected value).
test('version() gives the running digest before any entry is fed: SHA-256 of no bytes', () => {
  assert.equal(engine.version().fresh_digest, crypto.createHash('sha256').update(Buffer.alloc(0)).digest('hex'));
});

test('bad input returns errors and the instance keeps working', () => {
  const bad = [
    ['{', /malformed scenario JSON/, 'syntax', '$'],
    ['[]', /expected a JSON object/, 'type', '$'],
    ['{"schema":1,"base":"add_1x1","profile":"0.9"}', /unknown profile/, 'unknown_profile', '$.profile'],
    ['{"schema":1,"base":"add_1x1","compile_options":{"proto_b64":"AA*A"}}', /offset 2/, 'syntax', '$.compile_options.proto_b64'],
    ['{"schema":1,"base":"add_1x1","compile_options":{"proto_b64":"GmQ="}}', /malformed protobuf/, 'malformed_proto', '$.compile_options.proto_b64'],
    ['{"schema":1,"base":"add_1x1","module":{"entry1_b64":"%%%%"}}', /invalid base64/, 'syntax', '$.module.entry1_b64'],
    ['{"schema":1,"base":"nope"}', /unknown fixture/, 'unknown_fixture', '$.base'],
    ['{"schema":1,"base":"add_1x1","jaxlib":"x"}', /unknown key/, 'unknown_key', '$.jaxlib'],
  ];
  for (const [text, re, code, path] of bad) {
    const r = engine.computeKey(text);
    assert.ok(r.error, text);
    assert.match(r.error.message, re, text);
    assert.equal(typeof r.error.code, 'string', text);
    if (code) assert.equal(r.error.code, code, text);
    assert.equal(r.error.path, path, text);
  }
  // Which fixture is unknown is a field, not text to parse.
  assert.equal(engine.computeKey('{"schema":1,"base":"nope"}').error.subject, 'nope');
  // Which side of a comparison is wrong is a field too.
  const side = engine.compareScenarios({ schema: 1, base: 'add_1x1' }, { schema: 1, base: 'add_1x1', jaxlib_version: 5 });
  assert.deepEqual([side.error.source, side.error.code, side.error.path], ['b', 'type', '$.jaxlib_version']);
  assert.equal(engine.computeKey(fixture('add_1x1')).key, fixture('add_1x1').expected.key);
});

test('permalinks round-trip and hostile links are refused', () => {
  const scenario = { schema: 1, base: 'add_1x1', custom_hook: 'x\u3000é' };
  const enc = engine.encodePermalink(scenario);
  assert.ok(enc.fragment.startsWith('s1='));
  assert.ok(enc.fragment.length <= 300, String(enc.fragment.length));
  assert.deepEqual(engine.decodePermalink('#' + enc.fragment).scenario, scenario);
  for (const f of ['', '#', '#s1=', '#s1=%%%', '#s1=AAAA', '#s9=abc', '#s1=' + enc.fragment.slice(3, -5)]) {
    const r = engine.decodePermalink(f);
    assert.ok(r.error, f);
  }
  assert.equal(engine.computeKey(fixture('add_1x1')).key, fixture('add_1x1').expected.key);
});

test('a scenario based on a TPU capture resolves by id in wasm and in the CLI alike', () => {
  const older = fixture('matmul_v5e_2x2__0.12.0.1__libtpu0.0.50');
  const scenario = { schema: 1, base: 'matmul_v5e_2x2__0.12.0.1', backend: older.backend };
  assert.equal(engine.computeKey(scenario).key, older.expected.key);
  const native = JSON.parse(execFileSync(cli, ['explain', '--json', '-', '--fixtures', path.join(root, 'fixtures')],
    { input: JSON.stringify(scenario) }).toString());
  assert.equal(native.key, older.expected.key);
});

test('two real TPU logs: a libtpu upgrade is entry 3; the forced fallback is entry 6', () => {
  const log = (id) => fixture(id).capture.debug_log_formatted.join('\n');
  const r = engine.compareLogs(log('matmul_v5e_2x2__0.12.0.1__libtpu0.0.50'), log('matmul_v5e_2x2__0.12.0.1'));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.cause, 3);
  assert.deepEqual(r.also_changed, []);
  // The fallback's INFO lines are part of a real log too.
  const f = engine.compareLogs(log('fallback_matmul_v5e_2x2__0.12.0.1'), log('matmul_v5e_2x2__0.12.0.1'));
  assert.equal(f.error, undefined, JSON.stringify(f.error));
  assert.equal(f.cause, 6);
});

test('two real captured logs are paired entry by entry', () => {
  const log = (id) => fixture(id).capture.debug_log_formatted.join('\n');
  const r = engine.compareLogs(log('add_1x1'), log('mul_2x2'));
  assert.equal(r.cause, 1);
  const cut = engine.compareLogs(log('add_1x1'), log('add_1x1').slice(0, 500));
  assert.ok(cut.error);
});

test('a wasm trap is reported as an error and the engine recovers with its fixtures', async () => {
  const e = await loadEngine();
  e.registerFixture('add_1x1', fixture('add_1x1'));
  // Simulate a trap inside the instance (only an engine or MLIR bug could
  // cause one; bad input is an {error}).
  e.module.computeKey = () => { throw new WebAssembly.RuntimeError('unreachable'); };
  assert.match(e.computeKey({ schema: 1, base: 'add_1x1' }).error.message, /being restarted/);
  await e.restarting;
  assert.equal(e.computeKey({ schema: 1, base: 'add_1x1' }).key, fixture('add_1x1').expected.key);
});

test('the engine describes every release and its DebugOptions table (the page keeps no copy)', () => {
  const cli = JSON.parse(execFileSync(path.join(root, 'build/native/bin/cachekey'), ['profiles', '--json'], { encoding: 'utf8' }));
  const wasm = engine.profiles();
  assert.deepEqual(wasm, cli, 'wasm and native describe the same profiles');
  assert.equal(engine.describeProfile('0.9.0.1').id, '0.9.2');
  assert.equal(engine.describeProfile('nope').error.code, 'unknown_profile');
  // Field numbers and kinds as captured from jaxlib (fixtures/debug_options_fields.json).
  const captured = JSON.parse(fs.readFileSync(path.join(root, 'fixtures/debug_options_fields.json'), 'utf8')).fields;
  const fields = engine.debugOptionFields();
  assert.equal(fields.length, Object.keys(captured).length);
  for (const f of fields) assert.deepEqual([f.number, f.kind], [captured[f.name].number, captured[f.name].kind], f.name);
  for (const p of wasm.profiles) for (const z of p.zeroed_fields) assert.equal(captured[z.name].number, z.number, `${p.id} ${z.name}`);
});
