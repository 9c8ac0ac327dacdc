// Every exhibit at 390 px (a phone), 600 px (a documentation column, as an
// embed) and 1280 px: nothing is wider than its box (scrollWidth ≤
// clientWidth for each exhibit and for the page), and no table cell is
// narrower than its longest word (no letter-per-line wrapping; a path may
// break after a slash, as browsers allow). The page is laid out in each of
// its two modes; the exhibits are filled first (several flags, a log
// comparison, captured runs with a module diff, a cache folder, the walk
// loaded, module text open) so that the long content is there. Screenshots
// go to build/test-artifacts/layout-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { newPage, open, useBrowser, shot, waitForText, modeUrl, root } from './helpers.mjs';

const env = useBrowser(before, after);
const WIDTHS = [390, 600, 1280];
const EMBEDS = ['entries', 'walk', 'flags', 'trace', 'logs'];
const FLAGS = '--xla_gpu_autotune_level=2 --xla_dump_to=/tmp/some/long/dump/directory --xla_cpu_enable_fast_math=true --xla_force_host_platform_device_count=8';

before(async () => { await env.ready; });

/** Fills the exhibits with long content (whatever of them the page shows). */
async function fill(page) {
  if (await page.isVisible('[data-testid="xla-flags"]')) {
    await page.fill('[data-testid="xla-flags"]', FLAGS);
    await page.waitForSelector('[data-testid="flag-row"][data-flag="--xla_force_host_platform_device_count=8"]');
  }
  if (await page.isVisible('[data-testid="logs-example"]')) {
    await page.click('[data-testid="logs-example"]');
    await page.waitForSelector('[data-testid="logs-table"]:not([hidden])');
  }
  if (await page.isVisible('[data-testid="exhibit-captures"]')) {
    const pair = path.join(root, 'tests/web/data/module-diff/precision');
    await page.setInputFiles('[data-testid="capture-dir-a"]', path.join(pair, 'a'));
    await page.setInputFiles('[data-testid="capture-dir-b"]', path.join(pair, 'b'));
    await page.click('[data-testid="captures-compare"]');
    await waitForText(page, '[data-testid="captures-status"]', /^Compared a \(A\) and b \(B\)\.$/, 90000);
    await page.locator('#exhibit-captures pre.textdiff').first().waitFor();
  }
  if (await page.isVisible('[data-testid="exhibit-cachedir"]')) {
    await page.setInputFiles('[data-testid="cachedir-input"]', path.join(root, 'fixtures/cache_dirs/0.10.2/cap/cache'));
    await waitForText(page, '[data-testid="cachedir-status"]', /^Read cache: \d+ files?/, 30000);
  }
  if (await page.isVisible('#exhibit-walk')) {
    await page.locator('#exhibit-walk').scrollIntoViewIfNeeded();
    await page.waitForSelector('#exhibit-walk[data-walk="ready"]', { timeout: 15000 });
    await page.click('[data-testid="entry-5-code"]');
    await page.waitForSelector('[data-testid="source-line"][data-active="true"]');
  }
}

