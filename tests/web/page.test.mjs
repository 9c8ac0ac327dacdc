// The page in Chromium: the real-JAX default key, one perturbation per
// ingredient through the controls, the flag exhibit, the trace, the two-log
// panel, permalinks, case studies and embedding. Screenshots of every exhibit
// go to build/test-artifacts/ for a person to look at.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { newPage, open, roles, expectedRoles, DEFAULT_KEY, fixture, shot, linkSettled, useOpenPage, waitForText, animationsDone, root, showMode, modeUrl } from './helpers.mjs';

const env = useOpenPage({ before, after, beforeEach }, { reset: true });
const CLI = path.join(root, 'build/native/bin/cachekey');
let page;

before(async () => { page = await env.opened; });

const finalKey = () => page.textContent('[data-testid="final-key"]');

async function expectCause(n, label) {
  assert.deepEqual(await roles(page), expectedRoles(n), label);
  assert.notEqual(await finalKey(), DEFAULT_KEY, label + ': key must move');
}

test('the default scenario shows the key real JAX computed for add_1x1', async () => {
  const fx = fixture('add_1x1');
  assert.equal(await finalKey(), fx.expected.key);
  assert.equal(await page.textContent('[data-testid="baseline-key"]'), fx.expected.key);
  const rows = await page.$$eval('li[data-testid^="entry-"]', (rs) => rs.map((r) => ({
    digest: r.getAttribute('data-digest'), running: r.getAttribute('data-running'), role: r.getAttribute('data-role'),
  })));
  assert.equal(rows.length, 8);
  fx.expected.entries.forEach((e, i) => {
    assert.equal(rows[i].digest, e.digest, e.name);
    assert.equal(rows[i].running, e.running, e.name);
    assert.equal(rows[i].role, 'same');
  });
  assert.match(await page.textContent('[data-testid="trace"]'), /get_cache_key hash after serializing custom_hook: 952bea4d/);
  assert.equal(await page.$eval('#module-text', (t) => t.disabled), true, 'no MLIR in this build: the editor is disabled');
  assert.match(await page.textContent('[data-testid="module-text-why"]'), /MLIR/);
  await shot(page, 'page-top.png');
  assert.deepEqual(page.errors, []);
});

test('module: another fixture\u2019s bytes make entry 1 the cause', async () => {
  await page.selectOption('[data-testid="module-source"]', 'mul_2x2');
  await expectCause(1, 'module');
  assert.match(await finalKey(), /^jit_mul-/);
});

test('include_metadata switches between the captured _meta/_nometa bytes', async () => {
  await page.selectOption('#preset', 'lines_a_nometa');
  assert.equal(await page.$eval('#include-metadata', (c) => c.disabled), false);
  await page.check('#include-metadata');
  await expectCause(1, 'include_metadata');
  assert.equal(await page.$eval('#module-source', (s) => s.value), 'lines_a_meta');
  await page.uncheck('#include-metadata');
  assert.deepEqual(await roles(page), expectedRoles(99));
});

test('jaxlib version moves entry 2', async () => {
  await page.fill('[data-testid="jaxlib"]', '0.10.3');
  await expectCause(2, 'jaxlib');
});

test('platform and platform_version move entry 3', async () => {
  await page.fill('[data-testid="platform"]', 'gpu');
  await expectCause(3, 'platform');
  await page.click('[data-testid="reset"]');
  await page.fill('[data-testid="platform-version"]', 'cpu\nsecond line');
  await expectCause(3, 'platform_version');
});

test('XLA_FLAGS, LIBTPU_INIT_ARGS and argv move entry 4; a dump flag does not', async () => {
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1');
  await expectCause(4, 'XLA_FLAGS');
  await page.click('[data-testid="reset"]');
  await page.fill('[data-testid="libtpu-args"]', '--xla_tpu_enable_x=true');
  await expectCause(4, 'LIBTPU_INIT_ARGS');
  await page.click('[data-testid="reset"]');
  await page.fill('[data-testid="argv"]', 'train.py\n--xla_cpu_flag=1');
  await expectCause(4, 'argv');
  await page.click('[data-testid="reset"]');
  await page.fill('[data-testid="xla-flags"]', '--xla_dump_to=/tmp/dump');
  assert.deepEqual(await roles(page), expectedRoles(99), 'a dump flag keeps every entry');
  assert.equal(await finalKey(), DEFAULT_KEY);
});

