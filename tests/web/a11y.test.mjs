// Accessibility checks that a browser can measure: text contrast (WCAG 2.2
// AA), labels on every control, visible focus while tabbing, the aria-live
// announcement, and no animation under prefers-reduced-motion.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, open, shot, useBrowser, showMode } from './helpers.mjs';

const env = useBrowser(before, after);


test('every visible text meets WCAG AA contrast against its background', async () => {
  const page = await newPage(env.browser);
  await open(page, env.server.url);
  // show the parts that start hidden: a cause, the flags ("How the key is
  // made"), then the logs table ("Why did my run recompile?")
  await showMode(page, 'how');
  await page.fill('[data-testid="xla-flags"]', '--xla_dump_to=/tmp/x --xla_gpu_autotune_level=1');
  await page.waitForSelector('[data-testid="flag-row"]');
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  const failures = () => page.evaluate(() => {
    const parse = (c) => {
      const m = c.match(/rgba?\(([^)]+)\)/);
      if (!m) return null;
      const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
    };
    const lum = ({ r, g, b }) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const blend = (top, bottom) => ({
      r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a), b: top.b * top.a + bottom.b * (1 - top.a), a: 1,
    });
    const bgOf = (el) => {
      const layers = [];
      for (let n = el; n; n = n.parentElement) {
        const c = parse(getComputedStyle(n).backgroundColor);
        if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
      }
      let bg = { r: 255, g: 255, b: 255, a: 1 };
      for (const l of layers.reverse()) bg = blend(l, bg);
      return bg;
    };
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set();
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const el = t.parentElement;
      if (!t.textContent.trim() || seen.has(el)) continue;
      seen.add(el);
      if (!el.checkVisibility || !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      if (el.closest('.visually-hidden, :disabled, option')) continue;
      const s = getComputedStyle(el);
      let fg = parse(s.color);
      const bg = bgOf(el);
      fg = blend(fg, bg);
      let opacity = 1;
      for (let n = el; n; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
      if (opacity < 1) fg = blend({ ...fg, a: opacity }, bg);
      const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
      const ratio = (hi + 0.05) / (lo + 0.05);
      const size = parseFloat(s.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`${ratio.toFixed(2)} ${el.tagName}.${el.className} "${t.textContent.trim().slice(0, 40)}"`);
    }
    return out;
  });
  assert.deepEqual(await failures(), [], 'how');
  await showMode(page, 'why');
  await page.click('[data-testid="logs-example"]');
  await page.waitForSelector('[data-testid="logs-verdict"]:not([hidden])');
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  assert.deepEqual(await failures(), [], 'why');
  await page.close();
});

test('every control has a label', async () => {
  const page = await newPage(env.browser);
  await open(page, env.server.url);
  const unlabeled = await page.$$eval('input, select, textarea, button', (ns) => ns
    .filter((n) => !(n.labels && n.labels.length) && !n.getAttribute('aria-label') && !n.getAttribute('aria-labelledby') && !(n.tagName === 'BUTTON' && n.textContent.trim()))
    .map((n) => n.id || n.outerHTML.slice(0, 60)));
  assert.deepEqual(unlabeled, []);
  await page.close();
});

test('tabbing through the page always shows where focus is', async () => {
  const page = await newPage(env.browser);
  await open(page, env.server.url);
  const invisible = [];
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const a = document.activeElement;
      if (!a || a === document.body) return null;
      const s = getComputedStyle(a);
      return { what: a.id || a.tagName + ':' + (a.textContent || '').trim().slice(0, 20), outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2 };
    });
    if (f && !f.outline) invisible.push(f.what);
  }
  assert.deepEqual(invisible, []);
  await page.close();
});

test('digest changes are announced in an aria-live region', async () => {
  const page = await newPage(env.browser);
  await open(page, env.server.url);
  assert.equal(await page.getAttribute('[data-testid="announce"]', 'aria-live'), 'polite');
  await page.fill('[data-testid="jaxlib"]', '0.10.3');
  await page.waitForFunction(() => /Key changed\. The cause is entry 2/.test(document.querySelector('[data-testid="announce"]').textContent));
  await page.close();
});

test('the running hash animates, except under prefers-reduced-motion', async () => {
  const moving = await newPage(env.browser);
  await open(moving, env.server.url);
  await moving.fill('[data-testid="custom-hook"]', 'x');
  assert.match(await moving.getAttribute('#entries', 'class'), /flow-[ab]/);
  assert.notEqual(await moving.$eval('[data-testid="entry-3"]', (e) => getComputedStyle(e).animationName), 'none');
  await moving.close();

  const still = await newPage(env.browser, { reducedMotion: 'reduce' });
  await open(still, env.server.url);
  await still.fill('[data-testid="custom-hook"]', 'x');
  assert.doesNotMatch(await still.getAttribute('#entries', 'class'), /flow-/);
  assert.equal(await still.$eval('[data-testid="entry-3"]', (e) => getComputedStyle(e).animationName), 'none');
  assert.equal(await still.getAttribute('[data-testid="entry-8"]', 'data-role'), 'cause');
  await still.close();
});

test('a narrow screen stacks the exhibits without horizontal scrolling', async () => {
  const page = await newPage(env.browser, { viewport: { width: 390, height: 900 } });
  await open(page, env.server.url);
  await page.fill('[data-testid="custom-hook"]', 'x');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `page is ${overflow}px wider than the screen`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, 'page-narrow.png');
  await page.close();
});
