// The code walk ("cache_key.py, line by line"), the step player, the flag
// player and the pipeline picture, in Chromium.
//
// Expected values come from the real jax wheels: the text of each release's
// jax/_src/cache_key.py as installed in the per-release venvs the oracle uses
// (/var/cache/cachekey/venvs, when present) or in .venv (jax 0.10.2), and line
// numbers found in that text by plain string search here, independently of
// the build's ast-based anchoring.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, open, useBrowser, waitForText, shot, linkSettled, root } from './helpers.mjs';

const env = useBrowser(before, after);
let page;

/** The real cache_key.py of `release` from an installed wheel, or null. */
function realSource(release) {
  const roots = [process.env.CACHEKEY_VENV_ROOT || '/var/cache/cachekey/venvs'];
  for (const r of roots) {
    if (!fs.existsSync(r)) continue;
    for (const d of fs.readdirSync(r)) {
      if (!d.startsWith(`jax-${release}-py`) || d.endsWith('.lock')) continue;
      const lib = path.join(r, d, 'lib');
      if (!fs.existsSync(lib)) continue;
      for (const py of fs.readdirSync(lib)) {
        const site = path.join(lib, py, 'site-packages');
        if (fs.existsSync(path.join(site, `jax-${release}.dist-info`))) return fs.readFileSync(path.join(site, 'jax/_src/cache_key.py'), 'utf8');
      }
    }
  }
  const lib = path.join(root, '.venv/lib');
  if (fs.existsSync(lib)) {
    for (const py of fs.readdirSync(lib)) {
      const site = path.join(lib, py, 'site-packages');
      if (fs.existsSync(path.join(site, `jax-${release}.dist-info`))) return fs.readFileSync(path.join(site, 'jax/_src/cache_key.py'), 'utf8');
    }
  }
  return null;
}

/** 1-based numbers of the lines of `text` containing `needle`. */
const linesWith = (text, needle) => text.split('\n').map((l, i) => (l.includes(needle) ? i + 1 : 0)).filter(Boolean);

const walkReady = (p, release) => p.waitForSelector(`#exhibit-walk[data-walk="ready"]${release ? `[data-release="${release}"]` : ''}`, { timeout: 15000 });
const activeLines = (p) => p.$$eval('[data-testid="source-line"][data-active="true"]', (ls) => ls.map((l) => Number(l.getAttribute('data-line'))));

before(async () => {
  await env.ready;
  page = await newPage(env.browser);
  await open(page, env.server.url);
});

async function reset(p = page) {
  await p.click('[data-testid="reset"]');
  await p.selectOption('[data-testid="profile"]', 'main');
  await p.click('[data-testid="reset"]');
  // the walk loads when it comes near the viewport
  await p.locator('#exhibit-walk').scrollIntoViewIfNeeded();
}

