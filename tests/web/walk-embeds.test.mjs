// Issue 36 item 7: the defects a user reported in the code walk and the
// embeds. The player's controls on one line, the code opening at its first
// annotated line, the code brought into view on a phone when an entry is
// chosen, the floating "Change an ingredient" button never over the log
// reader's text, the flags embed opening on flags, the entries embed
// compact.
//
// Expected values come from the build's walk data (build/web/walk: each
// release's file and its anchors, made by tools/walk_anchors.py) and from
// the fixtures (fixtures/derived/flags_ab.json), never from the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, open, useBrowser, site, root } from './helpers.mjs';

const env = useBrowser(before, after);
before(async () => { await env.ready; });

/** The walk's document for `release` (build/web/walk). */
function walkDoc(release) {
  const index = JSON.parse(fs.readFileSync(path.join(site, 'walk/index.json'), 'utf8'));
  return JSON.parse(fs.readFileSync(path.join(site, `walk/${index.releases[release]}.json`), 'utf8'));
}

/** Opens the page at `width` px with the walk loaded; returns the page and the release shown. */
async function openWalk(width, opts = {}) {
  const page = await newPage(env.browser, { viewport: { width, height: 800 }, ...opts });
  await open(page, env.server.url + (opts.query || ''));
  await page.locator('#exhibit-walk').scrollIntoViewIfNeeded();
  await page.waitForSelector('#exhibit-walk[data-walk="ready"]', { timeout: 15000 });
  return { page, release: await page.getAttribute('#exhibit-walk', 'data-release') };
}

