// Node tests of the wasm API's capture calls (openScenarioFile,
// compareCaptureFolders): the page reads captures through the engine, with
// the checks `cachekey explain FILE` applies, and compares two capture
// folders as `cachekey diff DIR_A DIR_B` does.
//
// Expected values: the keys real JAX logged (each capture's expected.key and
// index.json, tests/web/data/folders/README in tests/web/data/README.md),
// pairs counted here from the two index.json files, SHA-256 computed here
// with node:crypto, and the text the native CLI prints for the same folders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { cli, loadEngine, root } from './fixtures.mjs';

const engine = await loadEngine();
const folders = path.join(root, 'tests/web/data/folders');

/** Every file of a folder as {name: Uint8Array}. */
function folder(name) {
  const dir = path.join(folders, name);
  return Object.fromEntries(fs.readdirSync(dir).map((f) => [f, new Uint8Array(fs.readFileSync(path.join(dir, f)))]));
}
const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');
const json = (bytes) => JSON.parse(Buffer.from(bytes).toString('utf8'));

test('a captured file opens with the key real JAX logged, its program and its outcome', () => {
  const files = folder('run64');
  const real = json(files['0004-jit_step.json']);
  const o = engine.openScenarioFile('0004-jit_step.json', files);
  assert.equal(o.error, undefined, JSON.stringify(o.error));
  assert.equal(o.result.key, real.expected.key);
  assert.equal(o.capture_check.matches, true);
  assert.equal(o.capture_check.jax_key, real.expected.key);
  assert.equal(o.captured.program, 'jit_step');
  assert.equal(o.captured.file, '0004-jit_step.json');
  const row = json(files['index.json']).programs.find((p) => p.file === '0004-jit_step.json');
  assert.equal(o.captured.outcome, row.outcome);
  // The scenario the page shows is the capture's own document.
  assert.equal(o.scenario.module.entry1_b64, real.module.entry1_b64);
});

test('a raw entry-1 sidecar is read and its SHA-256 checked, as the CLI checks it', () => {
  const files = folder('run64');
  const doc = json(files['0004-jit_step.json']);
  const bytes = Buffer.from(doc.module.entry1_b64, 'base64');
  delete doc.module.entry1_b64;
  doc.capture.entry1 = { ...doc.capture.entry1, storage: 'sidecar', encoding: 'raw', file: '0004-jit_step.entry1', sha256: sha256(bytes) };
  const withSidecar = { ...files, '0004-jit_step.json': new Uint8Array(Buffer.from(JSON.stringify(doc))), '0004-jit_step.entry1': new Uint8Array(bytes) };
  const ok = engine.openScenarioFile('0004-jit_step.json', withSidecar);
  assert.equal(ok.error, undefined, JSON.stringify(ok.error));
  assert.equal(ok.result.key, doc.expected.key, 'the same key as with entry 1 inline');
  assert.equal(ok.scenario.module.entry1_b64, bytes.toString('base64'), 'the sidecar is inlined for the page');

  const damaged = new Uint8Array(bytes);
  damaged[damaged.length - 1] ^= 1;
  const bad = engine.openScenarioFile('0004-jit_step.json', { ...withSidecar, '0004-jit_step.entry1': damaged });
  assert.ok(bad.error, 'a sidecar with other bytes is refused');
  assert.match(bad.error.path, /capture\.entry1\.sha256/);
  assert.equal(bad.error.source, '0004-jit_step.json');

  const { ['0004-jit_step.entry1']: _gone, ...missing } = withSidecar;
  const absent = engine.openScenarioFile('0004-jit_step.json', missing);
  assert.ok(absent.error, 'a sidecar that was not chosen is named');
  assert.match(JSON.stringify(absent.error), /0004-jit_step\.entry1/);
});

test('a file that is not a scenario gets an error naming it, and the engine stays usable', () => {
  const r = engine.openScenarioFile('x.json', { 'x.json': new Uint8Array(Buffer.from('{"schema": 1, "base": "nope"')) });
  assert.ok(r.error);
  assert.equal(r.error.source, 'x.json');
  assert.ok(engine.openScenarioFile('y.json', {}).error, 'a name that is not among the files');
  assert.equal(engine.openScenarioFile('0001-jit_convert_element_type.json', folder('run64')).error, undefined);
});

test('two capture folders compare with the pairing, causes and text diffs of cachekey diff', () => {
  const a = folder('run64'), b = folder('run128');
  // The pairs, counted here from real JAX's keys in the two index.json files.
  const rows = (f) => json(f['index.json']).programs;
  const keyOf = (list) => new Map(list.map((p) => [`${p.program}#${p.occurrence}`, p.key]));
  const ka = keyOf(rows(a)), kb = keyOf(rows(b));
  const paired = [...ka.keys()].filter((k) => kb.has(k));
  const differ = paired.filter((k) => ka.get(k) !== kb.get(k));
  assert.ok(differ.length >= 1 && differ.length < paired.length, 'the data holds both kinds of pair');

  const r = engine.compareCaptureFolders(a, b, 'run64', 'run128');
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.paired, paired.length);
  assert.equal(r.same_key, paired.length - differ.length);
  assert.deepEqual(r.differing.map((d) => `${d.program}#${d.occurrence}`).sort(), differ.sort());
  for (const d of r.differing) {
    assert.equal(d.key_a, ka.get(`${d.program}#${d.occurrence}`));
    assert.equal(d.key_b, kb.get(`${d.program}#${d.occurrence}`));
    // The change the runs made: 64 rows became 128, in the module (entry 1).
    assert.equal(d.comparison.cause, 1, d.program);
    assert.match(d.text_diff, /^-.*tensor<64x8xf32>/m);
    assert.match(d.text_diff, /^\+.*tensor<128x8xf32>/m);
  }
  // The text is what the native CLI prints for the same two folders.
  let cliText = '';
  try {
    cliText = execFileSync(cli, ['diff', 'run64', 'run128'], { cwd: folders, encoding: 'utf8' });
  } catch (e) {
    cliText = e.stdout; // exit 1: the keys differ
  }
  assert.equal(r.text, cliText);
});

test('a folder without index.json is not a capture, and says so', () => {
  const { 'index.json': _i, ...a } = folder('run64');
  const r = engine.compareCaptureFolders(a, folder('run128'), 'run64', 'run128');
  assert.ok(r.error);
  assert.match(JSON.stringify(r.error), /run64/);
  assert.match(JSON.stringify(r.error), /index\.json/);
});

test('trace levels: the device-kind fallback line is INFO, the rest DEBUG (cache_key.py logger.info / logger.debug)', () => {
  const fx = JSON.parse(fs.readFileSync(path.join(root, 'fixtures/add_1x1.json'), 'utf8'));
  engine.registerFixture('add_1x1', fx);
  const r = engine.computeKey({ schema: 1, base: 'add_1x1', accelerator: { device_kinds: ['cpu'], error: 'UNIMPLEMENTED: x' } });
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.trace_levels.length, r.trace.length);
  r.trace.forEach((line, i) => assert.equal(r.trace_levels[i], line.includes('falling back to hashing devices') ? 'info' : 'debug', line));
  assert.ok(r.trace_levels.includes('info'), 'the fallback was logged');
});