test('compile options (DebugOptions, overrides, device assignment, replicas, fdo) move entry 5', async () => {
  await page.selectOption('[data-testid="dbg-field"]', 'xla_gpu_autotune_level');
  await page.fill('[data-testid="dbg-value"]', '1');
  await page.click('[data-testid="dbg-add"]');
  await expectCause(5, 'xla_gpu_autotune_level');
  assert.match(await page.textContent('[data-testid="dbg-list"]'), /xla_gpu_autotune_level = 1/);

  await page.click('[data-testid="reset"]');
  await page.selectOption('[data-testid="dbg-field"]', 'xla_dump_to');
  await page.fill('[data-testid="dbg-value"]', '/tmp/dump');
  await page.click('[data-testid="dbg-add"]');
  assert.deepEqual(await roles(page), expectedRoles(99), 'xla_dump_to is zeroed before hashing');

  await page.click('[data-testid="reset"]');
  await page.fill('[data-testid="env-name"]', '--xla_dump_to');
  await page.fill('[data-testid="env-value"]', '/tmp/x');
  await page.click('[data-testid="env-add"]');
  await expectCause(5, 'env override spelled with dashes is kept');
  await page.click('[data-testid="reset"]');
  await page.fill('[data-testid="env-name"]', 'xla_dump_to');
  await page.fill('[data-testid="env-value"]', '/tmp/x');
  await page.click('[data-testid="env-add"]');
  assert.deepEqual(await roles(page), expectedRoles(99), 'env override named like an excluded flag is dropped');

  await page.click('[data-testid="reset"]');
  await page.check('[data-testid="da-on"]');
  await page.fill('[data-testid="da-ids"]', '1');
  await expectCause(5, 'device assignment on CPU');

  await page.click('[data-testid="reset"]');
  await page.fill('[data-testid="num-replicas"]', '2');
  await expectCause(5, 'num_replicas');

  await page.click('[data-testid="reset"]');
  await page.fill('[data-testid="fdo-profile"]', 'AAEC');
  await expectCause(5, 'fdo_profile');
});

test('accelerator: TPU (measured with libtpu), GPU and the device_kind fallback move entry 6', async () => {
  await page.selectOption('[data-testid="accel-kind"]', 'tpu');
  await expectCause(6, 'tpu');
  // The TPU topologies are libtpu's own values (tests/web/tpu.test.mjs checks them).
  assert.equal(await page.isVisible('[data-testid="entry-6"] .stand-in'), false, 'entry 6: no stand-in');
  assert.equal(await page.isVisible('#accel-tpu .stand-in'), false, 'the control: no stand-in');
  await page.selectOption('[data-testid="tpu-topology"]', 'v4:2x2x4');
  await expectCause(6, 'tpu v4:2x2x4');

  await page.click('[data-testid="reset"]');
  assert.equal(await page.isVisible('[data-testid="entry-6"] .stand-in'), false);
  await page.selectOption('[data-testid="accel-kind"]', 'gpu');
  await expectCause(6, 'gpu');

  await page.click('[data-testid="reset"]');
  await page.selectOption('[data-testid="accel-kind"]', 'fallback');
  await expectCause(6, 'fallback');
  assert.match(await page.textContent('[data-testid="trace"]'), /falling back to hashing devices/);

  await page.click('[data-testid="reset"]');
  await page.selectOption('[data-testid="accel-kind"]', 'cpu');
  await page.fill('[data-testid="cpu-name"]', 'sapphirerapids');
  await expectCause(6, 'cpu target');
});

test('compression moves entry 7; Python 3.14 reports zlib', async () => {
  await page.selectOption('[data-testid="compression"]', 'zstandard');
  await expectCause(7, 'zstandard');
  await page.selectOption('[data-testid="compression"]', 'py314-zstd');
  // 0.10.2 profile, Python 3.14: the name fed is zlib, as in the capture
  assert.deepEqual(await roles(page), expectedRoles(99));
});

test('custom_hook moves entry 8', async () => {
  await page.fill('[data-testid="custom-hook"]', 'my-hook');
  await expectCause(8, 'custom_hook');
});

