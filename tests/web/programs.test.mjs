// Issue 36 item 3: the program table of a two-log comparison, in the style
// of tlparse (web/programs.mjs). One row per program pair of the engine's
// answer, with a badge per run, the moved entry, the compile seconds lost and
// the engine's verdict; it sorts by its headers, filters (run B's misses, by
// moved entry, by verdict code) and searches by name, with a live count.
// Its rows are virtualised: 100,000 pairs put a few dozen rows in the DOM and
// no main-thread task after the answer arrives is over 50 ms.
//
// Expected values come from the engine's CLI (`cachekey compare-logs
// --json` on the same logs): its verdict's count and names of the programs
// run B missed, and each pair's label, cause, verdict code and compile
// seconds; never from the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, shot, useOpenPage, waitForText, newPage, open, modeUrl } from './helpers.mjs';

const env = useOpenPage({ before, after }, { mode: 'why' });
let page;
before(async () => { page = await env.opened; });

const cli = path.join(root, 'build/native/bin/cachekey');
// 9 pairs in run B's terms: 4 hits, 3 misses (one moved entry 1, two new),
// two programs of day 1 only (the case's README).
const CASE = path.join(root, 'tests/cases/36-missing-atime-0.10.2');

/** `cachekey compare-logs A B --json` in `cwd` (exit 1: a key moved or a program missed). */
function compareJson(a, b, cwd) {
  const r = spawnSync(cli, ['compare-logs', a, b, '--json'], { cwd, maxBuffer: 64 << 20 });
  assert.ok(r.status === 0 || r.status === 1, `cachekey compare-logs ${a} ${b}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

/** Opens two log files of `dir` and waits for the program table. */
async function compareFiles(p, dir, a, b) {
  await p.click('#logs-clear');
  await p.setInputFiles('[data-testid="log-file-a"]', path.join(dir, a));
  await waitForText(p, '[data-testid="log-file-a-name"]', new RegExp(a.replace(/\./g, '\\.')));
  await p.setInputFiles('[data-testid="log-file-b"]', path.join(dir, b));
  await p.waitForSelector('[data-testid="logs-programs"]:not([hidden])');
}

/** The rows in the DOM, in their order: label, pair index, and the cells' data. */
const rows = (p) => p.$$eval('[data-testid^="log-program-"]', (rs) => rs.map((r) => ({
  i: Number(r.getAttribute('data-testid').slice('log-program-'.length)),
  label: r.querySelector('th').textContent,
  cause: Number(r.getAttribute('data-cause')),
  seconds: r.getAttribute('data-seconds'),
  b: r.getAttribute('data-outcome-b'),
  verdict: r.querySelector('td[data-verdict]').getAttribute('data-verdict'),
})));

/** Waits until the live count says `shown` of `total` programs. */
const countIs = (p, shown, total) => waitForText(p, '[data-testid="logs-programs-count"]',
  new RegExp(`^showing ${shown.toLocaleString('en')} of ${total.toLocaleString('en')} programs$`));

test('one row per program: badges, moved entry, seconds lost and verdict are the engine\u2019s', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const want = compareJson('day1.log', 'day2.log', CASE);
  await compareFiles(page, CASE, 'day1.log', 'day2.log');
  await countIs(page, want.pairs.length, want.pairs.length);
  const got = await rows(page);
  assert.deepEqual(got.map((r) => r.label), want.pairs.map((p) => p.label), 'the engine\u2019s order');
  for (const [k, r] of got.entries()) {
    const p = want.pairs[k];
    assert.equal(r.i, k);
    assert.equal(r.cause, p.cause);
    assert.equal(r.verdict, p.findings.verdict.code);
    assert.equal(r.b, p.findings.outcome_b ? p.findings.outcome_b.code : '');
  }
  // A badge's accessible name is the engine's outcome text; its cell shows the verdict text.
  const first = want.pairs[0];
  assert.equal(await page.getAttribute('[data-testid="log-program-0"] td:nth-of-type(2) .badge', 'aria-label'), first.findings.outcome_b.text);
  assert.equal(await page.textContent('[data-testid="log-program-0"] td[data-verdict]'), first.findings.verdict.text);
  // The moved entry: its number and the engine's entry name.
  const moved = want.pairs.findIndex((p) => p.cause > 0);
  assert.ok(moved >= 0);
  assert.equal(await page.textContent(`[data-testid="log-program-${moved}"] td:nth-of-type(3)`), `${want.pairs[moved].cause} ${want.entry_names[want.pairs[moved].cause - 1]}`);
  assert.deepEqual(page.errors, []);
});

test('"misses only" shows the programs run B missed (the CLI verdict\u2019s count and names)', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const want = compareJson('day1.log', 'day2.log', CASE);
  assert.ok(want.verdict.missed > 0 && want.verdict.missed < want.pairs.length, 'the case has hits and misses');
  await compareFiles(page, CASE, 'day1.log', 'day2.log');
  await page.check('[data-testid="logs-programs-misses"]');
  await countIs(page, want.verdict.missed, want.pairs.length);
  const got = await rows(page);
  assert.equal(got.length, want.verdict.missed);
  assert.deepEqual(got.map((r) => r.label).sort(), [...want.verdict.named].sort());
  await shot(page, 'programs-misses.png', '[data-testid="logs-programs-box"]');
  // Unchecked (by keyboard: the checkbox is focusable and labelled), every program again.
  await page.focus('[data-testid="logs-programs-misses"]');
  await page.keyboard.press('Space');
  await countIs(page, want.pairs.length, want.pairs.length);
  assert.equal(await page.getByLabel('Run B\u2019s misses only').isChecked(), false);
  assert.deepEqual(page.errors, []);
});

test('filters by moved entry and by verdict code', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const want = compareJson('day1.log', 'day2.log', CASE);
  await compareFiles(page, CASE, 'day1.log', 'day2.log');
  const cause = want.pairs.find((p) => p.cause > 0).cause;
  const withCause = want.pairs.filter((p) => p.cause === cause).map((p) => p.label);
  await page.getByLabel('Moved entry').selectOption(String(cause));
  await countIs(page, withCause.length, want.pairs.length);
  assert.deepEqual((await rows(page)).map((r) => r.label), withCause);
  await page.getByLabel('Moved entry').selectOption('');
  const code = 'only_in_b';
  const withCode = want.pairs.filter((p) => p.findings.verdict.code === code).map((p) => p.label);
  assert.ok(withCode.length > 0);
  await page.getByLabel('Verdict').selectOption(code);
  await countIs(page, withCode.length, want.pairs.length);
  assert.deepEqual((await rows(page)).map((r) => r.label), withCode);
  await page.getByLabel('Verdict').selectOption('');
  await countIs(page, want.pairs.length, want.pairs.length);
  assert.deepEqual(page.errors, []);
});

test('sorts by seconds lost and by name from the headers, with aria-sort, by keyboard', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const want = compareJson('day1.log', 'day2.log', CASE);
  await compareFiles(page, CASE, 'day1.log', 'day2.log');
  await countIs(page, want.pairs.length, want.pairs.length);
  // Run B's compile seconds for the programs it missed, from the CLI.
  const lost = want.pairs.map((p, i) => {
    const o = p.findings.outcome_b;
    return { i, s: o && o.lookup === 'miss' && typeof o.compile_seconds === 'number' ? o.compile_seconds : -1 };
  });
  const seconds = page.locator('[data-testid="logs-sort-seconds"]');
  await seconds.focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('th[data-sort-key="seconds"][aria-sort="descending"]');
  const desc = [...lost].sort((x, y) => y.s - x.s || x.i - y.i).map((x) => x.i);
  assert.deepEqual((await rows(page)).map((r) => r.i), desc);
  const top = await rows(page);
  assert.equal(Number(top[0].seconds), Math.max(...lost.map((x) => x.s)));
  assert.equal(await page.locator('th[aria-sort]').count(), 1, 'only the sorted header has aria-sort');
  await page.keyboard.press('Enter');
  await page.waitForSelector('th[data-sort-key="seconds"][aria-sort="ascending"]');
  assert.deepEqual((await rows(page)).map((r) => r.i), [...lost].sort((x, y) => x.s - y.s || x.i - y.i).map((x) => x.i));
  await page.click('[data-testid="logs-sort-label"]');
  await page.waitForSelector('th[data-sort-key="label"][aria-sort="ascending"]');
  const byName = want.pairs.map((p, i) => ({ l: p.label, i })).sort((x, y) => (x.l < y.l ? -1 : x.l > y.l ? 1 : x.i - y.i)).map((x) => x.i);
  assert.deepEqual((await rows(page)).map((r) => r.i), byName);
  await shot(page, 'programs-sorted.png', '[data-testid="logs-programs-box"]');
  assert.deepEqual(page.errors, []);
});

test('searches by program name', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const want = compareJson('day1.log', 'day2.log', CASE);
  await compareFiles(page, CASE, 'day1.log', 'day2.log');
  for (const q of ['STEP', 'threefry', 'no such program']) {
    const match = want.pairs.filter((p) => p.label.toLowerCase().includes(q.toLowerCase())).map((p) => p.label);
    await page.getByLabel('Find a program').fill(q);
    await countIs(page, match.length, want.pairs.length);
    assert.deepEqual((await rows(page)).map((r) => r.label), match, q);
  }
  // Search and "misses only" together.
  await page.getByLabel('Find a program').fill('step');
  await page.check('[data-testid="logs-programs-misses"]');
  const both = want.pairs.filter((p) => p.label.includes('step') && p.findings.outcome_b && p.findings.outcome_b.lookup === 'miss');
  await countIs(page, both.length, want.pairs.length);
  assert.ok(both.length > 0);
  assert.deepEqual(page.errors, []);
});

// 100,000 program pairs, engine-shaped: the pairs of a real answer (the
// CLI's for case 36), repeated with numbered labels, varied moved entries
// and compile seconds. Made in the page before the measurement, then sent
// to the page's worker client in the messages worker.js would post (the
// pairs in slices), and shown when the call resolves (logs.mjs
// showLogResult). No logs of 100,000 programs are read: they would be
// hundreds of megabytes.
test('100,000 programs: a few dozen rows in the DOM, no main-thread task over 50 ms after the answer arrives', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const N = 100000;
  const template = compareJson('day1.log', 'day2.log', CASE);
  // The budget is on the page's work, not on the machine's other load: a
  // task stretched over 50 ms by a busy machine (the page suite runs beside
  // Chromium's own processes on 2 cores) is tried again on a fresh page, up
  // to 3 times; a page whose own work is over the budget fails every time.
  for (let attempt = 1; ; attempt++) {
    const p = await newPage(env.browser, { viewport: { width: 1280, height: 900 } });
    try {
      await open(p, modeUrl(env.server.url, 'why'));
      await p.evaluate(([tpl, n]) => {
        const pairs = new Array(n);
        for (let i = 0; i < n; i++) {
          const q = structuredClone(tpl.pairs[i % tpl.pairs.length]);
          q.label = `${q.label}_${i}`;
          if (q.keys === 'differ') q.cause = 1 + (i % 8);
          const o = q.findings.outcome_b;
          if (o && o.lookup === 'miss') o.compile_seconds = ((i * 7919) % 100000) / 100;
          pairs[i] = q;
        }
        // @ts-ignore a test's global
        window.__big = { ...tpl, pairs };
      }, [template, N]);
      const timing = await p.evaluate(async () => {
        const { showLogResult } = await import('./logs.mjs');
        const { EngineWorker } = await import('./worker-client.mjs');
        const t = await import('./transfer.mjs');
        // The worker's side of the answer, as worker.js reply() makes it: the
        // long strings in pieces, the pairs in slices of transfer.mjs ROWS,
        // then the rest. Made before the measurement; each message is posted
        // in a task of its own, as a worker's would arrive.
        // @ts-ignore a test's global
        const big = window.__big;
        const arrays = [];
        const long = [];
        const rest = t.takeLongStrings(t.takeLongArrays(big, arrays), long);
        const messages = [...[...t.pieces(long)].map((piece) => ({ id: 1, piece })),
          ...[...t.rowSlices(arrays)].map(([n, slice]) => ({ id: 1, rows: [n, t.takeLongStrings(slice, long)] })), { id: 1, result: rest }];
        // The page's side: the engine's worker client, its worker a stand-in
        // whose answer comes through a MessageChannel (structured clone, one
        // task per message on this thread).
        const client = new EngineWorker('worker.js');
        // @ts-ignore a stand-in worker: the call is posted nowhere
        client.worker = { postMessage() {}, terminate() {} };
        const channel = new MessageChannel();
        channel.port2.onmessage = (e) => client.receive(e.data);
        const tasks = [];
        const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) tasks.push(e); });
        obs.observe({ type: 'longtask' });
        // The gaps between frames, for the longest stretch the thread was busy
        // (the long-task API reports only tasks over 50 ms).
        const gaps = [];
        let last = performance.now();
        const frame = (now) => {
          gaps.push(now - last);
          last = now;
          // @ts-ignore
          if (!window.__stopFrames) requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
        const t0 = performance.now();
        // As logs.mjs compareLogsUi: the call's answer is rendered when it resolves.
        const shown = client.call('compareLogs', []).then((r) => {
          const s = performance.now();
          showLogResult(r);
          const same = [0, 1999, 2000, 54321, big.pairs.length - 1].every((i) => r.pairs[i].label === big.pairs[i].label);
          return { render: performance.now() - s, pairs: same ? r.pairs.length : -1 };
        });
        for (const m of messages) {
          channel.port1.postMessage(m);
          await t.nextTask();
        }
        const { render, pairs } = await shown;
        // @ts-ignore
        window.__longtasks = { tasks, t0, render, obs, gaps };
        return { render, pairs, messages: messages.length, took: performance.now() - t0 };
      });
      assert.equal(timing.pairs, N, 'the answer arrived whole, in order');
      await countIs(p, N, N);
      const inDom = await p.locator('[data-testid^="log-program-"]').count();
      assert.ok(inDom > 0 && inDom < 200, `${inDom} rows in the DOM`);
      // Scrolling renders the rows in view: the middle and the end.
      const box = p.locator('[data-testid="logs-programs-scroll"]');
      await box.scrollIntoViewIfNeeded();
      for (const frac of [0.5, 1]) {
        await box.evaluate((b, f) => { b.scrollTop = f * (b.scrollHeight - b.clientHeight); }, frac);
        const target = frac === 1 ? N - 1 : null;
        if (target !== null) await p.waitForSelector(`[data-testid="log-program-${target}"]`);
        else await p.waitForFunction(() => [...document.querySelectorAll('[data-testid^="log-program-"]')]
          .some((r) => { const k = Number(r.getAttribute('aria-rowindex')); return k > 40000 && k < 60000; }));
        // The rows shown are inside the box's view.
        const seen = await box.evaluate((b) => {
          const top = b.getBoundingClientRect().top, bottom = b.getBoundingClientRect().bottom;
          return [...b.querySelectorAll('[data-testid^="log-program-"]')].some((r) => { const rr = r.getBoundingClientRect(); return rr.bottom > top && rr.top < bottom; });
        });
        assert.ok(seen, `rows in view at ${frac}`);
        assert.ok(await p.locator('[data-testid^="log-program-"]').count() < 200);
      }
      // Two frames for the last render to finish, then the long tasks since the answer.
      const long = await p.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => {
        // @ts-ignore
        const { tasks, obs, gaps, t0 } = window.__longtasks;
        for (const e of obs.takeRecords()) tasks.push(e);
        obs.disconnect();
        // @ts-ignore
        window.__stopFrames = true;
        // The tasks that started once the answer was handed over.
        resolve({ tasks: tasks.filter((e) => e.startTime >= t0).map((e) => e.duration),
          before: tasks.filter((e) => e.startTime < t0).map((e) => [Math.round(e.startTime - t0), Math.round(e.duration)]), gap: Math.max(...gaps) });
      }))));
      t.diagnostic(`the answer in ${timing.messages} messages over ${timing.took.toFixed(0)} ms, its render ${timing.render.toFixed(1)} ms; long tasks after it: ${JSON.stringify(long.tasks.map((d) => Math.round(d)))}; longest gap between frames: ${long.gap.toFixed(1)} ms; long tasks that started before the answer: ${JSON.stringify(long.before)}`);
      const over = long.tasks.filter((d) => d > 50);
      if (over.length && attempt < 3) {
        t.diagnostic(`attempt ${attempt}: tasks over 50 ms ${JSON.stringify(over.map((d) => Math.round(d)))}; again on a fresh page`);
        continue;
      }
      assert.deepEqual(over, [], `no main-thread task over 50 ms in ${attempt} attempts (render ${timing.render.toFixed(1)} ms)`);
      // Filtering and sorting the 100,000 rows, measured (user actions after the answer).
      const actions = await p.evaluate(async () => {
        const out = {};
        const time = async (name, act) => {
          const s = performance.now();
          act();
          out[name] = Math.round(performance.now() - s);
        };
        const misses = /** @type {HTMLInputElement} */ (document.querySelector('[data-testid="logs-programs-misses"]'));
        await time('misses only', () => misses.click());
        await time('sort by seconds', () => /** @type {HTMLElement} */ (document.querySelector('[data-testid="logs-sort-seconds"]')).click());
        await time('sort by name', () => /** @type {HTMLElement} */ (document.querySelector('[data-testid="logs-sort-label"]')).click());
        const search = /** @type {HTMLInputElement} */ (document.querySelector('[data-testid="logs-programs-search"]'));
        search.value = 'train';
        await time('search', () => search.dispatchEvent(new Event('input')));
        return out;
      });
      t.diagnostic(`actions on 100,000 pairs (ms): ${JSON.stringify(actions)}`);
      await waitForText(p, '[data-testid="logs-programs-count"]', /^showing [\d,]+ of 100,000 programs$/);
      assert.deepEqual(p.errors, []);
      break;
    } finally {
      await p.close();
    }
  }
});
