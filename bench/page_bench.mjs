// Page budgets in Debian Chromium (playwright-core): the first view with the
// code walk's lazily loaded source, frame times while the walk and the flag
// filter play (both described where they are measured), the DOM update after one
// perturbation (median), first-view transfer (gzip, excluding the lazy MLIR
// module), time to interactive on localhost, and the longest main-thread
// block (long task) while 50 MB of module text is canonicalised. Prints one
// JSON line each. Frame and heartbeat figures come with an idle page's,
// measured in the same browser right after over as many frames (or as long),
// as the anchor that tells the machine's own hiccups from the page's.
//   node bench/page_bench.mjs [--no-long-task] [--trace] [--rounds N (5)]
// --trace records Chromium's trace during the long-task run and adds, for
// the page's main thread, the longest task by thread (CPU) time and the
// longest by wall time with its CPU time and heaviest events: on a loaded
// machine a task can last long in wall time while the thread waits for a
// core, which is not work the page does.
import zlib from 'node:zlib';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, launch, newPage, bigModuleText } from '../tests/web/helpers.mjs';

const roundsAt = process.argv.indexOf('--rounds');
const ROUNDS = roundsAt > 0 ? Math.max(1, Number(process.argv[roundsAt + 1]) || 5) : 5;
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

  // The code walk loads its data when the reader reaches it: the first view
  // counted with it.
  const walkBodies = [];
  const onWalk = (r) => { if (new URL(r.url()).pathname.includes('/walk/')) walkBodies.push(r.body().then((b) => [r.url(), b]).catch(() => [r.url(), Buffer.alloc(0)])); };
  page.on('response', onWalk);
  await page.locator('#exhibit-walk').scrollIntoViewIfNeeded();
  await page.waitForSelector('#exhibit-walk[data-walk="ready"]');
  const walkFiles = await Promise.all(walkBodies);
  page.off('response', onWalk);
  const walkGz = walkFiles.reduce((a, [, b]) => a + zlib.gzipSync(b, { level: 9 }).length, 0);
  console.log(JSON.stringify({ bench: 'page_first_view_with_walk_gzip_kb', value: +((total + walkGz) / 1024).toFixed(1),
    walk_kb: +(walkGz / 1024).toFixed(1), walk_files: walkFiles.map(([u]) => new URL(u).pathname) }));

  // Frame times while an animation plays: every requestAnimationFrame
  // interval, and the Long Animation Frames (> 50 ms) Chromium reports.
  const frames = async (start, done) => {
    await page.evaluate(() => {
      window.__frames = [];
      window.__loaf = [];
      window.__rec = true;
      try {
        // a long frame's own work: its scripts plus style, layout and paint
        // (the rest of its duration is the main thread waiting for a CPU)
        window.__obs = new PerformanceObserver((l) => {
          for (const e of l.getEntries()) {
            const scripts = e.scripts.reduce((a, x) => a + x.duration, 0);
            const render = e.renderStart ? e.startTime + e.duration - e.renderStart : 0;
            window.__loaf.push({ duration: e.duration, work: scripts + render });
          }
        });
        window.__obs.observe({ type: 'long-animation-frame', buffered: false });
      } catch { window.__obs = null; }
      let last = performance.now();
      const loop = (t) => { window.__frames.push(t - last); last = t; if (window.__rec) requestAnimationFrame(loop); };
      requestAnimationFrame((t) => { last = t; requestAnimationFrame(loop); });
    });
    await start();
    await done();
    const r = await page.evaluate(() => { window.__rec = false; if (window.__obs) window.__obs.disconnect(); return { frames: window.__frames, loaf: window.__loaf }; });
    const f = r.frames.slice().sort((a, b) => a - b);
    return { frames: f.length, max_ms: +f[f.length - 1].toFixed(2), p99_ms: +f[Math.floor(f.length * 0.99)].toFixed(2),
      median_ms: +f[f.length >> 1].toFixed(2), over_16_7_ms: f.filter((x) => x > 16.7 + 1).length, long_animation_frames: r.loaf.length,
      long_frame_max_work_ms: +Math.max(0, ...r.loaf.map((x) => x.work)).toFixed(2), load_average: os.loadavg()[0] };
  };
  // The same frame measure on an idle page in the same browser, run right
  // after, for as many frames: what this machine drops at this moment with
  // no work at all, so that a busy machine does not read as the page's
  // missed frame (issue 40).
  const idleFrames = async (count) => {
    const f = await onIdlePage(browser, (n) => new Promise((resolve) => {
      const out = [];
      let last = 0;
      const loop = (t) => { out.push(t - last); last = t; if (out.length < n) requestAnimationFrame(loop); else resolve(out); };
      requestAnimationFrame((t) => { last = t; requestAnimationFrame(loop); });
    }), count);
    f.sort((a, b) => a - b);
    return { frames: f.length, max_ms: +f[f.length - 1].toFixed(2), over_16_7_ms: f.filter((x) => x > 16.7 + 1).length };
  };
  // Each animation plays ROUNDS times, interleaved with the idle page's
  // measure (the page first in even rounds, the idle page first in odd
  // ones), so that a moment when the machine is busy falls on one round,
  // not on the figure: the figure is the median of the per-round
  // differences (page's missed frames minus the idle page's), reported
  // with their range (issue 40: at least 5 rounds, median and spread).
  const rounds = async (name, prepare, start, done) => {
    const runs = [];
    for (let i = 0; i < ROUNDS; i++) {
      await prepare();
      let idle = null;
      if (i % 2) idle = await idleFrames(runs[i - 1].frames); // as many as the round before
      const r = await frames(start, done);
      if (!idle) idle = await idleFrames(r.frames);
      runs.push({ ...r, idle });
    }
    const diffs = runs.map((r) => r.over_16_7_ms - r.idle.over_16_7_ms);
    const sorted = diffs.slice().sort((a, b) => a - b);
    const median = sorted.length % 2 ? sorted[sorted.length >> 1]
      : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    console.log(JSON.stringify({ bench: name, rounds: runs.length, over_minus_idle_median: median,
      over_minus_idle_min: sorted[0], over_minus_idle_max: sorted[sorted.length - 1],
      long_animation_frames: runs.reduce((a, r) => a + r.long_animation_frames, 0),
      long_frame_max_work_ms: Math.max(...runs.map((r) => r.long_frame_max_work_ms)), runs }));
  };
  await page.fill('[data-testid="jaxlib"]', '0.10.3');
  await rounds('page_walk_autoplay_frames',
    () => page.locator('#exhibit-walk').scrollIntoViewIfNeeded(),
    () => page.click('[data-testid="walk-play"]'),
    () => page.waitForSelector('#exhibit-walk:not([data-playing])[data-step="8"]', { timeout: 30000 }));
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=2 --xla_dump_to=/tmp/x --xla_cpu_enable_fast_math=true');
  await rounds('page_flag_autoplay_frames',
    () => page.locator('#exhibit-flags').scrollIntoViewIfNeeded(),
    async () => { await page.click('[data-testid="flag-play"]'); await page.waitForSelector('#exhibit-flags[data-fp]'); },
    // the marks go at the last step's rest, a step before the player stops
    () => page.waitForSelector('#exhibit-flags:not([data-fp]) [data-testid="flag-play"][aria-pressed="false"]', { timeout: 30000 }));
  await page.click('[data-testid="reset"]');

  // A first view each time: the address without the walk's link state
  // (#entry=8 after the autoplay), which would load the walk during boot.
  const tti = [];
  for (let i = 0; i < 5; i++) {
    await page.goto(server.url);
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
 * Runs `fn(arg)` in a new idle page of `browser` (an empty document, no
 * script of its own) and returns its result: the anchor the page's frame
 * and heartbeat figures are read against.
 */
async function onIdlePage(browser, fn, arg) {
  const idle = await newPage(browser);
  try {
    await idle.setContent('<!doctype html><title>idle baseline</title><p>idle</p>');
    return await idle.evaluate(fn, arg);
  } finally {
    await idle.close();
  }
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
    const tracing = process.argv.includes('--trace');
    const tracePath = path.join(os.tmpdir(), `cachekey-bench-${process.pid}.trace.json`);
    if (tracing) {
      await browser.startTracing(page, { path: tracePath, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel', 'v8'] });
    }
    const t0 = Date.now();
    await page.setInputFiles('[data-testid="module-file"]', file);
    await page.waitForFunction(() => /The module text of/.test(document.querySelector('[data-testid="module-file-name"]').textContent), null, { timeout: 60000 });
    await page.waitForFunction(() => !document.documentElement.hasAttribute('data-module-pending'), null, { timeout: 600000, polling: 500 });
    const seconds = (Date.now() - t0) / 1000;
    await page.waitForTimeout(1000);
    const r = await page.evaluate(() => { clearInterval(window.__bench.beat); return window.__bench; });
    let attribution = {};
    if (tracing) {
      await browser.stopTracing();
      attribution = mainThreadTasks(JSON.parse(fs.readFileSync(tracePath, 'utf8')).traceEvents);
      fs.rmSync(tracePath, { force: true });
    }
    const role = await page.getAttribute('[data-testid="entry-1"]', 'data-role');
    // An idle page's heartbeat over as long, right after: the gap this
    // machine shows with no work at all.
    const idleGap = await onIdlePage(browser, (ms) => new Promise((resolve) => {
      let gap = 0, last = performance.now();
      const beat = setInterval(() => { const t = performance.now(); gap = Math.max(gap, t - last); last = t; }, 10);
      setTimeout(() => { clearInterval(beat); resolve(gap); }, ms);
    }), Math.round((seconds + 1) * 1000));
    const longest = Math.max(0, ...r.tasks.map((x) => x.ms));
    console.log(JSON.stringify({ bench: 'page_long_task_ms', value: +Math.max(longest, r.gap).toFixed(1),
      long_tasks: r.tasks.length, longest_long_task_ms: +longest.toFixed(1), heartbeat_max_gap_ms: +r.gap.toFixed(1),
      idle_heartbeat_max_gap_ms: +idleGap.toFixed(1),
      seconds: +seconds.toFixed(1), text_mb: 50, entry1_role: role, errors: page.errors, ...attribution }));
  } finally {
    await page.close();
    fs.rmSync(file, { force: true });
  }
}

/**
 * The page's main thread (CrRendererMain of the renderer with the most
 * tasks) in a Chromium trace: its longest task by thread time, and its
 * longest by wall time with that task's thread time and heaviest events
 * (durations in ms).
 */
function mainThreadTasks(events) {
  const names = new Map();
  for (const e of events) if (e.name === 'thread_name' && e.args.name === 'CrRendererMain') names.set(`${e.pid}:${e.tid}`, []);
  for (const e of events) if (e.ph === 'X' && e.dur && names.has(`${e.pid}:${e.tid}`)) names.get(`${e.pid}:${e.tid}`).push(e);
  const mine = [...names.values()].sort((a, b) => b.length - a.length)[0] || [];
  const tasks = mine.filter((e) => e.name === 'ThreadControllerImpl::RunTask');
  if (!tasks.length) return { trace: 'no main-thread tasks found' };
  const ms = (us) => +((us || 0) / 1000).toFixed(1);
  const byCpu = tasks.reduce((a, b) => ((b.tdur || 0) > (a.tdur || 0) ? b : a));
  const byWall = tasks.reduce((a, b) => (b.dur > a.dur ? b : a));
  const inside = mine.filter((e) => e !== byWall && e.ts >= byWall.ts && e.ts + e.dur <= byWall.ts + byWall.dur)
    .sort((a, b) => b.dur - a.dur).slice(0, 4).map((e) => `${e.name} ${ms(e.dur)}/${ms(e.tdur)}`);
  return {
    main_tasks: tasks.length,
    main_longest_task_cpu_ms: ms(byCpu.tdur),
    main_longest_task_wall_ms: ms(byWall.dur),
    main_longest_task_wall_cpu_ms: ms(byWall.tdur),
    main_longest_task_wall_events: inside,
  };
}
