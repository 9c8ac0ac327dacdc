// Links and logs are hostile input: malformed, oversized and older-schema
// links must each show a message and leave the page usable, and markup in any
// string field must be shown as text, never run. Also: embed mode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { newPage, open, roles, DEFAULT_KEY, nodeEngine, shot, fixture, artifacts, useBrowser, showMode } from './helpers.mjs';

const env = useBrowser(before, after);
let engine;

before(async () => {
  await env.ready;
  engine = await nodeEngine();
});


/**
 * A version-1 link around any text, made by hand: a zstd frame holding one
 * raw (uncompressed) block, base64url-encoded. For texts the engine would
 * refuse to encode (not JSON).
 */
const rawLink = (text) => {
  const body = Buffer.from(text, 'utf8');
  assert.ok(body.length < 256);
  const size = (body.length << 3) | 1; // last block, raw, size
  const frame = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x20, body.length,
    size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff]), body]);
  return '#s1=' + frame.toString('base64url');
};

/**
 * A decompression bomb built by hand as a zstd frame (RFC 8878 §3.1.1): no
 * content size, a 128 KiB window (descriptor 0x38), `head` and `tail` as raw
 * blocks and `n` copies of `byte` as RLE blocks of at most 128 KiB. The
 * engine's encoder refuses to make a link past the decoder's cap, so such a
 * link is only ever hostile.
 */
const bombLink = (head, byte, n, tail) => {
  const block = (type, size, last, body) => {
    const h = (size << 3) | (type << 1) | (last ? 1 : 0);
    return Buffer.concat([Buffer.from([h & 0xff, (h >> 8) & 0xff, (h >> 16) & 0xff]), body]);
  };
  const parts = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]), block(0, head.length, false, Buffer.from(head))];
  for (let left = n; left > 0; left -= 1 << 17) parts.push(block(1, Math.min(left, 1 << 17), false, Buffer.from([byte])));
  parts.push(block(0, tail.length, true, Buffer.from(tail)));
  return '#s1=' + Buffer.concat(parts).toString('base64url');
};

/** A link built by the engine itself, for a scenario document or text. */
const link = (doc) => {
  const r = engine.encodePermalink(typeof doc === 'string' ? doc : JSON.stringify(doc));
  assert.ok(!r.error && r.fragment, JSON.stringify(r));
  return '#' + r.fragment;
};

test('malformed, oversized and older-schema links show a message and the page stays usable', async () => {
  const good = link({ schema: 1, base: 'add_1x1', custom_hook: 'x' });
  const body = good.slice(4);
  const cases = [
    ['empty payload', '#s1='],
    ['not base64url', '#s1=%%%'],
    ['base64 but not zstd', '#s1=AAAA'],
    ['unknown link version', '#s9=' + body],
    ['older link version', '#s0=' + body],
    ['truncated', good.slice(0, -6)],
    ['extra bytes', good + 'AAAA'],
    ['one character changed', good.slice(0, 20) + (good[20] === 'A' ? 'B' : 'A') + good.slice(21)],
    ['oversized (9000 chars)', '#s1=' + 'A'.repeat(9000)],
    ['oversized (100000 chars)', '#s1=' + 'QUFB'.repeat(25000)],
    ['markup in the fragment', '#s1=<img src=x onerror=window.__xss=1>'],
    ['markup, percent-encoded', '#s1=' + encodeURIComponent('"><script>window.__xss=1</script>')],
    ['not a link at all', '#hello-world'],
    ['broken percent-encoding', '#%E0%A4%A'],
    ['no version', '#s=' + body],
    ['double equals', '#s1==' + body],
    ['older scenario schema', link({ schema: 0, base: 'add_1x1' })],
    ['newer scenario schema', link({ schema: 2, base: 'add_1x1' })],
    ['no schema', link({ base: 'add_1x1' })],
    ['unknown base', link({ schema: 1, base: 'no_such_fixture' })],
    ['unknown key', link({ schema: 1, base: 'add_1x1', surprise: true })],
    ['wrong type', link({ schema: 1, base: 'add_1x1', jaxlib_version: 10 })],
    ['unknown profile', link({ schema: 1, base: 'add_1x1', profile: '0.4.1' })],
    ['bad base64 in the proto', link({ schema: 1, base: 'add_1x1', compile_options: { proto_b64: '***' } })],
    ['a JSON array', link('[1,2,3]')],
    ['not JSON', rawLink('this is not json')],
    ['JSON with a trailing comma', rawLink('{"schema":1,"base":"add_1x1",}')],
    ['JSON null', link('null')],
    ['prototype pollution attempt', link('{"schema":1,"base":"add_1x1","__proto__":{"polluted":1}}')],
    ['decompression bomb', bombLink('{"schema":1,"base":"add_1x1","custom_hook":"', 0x78, 3 << 20, '"}')],
  ];
  assert.ok(cases.length >= 20);
  // The hand-built bomb is refused by the decoder's cap, not as a broken frame.
  assert.match(engine.decodePermalink(cases.find(([l]) => l === 'decompression bomb')[1]).error.message, /decompresses to more than the 262144-byte cap/);
  const page = await newPage(env.browser);
  for (const [label, hash] of cases) {
    await page.goto('about:blank');
    await open(page, env.server.url + hash);
    const msg = await page.locator('[data-testid="link-error"]');
    assert.equal(await msg.isVisible(), true, `${label}: message shown`);
    const text = await msg.textContent();
    assert.match(text, /could not be opened/, label);
    assert.ok(text.length > 40, label);
    assert.equal(await page.textContent('[data-testid="final-key"]'), DEFAULT_KEY, `${label}: default scenario shown`);
    assert.equal(await page.evaluate(() => window.__xss), undefined, label);
    assert.equal(await page.evaluate(() => ({}).polluted), undefined, label);
    if (label === 'older scenario schema') await shot(page, 'link-error.png', '[data-testid="link-error"]');
    // still usable: a perturbation works, and the message goes with the default scenario
    await page.fill('[data-testid="custom-hook"]', 'still works');
    assert.equal(await page.getAttribute('[data-testid="entry-8"]', 'data-role'), 'cause', label);
    await msg.waitFor({ state: 'hidden' });
    assert.deepEqual(page.errors, [], label);
  }
  // a later good link clears the message (same tab, hash change)
  await page.evaluate(() => { location.hash = '#s1=AAAA'; });
  await page.waitForSelector('[data-testid="link-error"]:not([hidden])');
  await page.evaluate((h) => { location.hash = h; }, good);
  await page.waitForFunction(() => document.querySelector('[data-testid="link-error"]').hidden);
  // the message goes as the link is read; the scenario shows once the worker has decoded it
  await page.waitForFunction(() => document.querySelector('[data-testid="entry-8"]').getAttribute('data-role') === 'cause');
  await page.close();
});

