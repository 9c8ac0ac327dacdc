// Large texts stay in the engine's worker (issue 13 item 2): a module text
// file or a captured entry 1 longer than the page keeps (web/transfer.mjs
// LARGE, 1 Mi characters) is held by the worker; the page holds a handle,
// shows a labelled, read-only preview, and has the keys, the link's answer
// and the scenario file made in the worker. After a cancel (a new worker) the
// text is read again from the file it came from. Expected keys come from the
// engine in Node, given the whole text directly (no worker, no handle).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { newPage, open, useBrowser, waitForText, linkSettled, cancelShownJob, bigModuleText, site, root, nodeEngine } from './helpers.mjs';

const env = useBrowser(before, after);

/** The engine with MLIR in Node (the build the page serves), with the add_1x1 fixture. */
async function mlirEngine() {
  const require = createRequire(import.meta.url);
  const { CacheKeyEngine } = await import(path.join(site, 'engine.mjs'));
  const e = await CacheKeyEngine.load({ factory: require(path.join(site, 'mlir/cachekey_engine_mlir.js')),
    wasmBinary: fs.readFileSync(path.join(site, 'mlir/cachekey_engine_mlir.wasm')) });
  const presets = JSON.parse(fs.readFileSync(path.join(site, 'presets.json'), 'utf8'));
  e.registerFixture('add_1x1', presets.fixtures.add_1x1);
  return e;
}

const pending = (page, attr) => page.waitForFunction((a) => !document.documentElement.hasAttribute(a), attr, { timeout: 120000, polling: 200 });

test('a module text file of 6 MB stays in the worker: a labelled preview, its keys, an early "too long" for the link, a scenario file, and a new worker after a cancel reads it again', async () => {
  const text = bigModuleText(6 << 20);
  const engine = await mlirEngine();
  const scenario = { schema: 1, base: 'add_1x1', module: { entry1_b64: null, text, include_metadata: false } };
  const want = engine.computeKey(scenario).key;
  const wantHook = engine.computeKey({ ...scenario, custom_hook: 'after-cancel' }).key;
  assert.match(want, /^jit_big-[0-9a-f]{64}$/);

  const page = await newPage(env.browser);
  await open(page, env.server.url);
  await page.click('[data-testid="open-module-text"]');
  await page.waitForSelector('html[data-mlir="ready"]', { timeout: 30000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid="module-text"]').disabled);
  await page.setInputFiles('[data-testid="module-file"]', { name: 'big.mlir', mimeType: 'text/plain', buffer: Buffer.from(text) });
  await waitForText(page, '[data-testid="module-file-name"]', /The module text of big\.mlir \(6\.0 MB\)/, 60000);
  await pending(page, 'data-module-pending');
  assert.equal(await page.textContent('[data-testid="final-key"]'), want);

  // The box shows the start of the text, read-only, and says so.
  const shown = await page.inputValue('[data-testid="module-text"]');
  assert.ok(shown.length > 0 && shown.length < text.length, `${shown.length} characters shown`);
  assert.equal(shown, text.slice(0, shown.length));
  assert.equal(await page.$eval('#module-text', (t) => t.readOnly), true);
  assert.match(await page.textContent('[data-testid="module-text-preview"]'), /^Preview, read-only: the first 16 KB of 6\.0 MB of module text\./);

  // No link can carry 6 MB of scenario: the page says so from the text's
  // length (6 Mi characters; its JSON is longer still).
  await linkSettled(page);
  await page.waitForSelector('[data-testid="too-long"]:not([hidden])');
  assert.ok((await page.textContent('[data-testid="too-long"]')).includes('This scenario\u2019s JSON is over 6.0 MB, more than the 256 KB a link may carry.'));
  assert.equal(await page.inputValue('[data-testid="permalink"]'), '');

  // The scenario file holds the whole text (written in the worker).
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="download-scenario"]')]);
  const saved = fs.readFileSync(await download.path());
  assert.equal(JSON.parse(saved.toString('utf8')).module.text, text);

  // Cancel a recompute of the same text: the new worker has to read the
  // text again from the file it came from for the next change.
  await page.check('#include-metadata');
  await cancelShownJob(page, /^Canonicalising 6\.0 MB of module text/);
  await waitForText(page, '[data-testid="busy-text"]', /^Cancelled: Canonicalising 6\.0 MB of module text\./);
  assert.equal(await page.isChecked('#include-metadata'), false, 'the controls show the scenario shown');
  await page.fill('[data-testid="custom-hook"]', 'after-cancel');
  await waitForText(page, '[data-testid="final-key"]', new RegExp(`^${wantHook}$`), 120000);
  assert.deepEqual(page.errors, []);
  await page.close();

  // The scenario file opens in a fresh page; its text is kept in that
  // page's worker too.
  const p2 = await newPage(env.browser);
  await open(p2, env.server.url);
  await p2.setInputFiles('[data-testid="upload-scenario"]', { name: 'big.json', mimeType: 'application/json', buffer: saved });
  await waitForText(p2, '[data-testid="upload-status"]', /^Opened|^Not opened/, 120000);
  assert.match(await p2.textContent('[data-testid="upload-status"]'), new RegExp(`^Opened big\\.json: key ${want}\\.`));
  assert.equal(await p2.textContent('[data-testid="final-key"]'), want);
  assert.match(await p2.textContent('[data-testid="module-text-preview"]'), /of 6\.0 MB of module text/);
  assert.deepEqual(p2.errors, []);
  await p2.close();
});

