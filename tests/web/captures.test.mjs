// "Compare two captured runs" in Chromium: two capture folders chosen with
// the folder picker are compared by the engine in its worker, with the same
// pairing and text diff as `cachekey diff DIR_A DIR_B`.
//
// Expected values: the pairs and keys from real JAX's two index.json files
// (tests/web/data/folders, made with jax 0.10.2; see tests/web/data/README.md),
// the change the two runs made (64 → 128 rows, so entry 1 and the module
// text), and the text the native CLI prints for the same folders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { useOpenPage, waitForText, shot, root } from './helpers.mjs';

const env = useOpenPage({ before, after });
const folders = path.join(root, 'tests/web/data/folders');
const CLI = path.join(root, 'build/native/bin/cachekey');
let page;
before(async () => { page = await env.opened; });

const index = (name) => JSON.parse(fs.readFileSync(path.join(folders, name, 'index.json'), 'utf8')).programs;

test('two capture folders: pairs, causes and module text diffs as cachekey diff gives them', async () => {
  const ka = new Map(index('run64').map((p) => [`${p.program}#${p.occurrence}`, p.key]));
  const kb = new Map(index('run128').map((p) => [`${p.program}#${p.occurrence}`, p.key]));
  // Pairing as cachekey diff does it: by key first (a key of B that A also
  // wrote is the same program), then the rest by name and occurrence.
  const keysA = new Set(ka.values());
  const byKey = [...kb.values()].filter((k) => keysA.has(k)).length;
  const paired = [...ka.keys()].filter((k) => kb.has(k));
  const differ = paired.filter((k) => ka.get(k) !== kb.get(k) && !keysA.has(kb.get(k)));

  assert.equal(await page.isDisabled('[data-testid="captures-compare"]'), true, 'nothing to compare yet');
  await page.setInputFiles('[data-testid="capture-dir-a"]', path.join(folders, 'run64'));
  await waitForText(page, '[data-testid="capture-name-a"]', /^run64: \d+ files$/);
  assert.equal(await page.isDisabled('[data-testid="captures-compare"]'), true, 'one folder is not enough');
  await page.setInputFiles('[data-testid="capture-dir-b"]', path.join(folders, 'run128'));
  await waitForText(page, '[data-testid="capture-name-b"]', /^run128: \d+ files$/);
  await page.click('[data-testid="captures-compare"]');
  await waitForText(page, '[data-testid="captures-status"]', /^Compared run64 \(A\) and run128 \(B\)\.$/, 30000);

  const summary = await page.textContent('[data-testid="captures-summary"]');
  assert.match(summary, new RegExp(`^${paired.length} programs paired: ${byKey} with the same key, ${differ.length} with different keys; 0 only in A, 0 only in B\\.`));
  const cards = await page.$$eval('[data-testid^="capture-program-"]', (cs) => cs.map((c) => ({
    program: c.getAttribute('data-program'), cause: c.getAttribute('data-cause'), heading: c.querySelector('h3').textContent,
    advice: (c.querySelector('[data-advice]') || { getAttribute: () => null }).getAttribute('data-advice'),
    diff: (c.querySelector('pre.textdiff') || { textContent: '' }).textContent,
    added: [...c.querySelectorAll('pre.textdiff .add')].map((s) => s.textContent),
    removed: [...c.querySelectorAll('pre.textdiff .del')].map((s) => s.textContent),
  })));
  assert.deepEqual(cards.map((c) => c.heading.replace(/: the keys differ$/, '').replace(' ', '')).sort(), differ.sort());
  for (const c of cards) {
    assert.equal(c.cause, '1', `${c.program}: the module (entry 1) is the cause`);
    assert.equal(c.advice, 'program', `${c.program}: what to do follows entry 1`);
    assert.ok(c.removed.some((l) => l.includes('tensor<64x8xf32>')), c.program);
    assert.ok(c.added.some((l) => l.includes('tensor<128x8xf32>')), c.program);
  }
  let cliText;
  try {
    cliText = execFileSync(CLI, ['diff', 'run64', 'run128'], { cwd: folders, encoding: 'utf8' });
  } catch (e) {
    cliText = e.stdout; // exit 1: some keys differ
  }
  assert.equal(await page.textContent('[data-testid="captures-text"]'), cliText);
  await shot(page, 'captures.png', '#exhibit-captures');
  assert.deepEqual(page.errors, []);
});

