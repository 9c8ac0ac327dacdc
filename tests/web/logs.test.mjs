// The page's log reader on the cache-miss cases of tests/cases: it shows the
// engine's sentence and summary (the same text as `cachekey compare-logs
// --json`), the digests of the pair the sentence names, every program's
// outcome, and takes log files (chosen or dropped) as well as pasted text.
// Page findings F1–F4 of the 2026-11-30 review are checked here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { root, shot, useOpenPage, waitForText, newPage, open, modeUrl } from './helpers.mjs';

const env = useOpenPage({ before, after }, { mode: 'why' });
let page;

const cases = path.join(root, 'tests/cases');
const caseLog = (c, f) => fs.readFileSync(path.join(cases, c, f), 'utf8');
const cli = path.join(root, 'build/native/bin/cachekey');

before(async () => { page = await env.opened; });

/** Pastes two case logs, compares, and waits for the engine's answer. */
async function paste(c, a, b) {
  await page.click('#logs-clear');
  await page.fill('[data-testid="log-a"]', caseLog(c, a));
  await page.fill('[data-testid="log-b"]', caseLog(c, b));
  await page.click('[data-testid="logs-compare"]');
  await page.waitForSelector('[data-testid="logs-verdict"]:not([hidden]), [data-testid="logs-error"]:not([hidden])');
  return page.textContent('[data-testid="logs-sentence"]');
}

const rowRoles = () => page.$$eval('[data-testid^="log-row-"]', (rs) => rs.map((r) => r.getAttribute('data-role')));
const rowDigests = (n) => page.$$eval(`[data-testid="log-row-${n}"] .pair code`, (cs) => cs.map((c) => c.getAttribute('title')));

test('F1: the entry table shows the digests of the pair the sentence names', async () => {
  const sentence = await paste('08-log-formats', 'sA_noisy.log', 'sB_crlf.log');
  assert.match(sentence, /Key 4 is the first pair whose keys differ\. The cause is entry 1 \(computation\)/);
  assert.match(await page.textContent('[data-testid="logs-pair"]'), /Entries of key 4/);
  const [ownA, ownB] = await rowDigests(1);
  assert.equal(ownA, 'ece292a5482c906c18eba86c2eed643f70d06ce7944d05a971fc9baa075454e1');
  assert.notEqual(ownB, ownA);
  assert.deepEqual(await rowRoles(), ['cause', 'consequence', 'consequence', 'consequence', 'consequence', 'consequence', 'consequence', 'consequence']);
  await shot(page, 'logs-f1-key4.png', '#exhibit-logs');
  assert.deepEqual(page.errors, []);
});

test('F2: an entry that moved with the cause is not labelled "same"', async () => {
  const sentence = await paste('10-unnamed-programs', 'sA_add.log', 'sC_flags.log');
  assert.match(sentence, /added flag --xla_cpu_enable_fast_math=true/);
  const r = await rowRoles();
  assert.equal(r[3], 'cause');
  assert.equal(r[4], 'with_cause');
  assert.ok(!/Another ingredient moved too/.test(sentence), sentence);
});

test('F3: different cache directories on 0.10.2 get the field-310 hint', async () => {
  const sentence = await paste('10-unnamed-programs', 'runA_add.log', 'runB_mul.log');
  assert.match(sentence, /entry 5 \(compile_options\)/);
  assert.match(sentence, /jax_compilation_cache_dir/);
  assert.match(sentence, /\(field 310\)/);
  // decoded values of the short entries, from the engine
  assert.equal(await page.textContent('[data-testid="log-value-2"]'), 'jaxlib 0.10.2');
  assert.equal(await page.textContent('[data-testid="log-value-4"]'), 'no flags');
});

