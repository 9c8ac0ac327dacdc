// Page budgets in Debian Chromium (playwright-core): DOM update after one
// perturbation (median), first-view transfer (gzip, excluding the lazy MLIR
// module) and time to interactive on localhost. Prints one JSON line each.
//   node bench/page_bench.mjs
import zlib from 'node:zlib';
import { startServer, launch, newPage } from '../tests/web/helpers.mjs';

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
} finally {
  await browser.close();
  await server.close();
}