test('profile switch: main zeroes field 310, so entry 5 moves for a 0.10.2 capture', async () => {
  await page.uncheck('[data-testid="profile-jaxlib"]'); // only cache_key.py changes
  await page.selectOption('[data-testid="profile"]', 'main');
  await expectCause(5, 'profile');
  assert.match(await page.textContent('[data-testid="sentence"]'), /xla_gpu_per_fusion_autotune_cache_dir/);
  assert.match(await page.textContent('[data-testid="profile-meaning"]'), /baseline stays at jax 0\.10\.2.*perturbed side follows jax 0\.12\.0\.1.*jaxlib 0\.10\.2 \(unchanged/);
  await page.check('[data-testid="profile-jaxlib"]');
});

// Issue 22, item 3: the picker compares with a release, and by default that
// side gets the release's own jaxlib, so an upgrade moves entry 2 as a real
// one does (pip installs jax and jaxlib of one version together).
test('release picker: "compare with" a release also sets that side\u2019s jaxlib; the page says which side follows what', async () => {
  const fx = fixture('add_1x1');
  const capturedWith = fx.provenance.jax;
  await page.selectOption('[data-testid="profile"]', 'main');
  await page.waitForFunction(() => document.querySelector('[data-testid="entry-2"]').getAttribute('data-role') === 'cause');
  assert.equal(await page.inputValue('[data-testid="jaxlib"]'), '0.12.0.1', 'entry 2 gets the release\u2019s own jaxlib');
  assert.equal(await page.getAttribute('[data-testid="entry-5"]', 'data-own-changed'), '', 'entry 5 still moves (field 310)');
  const meaning = await page.textContent('[data-testid="profile-meaning"]');
  assert.match(meaning, new RegExp(`baseline stays at jax ${capturedWith.replace(/\./g, '\\.')}`));
  assert.match(meaning, /perturbed side follows jax 0\.12\.0\.1.*with jaxlib 0\.12\.0\.1/);
  // back to the baseline's release: nothing is left in the patch
  await page.selectOption('[data-testid="profile"]', capturedWith);
  await waitForText(page, '[data-testid="sentence"]', /Nothing moved/);
  assert.equal(await page.inputValue('[data-testid="jaxlib"]'), fx.jaxlib_version ?? capturedWith);
  assert.match(await page.textContent('[data-testid="profile-meaning"]'), /^Both sides follow jax/);
  assert.equal(await finalKey(), DEFAULT_KEY);
});

// Issue 36 item 6: the jaxlib a release comes with is the engine's
// (profiles' jaxlibs), not the release's own number: jax 0.4.37 and 0.5.2
// came without a jaxlib of their version. Expected: the jaxlib column of
// the oracle sweep, which installed each release with pip.
test('release picker: a jax-only patch release brings the jaxlib pip installs with it', async () => {
  const doc = fs.readFileSync(path.join(root, 'docs/oracle-sweep.md'), 'utf8');
  const sweep = doc.slice(doc.indexOf('| release | jaxlib |')).split('\n\n')[0]; // the first table
  const installed = new Map([...sweep.matchAll(/^\| (0\.[\d.]+) \| (0\.[\d.]+) \|/gm)].map((m) => [m[1], m[2]]));
  assert.equal(installed.get('0.4.37'), '0.4.36');
  for (const release of ['0.4.37', '0.5.2', '0.8.3']) {
    await page.selectOption('[data-testid="profile"]', release);
    await page.waitForFunction((v) => document.querySelector('[data-testid="jaxlib"]').value === v, installed.get(release));
    assert.match(await page.textContent('[data-testid="profile-meaning"]'), new RegExp(`follows jax ${release.replace(/\./g, '\\.')}.*with jaxlib ${installed.get(release).replace(/\./g, '\\.')}`));
  }
  await page.click('[data-testid="reset"]');
  assert.deepEqual(page.errors, []);
});

test('the flag exhibit shows each flag kept or dropped, with JAX\u2019s log line and bytes', async () => {
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1  --xla_dump_to=/tmp/d --xla_force_host_platform_device_count=4');
  await page.fill('[data-testid="libtpu-args"]', '--xla_tpu_x=1');
  await page.fill('[data-testid="argv"]', 'train.py\n--xla_cpu_y\n--other');
  const rows = await page.$$eval('[data-testid="flag-row"]', (rs) => rs.map((r) => [r.getAttribute('data-flag'), r.getAttribute('data-included'), r.querySelector('.logline').textContent]));
  assert.deepEqual(rows.map((r) => r.slice(0, 2)), [
    ['--xla_cpu_y', 'true'],
    ['--xla_dump_to=/tmp/d', 'false'],
    ['--xla_force_host_platform_device_count=4', 'false'],
    ['--xla_gpu_autotune_level=1', 'true'],
    ['--xla_tpu_x=1', 'true'],
  ]);
  assert.equal(rows[1][2], 'Not including XLA flag in cache key: --xla_dump_to=/tmp/d');
  assert.equal(rows[0][2], 'Including XLA flag in cache key: --xla_cpu_y');
  const bytes = await page.$$eval('[data-testid="flag-bytes"] .hexwrap', (cs) => cs.map((c) => c.textContent));
  assert.deepEqual(bytes, ['--xla_cpu_y', '--xla_gpu_autotune_level=1', '--xla_tpu_x=1'].map((f) => Buffer.from(f).toString('hex')));
  const digest4 = await page.getAttribute('[data-testid="entry-4"]', 'data-digest');
  assert.equal(await page.textContent('[data-testid="flags-digest"]'), digest4);
  assert.match(await page.textContent('[data-testid="flags-collected"]'), /argv: --xla_cpu_y/);
  await shot(page, 'exhibit-flags.png', '#exhibit-flags');
});

test('the trace is JAX\u2019s DEBUG lines and can be copied', async () => {
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1');
  const trace = (await page.textContent('[data-testid="trace"]')).split('\n');
  assert.equal(trace.length, 16 + 2);
  assert.equal(trace[6], 'Including XLA flag in cache key: --xla_gpu_autotune_level=1');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.click('[data-testid="copy-trace"]');
  // The copy is asynchronous (navigator.clipboard): wait for its outcome.
  assert.equal(await waitForText(page, '#copy-trace-status', /copied|refused/), 'Trace copied.');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), trace.join('\n'));
  await shot(page, 'exhibit-trace.png', '#exhibit-trace');
});