test('F4: a cut log is compared on its complete keys, and the cut is named', async () => {
  for (const cut of ['sB_trunc56.log', 'sB_trunc50.log', 'sB_trunc_mid.log']) {
    const sentence = await paste('07-truncated-log', 'sA_add.log', cut);
    assert.match(sentence, /have the same key in both runs/, cut);
    assert.equal(await page.isVisible('[data-testid="logs-error"]'), false, cut);
    assert.match(await page.textContent('[data-testid="logs-notes"]'), /is incomplete: it stops after/, cut);
  }
});

test('a second log cut inside a key: the all-hit verdict box is not marked as clean', async () => {
  // Case 04's run2_311.log hits all 3 programs (its README); cut here inside
  // its last key (the change made here), the 2 whole programs still hit and
  // the verdict names the line where the cut key starts.
  const c = '04-per-jit-dump-override';
  const whole = caseLog(c, 'run2_311.log');
  const last = whole.lastIndexOf('get_cache_key hash of serialized computation');
  const jaxlib = whole.indexOf('get_cache_key hash of serialized jax_lib version', last);
  assert.ok(last > 0 && jaxlib > last);
  const keyLine = whole.slice(0, last).split('\n').length;
  const box = '[data-testid="logs-verdict"]';
  const green = async () => page.$eval(box, (b) => getComputedStyle(b).borderLeftColor);
  await paste(c, 'run1_311.log', 'run2_311.log');
  assert.equal(await page.getAttribute(box, 'data-verdict'), 'all_hit');
  assert.equal(await page.getAttribute(box, 'data-cut-at'), null);
  const clean = await green();
  await page.click('#logs-clear');
  await page.fill('[data-testid="log-a"]', caseLog(c, 'run1_311.log'));
  await page.fill('[data-testid="log-b"]', whole.slice(0, jaxlib + 'get_cache_key hash of serialized jax_li'.length));
  await page.click('[data-testid="logs-compare"]');
  await page.waitForSelector(`${box}[data-cut-at]:not([hidden])`);
  assert.equal(await page.getAttribute(box, 'data-verdict'), 'all_hit');
  assert.equal(await page.getAttribute(box, 'data-cut-at'), String(keyLine));
  assert.match(await page.textContent('[data-testid="logs-verdict"]'), new RegExp(`line ${keyLine}\\b`));
  assert.notEqual(await green(), clean);
  assert.deepEqual(page.errors, []);
});

test('outcomes: the same sentence and summary as the CLI, for two chosen log files', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const dir = path.join(cases, '11-extra-program-in-resumed-run');
  await page.click('#logs-clear');
  await page.setInputFiles('[data-testid="log-file-a"]', path.join(dir, 'fresh.log'));
  await waitForText(page, '[data-testid="log-file-a-name"]', /fresh\.log/);
  await page.setInputFiles('[data-testid="log-file-b"]', path.join(dir, 'resumed.log'));
  // Choosing the second file compares at once (asynchronously: streamed).
  const summary = await waitForText(page, '[data-testid="logs-summary"]', /resumed\.log: 3 of 4 programs hit, 1 missed/);
  // Exit status 1: resumed.log missed a program (its miss line).
  const run = spawnSync(cli, ['compare-logs', 'fresh.log', 'resumed.log', '--json'], { cwd: dir });
  assert.equal(run.status, 1, String(run.stderr));
  const want = JSON.parse(run.stdout.toString());
  assert.equal(summary, want.summary);
  assert.equal(await page.textContent('[data-testid="logs-sentence"]'), want.sentence);
  const programs = await page.$$eval('[data-testid^="log-program-"]', (rs) => rs.map((r) => ({
    label: r.querySelector('th').textContent, keys: r.getAttribute('data-keys'), in: r.getAttribute('data-in'),
    b: r.getAttribute('data-outcome-b'),
  })));
  const train = programs.find((p) => p.label === 'jit_train_step');
  assert.deepEqual([train.keys, train.b], ['equal', 'hit']);
  const restore = programs.find((p) => p.label === 'jit_restore');
  assert.equal(restore.in, 'b');
  await shot(page, 'logs-outcomes.png', '#exhibit-logs');
});

