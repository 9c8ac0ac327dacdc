// The page's two modes (issue 36, item 1): "Why did my run recompile?" (the
// log reader, the captured runs, the cache folder) and "How the key is made"
// (the entries and ingredients, the walk, the flags, the trace, sharing, the
// case studies); the questions and the about text show in both. Both
// switches are on the first screen at 390 px and 1280 px; the mode is in the
// address (?mode=), so a link says which mode it opens; an address without a
// mode opens the mode of what it names; every move to a place in the other
// mode switches first; back and forward switch back; embeds have no modes.
//
// Expected values: which section belongs to which mode is the split
// (index.html marks each with data-in-mode); a scenario link's mode is "how"
// because a scenario is shown by the key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, open, useBrowser, modeUrl, showMode, linkSettled, waitForText } from './helpers.mjs';

const env = useBrowser(before, after);
before(async () => { await env.ready; });

const WHY = ['exhibit-logs', 'exhibit-captures', 'exhibit-cachedir'];
const HOW = ['exhibit-entries', 'controls', 'exhibit-walk', 'exhibit-flags', 'exhibit-trace', 'share', 'cases'];
const BOTH = ['questions', 'about'];

/** Which sections show, by id. */
const shown = (page) => page.evaluate((ids) => Object.fromEntries(ids.map((id) => [id, document.getElementById(id).checkVisibility()])), [...WHY, ...HOW, ...BOTH]);

/** Asserts that exactly `mode`'s sections (and the shared ones) show, and the switch says so. */
async function assertMode(page, mode, label = mode) {
  await page.waitForSelector(`html[data-mode="${mode}"]`);
  const s = await shown(page);
  const expected = Object.fromEntries([...WHY.map((id) => [id, mode === 'why']), ...HOW.map((id) => [id, mode === 'how']), ...BOTH.map((id) => [id, true])]);
  assert.deepEqual(s, expected, label);
  assert.equal(await page.getAttribute(`[data-testid="mode-${mode}"]`, 'aria-current'), 'page', `${label}: the switch marks the mode shown`);
  const other = mode === 'why' ? 'how' : 'why';
  assert.equal(await page.getAttribute(`[data-testid="mode-${other}"]`, 'aria-current'), null, `${label}: and only it`);
  assert.equal(new URL(page.url()).searchParams.get('mode'), mode, `${label}: the address says the mode`);
}

