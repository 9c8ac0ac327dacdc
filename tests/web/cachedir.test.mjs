// "Read a cache folder" in Chromium: the real directories JAX wrote
// (fixtures/cache_dirs, README.md there: releases and commands) opened with
// the folder picker give the findings `cachekey cache-dir DIR` gives for the
// same folder: the same text, the same problem codes and files, the same
// eviction order. Expected values: the native CLI's report on the same files
// (an independent build of the engine reading them through POSIX, not the
// browser's File API), JAX's own "Writing … with key" lines for the keys per
// program, and the change the test made (a cap). Git keeps no mtimes, so
// each folder is copied and its files get back the mtimes describe.json
// recorded (to the millisecond, the File API's resolution).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { useOpenPage, waitForText, shot, root } from './helpers.mjs';

const env = useOpenPage({ before, after }, { mode: 'why' });
const CLI = path.join(root, 'build/native/bin/cachekey');
const dirs = path.join(root, 'fixtures/cache_dirs');
let page;
before(async () => { page = await env.opened; });

/** fixtures/cache_dirs/<rel>/cache copied with its recorded mtimes; returns the parent. */
function copyWithMtimes(rel) {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'cachedir-page-'));
  const to = path.join(parent, 'cache');
  fs.cpSync(path.join(dirs, rel, 'cache'), to, { recursive: true });
  const described = JSON.parse(fs.readFileSync(path.join(dirs, rel, 'describe.json'), 'utf8')).files;
  for (const [name, row] of Object.entries(described)) {
    // exactly whole milliseconds on disk (utimes with a float would not be)
    const ms = BigInt(row.mtime_ns) / 1000000n;
    const stamp = `@${ms / 1000n}.${String(ms % 1000n).padStart(3, '0')}`;
    assert.equal(spawnSync('touch', ['-h', '-d', stamp, path.join(to, name)]).status, 0, name);
  }
  return parent;
}

