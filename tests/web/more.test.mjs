// The large captures the first view leaves to presets-more.json
// (tools/bundle_presets.py: large_mlp, about 70 KB gzipped): the first view
// does not fetch them, the pickers list them, and picking one (as the
// preset, as the module's bytes, or in a link or a scenario file) fetches
// the file once and shows the key. A failed fetch is said where the pick
// was made, and the page goes on.
//
// Expected values: large_mlp's key is real JAX's (fixtures/large_mlp.json,
// expected.key, captured with jax 0.10.2 on CPU; its provenance); the
// scenario file's moves come from the change the test made (custom_hook,
// entry 8).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, open, showMode, useBrowser, nodeEngine, fixture, DEFAULT_KEY, waitForText, roles, expectedRoles } from './helpers.mjs';

const env = useBrowser(before, after);
const LARGE = fixture('large_mlp').expected.key;
const finalKey = (page) => page.textContent('[data-testid="final-key"]');
/** The page's requests for presets-more.json, counted from now on. */
const countMore = (page) => {
  const seen = { n: 0 };
  page.on('request', (r) => { if (new URL(r.url()).pathname.endsWith('/presets-more.json')) seen.n++; });
  return seen;
};

test('the first view leaves large_mlp to presets-more.json; picking it as the preset fetches it once and shows real JAX\u2019s key', async () => {
  await env.ready;
  const page = await newPage(env.browser);
  const more = countMore(page);
  await open(page, env.server.url);
  assert.equal(more.n, 0, 'not fetched by the first view');
  await showMode(page, 'how');
  assert.ok(await page.$('#preset option[value="large_mlp"]'), 'the preset picker lists it');
  assert.match(await page.textContent('[data-testid="module-source"] option[value="large_mlp"]'), /^large_mlp — jit_large_mlp, \d+ bytes$/);
  await page.selectOption('#preset', 'large_mlp');
  await page.waitForFunction((k) => document.querySelector('[data-testid="final-key"]').textContent === k, LARGE, { timeout: 30000 });
  assert.equal(await page.$eval('#preset', (s) => s.value), 'large_mlp');
  assert.equal(await page.$eval('[data-testid="module-source"]', (s) => s.value), 'large_mlp');
  assert.match(await page.textContent('#preset-note'), /^Captured from real JAX \(jax 0\.10\.2/);
  // Back to the default and to large_mlp again: no second fetch.
  await page.selectOption('#preset', 'add_1x1');
  await waitForText(page, '[data-testid="final-key"]', new RegExp('^' + DEFAULT_KEY + '$'));
  await page.selectOption('#preset', 'large_mlp');
  await waitForText(page, '[data-testid="final-key"]', new RegExp('^' + LARGE + '$'), 30000);
  assert.equal(more.n, 1, 'fetched once');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a link and a scenario file over large_mlp fetch it and open', async () => {
  await env.ready;
  const engine = await nodeEngine();
  const r = engine.encodePermalink(JSON.stringify({ schema: 1, base: 'large_mlp' }));
  assert.ok(!r.error && r.fragment, JSON.stringify(r));
  const page = await newPage(env.browser);
  const more = countMore(page);
  await open(page, env.server.url + '#' + r.fragment);
  await page.waitForFunction((k) => document.querySelector('[data-testid="final-key"]').textContent === k, LARGE, { timeout: 30000 });
  assert.equal(more.n, 1);
  assert.equal(await page.isVisible('[data-testid="link-error"]'), false);
  await page.close();

  const p2 = await newPage(env.browser);
  await open(p2, env.server.url);
  await showMode(p2, 'how');
  await p2.setInputFiles('[data-testid="upload-scenario"]', { name: 'over-large.json', mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ schema: 1, base: 'large_mlp', custom_hook: 'after' })) });
  await waitForText(p2, '[data-testid="upload-status"]', /^Opened over-large\.json/, 30000);
  assert.equal(await p2.$eval('#preset', (s) => s.value), 'large_mlp');
  assert.deepEqual(await roles(p2), expectedRoles(8), 'the custom_hook the file changes moves entry 8 alone');
  assert.deepEqual(p2.errors, []);
  await p2.close();
});

test('when presets-more.json cannot be fetched, the pick says so where it was made and the page goes on', async () => {
  await env.ready;
  const page = await newPage(env.browser);
  await page.route('**/presets-more.json', (route) => route.fulfill({ status: 503, body: 'unavailable' }));
  await open(page, env.server.url);
  await showMode(page, 'how');
  await page.selectOption('[data-testid="module-source"]', 'large_mlp');
  await waitForText(page, '[data-testid="module-source-note"]', /^large_mlp could not be loaded: presets-more\.json: HTTP 503\. The module is unchanged\.$/);
  assert.equal(await page.$eval('[data-testid="module-source"]', (s) => s.value), 'add_1x1', 'the picker shows the module in use');
  assert.equal(await finalKey(page), DEFAULT_KEY);
  await page.selectOption('#preset', 'large_mlp');
  await waitForText(page, '#preset-note', /^large_mlp could not be loaded: presets-more\.json: HTTP 503\./);
  assert.equal(await page.$eval('#preset', (s) => s.value), 'add_1x1');
  // The page goes on: another module's bytes move entry 1.
  await page.selectOption('[data-testid="module-source"]', 'mul_2x2');
  await page.waitForFunction(() => document.querySelector('[data-testid="entry-1"]').getAttribute('data-role') === 'cause');
  // And once the file is served, the same pick works.
  await page.unroute('**/presets-more.json');
  await page.selectOption('[data-testid="module-source"]', 'large_mlp');
  await page.waitForFunction(() => /^jit_large_mlp-/.test(document.querySelector('[data-testid="final-key"]').textContent), null, { timeout: 30000 });
  assert.equal(await page.textContent('[data-testid="module-source-note"]'), '');
  // The browser's own line for each refused fetch is the only console error.
  assert.deepEqual(page.errors.filter((e) => !/Failed to load resource: .* 503/.test(e)), []);
  assert.equal(page.errors.length, 2, page.errors.join('\n'));
  await page.close();
});