for (const width of [390, 1280]) {
  test(`${width} px: both modes' switches are on the first screen, and each shows its own panes`, async () => {
    const height = width === 390 ? 844 : 800;
    const page = await newPage(env.browser, { viewport: { width, height } });
    await open(page, env.server.url);
    await assertMode(page, 'how', 'an address without a mode');
    for (const m of ['why', 'how']) {
      const box = await page.locator(`[data-testid="mode-${m}"]`).boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= height, `the "${m}" switch is on the first screen (${box && box.y + box.height})`);
      assert.ok(box.height >= 24 && box.width >= 24, 'a target of 24 px at least');
    }
    assert.match(await page.textContent('[data-testid="mode-why"]'), /Why did my run recompile\?/);
    assert.match(await page.textContent('[data-testid="mode-how"]'), /How the key is made/);
    await showMode(page, 'why');
    await assertMode(page, 'why', 'after the switch');
    // the sections nav lists the mode's panes only
    const nav = await page.$$eval('nav[aria-label="Sections"] a', (as) => as.filter((a) => a.checkVisibility()).map((a) => a.getAttribute('href')));
    assert.deepEqual(nav, ['#exhibit-logs', '#exhibit-captures', '#exhibit-cachedir', '#questions', '#about']);
    // the log reader is the mode's first pane: on the first screen
    const logs = await page.locator('#logs-h').boundingBox();
    assert.ok(logs && logs.y < height, `the log reader starts on the first screen (${logs && logs.y})`);
    await showMode(page, 'how');
    await assertMode(page, 'how', 'and back');
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('at 1280 px a mode\u2019s panes sit side by side; at 390 px they stack', async () => {
  for (const [width, side] of [[1280, true], [390, false]]) {
    const page = await newPage(env.browser, { viewport: { width, height: 900 } });
    await open(page, modeUrl(env.server.url, 'why'));
    const [a, b] = await Promise.all(['#exhibit-captures', '#exhibit-cachedir'].map((s) => page.locator(s).boundingBox()));
    assert.equal(Math.abs(a.y - b.y) < 1 && b.x > a.x + a.width, side, `${width} px: the captured runs and the cache folder side by side`);
    await showMode(page, 'how');
    const [f, t] = await Promise.all(['#exhibit-flags', '#exhibit-trace'].map((s) => page.locator(s).boundingBox()));
    assert.equal(Math.abs(f.y - t.y) < 1 && t.x > f.x + f.width, side, `${width} px: the flags and the trace side by side`);
    await page.close();
  }
});

test('a link with a mode opens that mode; old links open the mode of what they name', async () => {
  const page = await newPage(env.browser);
  await open(page, modeUrl(env.server.url, 'why'));
  await assertMode(page, 'why', '?mode=why');
  await open(page, modeUrl(env.server.url, 'how'));
  await assertMode(page, 'how', '?mode=how');
  // an old link to the log reader: "why", and the address now says so
  await page.goto('about:blank');
  await open(page, env.server.url + '#exhibit-logs');
  await assertMode(page, 'why', '#exhibit-logs');
  assert.equal(new URL(page.url()).hash, '#exhibit-logs', 'the place stays in the address');
  await page.waitForFunction(() => { const r = document.querySelector('#exhibit-logs').getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight / 2; });
  // an old link to a place in "how"
  await page.goto('about:blank');
  await open(page, env.server.url + '#exhibit-trace');
  await assertMode(page, 'how', '#exhibit-trace');
  // a place both modes show: the default mode
  await page.goto('about:blank');
  await open(page, env.server.url + '#questions');
  await assertMode(page, 'how', '#questions');
  // an unknown mode is ignored
  await page.goto('about:blank');
  await open(page, env.server.url + '?mode=nonsense#exhibit-cachedir');
  await assertMode(page, 'why', '?mode=nonsense#exhibit-cachedir');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a scenario link opens "How the key is made", and the share pane\u2019s link says so', async () => {
  const page = await newPage(env.browser);
  await open(page, env.server.url);
  await page.fill('[data-testid="jaxlib"]', '0.10.3');
  await page.waitForFunction(() => document.querySelector('[data-testid="entry-2"]').getAttribute('data-role') === 'cause');
  await linkSettled(page);
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /^#s1=/);
  const link = await page.inputValue('[data-testid="permalink"]');
  assert.equal(new URL(link).searchParams.get('mode'), 'how');
  // an old scenario link (no mode) and one opened from "why" both show the key
  const other = await newPage(env.browser);
  await open(other, env.server.url + hash);
  await assertMode(other, 'how', 'an old scenario link');
  assert.equal(await other.getAttribute('[data-testid="entry-2"]', 'data-role'), 'cause');
  await open(other, link);
  await assertMode(other, 'how', 'the share pane\u2019s link');
  // switching mode keeps the scenario in the address
  await showMode(other, 'why');
  assert.equal(new URL(other.url()).hash, hash, 'the scenario stays in the address');
  await showMode(other, 'how');
  assert.equal(await other.getAttribute('[data-testid="entry-2"]', 'data-role'), 'cause');
  assert.deepEqual([...page.errors, ...other.errors], []);
  await Promise.all([page.close(), other.close()]);
});

test('back and forward switch the mode back', async () => {
  const page = await newPage(env.browser);
  await open(page, env.server.url);
  await assertMode(page, 'how', 'opened');
  await showMode(page, 'why');
  await showMode(page, 'how');
  await showMode(page, 'why');
  await page.goBack();
  await assertMode(page, 'how', 'back once');
  await page.goBack();
  await assertMode(page, 'why', 'back twice');
  await page.goBack();
  await assertMode(page, 'how', 'back to the first address');
  await page.goForward();
  await assertMode(page, 'why', 'forward');
  assert.equal(await page.getAttribute('html', 'data-ready'), 'true', 'all in the same document');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('every move to a place in the other mode switches first: the Try line, the questions, in-page links, a typed fragment', async () => {
  const page = await newPage(env.browser);
  await open(page, env.server.url);
  // "compare two runs' logs" from "how"
  await page.click('[data-testid="try-logs"]');
  await assertMode(page, 'why', 'Try: compare two runs\u2019 logs');
  await page.waitForSelector('[data-testid="logs-verdict"]:not([hidden])');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'logs-h');
  // "add a dump flag" from "why": the key, with the flag typed in
  await page.click('[data-testid="try-dump"]');
  await assertMode(page, 'how', 'Try: add a dump flag');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'entries-h');
  assert.equal(await page.inputValue('[data-testid="xla-flags"]'), '--xla_dump_to=/tmp/xla-dump');
  // a question's "open the two-log panel" (questions show in both modes)
  await page.click('[data-testid="question-debug"] button[data-open-logs]');
  await assertMode(page, 'why', 'a question\u2019s log panel');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'log-a');
  // a question's scenario, from "why": the key
  await page.click('#questions button[data-open]');
  await assertMode(page, 'how', 'a question\u2019s scenario');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'entries-h');
  // an in-page link into the other mode (the about text links to #about; the
  // flags fieldset links to the flags exhibit, same mode): made here
  await page.evaluate(() => { const a = document.createElement('a'); a.href = '#exhibit-cachedir'; a.id = 'test-link'; a.textContent = 'cache folder'; document.querySelector('#about-body').append(a); });
  await page.click('#test-link');
  await assertMode(page, 'why', 'an in-page link');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'exhibit-cachedir');
  // a fragment typed into the address bar
  await page.evaluate(() => { location.hash = '#exhibit-flags'; });
  await assertMode(page, 'how', 'a typed fragment');
  await page.waitForFunction(() => { const r = document.querySelector('#exhibit-flags').getBoundingClientRect(); return r.top >= -1 && r.top < innerHeight / 2; });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the mode switch works from the keyboard', async () => {
  const page = await newPage(env.browser);
  await open(page, env.server.url);
  await page.focus('[data-testid="mode-why"]');
  await page.keyboard.press('Enter');
  await assertMode(page, 'why', 'Enter on the switch');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('data-testid')), 'mode-why', 'focus stays on the switch');
  // the skip link leads to the mode's first pane
  const skip = await page.$$eval('a.skip', (as) => as.filter((a) => getComputedStyle(a).display !== 'none').map((a) => a.getAttribute('href')));
  assert.deepEqual(skip, ['#exhibit-logs']);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('embeds have no modes: each shows its exhibit, whatever ?mode= says', async () => {
  for (const [name, mode] of [['logs', 'how'], ['entries', 'why'], ['trace', 'why']]) {
    const page = await newPage(env.browser, { viewport: { width: 600, height: 900 } });
    await open(page, `${env.server.url}?embed=${name}&mode=${mode}`);
    assert.equal(await page.getAttribute('html', 'data-mode'), null, `${name}: no mode`);
    assert.equal(await page.isVisible(`[data-exhibit="${name}"]`), true, `${name} shows`);
    assert.equal(await page.isVisible('[data-testid="modes"]'), false, `${name}: no switch`);
    assert.equal(new URL(page.url()).searchParams.get('mode'), mode, `${name}: the address is left alone`);
    if (name === 'entries') await waitForText(page, '[data-testid="final-key"]', /-/);
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});