/** Overflowing boxes and squeezed table cells, measured in the page. */
const measure = (page) => page.evaluate(() => {
  const out = { page: null, boxes: [], cells: [] };
  // Panes out of view may skip their layout (content-visibility: auto):
  // every pane is laid out here, so that what is measured is its real layout.
  for (const s of document.querySelectorAll('main section')) s.style.contentVisibility = 'visible';
  const de = document.documentElement;
  if (de.scrollWidth > de.clientWidth) out.page = `${de.scrollWidth} > ${de.clientWidth}`;
  const visible = (n) => n.offsetParent !== null || n === document.body;
  for (const s of document.querySelectorAll('[data-exhibit], section.panel, #cases, #questions, #about, .site-header')) {
    if (!visible(s)) continue;
    if (s.scrollWidth > s.clientWidth + 1) out.boxes.push(`${s.id || s.className}: ${s.scrollWidth} > ${s.clientWidth}`);
  }
  // the widest word of each cell, measured in the cell's own font
  const probe = document.createElement('span');
  Object.assign(probe.style, { position: 'absolute', visibility: 'hidden', whiteSpace: 'pre', left: '-9999px', top: '0' });
  document.body.append(probe);
  for (const cell of document.querySelectorAll('td, th')) {
    if (!visible(cell)) continue;
    const inner = cell.getBoundingClientRect().width - parseFloat(getComputedStyle(cell).paddingLeft) - parseFloat(getComputedStyle(cell).paddingRight);
    // words of each text node, in that node's font
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const cs = getComputedStyle(t.parentElement);
      probe.style.font = cs.font;
      probe.style.letterSpacing = cs.letterSpacing;
      // words: split at white space and after a slash, where browsers break
      // lines (UAX #14), so a path may wrap at its slashes, never mid-name
      for (const w of t.textContent.split(/\s+|(?<=\/)/).filter(Boolean)) {
        probe.textContent = w;
        const ww = probe.getBoundingClientRect().width;
        if (ww > inner + 1) out.cells.push(`${cell.closest('table').getAttribute('data-testid') || cell.closest('table').id}: "${w.slice(0, 40)}" ${Math.round(ww)} px in ${Math.round(inner)} px`);
      }
    }
  }
  probe.remove();
  return out;
});

for (const width of WIDTHS) {
  // each of the page's two modes, with its panes filled
  for (const [mode, ids] of [['how', ['exhibit-walk', 'exhibit-flags']], ['why', ['exhibit-logs', 'exhibit-captures', 'exhibit-cachedir']]]) test(`the whole page at ${width} px, mode ${mode}`, async () => {
    const page = await newPage(env.browser, { viewport: { width, height: 900 } });
    await open(page, modeUrl(env.server.url, mode));
    await fill(page);
    const m = await measure(page);
    await shot(page, `layout-page-${width}-${mode}.png`);
    for (const id of ids) await shot(page, `layout-${id}-${width}.png`, '#' + id);
    assert.equal(m.page, null, 'the page does not scroll sideways');
    assert.deepEqual(m.boxes, [], 'no exhibit is wider than its box');
    assert.deepEqual(m.cells, [], 'no table cell is narrower than its longest word');
    assert.deepEqual(page.errors, []);
    await page.close();
  });

  for (const exhibit of EMBEDS) {
    if (width === 1280) continue; // embeds live in columns
    test(`?embed=${exhibit} at ${width} px`, async () => {
      const page = await newPage(env.browser, { viewport: { width, height: 900 } });
      const url = new URL(env.server.url);
      url.search = `?embed=${exhibit}`;
      await open(page, url.href);
      await fill(page);
      const m = await measure(page);
      await shot(page, `layout-embed-${exhibit}-${width}.png`);
      assert.equal(m.page, null, 'the embed does not scroll sideways');
      assert.deepEqual(m.boxes, []);
      assert.deepEqual(m.cells, []);
      // the embed's text refers only to what it shows
      const text = await page.evaluate(() => [...document.querySelectorAll('main *')].filter((n) => n.offsetParent !== null && n.children.length === 0).map((n) => n.textContent).join(' '));
      assert.doesNotMatch(text, /change an ingredient below|under Compile options|The flag-filter exhibit/i);
      assert.deepEqual(page.errors, []);
      await page.close();
    });
  }
}

test('the module text opened on a phone does not widen the page (F8)', async () => {
  const page = await newPage(env.browser, { viewport: { width: 390, height: 900 } });
  await open(page, env.server.url);
  await page.selectOption('#preset', 'custom_partitioning_on').catch(() => {});
  await page.click('[data-testid="open-module-text"]');
  await page.waitForSelector('html[data-mlir="ready"]', { timeout: 30000 });
  await waitForText(page, '[data-testid="module-text-how"]', /print_generic_op_form=True/);
  const m = await measure(page);
  await shot(page, 'layout-phone-module-text.png', '#controls');
  assert.equal(m.page, null);
  assert.deepEqual(m.boxes, []);
  await page.close();
});
