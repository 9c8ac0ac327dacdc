// The site bundle (scripts/build-site: build/site.tar.gz) extracted and served
// by a plain static server under a sub-path, /tools/cachekey/, as a
// documentation site would host it (docs/deploy.md). The page's smoke tests
// run there: the first view's key, the worker (the example logs), the lazily
// loaded code walk and MLIR module, an embed, and a permalink that round-trips
// under the sub-path.
//
// Expected values: add_1x1's key is the one real JAX computed (the fixture's
// expected.key); the flag perturbation's cause is the change this test makes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newPage, launch, root, DEFAULT_KEY, roles, expectedRoles, waitForText, linkSettled, showMode } from './helpers.mjs';

const bundle = path.join(root, 'build/site.tar.gz');
let browser, server, base, tmp;

before(async () => {
  if (!fs.existsSync(bundle)) execFileSync(path.join(root, 'scripts/build-site'), { stdio: 'inherit' });
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cachekey-site-'));
  const dir = path.join(tmp, 'tools');
  fs.mkdirSync(dir);
  execFileSync('tar', ['-xzf', bundle, '-C', dir]);
  fs.renameSync(path.join(dir, 'site'), path.join(dir, 'cachekey'));
  // A plain static server (Python's), rooted above the sub-path.
  const port = Number(execFileSync('python3', ['-c', 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()']).toString().trim());
  server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', tmp], { stdio: 'ignore' });
  base = `http://127.0.0.1:${port}/tools/cachekey/`;
  for (let i = 0; i < 100; i++) {
    try { if ((await fetch(base)).ok) break; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.kill();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the bundle holds one relocatable folder: no root-relative URL in it', () => {
  const list = execFileSync('tar', ['-tzf', bundle]).toString().split('\n').filter(Boolean);
  assert.ok(list.every((f) => f.startsWith('site/')), 'one top-level folder');
  for (const f of ['site/index.html', 'site/cachekey_engine.wasm', 'site/worker.js', 'site/mlir/cachekey_engine_mlir.wasm', 'site/walk/index.json']) assert.ok(list.includes(f), f);
  const html = fs.readFileSync(path.join(tmp, 'tools/cachekey/index.html'), 'utf8');
  assert.doesNotMatch(html, /(href|src)="\/[^/]/);
});

test('under /tools/cachekey/: the key, the worker, the walk, MLIR, a permalink and an embed', async () => {
  const page = await newPage(browser);
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.goto(base);
  await page.waitForSelector('html[data-ready="true"]', { timeout: 20000 });
  assert.equal(await page.textContent('[data-testid="final-key"]'), DEFAULT_KEY);
  // a perturbation, and its link under the sub-path
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1');
  await page.waitForFunction(() => document.querySelector('[data-testid="entry-4"]').getAttribute('data-role') === 'cause');
  assert.deepEqual(await roles(page), expectedRoles(4));
  await linkSettled(page);
  const link = await page.inputValue('[data-testid="permalink"]');
  const perturbedKey = await page.textContent('[data-testid="final-key"]');
  assert.ok(link.startsWith(base), link);
  // the worker: the example logs are compared there (in "Why did my run recompile?")
  await showMode(page, 'why');
  await page.click('[data-testid="logs-example"]');
  await page.waitForSelector('[data-testid="logs-verdict"]:not([hidden])', { timeout: 20000 });
  // the walk loads its data lazily, from under the sub-path
  await showMode(page, 'how');
  await page.locator('#exhibit-walk').scrollIntoViewIfNeeded();
  await page.waitForSelector('#exhibit-walk[data-walk="ready"]', { timeout: 20000 });
  // the MLIR module (second wasm) loads on demand
  await page.click('[data-testid="open-module-text"]');
  await page.waitForSelector('html[data-mlir="ready"]', { timeout: 60000 });
  assert.ok(requests.every((p) => p.startsWith('/tools/cachekey/')), 'every request stays under the sub-path: ' + requests.filter((p) => !p.startsWith('/tools/cachekey/')).join(' '));
  assert.deepEqual(page.errors, []);

  const again = await newPage(browser);
  await again.goto(link);
  await again.waitForSelector('html[data-ready="true"]', { timeout: 20000 });
  await again.waitForFunction(() => document.querySelector('[data-testid="entry-4"]').getAttribute('data-role') === 'cause');
  assert.equal(await again.textContent('[data-testid="final-key"]'), perturbedKey);
  assert.deepEqual(again.errors, []);

  const embed = await newPage(browser);
  await embed.goto(base + '?embed=entries');
  await embed.waitForSelector('html[data-ready="true"]', { timeout: 20000 });
  await waitForText(embed, '[data-testid="final-key"]', new RegExp(`^${DEFAULT_KEY}$`));
  assert.deepEqual(embed.errors, []);
  await Promise.all([page.close(), again.close(), embed.close()]);
});