test('markup in every string field arrives by link, renders as text and never runs', async () => {
  const payloads = ['<img src=x onerror=window.__xss=1>', '"><script>window.__xss=1</script>'];
  const add = fixture('add_1x1');
  const page = await newPage(env.browser);
  for (const x of payloads) {
    const docs = [
      {
        schema: 1, base: 'add_1x1', title: x, description: x, notes: [x],
        module: { sym_name: x, entry1_b64: add.module.entry1_b64 },
        jaxlib_version: x,
        backend: { platform: x, platform_version: x },
        flags: { XLA_FLAGS: `--xla_${x} ${x}`, LIBTPU_INIT_ARGS: x, argv: [x, '--xla' + x], extra_prefixes: [x.slice(0, 4)] },
        compile_options: { edits: { debug_options: { xla_dump_to: x }, env_option_overrides: [[x, x]] } },
        accelerator: { device_kinds: [x, x], error: x },
        custom_hook: x,
      },
      { schema: 1, base: 'add_1x1', accelerator: { fingerprint: { value: '0123456789abcdef', provenance: x, stand_in: true } } },
      { schema: 1, base: 'add_1x1', profile: '0.9.2', accelerator: { gpu_topology: { platform_version: x, num_partitions: 1, num_hosts_per_partition: 1, num_devices_per_host: 1 } } },
    ];
    for (const doc of docs) {
      const ok = engine.computeKey(doc);
      assert.equal(ok.error, undefined, JSON.stringify(ok.error));
      await page.goto('about:blank');
      await open(page, env.server.url + link(doc));
      assert.equal(await page.isVisible('[data-testid="link-error"]'), false);
      await page.waitForTimeout(150);
      assert.equal(await page.evaluate(() => window.__xss), undefined, x);
      assert.equal(await page.$$eval('img', (i) => i.length), 0, 'no img element was created');
      assert.equal(await page.$$eval('main script, body > script', (s) => s.length), 0, 'no script element was created');
      const text = await page.evaluate(() => document.body.innerText);
      assert.ok(text.includes(x), 'the payload is shown as text');
      // the payload also reaches the controls as a value
      if (doc.custom_hook) {
        assert.equal(await page.inputValue('[data-testid="custom-hook"]'), x);
        assert.ok((await page.textContent('[data-testid="final-key"]')).startsWith(x + '-'));
        assert.ok((await page.textContent('[data-testid="trace"]')).includes(x));
      }
      assert.deepEqual(page.errors, []);
    }
    // and through the two-log panel
    await showMode(page, 'why');
    await page.fill('[data-testid="log-a"]', x);
    await page.fill('[data-testid="log-b"]', `get_cache_key hash of serialized ${x}: ${'a'.repeat(64)}`);
    await page.click('[data-testid="logs-compare"]');
    await page.waitForSelector('[data-testid="logs-error"]:not([hidden])');
    assert.equal(await page.evaluate(() => window.__xss), undefined);
  }
  await showMode(page, 'how');
  await shot(page, 'xss-as-text.png', '#exhibit-entries');
  await page.close();
});

