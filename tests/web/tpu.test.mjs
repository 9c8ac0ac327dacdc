// The page's TPU parts in Chromium: the accelerator picker offers the
// topologies measured with libtpu (fixtures/tpu_topologies.json), with their
// provenance and no stand-in label, and the TPU presets and case studies show
// the keys real JAX computed with libtpu (fixtures/tpu/). Every expected
// digest and key below is read from those captures. Each check waits for
// the state it reads.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, open, root, useOpenPage, waitForText, shot, linkSettled } from './helpers.mjs';

const env = useOpenPage({ before, after, beforeEach }, { reset: true });
let page;

const tpuFixture = (id) => JSON.parse(fs.readFileSync(path.join(root, 'fixtures', 'tpu', id + '.json'), 'utf8'));
const topologies = JSON.parse(fs.readFileSync(path.join(root, 'fixtures', 'tpu_topologies.json'), 'utf8'));

before(async () => { page = await env.opened; });

/** Waits until `selector`'s attribute (or, with prop, its property) equals `value`. */
async function waitForAttr(selector, name, value, prop = false) {
  await page.waitForFunction(([sel, n, v, p]) => {
    const e = document.querySelector(sel);
    return !!e && (p ? e[n] : e.getAttribute(n)) === v;
  }, [selector, name, value, prop], { timeout: 10000 });
}
const waitForDigest = (n, digest) => waitForAttr(`[data-testid="entry-${n}"]`, 'data-digest', digest);
const waitForRole = (n, role) => waitForAttr(`[data-testid="entry-${n}"]`, 'data-role', role);
const waitForKey = (key) => waitForText(page, '[data-testid="final-key"]', new RegExp(`^${key}$`));
const waitForBaselineKey = (key) => waitForText(page, '[data-testid="baseline-key"]', new RegExp(`^${key}$`));
const digestOf = (id, n) => tpuFixture(id).expected.entries[n - 1].digest;

