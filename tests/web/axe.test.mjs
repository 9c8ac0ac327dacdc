// axe-core (npm, pinned in package.json) on the page as a JAX user meets it:
// the main view with a cause shown and every details element open, the code
// walk with a step lit, the captures pane with a comparison, and every embed.
// Each must have 0 violations of axe's WCAG 2.x A/AA rules and best
// practices. axe is injected through the DevTools protocol (page.evaluate),
// so the page's CSP is left as it is.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, open, useBrowser, waitForText, root, showMode, modeUrl } from './helpers.mjs';
import { EXHIBITS } from '../../web/embed.mjs';

const env = useBrowser(before, after);
const AXE = fs.readFileSync(path.join(root, 'tests/web/node_modules/axe-core/axe.min.js'), 'utf8');

/** axe's violations on `page` (or within `selector`), one line each. */
async function violations(page, selector) {
  await page.evaluate(AXE + '\n;0');
  const found = await page.evaluate(async (sel) => {
    // @ts-ignore axe is defined by the script just evaluated
    const r = await window.axe.run(sel ? document.querySelector(sel) : document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.length} node(s), e.g. ${v.nodes[0].target.join(' ')}: ${v.nodes[0].failureSummary.split('\n').slice(0, 2).join(' ')}`);
  }, selector || null);
  return found;
}

// Both modes: "How the key is made" with a cause shown, and "Why did my run
// recompile?" with the example logs compared.
for (const colorScheme of ['light', 'dark']) test(`axe: both modes (${colorScheme}), with a cause, the logs example and every details open`, async () => {
  await env.ready;
  const page = await newPage(env.browser, { colorScheme });
  await open(page, env.server.url);
  await showMode(page, 'how');
  await page.fill('[data-testid="xla-flags"]', '--xla_dump_to=/tmp/x --xla_gpu_autotune_level=1');
  await waitForText(page, '[data-testid="entry-4"]', /./);
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  assert.deepEqual(await violations(page), [], 'how');
  await showMode(page, 'why');
  await page.click('[data-testid="logs-example"]');
  await page.waitForSelector('[data-testid="logs-verdict"]:not([hidden])');
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  assert.deepEqual(await violations(page), [], 'why');
  await page.close();
});

for (const colorScheme of ['light', 'dark']) test(`axe: the code walk (${colorScheme}) with a step lit`, async () => {
  await env.ready;
  const page = await newPage(env.browser, { colorScheme });
  await open(page, env.server.url + '?embed=walk');
  await page.waitForSelector('[data-testid="walk-source"] .line, [data-testid="walk-source"] li, [data-testid="walk-source"] *');
  await page.click('[data-testid="walk-next"]');
  await page.click('[data-testid="walk-next"]');
  // Entry 5's lines lit (line numbers on lit lines were 4.32:1 before).
  await page.click('[data-testid="entry-5-code"]');
  await page.waitForSelector('[data-testid="source-line"][data-active="true"]');
  await page.evaluate(() => document.getAnimations().forEach((a) => a.finish()));
  assert.deepEqual(await violations(page), []);
  await page.close();
});

// The captures pane with a moved module (tests/web/data/module-diff): the
// engine's findings and the diff with its changed words marked, in both themes.
for (const colorScheme of ['light', 'dark']) test(`axe: the captures pane (${colorScheme}) with a module diff`, async () => {
  await env.ready;
  const page = await newPage(env.browser, { colorScheme });
  await open(page, modeUrl(env.server.url, 'why'));
  const pair = path.join(root, 'tests/web/data/module-diff/precision');
  await page.setInputFiles('[data-testid="capture-dir-a"]', path.join(pair, 'a'));
  await page.setInputFiles('[data-testid="capture-dir-b"]', path.join(pair, 'b'));
  await page.click('[data-testid="captures-compare"]');
  await waitForText(page, '[data-testid="captures-status"]', /^Compared a \(A\) and b \(B\)\.$/, 90000);
  await page.locator('#exhibit-captures .module-findings li').first().waitFor();
  await page.locator('#exhibit-captures pre.textdiff mark').first().waitFor();
  assert.deepEqual(await violations(page, '#exhibit-captures'), []);
  await page.close();
});

for (const name of EXHIBITS) {
  test(`axe: the ${name} embed`, async () => {
    await env.ready;
    const page = await newPage(env.browser, { viewport: { width: 800, height: 900 } });
    await open(page, env.server.url + '?embed=' + name);
    assert.deepEqual(await violations(page), [], name);
    await page.close();
  });
}