// Issue 36: the answer first. After a comparison the verdict (the engine's
// own, the CLI's --json "verdict") and "What to do" start within half a
// screen of the result's top, on a phone and on a laptop; the pairing is
// folded below them.
for (const [width, height] of [[390, 844], [1280, 800]]) test(`the verdict and what to do come first (${width} px)`, async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const dir = path.join(cases, '23-one-program-changed');
  const p = await newPage(env.browser, { viewport: { width, height } });
  try {
    await open(p, modeUrl(env.server.url, 'why'));
    await p.setInputFiles('[data-testid="log-file-a"]', path.join(dir, 'run1.log'));
    await waitForText(p, '[data-testid="log-file-a-name"]', /run1\.log/);
    await p.setInputFiles('[data-testid="log-file-b"]', path.join(dir, 'run2.log'));
    await p.waitForSelector('[data-testid="logs-verdict"]:not([hidden])');
    const want = cliJson(['compare-logs', 'run1.log', 'run2.log', '--json'], dir);
    assert.equal(await p.textContent('[data-testid="logs-verdict-text"]'), want.verdict.text);
    assert.equal(await p.getAttribute('[data-testid="logs-verdict"]', 'data-verdict'), want.verdict.code);
    // The change the case made: only jit_step's program changed, so one of
    // its three programs missed, and the verdict names it.
    assert.equal(want.verdict.code, 'missed');
    assert.equal(want.verdict.missed, 1);
    assert.deepEqual(want.verdict.named, ['jit_step']);
    const top = await p.$eval('#logs-result', (n) => n.getBoundingClientRect().top);
    const verdict = await p.$eval('[data-testid="logs-verdict-text"]', (n) => n.getBoundingClientRect().top);
    const todo = await p.$eval('[data-testid="log-advice-0"]', (n) => n.getBoundingClientRect().top);
    assert.ok(verdict - top <= height / 2, `verdict ${verdict - top} px below the result's top`);
    assert.ok(todo - top <= height / 2, `what to do ${todo - top} px below the result's top (viewport ${height})`);
    // The pairing and the per-run sums are folded, and open on request.
    assert.equal(await p.$eval('[data-testid="logs-how"]', (d) => d.open), false);
    assert.equal(await p.isVisible('[data-testid="logs-sentence"]'), false);
    await p.click('[data-testid="logs-how-summary"]');
    assert.equal(await p.textContent('[data-testid="logs-sentence"]'), want.sentence);
    assert.equal(await p.isVisible('[data-testid="logs-sentence"]'), true);
    await shot(p, `logs-verdict-${width}.png`, '#exhibit-logs');
    assert.deepEqual(p.errors, []);
  } finally {
    await p.close();
  }
});

test('a log file dropped on its box is read; typing goes back to text', async () => {
  await page.click('#logs-clear');
  const a = caseLog('01-equal-keys-never-written', 'run1.log');
  const b = caseLog('01-equal-keys-never-written', 'run2.log');
  for (const [side, text, name] of [['a', a, 'run1.log'], ['b', b, 'run2.log']]) {
    await page.evaluate(([s, t, n]) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], n, { type: 'text/plain' }));
      const zone = document.querySelector(`[data-testid="log-drop-${s}"]`);
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, [side, text, name]);
    await waitForText(page, `[data-testid="log-file-${side}-name"]`, new RegExp(name.replace('.', '\\.')));
  }
  const summary = await waitForText(page, '[data-testid="logs-summary"]', /run2\.log: 0 of 3 programs hit/);
  assert.match(summary, /which never wrote them/);
  assert.match(summary, /jax_persistent_cache_min_compile_time_secs/);
  await page.fill('[data-testid="log-b"]', 'typed');
  await waitForText(page, '[data-testid="log-file-b-name"]', /^$/);
  assert.deepEqual(page.errors, []);
});

