// Shared setup for the page tests: the site URL (scripts/test-web serves
// build/web and passes CACHEKEY_WEB_URL; run alone, a small static server is
// started here), Debian's Chromium through playwright-core, a Node copy of
// the engine for building test links, and error collectors.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const site = path.join(root, 'build/web');
export const artifacts = path.join(root, 'build/test-artifacts');
fs.mkdirSync(artifacts, { recursive: true });

export const fixture = (id) => JSON.parse(fs.readFileSync(path.join(root, 'fixtures', id + '.json'), 'utf8'));
export const DEFAULT_KEY = fixture('add_1x1').expected.key;

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
};

/** A static server over build/web (only when CACHEKEY_WEB_URL is not set). */
export async function startServer() {
  if (process.env.CACHEKEY_WEB_URL) return { url: process.env.CACHEKEY_WEB_URL.replace(/\/?$/, '/'), close: async () => {} };
  if (!fs.existsSync(path.join(site, 'index.html'))) throw new Error('build/web is missing: run scripts/build-web');
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    let p = path.normalize(decodeURIComponent(u.pathname)).replace(/^(\.\.[/\\])+/, '');
    if (p.endsWith('/')) p += 'index.html';
    const file = path.join(site, p);
    if (!file.startsWith(site) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) };
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A page that records uncaught exceptions and console errors. */
export async function newPage(browser, opts = {}) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, ...opts });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push('console: ' + m.text()); });
  return page;
}

export async function open(page, url) {
  await page.goto(url);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 20000 });
}

/**
 * Shows the page's mode `mode` ('why': "Why did my run recompile?", 'how':
 * "How the key is made") with its own switch in the header, and waits until
 * it shows.
 * @param {import('playwright-core').Page} page
 * @param {'why'|'how'} mode
 */
export async function showMode(page, mode) {
  if (await page.getAttribute('html', 'data-mode') === mode) return;
  await page.click(`[data-testid="mode-${mode}"]`);
  await page.waitForSelector(`html[data-mode="${mode}"]`);
}

/** The site's address opening mode `mode`. */
export const modeUrl = (url, mode) => { const u = new URL(url); u.searchParams.set('mode', mode); return u.href; };

/** data-role of rows 1..8 */
export async function roles(page) {
  return page.$$eval('li[data-testid^="entry-"]', (rows) => rows.map((r) => r.getAttribute('data-role')));
}

export function expectedRoles(cause) {
  return Array.from({ length: 8 }, (_, i) => (i + 1 < cause ? 'same' : i + 1 === cause ? 'cause' : 'consequence'));
}

/** The engine in Node (same build as the page), for building test links. */
export async function nodeEngine() {
  const require = createRequire(import.meta.url);
  const factory = require(path.join(site, 'cachekey_engine.js'));
  const { CacheKeyEngine } = await import(path.join(site, 'engine.mjs'));
  const engine = await CacheKeyEngine.load({ factory, wasmBinary: fs.readFileSync(path.join(site, 'cachekey_engine.wasm')) });
  const presets = JSON.parse(fs.readFileSync(path.join(site, 'presets.json'), 'utf8'));
  for (const [id, fx] of Object.entries(presets.fixtures)) engine.registerFixture(id, fx);
  return engine;
}

export const shot = (page, name, selector) => (selector
  ? page.locator(selector).screenshot({ path: path.join(artifacts, name) })
  : page.screenshot({ path: path.join(artifacts, name) }));

/**
 * Waits until the text of the first element matching `selector` matches
 * `pattern`, then returns that text. For state the page writes
 * asynchronously (clipboard results, announcements, debounced updates): a
 * test never reads such state right after the action that causes it.
 */
export async function waitForText(page, selector, pattern, timeout = 10000) {
  await page.waitForFunction(([sel, src, flags]) => {
    const n = document.querySelector(sel);
    return !!n && new RegExp(src, flags).test(n.textContent);
  }, [selector, pattern.source, pattern.flags], { timeout });
  return page.textContent(selector);
}