for (const width of [390, 1280]) {
  test(`${width} px: Prev, Play, Next and Speed on one line; nothing wraps or stretches`, async () => {
    const { page } = await openWalk(width);
    const boxes = await page.evaluate(() => Object.fromEntries(['walk-prev', 'walk-play', 'walk-next', 'walk-speed'].map((id) => {
      const b = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
      return [id, { top: b.top, bottom: b.bottom, height: b.height, width: b.width }];
    })));
    const side = await page.$eval('[data-testid="walk-entries"]', (n) => n.getBoundingClientRect().width);
    const { 'walk-prev': prev, 'walk-play': play, 'walk-next': next, 'walk-speed': speed } = boxes;
    assert.equal(Math.round(play.top), Math.round(prev.top), 'Play beside Prev');
    assert.equal(Math.round(next.top), Math.round(prev.top), 'Next beside Play');
    assert.equal(Math.round(next.height), Math.round(prev.height), '"Next ›" on one line, as tall as "‹ Prev"');
    // the speed menu in the same line (its box overlaps the buttons' row) and not across the column
    assert.ok(speed.top < prev.bottom && speed.bottom > prev.top, `Speed in the buttons' line (${speed.top}..${speed.bottom} vs ${prev.top}..${prev.bottom})`);
    assert.ok(speed.width < side / 2, `the Speed menu (${speed.width} px) does not stretch across the column (${side} px)`);
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('the code opens at its first annotated line, not on the licence header', async () => {
  const { page, release } = await openWalk(1280);
  const doc = walkDoc(release);
  const first = Math.min(...doc.anchors.map((a) => a.start));
  assert.ok(first > 1, 'the file starts with lines no anchor covers (the licence header)');
  // the box is scrolled so that the first annotated line is its top line
  await page.waitForFunction((n) => {
    const box = document.querySelector('[data-testid="walk-source"]').getBoundingClientRect();
    const line = document.querySelector(`[data-testid="source-line"][data-line="${n}"]`).getBoundingClientRect();
    return line.top >= box.top - 1 && line.top < box.top + 2 * line.height;
  }, first);
  const headerShown = await page.evaluate(() => {
    const box = document.querySelector('[data-testid="walk-source"]').getBoundingClientRect();
    return document.querySelector('[data-testid="source-line"][data-line="1"]').getBoundingClientRect().bottom > box.top;
  });
  assert.equal(headerShown, false, 'line 1 (the licence header) is scrolled out of the box');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('390 px: choosing an entry brings its code into the viewport', async () => {
  const { page, release } = await openWalk(390, { reducedMotion: 'reduce' });
  const own = walkDoc(release).anchors.find((a) => a.id === 'entry-5');
  assert.ok(own, 'entry 5 has its item in entries = [...]');
  await page.locator('[data-testid="entry-5-code"]').scrollIntoViewIfNeeded();
  const line = `[data-testid="source-line"][data-line="${own.start}"]`;
  const inView = (sel) => page.evaluate((s) => { const r = document.querySelector(s).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }, sel);
  assert.equal(await inView(line), false, 'before the choice, the code is below the entries');
  await page.click('[data-testid="entry-5-code"]');
  await page.waitForFunction((s) => { const r = document.querySelector(s).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }, line, { timeout: 5000 });
  assert.equal(await page.getAttribute(line, 'data-active'), 'true', 'the line in view is one the entry lights up');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('390 px: the floating "Change an ingredient" button never covers the log reader\u2019s text', async () => {
  const page = await newPage(env.browser, { viewport: { width: 390, height: 800 } });
  await open(page, env.server.url);
  const button = page.locator('[data-testid="to-controls"]');
  await button.waitFor({ state: 'visible' });
  await page.goto(env.server.url + '#exhibit-logs');
  await page.waitForSelector('html[data-ready="true"]');
  await page.click('[data-testid="logs-example"]');
  await page.waitForSelector('[data-testid="logs-verdict"]:not([hidden])');
  // Every place in the log reader: its text at the bottom of the screen,
  // where the button floats.
  const overlaps = () => page.evaluate(() => {
    const b = document.querySelector('[data-testid="to-controls"]');
    if (!b.checkVisibility()) return [];
    const br = b.getBoundingClientRect();
    const out = [];
    const walker = document.createTreeWalker(document.querySelector('#exhibit-logs'), NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (!t.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      for (const r of range.getClientRects()) {
        if (r.width && r.height && r.left < br.right && r.right > br.left && r.top < br.bottom && r.bottom > br.top) out.push(t.textContent.trim().slice(0, 40));
      }
    }
    return out;
  });
  const height = await page.$eval('#exhibit-logs', (s) => s.getBoundingClientRect().height);
  for (let y = 0; y < height; y += 300) {
    await page.evaluate((dy) => { const s = document.querySelector('#exhibit-logs'); window.scrollTo(0, s.getBoundingClientRect().top + window.scrollY + dy - 400); }, y);
    // the button shows or hides on an IntersectionObserver's report: wait for it
    await page.waitForFunction(() => !document.querySelector('[data-testid="to-controls"]').checkVisibility(), null, { timeout: 5000 }).catch(() => {});
    assert.deepEqual(await overlaps(), [], `at ${y} px into the log reader`);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the flags embed opens on flags: collected, sorted and hashed', async () => {
  const preset = JSON.parse(fs.readFileSync(path.join(root, 'fixtures/derived/flags_ab.json'), 'utf8'));
  const flags = preset.flags.XLA_FLAGS.split(/\s+/).filter(Boolean);
  assert.ok(flags.length >= 2);
  const page = await newPage(env.browser, { viewport: { width: 1280, height: 800 } });
  await open(page, env.server.url + '?embed=flags');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="flag-row"]').length === n, flags.length);
  assert.equal(await page.inputValue('[data-testid="xla-flags"]'), preset.flags.XLA_FLAGS, 'the flag input shows them');
  for (const f of flags) assert.equal(await page.locator(`[data-testid="flag-row"][data-flag="${f}"]`).count(), 1, f);
  assert.equal(await page.isVisible('#flags-empty'), false, 'not the empty filter');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the entries embed fits one 1280\u00d7800 screen', async () => {
  const page = await newPage(env.browser, { viewport: { width: 1280, height: 800 } });
  await open(page, env.server.url + '?embed=entries');
  await page.waitForSelector('[data-testid="pipeline-svg"]');
  const height = await page.evaluate(() => document.documentElement.getBoundingClientRect().height);
  assert.ok(height <= 800, `the entries embed is ${height} px tall`);
  // all eight entries and both keys are there, in that height
  assert.equal(await page.locator('[data-testid^="entry-"][data-role]').count(), 8);
  for (const sel of ['[data-testid="final-key"]', '[data-testid="baseline-key"]', '[data-testid="pipeline"]']) {
    assert.ok(await page.isVisible(sel), sel);
    const box = await page.locator(sel).boundingBox();
    assert.ok(box && box.y + box.height <= 800, `${sel} on the screen`);
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});