function cli(args, cwd) {
  const r = spawnSync(CLI, args, { cwd, maxBuffer: 64 << 20 });
  assert.ok(r.status === 0 || r.status === 1, `cachekey ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r.stdout.toString();
}

const snapshot = (dir) => fs.readdirSync(dir).sort().map((n) => {
  const st = fs.lstatSync(path.join(dir, n));
  return `${n} ${st.size} ${st.mtimeMs}`;
});

async function readFolder(parent, maxSize = '') {
  await page.fill('[data-testid="cachedir-max-size"]', String(maxSize));
  await page.evaluate(() => document.querySelector('[data-testid="cachedir-status"]').textContent = '');
  await page.setInputFiles('[data-testid="cachedir-input"]', path.join(parent, 'cache'));
  await waitForText(page, '[data-testid="cachedir-status"]', /^Read cache: \d+ files?/, 30000);
}

const releases = fs.readdirSync(dirs).filter((d) => fs.existsSync(path.join(dirs, d, 'cap', 'describe.json')));

test('every real cache folder: the page gives the CLI\u2019s report, problems and keys per program', async (t) => {
  if (!fs.existsSync(CLI)) t.skip('build/native/bin/cachekey is not built');
  assert.ok(releases.length >= 4, releases.join(' '));
  for (const release of releases) {
    for (const variant of fs.readdirSync(path.join(dirs, release)).filter((v) => fs.existsSync(path.join(dirs, release, v, 'describe.json')))) {
      const rel = `${release}/${variant}`;
      const parent = copyWithMtimes(rel);
      const before = snapshot(path.join(parent, 'cache'));
      await readFolder(parent);
      assert.equal(await page.textContent('[data-testid="cachedir-text"]'), cli(['cache-dir', 'cache'], parent), rel);
      const want = JSON.parse(cli(['cache-dir', 'cache', '--json'], parent));
      // the summary: the CLI's summary finding, its code and its words
      assert.equal(await page.getAttribute('[data-testid="cachedir-summary"]', 'data-code'), want.summary.code, rel);
      assert.equal(await page.textContent('[data-testid="cachedir-summary"]'), want.summary.text, rel);
      const problems = await page.$$eval('[data-testid^="cachedir-problem-"]', (ls) => ls.map((l) => `${l.getAttribute('data-code')}:${l.getAttribute('data-file')}`));
      assert.deepEqual(problems, want.problems.map((p) => `${p.code}:${p.file || ''}`), rel);
      // keys per program: JAX's own "Writing <module> … with key" lines
      // (jax.log, or lookup/'s run1.log and run2.log), in this folder: not
      // evict-*.log (a run on a copy). A mixed folder (upgrade/: 0.4.30, then
      // 0.12.0.1) is read under the later rule, so 0.4.30's bare keys are
      // other_layout_entry problems, not keys of a program.
      const log = fs.readdirSync(path.join(dirs, rel))
        .filter((n) => n.endsWith('.log') && !n.startsWith('evict') && !(want.layout === 'mixed' && n === 'jax-0.4.30.log'))
        .sort().map((n) => fs.readFileSync(path.join(dirs, rel, n), 'utf8')).join('');
      const written = new Map();
      for (const m of log.matchAll(/Writing (\S+) to persistent compilation cache with key '?([A-Za-z0-9_.]+-[0-9a-f]{64})/g)) {
        if (!written.has(m[1])) written.set(m[1], new Set());
        written.get(m[1]).add(m[2]);
      }
      const bars = await page.$$eval('[data-testid^="cachedir-program-"]', (ls) => ls.map((l) => [l.getAttribute('data-module'), Number(l.getAttribute('data-keys'))]));
      if (variant !== 'damaged' && variant !== 'mixed') {
        assert.deepEqual(Object.fromEntries(bars), Object.fromEntries([...written].map(([m, keys]) => [m, keys.size])), rel);
      }
      assert.deepEqual(snapshot(path.join(parent, 'cache')), before, `${rel}: nothing in the folder changed`);
      fs.rmSync(parent, { recursive: true, force: true });
    }
  }
  assert.deepEqual(page.errors, []);
});

test('a cap: the entries JAX\u2019s eviction would remove, in its order, as the CLI gives them; the main thread stays free', async (t) => {
  if (!fs.existsSync(CLI)) t.skip('build/native/bin/cachekey is not built');
  const parent = copyWithMtimes('0.10.2/cap');
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => window.__longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask', buffered: false });
  });
  await readFolder(parent, 4000);
  const want = JSON.parse(cli(['cache-dir', 'cache', '--json', '--max-size', '4000'], parent));
  assert.ok(want.eviction.evicted.length >= 1, 'the cap evicts something');
  assert.deepEqual(await page.$$eval('[data-testid^="cachedir-evicted-"]', (ls) => ls.map((l) => l.getAttribute('data-file'))), want.eviction.evicted.map((e) => e.file));
  assert.equal(await page.textContent('[data-testid="cachedir-evict-text"]'), want.eviction.text);
  // issue 24's budget: no main-thread task over 50 ms while the folder is read
  const long = await page.evaluate(() => window.__longTasks.filter((d) => d > 50));
  assert.deepEqual(long, []);
  await shot(page, 'cachedir.png', '#exhibit-cachedir');
  fs.rmSync(parent, { recursive: true, force: true });
});

test('a damaged entry is named, with what to do; a folder that is not a cache says so and the pane stays usable', async (t) => {
  if (!fs.existsSync(CLI)) t.skip('build/native/bin/cachekey is not built');
  const parent = copyWithMtimes('0.12.0.1/damaged');
  await readFolder(parent);
  const damaged = await page.$$eval('[data-testid^="cachedir-problem-"][data-code="damaged_entry"]', (ls) => ls.map((l) => l.textContent));
  assert.equal(damaged.length, 1);
  assert.match(damaged[0], /Delete it: rm -- '/);
  fs.rmSync(parent, { recursive: true, force: true });
  // a folder with no JAX entries: its files are named foreign, nothing crashes
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'cachedir-other-'));
  fs.mkdirSync(path.join(other, 'cache'));
  fs.writeFileSync(path.join(other, 'cache', 'notes.txt'), 'not a cache entry\n');
  await readFolder(other);
  assert.equal(await page.textContent('[data-testid="cachedir-text"]'), cli(['cache-dir', 'cache'], other));
  assert.deepEqual(await page.$$eval('[data-testid^="cachedir-problem-"]', (ls) => ls.map((l) => l.getAttribute('data-code'))), ['foreign_file']);
  fs.rmSync(other, { recursive: true, force: true });
  assert.deepEqual(page.errors, []);
});

test('the release select lists the engine’s choices, and each reads the folder under the rule the CLI gives it', async (t) => {
  if (!fs.existsSync(CLI)) t.skip('build/native/bin/cachekey is not built');
  const options = await page.$$eval('[data-testid="cachedir-release"] option', (os) =>
    os.map((o) => ({ value: o.value, text: o.textContent, rule: o.dataset.rule || '' })));
  assert.equal(options[0].value, '');
  const choices = options.slice(1);
  // one per eviction rule of lru_cache.py (0.4.30; 0.4.31 to 0.11.1; 0.11.2 on)
  assert.equal(choices.length, 3, JSON.stringify(options));
  const parent = copyWithMtimes('0.12.0.1/nocap');
  for (const c of choices) {
    assert.ok(c.text.length > 0);
    const want = JSON.parse(cli(['cache-dir', 'cache', '--json', '--release', c.value], parent));
    assert.equal(c.rule, want.rule, c.value);
  }
  fs.rmSync(parent, { recursive: true, force: true });
});