test('two pasted real logs: the computation is named; a truncated log is reported', async () => {
  await showMode(page, 'why');
  await page.click('[data-testid="logs-example"]');
  await page.waitForSelector('[data-testid="logs-verdict"]:not([hidden])');
  assert.match(await page.textContent('[data-testid="logs-sentence"]'), /entry 1 \(computation\)/);
  const logRoles = await page.$$eval('[data-testid^="log-row-"]', (rs) => rs.map((r) => r.getAttribute('data-role')));
  assert.deepEqual(logRoles, expectedRoles(1));
  await shot(page, 'exhibit-logs.png', '#exhibit-logs');

  const a = await page.inputValue('[data-testid="log-a"]');
  await page.fill('[data-testid="log-b"]', a.slice(0, 500));
  await page.click('[data-testid="logs-compare"]');
  await page.waitForSelector('[data-testid="logs-error"]:not([hidden])');
  assert.match(await page.textContent('[data-testid="logs-error"]'), /incomplete|missing/);
  assert.equal(await page.isVisible('[data-testid="logs-table"]'), false);

  await page.fill('[data-testid="log-a"]', 'nothing to see\n<b>here</b>');
  await page.click('[data-testid="logs-compare"]');
  await waitForText(page, '[data-testid="logs-error"]', /no cache-key lines/);
  assert.deepEqual(page.errors, []);
});

