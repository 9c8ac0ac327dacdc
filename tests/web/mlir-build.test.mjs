// The MLIR module still being built (issue 38): scripts/run serves the page
// first and builds MLIR for wasm in the background, and build-status.json
// (scripts/build-web, tools/build_progress.py) says how far it is. Here the
// test serves its own build-status.json (Playwright's page.route; the
// values are the ones this test writes) over the real built site, and
// checks that the module panel says the module is being built and about how
// long is left, that everything else works meanwhile, that the page picks
// the module up when the status says ready (it polls with backoff: each
// step waits for what the page shows, never for a fixed time), and that a
// failed build is said as such. It also writes the README's screenshot of
// the first view (build/test-artifacts/readme-page.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, open, roles, expectedRoles, fixture, waitForText, artifacts, animationsDone, DEFAULT_KEY, useBrowser } from './helpers.mjs';

const env = useBrowser(before, after);
const WHY = '[data-testid="module-text-why"]';
const BUTTON = '[data-testid="open-module-text"]';
// Polls back off to 20 s; a few polls fit in this.
const POLLED = 90000;

/** A page whose build-status.json is whatever `status.doc` holds when it asks. */
async function withStatus(doc) {
  await env.ready;
  const page = await newPage(env.browser);
  const status = { doc, asked: 0 };
  page.paths = [];
  page.on('request', (r) => page.paths.push(new URL(r.url()).pathname));
  await page.route('**/build-status.json', (route) => {
    status.asked += 1;
    route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(status.doc) });
  });
  page.status = status;
  return page;
}

test('while the MLIR module is built: the panel says so and how long is left, the rest works, and the module is picked up when built', async () => {
  const page = await withStatus({ schema: 1, state: 'building', step: 'build', done: 300, total: 856, elapsed_s: 400, eta_s: 720, log: 'build/mlir-web.log' });
  await open(page, env.server.url);
  await page.waitForSelector('html[data-mlir-build="building"]', { timeout: POLLED });
  const why = await waitForText(page, WHY, /being built/, POLLED);
  assert.match(why, /compiling MLIR\u2019s libraries, 300 of 856 steps; about 12 minutes left\./, why);
  assert.match(why, /Log: build\/mlir-web\.log\./, why);
  assert.equal(await page.$eval(BUTTON, (b) => b.disabled), true, 'the button waits for the module');
  assert.equal(await page.$eval('#module-text', (t) => t.disabled), true);

  // Everything else works: the default key is real JAX's, and another
  // fixture's bytes make entry 1 the cause.
  assert.equal(await page.textContent('[data-testid="final-key"]'), DEFAULT_KEY);
  await page.selectOption('[data-testid="module-source"]', 'mul_2x2');
  await page.waitForFunction(() => /^jit_mul-/.test(document.querySelector('[data-testid="final-key"]').textContent));
  assert.deepEqual(await roles(page), expectedRoles(1));
  await page.selectOption('[data-testid="module-source"]', 'add_1x1');
  await page.waitForFunction((k) => document.querySelector('[data-testid="final-key"]').textContent === k, DEFAULT_KEY);

  // The status moves on: the page reads it again and says so.
  page.status.doc = { schema: 1, state: 'building', step: 'module', done: 2, total: 3, elapsed_s: 1100, eta_s: 40, log: 'build/mlir-web.log' };
  const later = await waitForText(page, WHY, /linking the engine with MLIR/, POLLED);
  assert.match(later, /linking the engine with MLIR, 2 of 3 steps; less than a minute left\./, later);
  assert.ok(!page.paths.some((p) => p.includes('/mlir/')), 'nothing under mlir/ is fetched while it is built: ' + page.paths.join(','));

  // Built: the button is the usual one again, and opening the editor loads
  // the real module (the site's own) with the fixture's generic text.
  page.status.doc = { schema: 1, state: 'ready', elapsed_s: 1130 };
  await page.waitForSelector('html[data-mlir-build="ready"]', { timeout: POLLED });
  await page.waitForFunction((sel) => !document.querySelector(sel).disabled, BUTTON);
  assert.match(await page.textContent(WHY), /is built now/);
  const asked = page.status.asked;
  await page.click(BUTTON);
  await page.waitForSelector('html[data-mlir="ready"]', { timeout: 30000 });
  // The editor opens on its text's keys (controls/module.mjs openEditor).
  await page.waitForFunction(() => !document.querySelector('[data-testid="module-text"]').disabled);
  assert.equal(await page.inputValue('[data-testid="module-text"]'), fixture('add_1x1').capture.module_generic);
  assert.ok(page.paths.some((p) => p.endsWith('/mlir/cachekey_engine_mlir.wasm')), page.paths.join(','));
  assert.ok(asked >= 3, `the status was read at least three times (${asked})`);
  assert.equal(page.status.asked, asked, 'no poll after ready');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a build still configuring says the time left is not known; once built, the module waits to be asked for', async () => {
  const page = await withStatus({ schema: 1, state: 'building', step: 'configure', done: null, total: null, elapsed_s: 60, eta_s: null, log: 'build/mlir-web.log' });
  await open(page, env.server.url);
  const why = await waitForText(page, WHY, /being built/, POLLED);
  assert.match(why, /configuring LLVM and MLIR for WebAssembly; the time left is not known yet\./, why);
  page.status.doc = { schema: 1, state: 'ready' };
  await page.waitForSelector('html[data-mlir-build="ready"]', { timeout: POLLED });
  assert.equal(await page.getAttribute('html', 'data-mlir'), null, 'built is not loaded: the module loads when asked for');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a failed background build is said as such, with its log', async () => {
  const page = await withStatus({ schema: 1, state: 'failed', elapsed_s: 12, log: 'build/mlir-web.log' });
  await open(page, env.server.url);
  await page.waitForSelector('html[data-mlir-build="failed"]', { timeout: POLLED });
  const why = await waitForText(page, WHY, /could not be loaded/, POLLED);
  assert.match(why, /its background build failed; see build\/mlir-web\.log/, why);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the site as built says its module is ready, and the README screenshot of the first view', async () => {
  await env.ready;
  const page = await newPage(env.browser, { viewport: { width: 960, height: 780 } });
  await open(page, env.server.url);
  await page.waitForSelector('html[data-mlir-build="ready"]', { timeout: POLLED });
  await animationsDone(page);
  fs.mkdirSync(artifacts, { recursive: true });
  const file = path.join(artifacts, 'readme-page.png');
  await page.screenshot({ path: file });
  assert.ok(fs.statSync(file).size > 10000, 'a screenshot with something on it');
  assert.deepEqual(page.errors, []);
  await page.close();
});