test('a folder that is not a capture gets an error naming it, and the pane stays usable', async () => {
  await page.setInputFiles('[data-testid="capture-dir-a"]', path.join(root, 'tests/web/data/capture-a'));
  await waitForText(page, '[data-testid="capture-name-a"]', /no index\.json: not a capture folder/);
  await page.setInputFiles('[data-testid="capture-dir-b"]', path.join(folders, 'run128'));
  await page.click('[data-testid="captures-compare"]');
  await waitForText(page, '[data-testid="captures-error"]', /^Not compared: .*capture-a.*index\.json/, 30000);
  // Choosing a capture again compares.
  await page.setInputFiles('[data-testid="capture-dir-a"]', path.join(folders, 'run64'));
  await page.click('[data-testid="captures-compare"]');
  await waitForText(page, '[data-testid="captures-status"]', /^Compared run64/, 30000);
  assert.equal(await page.isHidden('[data-testid="captures-error"]'), true);
  assert.deepEqual(page.errors, []);
});

// Issue 36, item 4: one damaged file never refuses the comparison. The test
// cuts one program file of B in half (a copy that did not finish): that
// pair is one line, in the engine's words, and the other pairs are compared.
test('a capture file cut in half leaves out only its pair', async () => {
  const cut = fs.mkdtempSync(path.join(root, 'build', 'captures-cut-'));
  for (const f of fs.readdirSync(path.join(folders, 'run128'))) fs.copyFileSync(path.join(folders, 'run128', f), path.join(cut, f));
  const ka = new Map(index('run64').map((p) => [`${p.program}#${p.occurrence}`, p.key]));
  const keysA = new Set(ka.values());
  // A program whose key differs from A's, so its file is read.
  const victim = index('run128').find((p) => !keysA.has(p.key) && ka.has(`${p.program}#${p.occurrence}`));
  assert.ok(victim, 'a differing program to damage');
  const file = path.join(cut, victim.file);
  const body = fs.readFileSync(file);
  fs.writeFileSync(file, body.subarray(0, body.length >> 1));
  await page.setInputFiles('[data-testid="capture-dir-a"]', path.join(folders, 'run64'));
  await page.setInputFiles('[data-testid="capture-dir-b"]', cut);
  await page.click('[data-testid="captures-compare"]');
  await waitForText(page, '[data-testid="captures-status"]', /^Compared run64 \(A\)/, 30000);
  assert.equal(await page.isHidden('[data-testid="captures-error"]'), true);
  const lines = await page.$$eval('[data-testid="capture-unreadable"]', (ls) => ls.map((l) => ({ text: l.textContent, code: l.getAttribute('data-code'), error: l.getAttribute('data-error-code') })));
  let want;
  try {
    want = JSON.parse(execFileSync(CLI, ['diff', 'run64', cut, '--json'], { cwd: folders, encoding: 'utf8' }));
  } catch (e) {
    want = JSON.parse(e.stdout);
  }
  assert.equal(lines.length, 1);
  assert.equal(lines[0].code, 'program_unreadable');
  assert.equal(lines[0].error, 'syntax');
  assert.ok(lines[0].text.includes(victim.file), lines[0].text);
  assert.equal(lines[0].text.includes('json.exception'), false, lines[0].text);
  // The same line as the CLI's (the folder label differs: the page names the
  // folder by its own name, the CLI by the path it was given).
  assert.equal(want.unreadable.length, 1);
  assert.equal(want.unreadable[0].file, victim.file);
  // The other differing programs are still compared.
  const cards = await page.$$eval('[data-testid^="capture-program-"]', (cs) => cs.map((c) => c.getAttribute('data-program')));
  assert.deepEqual(cards.sort(), want.differing.map((d) => d.program).sort());
  assert.ok(!cards.includes(victim.program) || index('run128').filter((p) => p.program === victim.program).length > 1);
  assert.match(await page.textContent('[data-testid="captures-summary"]'), /1 program file could not be read, so its pair was left out/);
  assert.deepEqual(page.errors, []);
  fs.rmSync(cut, { recursive: true, force: true });
});
