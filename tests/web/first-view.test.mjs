// The first screen as a JAX user meets it, at 390 px and 1280 px: a first
// action is on the first screen ("Try: …"), each one makes its change
// through the page's own controls, and on a phone a shortcut reaches the
// controls, which come after the key there.
//
// Expected values come from the change each button makes: a dump flag is on
// JAX's exclusion list (cache_key.py's xla_flags_to_exclude_from_cache_key,
// the engine's profile lists it), so nothing moves; another jaxlib version
// string moves entry 2 first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, open, useBrowser, waitForText, roles, expectedRoles, DEFAULT_KEY, shot } from './helpers.mjs';

const env = useBrowser(before, after);

for (const width of [390, 1280]) {
  test(`${width} px: a first action on the first screen, each through the controls`, async () => {
    await env.ready;
    const page = await newPage(env.browser, { viewport: { width, height: 844 } });
    await open(page, env.server.url);
    const box = await page.locator('[data-testid="try"]').boundingBox();
    assert.ok(box && box.y + box.height <= 844, `the Try line is on the first screen (${box && box.y})`);
    await page.click('[data-testid="try-dump"]');
    await waitForText(page, '[data-testid="xla-flags"]', /./).catch(() => {});
    assert.equal(await page.inputValue('[data-testid="xla-flags"]'), '--xla_dump_to=/tmp/xla-dump', 'made through the flags control');
    await waitForText(page, '[data-testid="sentence"]', /^Nothing moved/);
    assert.match(await page.textContent('[data-testid="sentence"]'), /exclusion list/);
    assert.equal(await page.textContent('[data-testid="final-key"]'), DEFAULT_KEY);
    await page.click('[data-testid="try-jaxlib"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="entry-2"]').getAttribute('data-role') === 'cause');
    assert.deepEqual(await roles(page), expectedRoles(2));
    if (width === 390) {
      const to = page.locator('[data-testid="to-controls"]');
      assert.equal(await to.isVisible(), true, 'the shortcut to the controls shows on a phone');
      await to.click();
      await page.waitForFunction(() => { const r = document.querySelector('#controls-h').getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight / 2; }, null, { timeout: 10000 });
      assert.equal(await page.evaluate(() => document.activeElement && document.activeElement.id), 'controls-h');
      await shot(page, 'first-view-390.png');
      // "compare two runs' logs": the example logs, each program one card on a phone.
      await page.click('[data-testid="try-logs"]');
      await page.waitForSelector('[data-testid="logs-programs"]:not([hidden])');
      const cards = await page.$$eval('[data-testid="logs-programs"] tbody tr[data-testid^="log-program-"]', (rs) => rs.map((r) => ({
        display: getComputedStyle(r).display, labels: [...r.querySelectorAll('td')].map((td) => getComputedStyle(td, '::before').content) })));
      assert.ok(cards.length > 0);
      for (const c of cards) {
        assert.equal(c.display, 'block', 'a card, not a table row');
        assert.deepEqual(c.labels, ['"run A: "', '"run B: "', '"moved entry: "', '"seconds lost: "', '"verdict: "']);
      }
      assert.equal(await page.$eval('[data-testid="logs-programs"]', (t) => t.closest('.table-wrap').scrollWidth <= t.closest('.table-wrap').clientWidth), true, 'nothing off-screen');
    } else {
      assert.equal(await page.locator('[data-testid="to-controls"]').isVisible(), false, 'no shortcut where the controls sit beside the key');
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