/**
 * Cancels the job the busy box shows, once it shows one whose text matches
 * `pattern`: the check and the click happen in one task of the page, so a
 * job that ends between them (a fast machine) cannot turn the click into a
 * wait for a box that has gone. Playwright's own click would wait for the
 * button to be visible and stable over two frames first. Returns the label
 * the box showed. Fails (timeout) when no such job is ever shown: a job
 * shorter than busy.mjs SHOW_AFTER_MS is never shown, and the test says so.
 */
export async function cancelShownJob(page, pattern, timeout = 30000) {
  const handle = await page.waitForFunction(([src, flags]) => {
    const box = document.querySelector('#busy');
    const text = document.querySelector('#busy-text').textContent;
    if (box.hidden || box.getAttribute('data-state') !== 'running' || !new RegExp(src, flags).test(text)) return false;
    document.querySelector('#busy-cancel').click();
    return text;
  }, [pattern.source, pattern.flags], { timeout, polling: 'raf' });
  return handle.jsonValue();
}

/** Waits until no CSS animation or transition is running (before a screenshot). */
export const animationsDone = (page) => page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== 'running'));

/** Waits until the page has written the scenario link (it is debounced). */
export const linkSettled = (page) => page.waitForFunction(() => !document.documentElement.hasAttribute('data-link-pending'));

/**
 * Starts the static server and Chromium before the file's tests and stops
 * them after; returns an object whose `server` and `browser` are set once
 * its `ready` promise resolves.
 */
export function useBrowser(before, after) {
  let started;
  // Later `before` hooks of the file may run alongside this one: they await
  // `ready` before using the browser.
  const ctx = { ready: new Promise((r) => { started = r; }) };
  before(async () => {
    ctx.server = await startServer();
    ctx.browser = await launch();
    started();
  });
  after(async () => {
    await ctx.browser?.close();
    await ctx.server?.close();
  });
  return ctx;
}

/**
 * Resets the page to the default scenario (the add_1x1 preset, no
 * perturbation) and waits until it shows it.
 */
export async function resetScenario(page) {
  await showMode(page, 'how');
  await page.click('[data-testid="reset"]');
  if (await page.$eval('#preset', (s) => s.value) !== 'add_1x1') await page.selectOption('#preset', 'add_1x1');
  await page.waitForFunction(() => document.querySelector('#preset').value === 'add_1x1'
    && /^the baseline, unchanged/.test(document.querySelector('[data-testid="perturbed-desc"]').textContent));
}

/**
 * useBrowser, plus one page opened on the site for all of the file's tests
 * (`await env.opened` gives it). With `reset`, every test starts from the
 * default scenario (resetScenario). With `mode`, the page opens in that mode
 * (?mode=).
 * @param {{before: Function, after: Function, beforeEach?: Function}} hooks node:test's
 */
export function useOpenPage({ before, after, beforeEach }, { reset = false, mode = '' } = {}) {
  const env = useBrowser(before, after);
  let opened;
  env.opened = new Promise((r) => { opened = r; });
  before(async () => {
    await env.ready;
    const page = await newPage(env.browser);
    await open(page, mode ? modeUrl(env.server.url, mode) : env.server.url);
    opened(page);
  });
  if (reset) beforeEach(async () => resetScenario(await env.opened));
  return env;
}

/**
 * A valid module text (MLIR generic form, no locations) of at least `bytes`
 * bytes: one function adding its argument to a running sum, op after op.
 * For the page's large-module paths (canonicalised in the engine's worker).
 */
export function bigModuleText(bytes) {
  const t = 'tensor<1x1xf32>';
  const head = `"builtin.module"() <{sym_name = "jit_big"}> ({\n  "func.func"() <{function_type = (${t}, ${t}) -> ${t}, sym_name = "main", sym_visibility = "public"}> ({\n  ^bb0(%arg0: ${t}, %arg1: ${t}):\n    %0 = "stablehlo.add"(%arg0, %arg1) : (${t}, ${t}) -> ${t}\n`;
  const parts = [head];
  let size = head.length;
  let i = 0;
  while (size < bytes) {
    const line = `    %${i + 1} = "stablehlo.add"(%${i}, %arg1) : (${t}, ${t}) -> ${t}\n`;
    parts.push(line);
    size += line.length;
    i += 1;
  }
  parts.push(`    "func.return"(%${i}) : (${t}) -> ()\n  }) : () -> ()\n}) : () -> ()\n`);
  return parts.join('');
}