test('a captured file whose entry-1 sidecar is large is registered and computed in the worker', async () => {
  // A real capture (tests/web/data/README.md) whose entry 1 is moved to a
  // raw sidecar and made 3 MB long (its bytes followed by zeros): the
  // change this test made, so the expected keys come from the engine in Node.
  const capture = JSON.parse(fs.readFileSync(path.join(root, 'tests/web/data/capture-a/0003-jit_scaled.json'), 'utf8'));
  const bytes = Buffer.concat([Buffer.from(capture.module.entry1_b64, 'base64'), Buffer.alloc(3 << 20)]);
  const doc = structuredClone(capture);
  delete doc.module.entry1_b64;
  // The engine reads the capture as the CLI does: the sidecar's size and
  // SHA-256 (computed here) are checked. `expected` stays the real run's, so
  // the engine's check says this test-made entry 1 is not what JAX hashed.
  doc.capture.entry1 = { storage: 'sidecar', encoding: 'raw', file: '0003-jit_scaled.entry1', bytes: bytes.length,
    sha256: crypto.createHash('sha256').update(bytes).digest('hex') };
  const engine = await nodeEngine();
  const whole = { ...structuredClone(doc), module: { ...doc.module, entry1_b64: bytes.toString('base64') } };
  const want = engine.computeKey(whole);
  assert.ok(want.key, JSON.stringify(want.error));
  assert.equal(want.entries[0].bytes_len, bytes.length);
  const wantHook = engine.computeKey({ ...whole, custom_hook: 'hooked' }).key;
  assert.notEqual(wantHook, want.key);

  const page = await newPage(env.browser);
  await open(page, env.server.url);
  await page.setInputFiles('[data-testid="upload-scenario"]', [
    { name: '0003-jit_scaled.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) },
    { name: '0003-jit_scaled.entry1', mimeType: 'application/octet-stream', buffer: bytes },
  ]);
  await waitForText(page, '[data-testid="upload-status"]', /^Opened|^Not opened/, 60000);
  assert.match(await page.textContent('[data-testid="upload-status"]'), new RegExp(`^Opened 0003-jit_scaled\\.json: key ${want.key}\\.`));
  assert.equal(await page.textContent('[data-testid="final-key"]'), want.key);
  assert.equal(await page.textContent('[data-testid="baseline-key"]'), want.key);
  // A change over the opened file is computed (in the worker, which holds its entry 1).
  await page.fill('[data-testid="custom-hook"]', 'hooked');
  await waitForText(page, '[data-testid="final-key"]', new RegExp(`^${wantHook}$`), 60000);
  assert.equal(await page.textContent('[data-testid="baseline-key"]'), want.key);
  assert.deepEqual(page.errors, []);
  await page.close();
});
