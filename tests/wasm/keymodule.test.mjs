// Node tests of the first view's key module (cachekey_engine_key.{js,wasm},
// wasm/CMakeLists.txt: the binding built with CACHEKEY_WASM_KEY_ONLY): the
// page's main thread computes and perturbs keys with it, and the worker's
// whole module does the rest.
//
// Expected values: the keys real JAX computed for the captured fixtures
// (each fixture's "expected", copied from jax._src.cache_key.get while JAX
// compiled; fixtures/*.json provenance), and the list of calls the worker's
// module has and the key module must not (what the change moved out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadEngine, root } from './fixtures.mjs';

const key = await loadEngine('cachekey_engine_key');

test('the key module gives the keys real JAX computed', () => {
  let checked = 0;
  for (const id of ['add_1x1', 'mul_2x2', 'gpu_2proc']) {
    const file = path.join(root, 'fixtures', `${id}.json`);
    if (!fs.existsSync(file)) continue;
    const fx = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(key.registerFixture(id, fx).error, undefined, id);
    const r = key.computeKey({ schema: 1, base: id });
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.equal(r.key, fx.expected.key, id);
    checked++;
  }
  assert.ok(checked >= 2, 'at least two captured fixtures are checked');
});

test('the key module has the key calls, and none of what the worker does', () => {
  for (const name of ['version', 'registerFixture', 'profiles', 'debugOptionFields', 'describeProfile',
    'profileDifferences', 'computeKey', 'computeKeyWithModuleBytes', 'resolveScenario', 'compareScenarios', 'cacheReleases',
    'scenarioChoices'])
    assert.equal(typeof key.module[name], 'function', name);
  for (const name of ['compareLogs', 'openLogReader', 'feedLogReader', 'compareLogReaders', 'compareManyLogReaders',
    'encodePermalink', 'decodePermalink', 'openScenarioFile', 'compareCaptureFolders', 'readCacheFolder'])
    assert.equal(key.module[name], undefined, name);
});

// The page's release picker shows profiles().default for a scenario that
// names no profile (web/controls/release.mjs): it must be what the engine
// computes such a scenario with, so the picker never says one release while
// the key is another's.
test('profiles().default is the profile a scenario naming none is computed with', () => {
  const p = key.profiles();
  assert.equal(typeof p.default, 'string');
  const release = p.aliases[p.default] || p.default;
  const profile = p.profiles.find((x) => x.id === release || x.releases.includes(release));
  assert.ok(profile, `${p.default} is a release the engine lists`);
  const { profile: _named, expected: _e, ...doc } = JSON.parse(fs.readFileSync(path.join(root, 'fixtures/add_1x1.json'), 'utf8'));
  const unnamed = key.computeKey(doc);
  assert.equal(unnamed.error, undefined, JSON.stringify(unnamed.error));
  assert.equal(unnamed.profile, profile.id);
  assert.equal(key.computeKey({ ...doc, profile: p.default }).key, unnamed.key);
  // (a scenario that names the oldest release is computed otherwise)
  assert.notEqual(key.computeKey({ ...doc, profile: p.profiles[0].id }).profile, unnamed.profile);
});
