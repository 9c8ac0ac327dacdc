// The page's log reader on the cache-miss cases of tests/cases: it shows the
// engine's sentence and summary (the same text as `cachekey compare-logs
// --json`), the digests of the pair the sentence names, every program's
// outcome, and takes log files (chosen or dropped) as well as pasted text.
// Page findings F1–F4 of the 2026-11-30 review are checked here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { root, shot, useOpenPage, waitForText } from './helpers.mjs';

const env = useOpenPage({ before, after });
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
  await page.waitForSelector('[data-testid="logs-sentence"]:not([hidden]), [data-testid="logs-error"]:not([hidden])');
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
  assert.equal(r[4], 'with cause');
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

test('outcomes: the same sentence and summary as the CLI, for two chosen log files', async (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  const dir = path.join(cases, '11-extra-program-in-resumed-run');
  await page.click('#logs-clear');
  await page.setInputFiles('[data-testid="log-file-a"]', path.join(dir, 'fresh.log'));
  await waitForText(page, '[data-testid="log-file-a-name"]', /fresh\.log/);
  await page.setInputFiles('[data-testid="log-file-b"]', path.join(dir, 'resumed.log'));
  // Choosing the second file compares at once (asynchronously: streamed).
  const summary = await waitForText(page, '[data-testid="logs-summary"]', /resumed\.log: 3 of 4 programs hit, 1 missed/);
  const want = JSON.parse(execFileSync(cli, ['compare-logs', 'fresh.log', 'resumed.log', '--json'], { cwd: dir }).toString());
  assert.equal(summary, want.summary);
  assert.equal(await page.textContent('[data-testid="logs-sentence"]'), want.sentence);
  const programs = await page.$$eval('[data-testid^="log-program-"]', (rs) => rs.map((r) => ({
    label: r.querySelector('th').textContent, keys: r.getAttribute('data-keys'), in: r.getAttribute('data-in'),
    b: r.querySelectorAll('td')[2].textContent,
  })));
  const train = programs.find((p) => p.label === 'jit_train_step');
  assert.deepEqual([train.keys, train.b], ['equal', 'hit']);
  const restore = programs.find((p) => p.label === 'jit_restore');
  assert.equal(restore.in, 'b');
  await shot(page, 'logs-outcomes.png', '#exhibit-logs');
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