test('permalinks: one perturbation is a short link that reopens the same key and roles', async () => {
  const perturb = [
    ['xla flags', async () => page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1')],
    ['jaxlib', async () => page.fill('[data-testid="jaxlib"]', '0.11.1.dev20260801')],
    ['platform', async () => page.fill('[data-testid="platform"]', 'tpu')],
    ['debug option', async () => {
      await page.selectOption('[data-testid="dbg-field"]', 'xla_gpu_autotune_level');
      await page.fill('[data-testid="dbg-value"]', '0');
      await page.click('[data-testid="dbg-add"]');
    }],
    ['tpu', async () => page.selectOption('[data-testid="accel-kind"]', 'tpu')],
    ['compression', async () => page.selectOption('[data-testid="compression"]', 'zstandard')],
    ['custom hook', async () => page.fill('[data-testid="custom-hook"]', 'hook')],
    ['profile', async () => page.selectOption('[data-testid="profile"]', 'main')],
  ];
  for (const [label, act] of perturb) {
    await page.click('[data-testid="reset"]');
    await act();
    await linkSettled(page);
    const hash = await page.evaluate(() => location.hash);
    assert.match(hash, /^#s1=[A-Za-z0-9_-]+$/, label);
    const link = await page.inputValue('[data-testid="permalink"]');
    assert.ok(link.length <= 300, `${label}: ${link.length} chars`);
    assert.equal(link, modeUrl(env.server.url, 'how') + hash, label);
    const key = await finalKey();
    const r = await roles(page);
    const p2 = await newPage(env.browser);
    await open(p2, link);
    assert.equal(await p2.textContent('[data-testid="final-key"]'), key, label);
    assert.deepEqual(await roles(p2), r, label);
    assert.equal(await p2.isVisible('[data-testid="link-error"]'), false);
    assert.deepEqual(p2.errors, [], label);
    await p2.close();
  }
});

test('permalinks: a case study with a derived preset round-trips; a huge module offers a file instead', async () => {
  await page.click('[data-testid="case-gpu-multiprocess"] button[data-case]');
  await linkSettled(page);
  const link = await page.inputValue('[data-testid="permalink"]');
  const p2 = await newPage(env.browser);
  await open(p2, link);
  assert.equal(await p2.textContent('[data-testid="final-key"]'), await finalKey());
  assert.equal(await p2.$eval('#preset', (s) => s.value), 'gpu_2proc');
  await p2.close();

  await page.click('[data-testid="reset"]');
  await page.selectOption('[data-testid="module-source"]', 'large_mlp');
  await linkSettled(page);
  await page.waitForSelector('[data-testid="too-long"]:not([hidden])');
  assert.match(await page.textContent('[data-testid="too-long"]'), /more than the 8000/);
  assert.equal(await page.evaluate(() => location.hash), '', 'no link over 8000 characters is produced');
  assert.equal(await page.inputValue('[data-testid="permalink"]'), '');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="download-scenario"]')]);
  const file = await download.path();
  await shot(page, 'share-too-long.png', '#share');
  await page.click('[data-testid="reset"]');
  await page.setInputFiles('[data-testid="upload-scenario"]', file);
  await page.waitForFunction(() => /Opened/.test(document.querySelector('[data-testid="upload-status"]').textContent));
  assert.equal(await page.getAttribute('[data-testid="entry-1"]', 'data-role'), 'cause');
  assert.match(await finalKey(), /^jit_large_mlp-/);
  await page.setInputFiles('[data-testid="upload-scenario"]', { name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"schema":1,"base":"add_1x1","jaxlib_version":5}') });
  await page.waitForFunction(() => /Not opened/.test(document.querySelector('[data-testid="upload-status"]').textContent));
  assert.match(await page.textContent('[data-testid="upload-status"]'), /jaxlib_version/);
});

test('case studies: each is one click and shows the expected outcome', async () => {
  const cases = [
    ['custom-partitioning', 1], ['source-lines', 1], ['gpu-multiprocess', 0],
    ['flag-order', 0], ['dump-flag', 0], ['python314', 0],
  ];
  // The Pallas case is computed live (it loads the MLIR module first):
  // tests/web/mlir.test.mjs. The TPU cases: tests/web/tpu.test.mjs.
  for (const [id, cause] of cases) {
    await page.click(`[data-testid="case-${id}"] button[data-case]`);
    assert.deepEqual(await roles(page), expectedRoles(cause || 99), id);
    const href = await page.getAttribute(`[data-testid="case-${id}"] .src-links a`, 'href');
    assert.match(href, /^https:\/\/github\.com\/jax-ml\/jax\/(issues|pull|blob)\//, id);
  }
  await page.click('[data-testid="case-source-lines"] button[data-case-alt]');
  assert.deepEqual(await roles(page), expectedRoles(99), 'lines without metadata: same key');
  await shot(page, 'cases.png', '#cases');
  await shot(page, 'questions.png', '#questions');
});

test('questions link to the upstream functions at the pinned tag', async () => {
  const hrefs = await page.$$eval('#questions a', (as) => as.map((a) => a.href));
  for (const fn of [75, 207, 219, 232, 280, 337, 342, 368]) {
    assert.ok(hrefs.includes(`https://github.com/jax-ml/jax/blob/jax-v0.10.2/jax/_src/cache_key.py#L${fn}`), String(fn));
  }
  assert.equal(await page.$$eval('[data-testid^="question-"]', (q) => q.length), 5);
  // The example logs are compared by the worker once the question is in view.
  await page.locator('[data-testid="debug-example-sentence"]').scrollIntoViewIfNeeded();
  await waitForText(page, '[data-testid="debug-example-sentence"]', /^log A holds \d+ programs? and log B \d+/);
});

test('after a perturbation the entries exhibit marks cause and consequences (screenshot)', async () => {
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1');
  // The announcement is debounced; the row animation ends by itself.
  await waitForText(page, '[data-testid="announce"]', /Key changed/);
  await animationsDone(page);
  await shot(page, 'exhibit-entries.png', '#exhibit-entries');
  await shot(page, 'controls.png', '#controls');
});

test('keyboard: controls are reachable, focus is visible, targets are at least 24px', async () => {
  await page.focus('#preset');
  await page.keyboard.press('Tab');
  const outline = await page.evaluate(() => {
    const a = document.activeElement;
    const s = getComputedStyle(a);
    return { id: a.id, width: parseFloat(s.outlineWidth), style: s.outlineStyle };
  });
  assert.equal(outline.id, 'profile');
  assert.ok(outline.width >= 2 && outline.style !== 'none', JSON.stringify(outline));
  // type into XLA_FLAGS with the keyboard only
  await page.focus('#xla-flags');
  await page.keyboard.type('--xla_gpu_autotune_level=3');
  assert.equal(await page.getAttribute('[data-testid="entry-4"]', 'data-role'), 'cause');
  const small = await page.$$eval('button, select, input:not([type="checkbox"]), textarea', (ns) => ns
    .filter((n) => n.offsetParent !== null)
    .map((n) => [n.id || n.textContent.trim().slice(0, 20), n.getBoundingClientRect()])
    .filter(([, r]) => r.width < 24 || r.height < 24)
    .map(([id]) => id));
  assert.deepEqual(small, []);
});

// Budgets (DOM update time, first-view transfer, time to interactive) are
// measured by bench/page_bench.mjs, not asserted here.
test('first view loads no MLIR module', async () => {
  const p = await newPage(env.browser);
  const urls = [];
  p.on('response', (r) => urls.push(new URL(r.url()).pathname));
  await open(p, env.server.url);
  // The default scenario's link is written too (it needs no engine): the
  // worker's engine is not loaded for it either.
  await linkSettled(p);
  assert.ok(urls.some((u) => u.endsWith('cachekey_engine_key.wasm')), urls.join(','));
  // The whole API (the worker's) comes with the first job, not with the first view.
  assert.ok(!urls.some((u) => u.endsWith('cachekey_engine.wasm')), urls.join(','));
  assert.ok(!urls.some((u) => /mlir/.test(u)), urls.join(','));
  await p.close();
});

test('the release picker lists every reproduced jax release; an old one hashes seven entries', async () => {
  const profiles = JSON.parse(execFileSync(CLI, ['profiles', '--json'], { encoding: 'utf8' }));
  const releases = profiles.profiles.flatMap((p) => p.releases);
  const offered = await page.$$eval('[data-testid="profile"] option', (os) => os.map((o) => o.value));
  for (const r of releases) assert.ok(offered.includes(r), r);
  assert.ok(offered.includes('main'));
  // jax 0.5.3 has no backend-version entry: entry 3 is not hashed there.
  await page.selectOption('[data-testid="profile"]', '0.5.3');
  await page.waitForFunction(() => document.querySelector('[data-testid="entry-3"]').getAttribute('data-hashed') === 'false');
  assert.match(await page.textContent('[data-testid="entry-3"] .len'), /not hashed/);
  // No digest JAX never computes: entry 3 has no own digest, its running
  // digest is entry 2's carried over (JAX's SHA-256 state is untouched
  // between them), and no all-zero digest is shown anywhere.
  assert.equal(await page.getAttribute('[data-testid="entry-3"]', 'data-digest'), '');
  assert.equal(await page.getAttribute('[data-testid="entry-3"]', 'data-running'), await page.getAttribute('[data-testid="entry-2"]', 'data-running'));
  assert.doesNotMatch(await page.evaluate(() => document.body.innerText), /0{16}/, 'no invented all-zero digest');
  assert.doesNotMatch(await page.evaluate(() => [...document.querySelectorAll('#pipeline title')].map((t) => t.textContent).join('\n')), /0{16}/);
  assert.match(await page.textContent('[data-testid="profile-note"]'), /0\.4\.36.*0\.5\.3/);
  assert.notEqual(await page.textContent('[data-testid="final-key"]'), DEFAULT_KEY);
  await linkSettled(page);
  const link = await page.inputValue('[data-testid="permalink"]');
  const p2 = await newPage(env.browser);
  await open(p2, link);
  assert.equal(await p2.$eval('#profile', (s) => s.value), '0.5.3', 'the permalink carries the release');
  assert.equal(await p2.getAttribute('[data-testid="entry-3"]', 'data-hashed'), 'false');
  await p2.close();
});

test('"what changed" compares any two releases with the engine\u2019s own description', async () => {
  await page.click('[data-testid="profile-compare"] summary');
  await page.selectOption('[data-testid="profile-from"]', '0.10.2');
  await page.selectOption('[data-testid="profile-to"]', '0.12.0.1');
  const items = await page.$$eval('[data-testid="profile-changes"] li', (ls) => ls.map((l) => l.textContent));
  const expected = JSON.parse(execFileSync(CLI, ['profiles', '--json'], { encoding: 'utf8' }));
  const excl = (id) => expected.profiles.find((p) => p.id === id).excluded_flags;
  // The page names every flag the newer release adds to the exclusion list.
  for (const f of excl('0.12.0.1').filter((x) => !excl('0.10.2').includes(x))) {
    assert.ok(items.some((t) => t.includes(f)), f);
  }
  assert.ok(items.some((t) => /Mosaic/.test(t)));
  await page.selectOption('[data-testid="profile-from"]', '0.12.0');
  await page.selectOption('[data-testid="profile-to"]', 'main');
  assert.match(await page.textContent('[data-testid="profile-changes"]'), /the same way/);
  await shot(page, 'profile-compare.png', '#controls');
});

test('the page runs under its CSP without \'unsafe-eval\' and reports no violation', async () => {
  const p = await newPage(env.browser);
  await p.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective}: ${e.blockedURI}`));
  });
  await open(p, env.server.url);
  const csp = await p.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.doesNotMatch(csp, /[^-]'unsafe-eval'|^'unsafe-eval'| 'unsafe-eval'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  // Both engines run: the first view's and, once the editor opens, the one with MLIR.
  await p.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1');
  await p.click('[data-testid="open-module-text"]');
  await p.waitForSelector('html[data-mlir="ready"]', { timeout: 30000 });
  assert.deepEqual(await p.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(p.errors, []);
  await p.close();
});

test('captured files open in the page: one is checked against real JAX, two are compared', async () => {
  const dir = path.join(root, 'tests/web/data');
  const a = path.join(dir, 'capture-a/0003-jit_scaled.json');
  const b = path.join(dir, 'capture-b/0003-jit_scaled.json');
  const realA = JSON.parse(fs.readFileSync(a, 'utf8')).expected.key;
  const realB = JSON.parse(fs.readFileSync(b, 'utf8')).expected.key;
  await page.setInputFiles('[data-testid="upload-scenario"]', a);
  const one = await waitForText(page, '[data-testid="upload-status"]', /^Opened|^Not opened/);
  assert.match(one, /equals the key real JAX computed/);
  assert.match(one, /Program jit_scaled/, 'the opened file names its program');
  assert.equal(await page.textContent('[data-testid="final-key"]'), realA);
  // A scenario based on an opened file has no link: Copy link is disabled and says why.
  await page.waitForFunction(() => document.querySelector('[data-testid="copy-link"]').disabled);
  assert.match(await page.textContent('#link-info'), /^No link: .*file you opened/);

  await page.setInputFiles('[data-testid="upload-scenario"]', [a, b]);
  await waitForText(page, '[data-testid="upload-status"]', /\(compared, key/);
  assert.equal(await page.textContent('[data-testid="baseline-key"]'), realA);
  assert.equal(await page.textContent('[data-testid="final-key"]'), realB);
  // The one change made between the two runs: the flag (entry 4).
  assert.equal(await page.getAttribute('[data-testid="entry-4"]', 'data-role'), 'cause');
  assert.match(await page.textContent('[data-testid="sentence"]'), /--xla_cpu_enable_fast_math=true/);
  assert.deepEqual(page.errors, []);
});

// A flag XLA also parses into DebugOptions moves entry 4 (the cause) and
// entry 5 with it: entry 5's row says it moved by the same change, not that
// another ingredient moved (the engine's role code, with_cause).
test('an entry moved with the cause says so, by its role code', async () => {
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1');
  // (the row shows a moved-with entry as a consequence, with the note)
  await page.waitForFunction(() => document.querySelector('[data-testid="entry-5"]').getAttribute('data-role') === 'consequence'
    && !document.querySelector('[data-testid="entry-5"] .also').hidden);
  assert.equal(await page.getAttribute('[data-testid="entry-4"]', 'data-role'), 'cause');
  assert.match(await page.textContent('[data-testid="entry-5"] .role-badge'), /with/);
  assert.equal(await page.textContent('[data-testid="entry-5"] .also'), 'Its own digest differs too, moved by the same change as the cause.');
  assert.equal(await page.isVisible('[data-testid="entry-5"] .also'), true);
  await page.fill('[data-testid="xla-flags"]', '');
  await page.waitForFunction(() => document.querySelector('[data-testid="entry-5"]').getAttribute('data-role') === 'same');
});

test('the perturbed side is described in words, not as the JSON merge patch', async () => {
  await page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1');
  const desc = await waitForText(page, '[data-testid="perturbed-desc"]', /XLA_FLAGS/);
  assert.equal(desc, 'baseline + XLA_FLAGS = \u201c--xla_gpu_autotune_level=1\u201d');
  await page.fill('[data-testid="custom-hook"]', 'hooked');
  const two = await waitForText(page, '[data-testid="perturbed-desc"]', /custom_hook/);
  assert.match(two, /XLA_FLAGS = \u201c--xla_gpu_autotune_level=1\u201d; custom_hook = \u201chooked\u201d|custom_hook = \u201chooked\u201d; XLA_FLAGS/);
  assert.doesNotMatch(two, /[{}]/, 'no JSON');
});

// Issue 22, item 7: say why nothing moved. The expectations come from the
// change made here: JAX's _hash_string strips the platform string, and a
// value typed equal to the baseline's leaves no patch at all.
test('nothing moved, and the page says why: stripped whitespace, a value equal to the baseline', async () => {
  await page.click('[data-testid="reset"]');
  await page.fill('[data-testid="platform"]', ' cpu ');
  await waitForText(page, '[data-testid="sentence"]', /^Nothing moved.*But: platform 'cpu' and ' cpu ' feed the same bytes: hash-string strips ASCII whitespace/);
  assert.match(await page.textContent('[data-testid="perturbed-desc"]'), /^baseline \+ /);
  assert.equal(await finalKey(), DEFAULT_KEY);
  await page.click('[data-testid="reset"]');
  const jaxlib = await page.inputValue('[data-testid="jaxlib"]');
  await page.fill('[data-testid="jaxlib"]', jaxlib + '.dev1');
  await page.waitForFunction((k) => document.querySelector('[data-testid="final-key"]').textContent !== k, DEFAULT_KEY);
  await page.fill('[data-testid="jaxlib"]', jaxlib);
  await waitForText(page, '[data-testid="perturbed-desc"]', /the value set is the baseline\u2019s own/);
  assert.equal(await finalKey(), DEFAULT_KEY);
});

// Only the module name differs (a scenario file naming another sym_name):
// the page says so because the engine's advice says so (code module_name),
// not from digests it compares itself; the key's digest shown beside the
// controls is the last running digest, the part of the key after the name.
test('only the module name differs: the verdict follows the engine\u2019s module_name advice', async () => {
  await page.click('[data-testid="reset"]');
  await page.setInputFiles('[data-testid="upload-scenario"]', { name: 'renamed.json', mimeType: 'application/json',
    buffer: Buffer.from('{"schema":1,"base":"add_1x1","module":{"sym_name":"jit_renamed"}}') });
  await page.waitForFunction(() => /Opened/.test(document.querySelector('[data-testid="upload-status"]').textContent));
  await waitForText(page, '[data-testid="keys-verdict"]', /^Only the module-name prefix differs/);
  assert.equal(await page.getAttribute('[data-testid="advice"]', 'data-advice'), 'module_name');
  const key = await finalKey();
  assert.match(key, /^jit_renamed-/);
  assert.equal(await page.textContent('#controls-status'), `Only the module name differs \u2014 ${key.slice('jit_renamed-'.length, 'jit_renamed-'.length + 12)}\u2026`);
  await page.click('[data-testid="reset"]');
});

// Issue 22, item 2: many moved fields are one clause in the sentence; the
// list keeps every field, the ones past five folded under "N more".
test('seven moved DebugOptions fields: one clause in the sentence, every field in the list', async () => {
  await page.click('[data-testid="reset"]');
  const set = [['xla_cpu_enable_fast_math', 'true'], ['xla_backend_optimization_level', '1'], ['xla_gpu_autotune_level', '1'],
    ['xla_cpu_fast_math_honor_nans', 'false'], ['xla_llvm_disable_expensive_passes', 'true'], ['xla_cpu_fast_math_honor_infs', 'false'],
    ['xla_gpu_enable_fast_min_max', 'true']];
  for (const [i, [field, value]] of set.entries()) {
    await page.selectOption('[data-testid="dbg-field"]', field);
    await page.fill('[data-testid="dbg-value"]', value);
    await page.click('[data-testid="dbg-add"]');
    await page.waitForFunction((n) => document.querySelectorAll('#details li').length === n + (n > 6 ? 1 : 0), i + 1);
  }
  await waitForText(page, '[data-testid="sentence"]', /^The cause is entry 5 \(compile_options\): 7 DebugOptions fields \(/);
  const items = await page.$$eval('#details li', (ls) => ls.map((l) => l.textContent));
  for (const [field] of set) assert.ok(items.some((t) => t.includes(`DebugOptions.${field}`)), field);
  assert.equal(await page.textContent('[data-testid="more-details"] summary'), '2 more');
  assert.equal(await page.$$eval('[data-testid="more-details"] li', (ls) => ls.length), 2);
  await page.click('[data-testid="reset"]');
});

// Issue 22, item 2: every verdict ends with what to do, from the engine's
// finding (its code in data-advice), for the ingredient the test moved.
test('every verdict says what to do, for the ingredient that moved', async () => {
  const cases = [
    [async () => {}, 'nothing_to_do', /^What to do: Nothing to do/],
    [async () => page.fill('[data-testid="xla-flags"]', '--xla_dump_to=/tmp/d'), 'only_unhashed', /not hashed/],
    [async () => page.fill('[data-testid="jaxlib"]', '0.0.1'), 'jaxlib_version', /jaxlib/],
    [async () => page.fill('[data-testid="xla-flags"]', '--xla_gpu_autotune_level=1'), 'flags', /XLA_FLAGS/],
    [async () => page.fill('[data-testid="custom-hook"]', 'hook'), 'custom_hook', /custom hook/],
  ];
  for (const [act, code, words] of cases) {
    await page.click('[data-testid="reset"]');
    await act();
    await page.waitForSelector(`[data-testid="advice"][data-advice="${code}"]`);
    assert.match(await page.textContent('[data-testid="advice"]'), words, code);
  }
  await page.click('[data-testid="reset"]');
});