test('the TPU picker offers every measured topology, with provenance and no stand-in label', async () => {
  await page.selectOption('[data-testid="accel-kind"]', 'tpu');
  await waitForRole(6, 'cause');
  const options = await page.$$eval('[data-testid="tpu-topology"] option', (os) => os.map((o) => o.value));
  assert.deepEqual(options.sort(), topologies.topologies.map((t) => t.id).sort());
  const groups = await page.$$eval('[data-testid="tpu-topology"] optgroup', (gs) => gs.map((g) => g.label));
  assert.deepEqual(groups, ['v2', 'v3', 'v4', 'v4 lite', 'v5e', 'v5p', 'v6e', 'TPU7x']);
  // The default choice is v5e:2x4; entry 6 then feeds what real JAX fed for
  // matmul_v5e_2x4 (jax 0.10.2, libtpu 0.0.42.1).
  await waitForDigest(6, digestOf('matmul_v5e_2x4__0.10.2', 6));
  const note = await waitForText(page, '[data-testid="tpu-note"]', /measured/);
  assert.match(note, /^v5e:2x4: TPU v5 lite, 8 devices in 2 processes/);
  assert.match(note, /libtpu 0\.0\.42\.1, 0\.0\.50, 0\.0\.50\.1/);
  assert.equal(await page.isVisible('#accel-tpu .stand-in'), false, 'the control has no stand-in label');
  assert.equal(await page.isVisible('[data-testid="entry-6"] .stand-in'), false, 'entry 6 has no stand-in label');
  await waitForText(page, '#accel-note', /d3d3ba1b6b343291/);

  await page.selectOption('[data-testid="tpu-topology"]', 'v5p:2x2x1');
  await waitForDigest(6, digestOf('matmul_v5p_2x2x1__0.10.2', 6));
  await waitForText(page, '[data-testid="tpu-note"]', /^v5p:2x2x1: TPU v5, 4 devices \(Cloud type v5p-8/);
  assert.deepEqual(page.errors, []);
});

test('the libtpu build follows the profile, and its platform_version moves entry 3 as real JAX did', async () => {
  await page.selectOption('[data-testid="accel-kind"]', 'tpu');
  await page.selectOption('[data-testid="tpu-topology"]', 'v5p:2x2x1');
  await waitForDigest(6, digestOf('matmul_v5p_2x2x1__0.10.2', 6));
  // add_1x1 is a jax 0.10.2 capture: libtpu 0.0.42.1 is the build of that release.
  await waitForAttr('[data-testid="tpu-libtpu"]', 'value', '0.0.42.1', true);
  await page.click('#tpu-backend');
  await waitForDigest(3, digestOf('matmul_v5p_2x2x1__0.10.2', 3));
  await page.selectOption('[data-testid="tpu-libtpu"]', '0.0.50');
  await waitForText(page, '[data-testid="tpu-note"]', /Under libtpu 0\.0\.50, platform_version \(entry 3\) reads .TFRT TPU v5 \/ Built on Oct 7 2026/);
  await page.click('#tpu-backend');
  await waitForDigest(3, digestOf('matmul_v5p_2x2x1__0.12.0.1__libtpu0.0.50', 3));
  // Entry 6 did not move with the build.
  await waitForDigest(6, digestOf('matmul_v5p_2x2x1__0.12.0.1__libtpu0.0.50', 6));
});

test('a topology that one libtpu build refuses says so and offers no platform_version for it', async () => {
  await page.selectOption('[data-testid="accel-kind"]', 'tpu');
  await page.selectOption('[data-testid="tpu-topology"]', 'v5e:1x2');
  await page.selectOption('[data-testid="tpu-libtpu"]', '0.0.42.1');
  await waitForText(page, '[data-testid="tpu-note"]', /libtpu 0\.0\.42\.1 refuses this name \(jax\.errors\.JaxRuntimeError: INVALID_ARGUMENT: Topology layout "v5e:1x2" is not divisible/);
  await waitForAttr('#tpu-backend', 'disabled', true, true);
});

test('the TPU presets are captured keys, with libtpu in their provenance', async () => {
  const groups = await page.$$eval('#preset optgroup', (gs) => gs.map((g) => [g.label, g.querySelectorAll('option').length]));
  const tpuGroup = groups.find(([label]) => /libtpu/.test(label));
  assert.ok(tpuGroup, JSON.stringify(groups));
  assert.equal(tpuGroup[1], fs.readdirSync(path.join(root, 'fixtures', 'tpu')).filter((f) => f.endsWith('.json')).length);
  for (const id of ['matmul_v5e_4x4__0.12.0.1', 'fallback_matmul_v5e_2x2__0.10.2', 'pallas_a_meta__0.12.0.1']) {
    await page.selectOption('#preset', id);
    await waitForKey(tpuFixture(id).expected.key);
    await waitForBaselineKey(tpuFixture(id).expected.key);
    const fx = tpuFixture(id);
    await waitForText(page, '#preset-note', new RegExp(`jax ${fx.provenance.jax.replace(/\./g, '\\.')}, libtpu ${fx.provenance.libtpu.replace(/\./g, '\\.')}`));
    const trace = await waitForText(page, '[data-testid="trace"]', new RegExp(fx.expected.entries[7].running));
    for (const line of fx.expected.trace) assert.ok(trace.includes(line), `${id}: ${line}`);
  }
});

test('TPU case studies: both keys are the ones real JAX computed with libtpu', async () => {
  const cases = [
    // [case, preset, expected perturbed fixture, cause (0: equal keys), entries that also moved]
    ['libtpu-upgrade', 'matmul_v5e_2x2__0.12.0.1__libtpu0.0.50', 'matmul_v5e_2x2__0.12.0.1', 3, []],
    ['tpu-v5e-v5p', 'matmul_v5e_2x2__0.12.0.1', 'matmul_v5p_2x2x1__0.12.0.1', 3, [5, 6]],
    ['tpu-4-vs-8', 'matmul_v5e_2x2__0.12.0.1', 'matmul_v5e_2x4__0.12.0.1', 1, [5, 6]],
    ['tpu-pallas-lines', 'pallas_a__0.12.0.1', 'pallas_b__0.12.0.1', 0, []],
  ];
  for (const [id, preset, expect, cause, also] of cases) {
    await page.click(`[data-testid="case-${id}"] button[data-case]`);
    await waitForAttr('#preset', 'value', preset, true);
    await waitForBaselineKey(tpuFixture(preset).expected.key);
    await waitForKey(tpuFixture(expect).expected.key);
    for (let n = 1; n <= 8; ++n) {
      await waitForRole(n, cause === 0 || n < cause ? 'same' : n === cause ? 'cause' : 'consequence');
      await waitForDigest(n, digestOf(expect, n));
    }
    for (const n of also) assert.equal(await page.isVisible(`[data-testid="entry-${n}"] .also`), true, `${id}: entry ${n} also moved`);
    assert.equal(await page.isVisible('[data-testid="entry-6"] .stand-in'), false, id);
    assert.equal(await page.isVisible(`[data-testid="case-${id}"] .stand-in`), false, id);
    const href = await page.getAttribute(`[data-testid="case-${id}"] .src-links a`, 'href');
    assert.match(href, /^https:\/\/github\.com\/jax-ml\/jax\/(issues|pull|blob)\//, id);
  }
  // The Pallas move on jax 0.10.2: the kernel body keeps its locations.
  await page.click('[data-testid="case-tpu-pallas-lines"] button[data-case-alt]');
  await waitForAttr('#preset', 'value', 'pallas_a__0.10.2', true);
  await waitForKey(tpuFixture('pallas_b__0.10.2').expected.key);
  await waitForRole(1, 'cause');
  await shot(page, 'cases-tpu.png', '[data-testid="case-libtpu-upgrade"]');
});

test('a link to a TPU case study round-trips', async () => {
  await page.click('[data-testid="case-libtpu-upgrade"] button[data-case]');
  await waitForKey(tpuFixture('matmul_v5e_2x2__0.12.0.1').expected.key);
  await linkSettled(page);
  const link = await page.inputValue('[data-testid="permalink"]');
  const p2 = await newPage(env.browser);
  await open(p2, link);
  await p2.waitForFunction((k) => document.querySelector('[data-testid="final-key"]').textContent === k,
    tpuFixture('matmul_v5e_2x2__0.12.0.1').expected.key);
  assert.equal(await p2.$eval('#preset', (s) => s.value), 'matmul_v5e_2x2__0.12.0.1__libtpu0.0.50');
  assert.deepEqual(p2.errors, []);
  await p2.close();
});

test('a choice the engine refuses is not applied: the controls show the scenario the page shows', async () => {
  // Profile 0.5.3 hashes the serialized topology, which a fingerprint alone
  // cannot give (the engine's error); main hashes the fingerprint.
  const accelKind = () => page.$eval('[data-testid="accel-kind"]', (s) => s.value);
  const entry6 = () => page.getAttribute('[data-testid="entry-6"]', 'data-digest');
  const captured = await page.$eval('#profile', (s) => s.value); // add_1x1's release, 0.10.2
  await page.selectOption('[data-testid="profile"]', '0.5.3');
  await waitForText(page, '[data-testid="profile-note"]', /^Profile \S+: jax [^;]*0\.5\.3/);
  const key = await page.textContent('[data-testid="final-key"]');
  const digest6 = await entry6();

  await page.selectOption('[data-testid="accel-kind"]', 'tpu');
  const banner = await waitForText(page, '[data-testid="scenario-error"]', /^Not applied\./);
  assert.match(banner, /\$\.accelerator\.fingerprint: profile 0\.5\.3/);
  await waitForAttr('[data-testid="accel-kind"]', 'value', 'captured', true);
  assert.equal(await page.isVisible('#accel-tpu'), false, 'the TPU panel closes again');
  assert.equal(await page.$eval('#profile', (s) => s.value), '0.5.3');
  assert.equal(await page.textContent('[data-testid="final-key"]'), key, 'the key shown is unchanged');
  assert.equal(await entry6(), digest6);
  assert.equal(await page.$eval('#entries', (n) => n.classList.contains('stale')), false, 'what is shown is current');
  await linkSettled(page);
  assert.doesNotMatch(await page.textContent('[data-testid="link-info"]'), /No link/);
  assert.match(await page.inputValue('[data-testid="permalink"]'), /#s1=/);

  // The other order: the fingerprint first (add_1x1's release), then 0.5.3.
  await page.selectOption('[data-testid="profile"]', captured);
  await page.waitForSelector('[data-testid="scenario-error"]', { state: 'hidden' });
  await page.selectOption('[data-testid="accel-kind"]', 'tpu');
  await waitForRole(6, 'cause');
  const tpuKey = await page.textContent('[data-testid="final-key"]');
  await page.selectOption('[data-testid="profile"]', '0.5.3');
  await waitForText(page, '[data-testid="scenario-error"]', /^Not applied\..*\$\.accelerator\.fingerprint/);
  await waitForAttr('#profile', 'value', captured, true);
  assert.equal(await accelKind(), 'tpu');
  assert.equal(await page.textContent('[data-testid="final-key"]'), tpuKey);

  // The next change that computes clears the banner.
  await page.fill('[data-testid="custom-hook"]', 'x');
  await page.waitForSelector('[data-testid="scenario-error"]', { state: 'hidden' });
  await waitForRole(6, 'cause');
  assert.equal(await accelKind(), 'tpu');
  assert.deepEqual(page.errors, []);
});