test('the walk is not loaded on first view, then shows the default release\u2019s real file', async () => {
  const fresh = await newPage(env.browser);
  const urls = [];
  fresh.on('request', (r) => urls.push(new URL(r.url()).pathname));
  await open(fresh, env.server.url);
  assert.ok(!urls.some((u) => u.includes('/walk/')), 'no walk data before the exhibit is reached: ' + urls.filter((u) => u.includes('walk')).join(' '));
  await fresh.locator('#exhibit-walk').scrollIntoViewIfNeeded();
  await walkReady(fresh, '0.10.2');
  const real = realSource('0.10.2');
  assert.ok(real, 'jax 0.10.2 is installed in .venv (scripts/setup)');
  const shown = await fresh.$$eval('[data-testid="source-line"]', (ls) => ls.map((l) => l.querySelector('.tx').textContent.replace(/\u200b/g, '')));
  assert.equal(shown.join('\n') + '\n', real, 'the page shows the wheel\u2019s file, whole');
  assert.match(shown[0], /^# Copyright 20\d\d The JAX Authors\.$/, 'licence header kept');
  await shot(fresh, 'walk-desk.png', '#exhibit-walk');
  assert.deepEqual(fresh.errors, []);
  await fresh.close();
});

test('every release the picker offers shows its own cache_key.py', async () => {
  await reset();
  const releases = await page.$$eval('[data-testid="profile"] option', (os) => os.map((o) => o.value).filter((v) => v !== 'main'));
  assert.ok(releases.length >= 30, String(releases.length));
  let compared = 0;
  for (const rel of releases) {
    await page.selectOption('[data-testid="profile"]', rel);
    await walkReady(page, rel);
    const n = await page.$$eval('[data-testid="source-line"]', (ls) => ls.length);
    const first = await page.textContent('[data-testid="source-line"][data-line="1"] .tx');
    assert.match(first, /The JAX Authors/, rel);
    const real = realSource(rel);
    if (real) {
      assert.equal(n, real.split('\n').length - 1, `${rel}: line count`);
      const defLine = linesWith(real, 'def _hash_xla_flags(')[0];
      assert.match(await page.textContent(`[data-testid="source-line"][data-line="${defLine}"]`), /def _hash_xla_flags\(/, rel);
      compared++;
    }
  }
  assert.ok(compared >= 1, 'at least one release compared with its installed wheel');
  await page.selectOption('[data-testid="profile"]', 'main');
});

test('entry 5 lights up the deep copy, the zeroed fields, the override filter and the GPU renumbering', async () => {
  await reset();
  await page.selectOption('[data-testid="profile"]', '0.10.2');
  await walkReady(page, '0.10.2');
  const real = realSource('0.10.2');
  await page.click('[data-testid="entry-5-code"]');
  await page.waitForSelector('[data-testid="source-line"][data-active="true"]');
  const lit = new Set(await activeLines(page));
  const want = {
    'deep copy': linesWith(real, 'copy.deepcopy(compile_options_obj)'),
    'zeroed dump field': linesWith(real, 'debug_options.xla_dump_to = ""'),
    'zeroed cuda dir': linesWith(real, 'debug_options.xla_gpu_cuda_data_dir = ""'),
    'override filter': linesWith(real, 'if flag_value[0] not in env_override_flags_to_exclude_from_cache_key'),
    'GPU renumbering': linesWith(real, 'xla_client.DeviceAssignment.create('),
    'serialized': linesWith(real, 'compile_options_copy.SerializeAsString()'),
    'the entry itself': linesWith(real, '"compile_options",'),
  };
  for (const [what, lines] of Object.entries(want)) {
    assert.equal(lines.length, 1, what);
    assert.ok(lit.has(lines[0]), `${what} (line ${lines[0]}) is lit`);
  }
  for (const other of [linesWith(real, 'for flag in sorted(xla_flags):')[0], linesWith(real, 'def _hash_platform(')[0]]) {
    assert.ok(!lit.has(other), `line ${other} belongs to another entry`);
  }
  assert.equal(await page.getAttribute('[data-testid="entry-5-code"]', 'aria-pressed'), 'true');
  await page.click('[data-testid="entry-4-code"]');
  await page.waitForFunction((l) => document.querySelector(`[data-testid="source-line"][data-line="${l}"]`).getAttribute('data-active') === 'true', linesWith(real, 'for flag in sorted(xla_flags):')[0]);
  const lit4 = new Set(await activeLines(page));
  assert.ok(!lit4.has(want['deep copy'][0]), 'entry 5\u2019s lines are no longer lit');
  await shot(page, 'walk-entry4.png', '#exhibit-walk');
});

// Issue 22, item 4: next/previous lit block, the entry's own item first.
test('next and previous lit block: "Block k of n", the entry\u2019s own item in entries = [...] first, each block scrolled into the box', async () => {
  await reset();
  await page.selectOption('[data-testid="profile"]', '0.10.2');
  await walkReady(page, '0.10.2');
  const real = realSource('0.10.2');
  const own = linesWith(real, '"compile_options",');
  assert.equal(own.length, 1);
  await page.click('[data-testid="entry-5-code"]');
  await page.waitForSelector('[data-testid="walk-block-n"]');
  // the blocks, counted here from the lit lines: runs of consecutive lines
  const lit = (await activeLines(page)).sort((a, b) => a - b);
  const runs = [];
  for (const l of lit) { const r = runs[runs.length - 1]; if (r && l === r[1] + 1) r[1] = l; else runs.push([l, l]); }
  assert.ok(runs.length > 2, `entry 5 lights ${runs.length} blocks`);
  const ownRun = runs.find(([s, e]) => own[0] >= s && own[0] <= e);
  const blockLines = () => page.$$eval('[data-testid="source-line"][data-block]', (ls) => ls.map((l) => Number(l.getAttribute('data-line'))));
  const inBox = (first) => page.waitForFunction((n) => {
    const box = document.querySelector('[data-testid="source-line"]').parentElement;
    const line = box.querySelector(`[data-line="${n}"]`);
    const a = line.getBoundingClientRect(); const b = box.getBoundingClientRect();
    return a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
  }, first);
  assert.match(await page.textContent('[data-testid="walk-block-n"]'), new RegExp(`^Block 1 of ${runs.length}: lines? ${ownRun[0]}`));
  assert.deepEqual(await blockLines(), Array.from({ length: ownRun[1] - ownRun[0] + 1 }, (_, i) => ownRun[0] + i));
  await inBox(ownRun[0]);
  // Next goes through the other blocks in file order, then wraps
  const rest = runs.filter((r) => r !== ownRun);
  for (let k = 0; k < rest.length; k++) {
    await page.click('[data-testid="walk-block-next"]');
    await waitForText(page, '[data-testid="walk-block-n"]', new RegExp(`^Block ${k + 2} of ${runs.length}: lines? ${rest[k][0]}\\b`));
    assert.equal((await blockLines())[0], rest[k][0]);
    await inBox(rest[k][0]);
  }
  await page.click('[data-testid="walk-block-next"]');
  await waitForText(page, '[data-testid="walk-block-n"]', new RegExp(`^Block 1 of ${runs.length}`));
  await page.click('[data-testid="walk-block-prev"]');
  await waitForText(page, '[data-testid="walk-block-n"]', new RegExp(`^Block ${runs.length} of ${runs.length}: lines? ${rest[rest.length - 1][0]}\\b`));
  await inBox(rest[rest.length - 1][0]);
});

test('a line goes to the entry it feeds, and says what it does', async () => {
  await reset();
  await page.selectOption('[data-testid="profile"]', '0.10.2');
  await walkReady(page, '0.10.2');
  const real = realSource('0.10.2');
  const split = linesWith(real, 'if flag.split("=")[0] in xla_flags_to_exclude_from_cache_key:')[0];
  await page.click(`[data-testid="source-line"][data-line="${split}"]`);
  await page.waitForSelector('[data-testid="entry-4-code"][aria-pressed="true"]');
  await waitForText(page, '[data-testid="walk-note"]', /Feeds 4 \(XLA flags\)/);
  const copy = linesWith(real, 'copy.deepcopy(compile_options_obj)')[0];
  await page.click(`[data-testid="source-line"][data-line="${copy}"]`);
  await page.waitForSelector('[data-testid="entry-5-code"][aria-pressed="true"]');
  await waitForText(page, '[data-testid="walk-note"]', /Feeds 5 \(compile_options\)/);
  // _hash_string feeds several entries: all are named
  const hs = linesWith(real, 'def _hash_string(')[0];
  await page.click(`[data-testid="source-line"][data-line="${hs}"]`);
  const note = await waitForText(page, '[data-testid="walk-note"]', /Feeds entries/);
  for (const n of [3, 4, 6, 7, 8]) assert.match(note, new RegExp(`\\b${n} \\(`), `_hash_string feeds entry ${n}`);
  // a licence line feeds nothing
  await page.click('[data-testid="source-line"][data-line="2"]');
  await waitForText(page, '[data-testid="walk-note"]', /Feeds no entry|Not annotated/);
});

test('the walk follows the picker: before 0.6.0 entry 3 is absent and lights nothing', async () => {
  await reset();
  await page.selectOption('[data-testid="profile"]', '0.4.30');
  await walkReady(page, '0.4.30');
  await page.click('[data-testid="entry-3-code"]');
  await waitForText(page, '[data-testid="walk-note"]', /seven entries/);
  assert.deepEqual(await activeLines(page), []);
  assert.match(await page.textContent('[data-testid="walk-absent"]'), /Not in jax 0\.4\.30: Entry 3/);
  assert.match(await page.textContent('[data-testid="walk-absent"]'), /Mosaic/);
  const real = realSource('0.4.30');
  if (real) assert.equal(await page.$$eval('[data-testid="source-line"]', (ls) => ls.length), real.split('\n').length - 1);
  await page.selectOption('[data-testid="profile"]', 'main');
});

test('keyboard: arrows move through the file, Enter selects; the step control takes arrows', async () => {
  await reset();
  await walkReady(page);
  await page.focus('[data-testid="walk-source"]');
  // the file opens at its first annotated line: Home goes to line 1
  await page.keyboard.press('Home');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="source-line"][data-line="6"].cursor');
  await waitForText(page, '[data-testid="walk-note"]', /line 6/);
  await page.focus('[data-testid="step"]');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('#exhibit-walk[data-step="7"]');
  await page.waitForSelector('li.wentry[data-entry="8"][data-state="pending"]');
  assert.equal(await page.getAttribute('[data-testid="entry-7-code"]', 'aria-pressed'), 'true', 'a step selects its entry');
  await page.keyboard.press('End');
  await page.waitForSelector('#exhibit-walk[data-step="8"]');
  // a change of scenario redraws the steps but keeps the reader's choice of entry
  await page.click('[data-testid="entry-5-code"]');
  await page.fill('[data-testid="custom-hook"]', 'kept');
  await page.waitForSelector('li.wentry[data-entry="8"][data-role="cause"]');
  assert.equal(await page.getAttribute('[data-testid="entry-5-code"]', 'aria-pressed'), 'true');
});

// Step 0 feeds nothing: the running digest is a fresh SHA-256's, which the
// page takes from the engine (version().fresh_digest) and which is computed
// here with node:crypto; no entry is selected, and the link says step 0.
test('step 0: a fresh SHA-256 (the digest of no bytes), no entry selected, and the link says so', async () => {
  await reset();
  await walkReady(page);
  await page.click('[data-testid="entry-3-code"]');
  await page.fill('[data-testid="step"]', '0');
  await page.waitForSelector('#exhibit-walk[data-step="0"]');
  const none = crypto.createHash('sha256').update(Buffer.alloc(0)).digest('hex');
  assert.equal(await waitForText(page, '[data-testid="sha-running"]', /no bytes/), `${none.slice(0, 8)}\u2026 (no bytes)`);
  assert.match(await page.textContent('[data-testid="walk-step-text"]'), /^Step 0 of 8: a fresh SHA-256/);
  assert.deepEqual(await page.$$eval('.wentry-btn[aria-pressed="true"]', (bs) => bs.length), 0);
  await linkSettled(page);
  assert.match(new URL(page.url()).hash, /(^#|&)step=0$/);
  await page.fill('[data-testid="step"]', '8');
  await page.waitForSelector('#exhibit-walk[data-step="8"]');
});

/** The parts of the walk a step changes (entries, SHA box, step). */
const walkState = (p) => p.evaluate(() => ({
  entries: document.querySelector('[data-testid="walk-entries"]').outerHTML,
  running: document.querySelector('[data-testid="sha-running"]').textContent,
  step: document.querySelector('#exhibit-walk').getAttribute('data-step'),
  phase: document.querySelector('#exhibit-walk').getAttribute('data-phase'),
}));

test('autoplay feeds the entries one by one; the cause lights up, then the running digests below it change; the end equals the static state', async () => {
  await reset();
  await page.fill('[data-testid="jaxlib"]', '0.10.3');
  await page.waitForSelector('li.wentry[data-entry="2"][data-role="cause"]');
  await walkReady(page);
  await page.fill('[data-testid="step"]', '8');
  await page.waitForSelector('#exhibit-walk[data-step="8"][data-phase="rest"]');
  const still = await walkState(page);
  await page.click('[data-testid="walk-play"]');
  // step 2 is entry 2, the cause: while its bytes are fed, entries 3-8 wait
  await page.waitForSelector('#exhibit-walk[data-step="2"] li.wentry[data-entry="2"][data-state="current"]', { timeout: 8000 });
  assert.equal(await page.getAttribute('li.wentry[data-entry="5"]', 'data-state'), 'pending');
  await page.waitForSelector('#exhibit-walk[data-step="4"] li.wentry[data-entry="3"][data-state="fed"]', { timeout: 8000 });
  assert.equal(await page.isVisible('li.wentry[data-entry="3"] .was'), true, 'entry 3\u2019s running digest shows the baseline it replaced');
  await page.waitForSelector('#exhibit-walk:not([data-playing])[data-step="8"][data-phase="rest"]', { timeout: 20000 });
  assert.deepEqual(await walkState(page), still);
  await shot(page, 'walk-played.png', '#exhibit-walk');
  await linkSettled(page);
  assert.equal(await page.getAttribute('[data-testid="step"]', 'aria-describedby'), 'walk-step-text');
});

test('the current step is in the link, and the link restores it', async () => {
  await reset();
  await walkReady(page);
  await page.fill('[data-testid="step"]', '3');
  await page.waitForSelector('#exhibit-walk[data-step="3"]');
  await linkSettled(page);
  const link = await page.inputValue('[data-testid="permalink"]');
  // The default scenario's link is the page's address and the walk's part.
  assert.match(link, /#step=3&entry=3$/);
  const other = await newPage(env.browser);
  await open(other, link);
  await other.waitForSelector('#exhibit-walk[data-step="3"] li.wentry[data-entry="4"][data-state="pending"]', { timeout: 15000 });
  assert.equal(await other.getAttribute('[data-testid="entry-3-code"]', 'aria-pressed'), 'true');
  assert.deepEqual(other.errors, []);
  await other.close();
  await page.fill('[data-testid="step"]', '8');
});

// Review of 2026-12-01: the link carries the step, the entry and the line the
// page shows, and opening it shows the same (the note and the highlight
// agree); below step 8 the selected entry is the step's.
test('the walk\u2019s link round-trips the step, the entry and the line; an entry or a line moves the step to it', async () => {
  await reset();
  await page.selectOption('[data-testid="profile"]', '0.10.2');
  await walkReady(page, '0.10.2');
  for (let i = 0; i < 3; i++) await page.click('[data-testid="walk-prev"]');
  await page.waitForSelector('#exhibit-walk[data-step="5"] [data-testid="entry-5-code"][aria-pressed="true"]');
  // choosing entry 2 at step 5 moves the step to it: the step text and the lit entry agree
  await page.click('[data-testid="entry-2-code"]');
  await page.waitForSelector('#exhibit-walk[data-step="2"] [data-testid="entry-2-code"][aria-pressed="true"]');
  assert.match(await waitForText(page, '[data-testid="walk-step-text"]', /^Step 2 of 8: entry 2 /), /^Step 2 of 8: entry 2 /);
  assert.match(await page.textContent('[data-testid="walk-note"]'), /^Entry 2 /);
  // a line that feeds entry 4 (found in the real file) selects entry 4 and step 4
  const real = realSource('0.10.2');
  const split = linesWith(real, 'if flag.split("=")[0] in xla_flags_to_exclude_from_cache_key:')[0];
  await page.click(`[data-testid="source-line"][data-line="${split}"]`);
  await page.waitForSelector('#exhibit-walk[data-step="4"] [data-testid="entry-4-code"][aria-pressed="true"]');
  await waitForText(page, '[data-testid="walk-note"]', new RegExp(`^line ${split}: `));
  await linkSettled(page);
  const link = await page.inputValue('[data-testid="permalink"]');
  const hash = new URL(page.url()).hash;
  assert.match(hash, new RegExp(`[#&]step=4&entry=4&line=${split}$`));
  assert.match(link, new RegExp(`#step=4&entry=4&line=${split}$`));
  const note = await page.textContent('[data-testid="walk-note"]');

  const other = await newPage(env.browser);
  await open(other, link);
  await other.waitForSelector(`#exhibit-walk[data-step="4"] [data-testid="source-line"][data-line="${split}"][data-selected="true"]`, { timeout: 15000 });
  assert.deepEqual(await other.$$eval('.wentry-btn[aria-pressed="true"]', (bs) => bs.map((b) => b.getAttribute('data-testid'))), ['entry-4-code']);
  assert.equal(await waitForText(other, '[data-testid="walk-note"]', new RegExp(`^line ${split}: `)), note);
  assert.match(await other.textContent('[data-testid="walk-step-text"]'), /^Step 4 of 8: entry 4 /);
  await linkSettled(other);
  assert.equal(new URL(other.url()).hash, hash, 'the page writes back the link it opened');
  assert.deepEqual(other.errors, []);
  await other.close();

  // at step 1, choosing entry 5 moves the step to 5
  await page.fill('[data-testid="step"]', '1');
  await page.waitForSelector('#exhibit-walk[data-step="1"] [data-testid="entry-1-code"][aria-pressed="true"]');
  await page.click('[data-testid="entry-5-code"]');
  await page.waitForSelector('#exhibit-walk[data-step="5"] [data-testid="entry-5-code"][aria-pressed="true"]');
  assert.match(await waitForText(page, '[data-testid="walk-step-text"]', /^Step 5 of 8: entry 5 /), /^Step 5 of 8: entry 5 /);
  await page.fill('[data-testid="step"]', '8');
  await page.waitForSelector('#exhibit-walk[data-step="8"]');
});

test('a hand-written walk link naming a step and another entry shows the entry, at its step', async () => {
  const other = await newPage(env.browser);
  await open(other, env.server.url + '#step=3&entry=5');
  await other.waitForSelector('#exhibit-walk[data-step="5"] [data-testid="entry-5-code"][aria-pressed="true"]', { timeout: 15000 });
  assert.match(await waitForText(other, '[data-testid="walk-note"]', /^Entry 5 /), /^Entry 5 /);
  assert.match(await other.textContent('[data-testid="walk-step-text"]'), /^Step 5 of 8: entry 5 /);
  assert.deepEqual(await other.$$eval('.wentry-btn[aria-pressed="true"]', (bs) => bs.map((b) => b.getAttribute('data-testid'))), ['entry-5-code']);
  await linkSettled(other);
  assert.equal(new URL(other.url()).hash, '#step=5&entry=5');
  assert.deepEqual(other.errors, []);
  await other.close();
});

test('reduced motion: the same steps, nothing moves', async () => {
  const still = await newPage(env.browser, { reducedMotion: 'reduce' });
  await open(still, env.server.url);
  await still.fill('[data-testid="jaxlib"]', '0.10.3');
  await still.locator('#exhibit-walk').scrollIntoViewIfNeeded();
  await walkReady(still);
  const rest = await walkState(still);
  await still.click('[data-testid="walk-play"]');
  await still.waitForSelector('#exhibit-walk[data-step="1"]');
  const steps = new Set();
  let moving = 0;
  for (let i = 0; i < 60 && (await still.getAttribute('#exhibit-walk', 'data-playing')) !== null; i++) {
    steps.add(await still.getAttribute('#exhibit-walk', 'data-step'));
    moving += await still.evaluate(() => document.getAnimations().filter((a) => a.playState === 'running' && a.effect && a.effect.target && a.effect.target.closest && a.effect.target.closest('#exhibit-walk')).length);
    assert.equal(await still.evaluate(() => document.querySelector('#exhibit-walk').classList.contains('motion')), false);
    await still.waitForTimeout(400);
  }
  assert.ok(steps.size >= 6, `steps seen: ${[...steps]}`);
  assert.equal(moving, 0, 'no animation runs in the walk');
  await still.waitForSelector('#exhibit-walk:not([data-playing])[data-step="8"]', { timeout: 20000 });
  assert.deepEqual(await walkState(still), rest);
  assert.deepEqual(still.errors, []);
  await still.close();
});

test('the flag filter plays collect, sort, split, test, keep or drop; the end equals the static table', async () => {
  await reset();
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=2 --xla_dump_to=/tmp/x');
  await page.waitForSelector('[data-testid="flag-row"][data-flag="--xla_dump_to=/tmp/x"]');
  await page.waitForSelector('#exhibit-flags:not([data-fp])');
  const table = () => page.evaluate(() => ({
    rows: document.querySelector('#flags-tbody').outerHTML, bytes: document.querySelector('#flags-bytes').outerHTML,
    chips: document.querySelector('#flags-collected').outerHTML,
  }));
  const still = await table();
  await page.click('[data-testid="flag-play"]');
  await page.waitForSelector('#exhibit-flags[data-fp="1"]');
  // sorted: the dump flag (collected second) comes first
  await page.waitForSelector('#flags-tbody tr:first-child[data-flag="--xla_dump_to=/tmp/x"][data-fp="split"]', { timeout: 8000 });
  await page.waitForSelector('#flags-tbody tr[data-flag="--xla_dump_to=/tmp/x"][data-fp="test"]', { timeout: 8000 });
  assert.equal(await page.isVisible('#flags-bytes [data-testid="flag-bytes"]'), false, 'no bytes before a flag is kept');
  await page.waitForSelector('#flags-tbody tr[data-flag="--xla_gpu_autotune_level=2"][data-fp="done"]', { timeout: 8000 });
  await page.waitForSelector('#exhibit-flags:not([data-fp])', { timeout: 8000 });
  assert.deepEqual(await table(), still);
  assert.match(await page.textContent('[data-testid="flag-step-text"]'), /1 of 2 flags kept/);
});

test('the pipeline picture colours the moved ingredient and its consequences, also in ?embed=entries', async () => {
  await reset();
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=2');
  await page.waitForSelector('[data-testid="pipeline-row-4"][data-role="cause"]');
  const roles = await page.$$eval('.pl-row', (gs) => gs.map((g) => g.getAttribute('data-role')));
  const engineRoles = await page.$$eval('li.entry', (ls) => ls.map((l) => l.getAttribute('data-role')));
  assert.deepEqual(roles.slice(0, 3), engineRoles.slice(0, 3));
  assert.equal(roles[3], 'cause');
  assert.equal(await page.$$eval('[data-testid="pipeline-row-4"] .moved', (x) => x.length), 2, 'the ingredient and its bytes');
  assert.equal(await page.$$eval('.pl-row .pl-run.differs', (x) => x.length), 5, 'running digests of entries 4-8 differ');
  await page.click('[data-testid="reset"]');
  await linkSettled(page);
  const embed = await newPage(env.browser, { viewport: { width: 600, height: 900 } });
  const link = new URL(env.server.url);
  link.search = '?embed=entries';
  await open(embed, link.href);
  await embed.waitForSelector('[data-testid="pipeline-svg"]');
  assert.equal(await embed.isVisible('[data-testid="pipeline"]'), true);
  assert.doesNotMatch(await embed.textContent('[data-testid="perturbed-desc"]'), /below|ingredient/);
  await shot(embed, 'embed-entries-600.png');
  assert.deepEqual(embed.errors, []);
  await embed.close();
});

test('when the walk data cannot be loaded, the exhibit says so', async () => {
  const p = await newPage(env.browser);
  await p.route('**/walk/index.json', (r) => r.fulfill({ status: 404, body: 'not found' }));
  await open(p, env.server.url);
  await p.locator('#exhibit-walk').scrollIntoViewIfNeeded();
  const t = await waitForText(p, '[data-testid="walk-status"]', /could not be loaded/);
  assert.match(t, /HTTP 404/);
  assert.equal(await p.getAttribute('#exhibit-walk', 'data-walk'), 'unavailable');
  await p.close();
});

test('each entry links to the picked release\u2019s own cache_key.py, at the line found there', async () => {
  await reset();
  for (const release of ['0.10.2', '0.12.0.1']) {
    const text = realSource(release);
    if (!text) continue; // that release's venv is not on this machine
    await page.selectOption('[data-testid="profile"]', release);
    await page.waitForFunction((r) => document.querySelector('[data-testid="entry-4"] .entry-head a').href.includes(`jax-v${r}/`), release);
    const href = await page.getAttribute('[data-testid="entry-4"] .entry-head a', 'href');
    // The line, found here by plain text search in the real file.
    const [line] = linesWith(text, 'def _hash_xla_flags(');
    assert.equal(href, `https://github.com/jax-ml/jax/blob/jax-v${release}/jax/_src/cache_key.py#L${line}`, release);
    const [co] = linesWith(text, 'def _hash_serialized_compile_options(');
    assert.equal(await page.getAttribute('[data-testid="entry-5"] .entry-head a', 'href'), `https://github.com/jax-ml/jax/blob/jax-v${release}/jax/_src/cache_key.py#L${co}`);
  }
  assert.deepEqual(page.errors, []);
});

test('the player at 390 px: names on one line, rows not fed yet say so, a speed control, a clean last step', async () => {
  const p = await newPage(env.browser, { viewport: { width: 390, height: 900 } });
  await open(p, env.server.url);
  await p.locator('#exhibit-walk').scrollIntoViewIfNeeded();
  await walkReady(p);
  await p.selectOption('[data-testid="walk-speed"]', '2');
  await p.click('[data-testid="walk-play"]');
  // While it plays, the rows after the current one are pending and say so.
  await p.waitForFunction(() => document.querySelectorAll('.wentry[data-state="pending"]').length > 0);
  const rows = await p.$$eval('.wentry', (ls) => ls.map((li) => {
    const btn = li.querySelector('.wentry-btn');
    const lh = parseFloat(getComputedStyle(btn).lineHeight) || 1.2 * parseFloat(getComputedStyle(btn).fontSize);
    return { state: li.getAttribute('data-state'), after: getComputedStyle(li, '::after').content,
      oneLine: btn.getBoundingClientRect().height < 2 * lh + 4, height: li.getBoundingClientRect().height };
  }));
  for (const r of rows) assert.ok(r.oneLine, 'an entry name on one line');
  for (const r of rows.filter((x) => x.state === 'pending')) assert.equal(r.after, '"not fed yet"');
  assert.equal(new Set(rows.map((r) => Math.round(r.height))).size, 1, 'every row has the same height: nothing jumps');
  await shot(p, 'walk-player-390.png', '#exhibit-walk');
  // The last step says how many entries were fed, with no stray role word.
  const last = await waitForText(p, '[data-testid="walk-step-text"]', /^All \d entries fed/, 30000);
  assert.doesNotMatch(last, /\u2014 (consequence|cause|same)/);
  assert.deepEqual(p.errors, []);
  await p.close();
});