test('a large dropped log is streamed, not pasted', async () => {
  // ~12 MB: three times the paste limit, read in chunks by the engine.
  await page.click('#logs-clear');
  const one = caseLog('23-one-program-changed', 'run1.log');
  const noise = 'I1130 20:20:12.452898 2930 some_file.cc:123] unrelated XLA line\n'.repeat(200000);
  await page.evaluate(([t, n]) => {
    const big = new File([n, t], 'big.log', { type: 'text/plain' });
    const dt = new DataTransfer();
    dt.items.add(big);
    const zone = document.querySelector('[data-testid="log-drop-a"]');
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [one, noise]);
  await page.fill('[data-testid="log-b"]', caseLog('23-one-program-changed', 'run2.log'));
  await page.click('[data-testid="logs-compare"]');
  const sentence = await waitForText(page, '[data-testid="logs-sentence"]', /first pair whose keys differ/, 30000);
  assert.match(sentence, /jit_step is the first pair whose keys differ\. The cause is entry 1/);
  assert.deepEqual(page.errors, []);
});

// Issue 21: the real misses of ../shared/cases/2026-12-01 (copied into
// tests/cases/30–37 with their provenance) and the helper's own real runs.
// The page gives the CLI's sentence and summary, and each case's right
// answer (expect.json, written from its README, not from the tool).
/** `cachekey ARGS --json` in `cwd`: its JSON (exit 1 says a key moved or a program missed; 2 is an error). */
function cliJson(args, cwd) {
  const r = spawnSync(cli, args, { cwd, maxBuffer: 64 << 20 });
  assert.ok(r.status === 0 || r.status === 1, `cachekey ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}
const expectCases = fs.readdirSync(cases).filter((c) => fs.existsSync(path.join(cases, c, 'expect.json')));
test('the real-miss cases: the page says what the CLI says, and each case\u2019s right answer', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  assert.ok(expectCases.length >= 5, `${expectCases.length} cases with an expectation`);
  for (const c of expectCases) {
    const dir = path.join(cases, c);
    for (const cmp of JSON.parse(fs.readFileSync(path.join(dir, 'expect.json'), 'utf8')).compare || []) {
      if (!cmp.a || !cmp.b || cmp.more) continue;
      await page.click('#logs-clear');
      await page.setInputFiles('[data-testid="log-file-a"]', path.join(dir, cmp.a));
      await waitForText(page, '[data-testid="log-file-a-name"]', new RegExp(cmp.a.replace(/\./g, '\\.')));
      await page.setInputFiles('[data-testid="log-file-b"]', path.join(dir, cmp.b));
      await page.waitForSelector('[data-testid="logs-verdict"]:not([hidden]), [data-testid="logs-error"]:not([hidden])');
      const want = cliJson(['compare-logs', cmp.a, cmp.b, '--json'], dir);
      const summary = await page.textContent('[data-testid="logs-summary"]');
      assert.equal(summary, want.summary, c);
      assert.equal(await page.textContent('[data-testid="logs-sentence"]'), want.sentence, c);
      for (const s of cmp.summary_contains || []) assert.ok((summary + ' ' + want.sentence).includes(s), `${c}: says ${s}`);
      for (const s of cmp.summary_lacks || []) assert.ok(!(summary + ' ' + want.sentence).includes(s), `${c}: does not say ${s}`);
      // what to do: the CLI's items, and the codes of the case's right answer
      const advice = await page.$$eval('[data-testid^="log-advice-"]', (ls) => ls.map((l) => ({ code: l.getAttribute('data-advice'), text: l.textContent })));
      assert.deepEqual(advice, want.what_to_do.map((a) => ({ code: a.code, text: a.text })), c);
      assert.ok(advice.length >= 1, `${c}: every verdict says what to do`);
      if (cmp.advice_codes) assert.deepEqual(advice.map((a) => a.code), cmp.advice_codes, c);
      const keys = Object.fromEntries(await page.$$eval('[data-testid^="log-program-"]', (rs) => rs.map((r) => [r.querySelector('th').textContent, r.getAttribute('data-keys')])));
      for (const [name, p] of Object.entries(cmp.pairs || {})) if (p.keys && keys[name] !== undefined) assert.equal(keys[name], p.keys, `${c}: ${name}`);
      // every run has its summary line (programs, hits, misses, hit rate)
      assert.equal(await page.$$eval('[data-testid^="log-run-"]', (ls) => ls.length), 2, c);
      if (cmp.stats_b && cmp.stats_b.programs !== undefined) assert.match(await page.textContent('[data-testid="log-run-1"]'), new RegExp(`${cmp.stats_b.programs} programs`), c);
    }
  }
});

// Issue 21, item 5: more than two logs. The test gives run A twice and run B
// once, so every program's key is shared by the two copies of A and run B is
// the odd one out wherever its key differs.
test('three logs: per program, which runs share a key and which is the odd one out', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const dir = path.join(cases, '34-x64-from-environment');
  const copy = path.join(fs.mkdtempSync(path.join(root, 'build', 'logs-three-')), 'workstation-a-again.log');
  fs.copyFileSync(path.join(dir, 'workstation-a.log'), copy);
  await page.click('#logs-clear');
  await page.setInputFiles('[data-testid="log-file-more"]', copy);
  await waitForText(page, '[data-testid="log-file-more-name"]', /run C workstation-a-again\.log/);
  await page.setInputFiles('[data-testid="log-file-a"]', path.join(dir, 'workstation-a.log'));
  await page.setInputFiles('[data-testid="log-file-b"]', path.join(dir, 'workstation-b.log'));
  await page.waitForSelector('[data-testid="logs-many"]:not([hidden])');
  const want = cliJson(['compare-logs', 'workstation-a.log', 'workstation-b.log', copy, '--json'], dir);
  // The answer first: the engine's N-run verdict in the box, its code
  // beside it; no summary paragraph repeats it.
  assert.equal(await page.textContent('[data-testid="logs-verdict-text"]'), want.verdict.text);
  assert.equal(await page.getAttribute('[data-testid="logs-verdict"]', 'data-runs'), want.verdict.code);
  assert.equal(want.verdict.code, 'odd_runs', 'workstation-b.log holds every program under another key');
  assert.equal(await page.isHidden('[data-testid="logs-summary"]'), true);
  const items = await page.$$eval('[data-testid^="log-many-"]', (ls) => ls.map((l) => ({ text: l.textContent, groups: l.getAttribute('data-groups') })));
  assert.equal(items.length, want.programs.length);
  assert.ok(items.length >= 1);
  for (const it of items) {
    assert.equal(it.groups, '2', 'A and its copy share a key; B has another');
    assert.match(it.text, /workstation-b\.log is an odd one out/);
  }
  assert.equal(await page.$$eval('[data-testid^="log-run-"]', (ls) => ls.length), 3);
  assert.deepEqual(await page.$$eval('[data-testid^="log-advice-"]', (ls) => ls.map((l) => l.textContent)), want.what_to_do.map((a) => a.text));
  // Issue 36: one run is removed without Clear, and the two left are
  // compared again: the two-log verdict, the CLI's for those two logs.
  await page.click('[data-testid="log-more-remove-0"]');
  await page.waitForSelector('[data-testid="logs-many"]', { state: 'hidden' });
  await page.waitForFunction(() => document.querySelector('[data-testid="logs-verdict"]').dataset.verdict !== 'runs');
  const two = cliJson(['compare-logs', 'workstation-a.log', 'workstation-b.log', '--json'], dir);
  await page.waitForFunction((t) => document.querySelector('[data-testid="logs-verdict-text"]').textContent === t, two.verdict.text);
  assert.equal(await page.textContent('[data-testid="log-file-more-name"]'), '');
  await page.click('#logs-clear');
  fs.rmSync(path.dirname(copy), { recursive: true, force: true });
});