test('embed mode renders one exhibit without page chrome and posts its height', async () => {
  // A documentation page on another origin would do the same; here the
  // parent is served (by request interception) next to the site.
  const parentHtml = (src) => `<!doctype html><meta charset="utf-8"><title>docs</title>
<script>
  window.__msgs = [];
  const allowed = new URL(${JSON.stringify(src)}).origin;
  window.addEventListener('message', (event) => {
    if (event.origin !== allowed) return;
    const d = event.data;
    if (!d || d.type !== 'cachekey-embed-height' || typeof d.height !== 'number') return;
    document.querySelector('iframe').style.height = d.height + 'px';
    window.__msgs.push({ origin: event.origin, height: d.height });
  });
</script>
<iframe src=${JSON.stringify(src)} title="cache key exhibit" style="width:900px;height:300px;border:0"></iframe>`;
  // The embed posts its height whenever its layout changes (ResizeObserver):
  // wait until the parent has been told the frame's current height.
  const heightSettled = (page) => page.waitForFunction(() => {
    const f = document.querySelector('iframe');
    const doc = f.contentDocument;
    const last = window.__msgs[window.__msgs.length - 1];
    return !!doc && !!last && f.style.height === last.height + 'px'
      && last.height === Math.ceil(doc.documentElement.getBoundingClientRect().height);
  }, null, { timeout: 10000 });
  for (const exhibit of ['entries', 'flags', 'trace', 'logs']) {
    const page = await newPage(env.browser, { viewport: { width: 1000, height: 900 } });
    const src = env.server.url + '?embed=' + exhibit;
    await page.route('**/__docs_parent.html', (route) => route.fulfill({ contentType: 'text/html', body: parentHtml(src) }));
    await page.goto(env.server.url + '__docs_parent.html');
    await page.waitForFunction(() => window.__msgs.length > 0, null, { timeout: 20000 });
    const frame = page.frames().find((f) => f.url().includes('embed=' + exhibit));
    await frame.waitForSelector('html[data-ready="true"]');
    await heightSettled(page);
    const msgs = await page.evaluate(() => window.__msgs);
    const last = msgs[msgs.length - 1];
    assert.equal(last.origin, new URL(env.server.url).origin);
    assert.ok(last.height > 100, JSON.stringify(msgs));
    assert.equal(await frame.isVisible('.site-header'), false, `${exhibit}: no header`);
    assert.equal(await frame.isVisible('#cases'), false);
    assert.equal(await frame.isVisible(`[data-exhibit="${exhibit}"]`), true);
    for (const other of ['entries', 'flags', 'trace', 'logs'].filter((x) => x !== exhibit)) {
      assert.equal(await frame.isVisible(`[data-exhibit="${other}"]`), false, `${exhibit} hides ${other}`);
    }
    if (exhibit === 'entries') assert.equal(await frame.textContent('[data-testid="final-key"]'), DEFAULT_KEY);
    if (exhibit === 'flags') {
      await frame.fill('[data-testid="xla-flags"]', '--xla_dump_to=/tmp/d --xla_gpu_autotune_level=2');
      assert.equal(await frame.$$eval('[data-testid="flag-row"]', (r) => r.length), 2);
    }
    if (exhibit === 'logs') await frame.click('[data-testid="logs-example"]');
    await heightSettled(page);
    const before = await page.evaluate(() => window.__msgs[window.__msgs.length - 1].height);
    // the height follows the content: a narrower frame is taller
    await page.evaluate(() => { document.querySelector('iframe').style.width = '520px'; });
    await heightSettled(page);
    const after = await page.evaluate(() => window.__msgs[window.__msgs.length - 1].height);
    assert.ok(after > before, `${exhibit}: ${after} > ${before}`);
    await page.evaluate(() => { document.querySelector('iframe').style.width = '900px'; });
    await heightSettled(page);
    await page.locator('iframe').screenshot({ path: path.join(artifacts, `embed-${exhibit}.png`) });
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});

test('an unknown exhibit name says so', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.server.url + '?embed=%3Cb%3Ebold%3C%2Fb%3E');
  await page.waitForFunction(() => /Unknown exhibit/.test(document.getElementById('status').textContent));
  assert.equal(await page.$$eval('b', (b) => b.length), 0);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('roles survive a reload of a permalink (same page, no state kept)', async () => {
  const page = await newPage(env.browser);
  await open(page, env.server.url + link({ schema: 1, base: 'add_1x1', jaxlib_version: '0.10.3' }));
  const r1 = await roles(page);
  await page.reload();
  await page.waitForSelector('html[data-ready="true"]');
  assert.deepEqual(await roles(page), r1);
  assert.equal(r1[1], 'cause');
  await page.close();
});
