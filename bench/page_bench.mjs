// Page budgets in Debian Chromium (playwright-core): DOM update after one
// perturbation (median), first-view transfer (gzip, excluding the lazy MLIR
// module), time to interactive on localhost, and the longest main-thread
// block (long task) while 50 MB of module text is canonicalised. Prints one
// JSON line each.
//   node bench/page_bench.mjs [--no-long-task]
import zlib from 'node:zlib';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, launch, newPage, bigModuleText } from '../tests/web/helpers.mjs';

const server = await startServer();
const browser = await launch();
try {
  const page = await newPage(browser);
  const bodies = [];
  page.on('response', (r) => bodies.push(r.body().then((b) => [r.url(), b]).catch(() => [r.url(), Buffer.alloc(0)])));
  await page.goto(server.url);
  await page.waitForSelector('html[data-ready="true"]');
  const files = await Promise.all(bodies);
  const gz = files.map(([u, b]) => [new URL(u).pathname, zlib.gzipSync(b, { level: 9 }).length]);
  const total = gz.reduce((a, [, n]) => a + n, 0);
  console.log(JSON.stringify({ bench: 'page_first_view_gzip_kb', value: +(total / 1024).toFixed(1),
    files: Object.fromEntries(gz.map(([u, n]) => [u, +(n / 1024).toFixed(1)])) }));

  const tti = [];
  for (let i = 0; i < 5; i++) {
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    tti.push(Number(await page.getAttribute('html', 'data-ready-ms')));
  }
  tti.sort((a, b) => a - b);
  console.log(JSON.stringify({ bench: 'page_time_to_interactive_ms', value: tti[2], runs: tti }));

  const times = await page.evaluate(() => {
    const input = document.getElementById('custom-hook');
    const out = [];
    for (let i = 0; i < 101; i++) {
      const t = performance.now();
      input.value = 'hook-' + i;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      out.push(performance.now() - t);
    }
    return out.sort((a, b) => a - b);
  });
  console.log(JSON.stringify({ bench: 'page_dom_update_ms', value: +times[50].toFixed(2),
    p90: +times[90].toFixed(2), runs: times.length }));

  if (!process.argv.includes('--no-long-task')) await longTask(browser, server.url);
} finally {
  await browser.close();
  await server.close();
}

/**
 * Opens a 50 MB module text file (the module text editor's file input) and
 * records, from the choice of the file until one second after its keys are
 * shown (the link is then being written in the worker), every long task of
 * the main thread (PerformanceObserver, 'longtask': tasks over 50 ms) and
 * the largest gap of a 10 ms heartbeat timer (a block shorter than 50 ms
 * shows there).
 */
async function longTask(browser, url) {
  const file = path.join(os.tmpdir(), `cachekey-bench-${process.pid}.mlir`);
  fs.writeFileSync(file, bigModuleText(50 * 1000 * 1000));
  const page = await newPage(browser);
  try {
    await page.goto(url);
    await page.waitForSelector('html[data-ready="true"]');
    await page.click('[data-testid="open-module-text"]');
    await page.waitForFunction(() => !document.querySelector('[data-testid="module-text"]').disabled, null, { timeout: 60000 });
    await page.evaluate(() => {
      const w = { tasks: [], gap: 0, last: performance.now() };
      window.__bench = w;
      new PerformanceObserver((list) => { for (const e of list.getEntries()) w.tasks.push({ start: e.startTime, ms: e.duration }); })
        .observe({ type: 'longtask' });
      w.beat = setInterval(() => { const t = performance.now(); w.gap = Math.max(w.gap, t - w.last); w.last = t; }, 10);
    });
    const t0 = Date.now();
    await page.setInputFiles('[data-testid="module-file"]', file);
    await page.waitForFunction(() => /The module text of/.test(document.querySelector('[data-testid="module-file-name"]').textContent), null, { timeout: 60000 });
    await page.waitForFunction(() => !document.documentElement.hasAttribute('data-module-pending'), null, { timeout: 600000, polling: 500 });
    const seconds = (Date.now() - t0) / 1000;
    await page.waitForTimeout(1000);
    const r = await page.evaluate(() => { clearInterval(window.__bench.beat); return window.__bench; });
    const role = await page.getAttribute('[data-testid="entry-1"]', 'data-role');
    const longest = Math.max(0, ...r.tasks.map((x) => x.ms));
    console.log(JSON.stringify({ bench: 'page_long_task_ms', value: +Math.max(longest, r.gap).toFixed(1),
      long_tasks: r.tasks.length, longest_long_task_ms: +longest.toFixed(1), heartbeat_max_gap_ms: +r.gap.toFixed(1),
      seconds: +seconds.toFixed(1), text_mb: 50, entry1_role: role, errors: page.errors }));
  } finally {
    await page.close();
    fs.rmSync(file, { force: true });
  }
}
