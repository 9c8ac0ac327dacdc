// The module text editor: the engine with the live MLIR canonicaliser
// (build/web/mlir/) is loaded only when the editor is opened (or a link, a
// preset or a case study needs it), never on first view. Entry 1 is then
// computed live for the baseline and the perturbed module alike, and labelled
// with the MLIR that produced it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { newPage, open, roles, expectedRoles, fixture, shot, linkSettled, useBrowser, animationsDone, waitForText, cancelShownJob, bigModuleText } from './helpers.mjs';

const env = useBrowser(before, after);


const SAME = expectedRoles(99);
const ADD_TEXT = fixture('add_1x1').capture.module_generic;
const LINES_META_TEXT = fixture('lines_a_meta').capture.module_generic;

/** A page that records every path it requests. */
async function tracked() {
  const page = await newPage(env.browser);
  page.paths = [];
  page.on('request', (r) => page.paths.push(new URL(r.url()).pathname));
  return page;
}

const mlirReady = (page) => page.waitForSelector('html[data-mlir="ready"]', { timeout: 30000 });

/** Types new module text and waits until the page has applied it. */
async function edit(page, text) {
  await page.fill('[data-testid="module-text"]', text);
  await page.waitForFunction(() => !document.documentElement.hasAttribute('data-module-pending'));
}

async function openEditor(page) {
  await page.click('[data-testid="open-module-text"]');
  await mlirReady(page);
  await page.waitForFunction(() => !document.querySelector('[data-testid="module-text"]').disabled);
}

const keys = async (page) => [await page.textContent('[data-testid="baseline-key"]'), await page.textContent('[data-testid="final-key"]')];

test('first view loads nothing under mlir/; opening the editor loads the module and the texts', async () => {
  const page = await tracked();
  await open(page, env.server.url);
  // Nothing is requested after start-up: wait for the network to go quiet.
  await page.waitForLoadState('networkidle');
  assert.ok(!page.paths.some((p) => p.includes('/mlir/')), page.paths.join(','));
  assert.equal(await page.$eval('#module-text', (t) => t.disabled), true);
  assert.equal(await page.isVisible('[data-testid="open-module-text"]'), true);
  assert.equal(await page.isVisible('[data-testid="entry1-live"]'), false, 'no live label for captured bytes');

  await openEditor(page);
  for (const f of ['/mlir/cachekey_engine_mlir.js', '/mlir/cachekey_engine_mlir.wasm', '/mlir/modules.json']) {
    assert.ok(page.paths.some((p) => p.endsWith(f)), `${f} requested: ${page.paths.join(',')}`);
  }
  assert.equal(await page.inputValue('[data-testid="module-text"]'), ADD_TEXT, 'the fixture\u2019s generic text');
  // Both sides are now computed live from the same text: nothing moved.
  assert.deepEqual(await roles(page), SAME);
  const [a, b] = await keys(page);
  assert.equal(a, b);
  assert.notEqual(b, fixture('add_1x1').expected.key, 'a live key is not jaxlib\u2019s');
  // The producer and the engine's note, wherever entry 1 was computed live.
  const live = await page.textContent('[data-testid="entry1-live"]');
  assert.match(live, /MLIR19\.1\.7/);
  assert.match(live, /jaxlib's MLIR is a different version/);
  assert.match(await page.textContent('[data-testid="entry1-live-badge"]'), /live: MLIR19\.1\.7/);
  assert.match(await page.textContent('[data-testid="live-key-note"]'), /Both keys .*MLIR19\.1\.7/);
  assert.match(await page.textContent('[data-testid="module-text-status"]'), /MLIR19\.1\.7/);
  assert.match(await page.textContent('[data-testid="baseline-desc"]'), /computed live/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a location-only edit keeps every entry; an op edit makes entry 1 the cause', async () => {
  const page = await tracked();
  await open(page, env.server.url);
  await openEditor(page);

  const moved = ADD_TEXT.replace('capture.py":137:29', 'capture.py":12:3');
  assert.notEqual(moved, ADD_TEXT);
  await edit(page, moved);
  assert.deepEqual(await roles(page), SAME, 'locations are stripped before hashing');
  const [a, b] = await keys(page);
  assert.equal(a, b);
  assert.match(await page.textContent('[data-testid="perturbed-desc"]'), /module/);

  await edit(page, ADD_TEXT.replace('"stablehlo.add"', '"stablehlo.multiply"'));
  assert.deepEqual(await roles(page), expectedRoles(1), 'another op: entry 1 is the cause');
  assert.match(await page.textContent('[data-testid="sentence"]'), /entry 1 \(computation\)/);
  assert.match(await page.textContent('[data-testid="entry1-live"]'), /MLIR19\.1\.7/);
  await animationsDone(page);
  await shot(page, 'mlir-editor.png');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('with include_metadata the same location edit makes entry 1 the cause', async () => {
  const page = await tracked();
  await open(page, env.server.url);
  // A preset captured with metadata in the key: the baseline is computed
  // live from its text with locations kept, like the perturbed one.
  await page.selectOption('#preset', 'lines_a_meta');
  await openEditor(page);
  assert.equal(await page.isChecked('[data-testid="include-metadata"]'), true);
  assert.deepEqual(await roles(page), SAME, 'unedited: nothing moved');
  const moved = LINES_META_TEXT.replace('capture.py":155:19 to :30', 'capture.py":12:3 to :30');
  assert.notEqual(moved, LINES_META_TEXT);
  await edit(page, moved);
  assert.deepEqual(await roles(page), expectedRoles(1), 'locations are hashed');

  // The same move without metadata: nothing moves.
  await page.selectOption('#preset', 'lines_a_nometa');
  await page.waitForFunction(() => !document.querySelector('[data-testid="module-text"]').disabled);
  await edit(page, moved);
  assert.equal(await page.isChecked('[data-testid="include-metadata"]'), false);
  assert.deepEqual(await roles(page), SAME);

  // On a preset without metadata, switching it on in the editor: the
  // location edit then moves entry 1 (beyond what the switch alone does).
  await page.selectOption('#preset', 'add_1x1');
  await page.waitForFunction(() => !document.querySelector('[data-testid="module-text"]').disabled);
  await edit(page, ADD_TEXT);
  await page.check('[data-testid="include-metadata"]');
  // The text is canonicalised again in the worker: wait for its answer.
  await page.waitForSelector('[data-testid="entry-1"][data-role="cause"]');
  const switchOnly = await page.getAttribute('[data-testid="entry-1"]', 'data-digest');
  await edit(page, ADD_TEXT.replace('capture.py":137:29', 'capture.py":12:3'));
  assert.equal(await page.isChecked('[data-testid="include-metadata"]'), true);
  assert.deepEqual(await roles(page), expectedRoles(1));
  assert.notEqual(await page.getAttribute('[data-testid="entry-1"]', 'data-digest'), switchOnly, 'the location reaches the bytes');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('malformed MLIR shows the line:column error; the page stays usable and the next edit works', async () => {
  const page = await tracked();
  await open(page, env.server.url);
  await openEditor(page);
  await edit(page, ADD_TEXT.replace('"stablehlo.add"(%arg0, %arg1)', '"stablehlo.add"((%arg0, %arg1)'));
  await page.waitForSelector('[data-testid="module-text-error"]:not([hidden])');
  const msg = await page.textContent('[data-testid="module-text-error"]');
  assert.match(msg, /\$\.module\.text: cannot parse the module \(MLIR text\): \d+:\d+: /, msg);
  assert.equal(await page.isVisible('[data-testid="scenario-error"]'), true);
  // jaxlib's pretty form needs the StableHLO dialect, which this build lacks.
  await edit(page, fixture('add_1x1').capture.module_pretty);
  assert.match(await page.textContent('[data-testid="module-text-error"]'), /\d+:\d+: .*stablehlo/);

  // Another control still works (the error stays, naming the module).
  await page.fill('[data-testid="jaxlib"]', '0.10.3');
  assert.equal(await page.isVisible('[data-testid="scenario-error"]'), true);
  await page.fill('[data-testid="jaxlib"]', '0.10.2');

  await edit(page, ADD_TEXT.replace('"stablehlo.add"', '"stablehlo.subtract"'));
  assert.equal(await page.isVisible('[data-testid="module-text-error"]'), false);
  assert.equal(await page.isVisible('[data-testid="scenario-error"]'), false);
  assert.deepEqual(await roles(page), expectedRoles(1));
  await edit(page, ADD_TEXT);
  assert.deepEqual(await roles(page), SAME);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a permalink of edited text reopens it, loading the MLIR module by itself', async () => {
  const page = await tracked();
  await open(page, env.server.url);
  await openEditor(page);
  const edited = ADD_TEXT.replace('"stablehlo.add"', '"stablehlo.multiply"');
  await edit(page, edited);
  await linkSettled(page);
  const link = await page.inputValue('[data-testid="permalink"]');
  assert.ok(link.length > 0 && link.length <= 8000, `${link.length} chars`);
  const [, key] = await keys(page);
  const r = await roles(page);
  await page.close();

  const p2 = await tracked();
  await open(p2, link);
  assert.equal(await p2.getAttribute('html', 'data-mlir'), 'ready');
  assert.equal(await p2.isVisible('[data-testid="link-error"]'), false);
  assert.equal((await keys(p2))[1], key);
  assert.deepEqual(await roles(p2), r);
  assert.equal(await p2.inputValue('[data-testid="module-text"]'), edited);
  assert.match(await p2.textContent('[data-testid="entry1-live"]'), /MLIR19\.1\.7/);
  assert.deepEqual(p2.errors, []);
  await p2.close();
});

test('edited text too long for a link goes through a file, which loads the MLIR module too', async () => {
  const page = await tracked();
  await open(page, env.server.url);
  await openEditor(page);
  // A comment of 24,000 pseudo-random hex digits: no link can hold it.
  let x = 12345;
  const noise = Array.from({ length: 24000 }, () => ((x = (x * 1103515245 + 12345) % 2147483648) >>> 16 & 15).toString(16)).join('');
  const edited = `// ${noise}\n` + ADD_TEXT.replace('"stablehlo.add"', '"stablehlo.maximum"');
  await edit(page, edited);
  assert.deepEqual(await roles(page), expectedRoles(1));
  await linkSettled(page);
  await page.waitForSelector('[data-testid="too-long"]:not([hidden])');
  assert.equal(await page.inputValue('[data-testid="permalink"]'), '');
  const [, key] = await keys(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="download-scenario"]')]);
  const file = { name: 'edited.json', mimeType: 'application/json', buffer: fs.readFileSync(await download.path()) };
  await page.close();

  const p2 = await tracked();
  await open(p2, env.server.url);
  assert.ok(!p2.paths.some((p) => p.includes('/mlir/')));
  await p2.setInputFiles('[data-testid="upload-scenario"]', file);
  await p2.waitForFunction(() => /Opened/.test(document.querySelector('[data-testid="upload-status"]').textContent), null, { timeout: 30000 });
  assert.equal(await p2.getAttribute('html', 'data-mlir'), 'ready');
  assert.equal((await keys(p2))[1], key);
  assert.deepEqual(await roles(p2), expectedRoles(1));
  assert.equal(await p2.inputValue('[data-testid="module-text"]'), edited);
  assert.deepEqual(p2.errors, []);
  await p2.close();
});

test('Pallas kernels (PR #35699), live: main strips the kernel\u2019s location, 0.10.2 hashes it', async () => {
  const page = await tracked();
  await open(page, env.server.url);
  await page.click('[data-testid="case-pallas"] button[data-case]');
  await mlirReady(page);
  await page.waitForFunction(() => document.querySelector('#preset').value === 'pallas_kernel');
  assert.equal(await page.$eval('#profile', (s) => s.value), 'main');
  assert.deepEqual(await roles(page), SAME, 'main: equal keys');
  let [a, b] = await keys(page);
  assert.equal(a, b);
  assert.match(b, /^jit_add_one-/);
  const text = await page.inputValue('[data-testid="module-text"]');
  assert.match(text, /^"builtin\.module"\(\) <\{sym_name = "jit_add_one"\}>/, 'generic form');
  assert.match(text, /call_target_name = "tpu_custom_call"/);
  // The kernel body is base64 of a small module whose one file location
  // differs between the two variants.
  const body = /\\22body\\22: \\22([A-Za-z0-9+/=]+)\\22/.exec(text);
  assert.ok(body, 'a custom_call_config.body');
  assert.match(Buffer.from(body[1], 'base64').toString(), /loc\("\/srv\/ci\/checkout\/kernels\/add_one\.py":47:12\)/);
  assert.match(await page.textContent('[data-testid="entry1-live"]'), /Baseline and perturbed.*MLIR19\.1\.7/);
  // Entry 6 is libtpu's measured v5e:2x4 fingerprint (tpu_v5e_8): no stand-in label.
  assert.equal(await page.isVisible('[data-testid="entry-6"] .stand-in'), false);
  await linkSettled(page);
  const link = await page.inputValue('[data-testid="permalink"]');
  assert.ok(link.length > 0 && link.length <= 8000, `${link.length} chars`);

  await page.click('[data-testid="case-pallas"] button[data-case-alt]');
  await page.waitForFunction(() => document.querySelector('#preset').value === 'pallas_kernel_0102');
  assert.equal(await page.$eval('#profile', (s) => s.value), '0.10.2');
  assert.deepEqual(await roles(page), expectedRoles(1), '0.10.2: the kernel\u2019s location moves entry 1');
  [a, b] = await keys(page);
  assert.notEqual(a, b);
  await animationsDone(page);
  await shot(page, 'mlir-pallas.png', '#exhibit-entries');
  assert.deepEqual(page.errors, []);
  await page.close();

  // A link to the main-profile case opens it (its base needs MLIR too).
  const p2 = await tracked();
  await open(p2, link);
  assert.equal(await p2.getAttribute('html', 'data-mlir'), 'ready');
  assert.equal(await p2.$eval('#preset', (s) => s.value), 'pallas_kernel');
  assert.deepEqual(await roles(p2), SAME);
  assert.deepEqual(p2.errors, []);
  await p2.close();
});

test('a large module text is canonicalised off the main thread: the page answers input meanwhile, shows the work and can cancel it', async () => {
  const page = await tracked();
  await open(page, env.server.url);
  await openEditor(page);
  const [, before] = await keys(page);
  // 16 MB of ops: seconds of canonicalising in the engine's worker.
  const text = bigModuleText(16 << 20);
  await page.setInputFiles('[data-testid="module-file"]', { name: 'big.mlir', mimeType: 'text/plain', buffer: Buffer.from(text) });
  // Work that runs for more than 300 ms is shown, with a Cancel button.
  await waitForText(page, '[data-testid="busy-text"]', /^Canonicalising 16\.0 MB of module text/, 30000);
  // The page answers input while the text is canonicalised: the box is
  // checked and the entries redrawn while the work is still shown.
  await page.check('#full-digests');
  assert.equal(await page.$eval('#entries', (n) => n.classList.contains('full')), true);
  assert.equal(await page.isVisible('[data-testid="busy-cancel"]'), true, 'still canonicalising');
  assert.match(await page.textContent('[data-testid="module-file-name"]'), /big\.mlir \(16\.0 MB\)/);

  await cancelShownJob(page, /^Canonicalising 16\.0 MB of module text/);
  await waitForText(page, '[data-testid="busy-text"]', /^Cancelled: Canonicalising 16\.0 MB of module text\./);
  await page.waitForFunction(() => !document.documentElement.hasAttribute('data-module-pending'));
  assert.equal((await keys(page))[1], before, 'the page shows the scenario it showed before');
  assert.equal(await page.inputValue('[data-testid="module-text"]'), ADD_TEXT);

  // A new worker was started and set up again: the next edit is computed.
  await edit(page, ADD_TEXT.replace('"stablehlo.add"', '"stablehlo.subtract"'));
  assert.deepEqual(await roles(page), expectedRoles(1));
  assert.match(await page.textContent('[data-testid="entry1-live"]'), /MLIR19\.1\.7/);
  assert.deepEqual(page.errors, []);
  await page.close();
});
