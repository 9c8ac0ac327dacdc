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

const env = useOpenPage({ before, after }, { mode: 'why' });
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
    ops: [...c.querySelectorAll('pre.textdiff > span')].map((s) => s.getAttribute('data-op')),
    hunks: [...c.querySelectorAll('pre.textdiff .hunk')].map((s) => s.textContent),
  })));
  assert.deepEqual(cards.map((c) => c.heading.replace(/: the keys differ$/, '').replace(' ', '')).sort(), differ.sort());
  for (const c of cards) {
    assert.equal(c.cause, '1', `${c.program}: the module (entry 1) is the cause`);
    assert.equal(c.advice, 'program', `${c.program}: what to do follows entry 1`);
    assert.ok(c.removed.some((l) => l.includes('tensor<64x8xf32>')), c.program);
    assert.ok(c.added.some((l) => l.includes('tensor<128x8xf32>')), c.program);
    // Each line is rendered by the engine's op: the two file names, then
    // hunks headed as diff -u heads them, each line with its sign.
    assert.deepEqual(c.ops.slice(0, 3), ['file_a', 'file_b', 'hunk'], c.program);
    assert.ok(c.ops.every((op) => ['file_a', 'file_b', 'hunk', 'context', 'del', 'add'].includes(op)), c.ops.join(' '));
    assert.ok(c.hunks.length >= 1 && c.hunks.every((h) => /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@\n$/.test(h)), c.hunks.join(''));
    assert.ok(c.removed.every((l) => l.startsWith('-')) && c.added.every((l) => l.startsWith('+')), c.program);
    assert.ok(c.ops.includes('context'), 'the unchanged lines around the change are shown');
  }
  let cliText;
  try {
    cliText = execFileSync(CLI, ['diff', 'run64', 'run128'], { cwd: folders, encoding: 'utf8' });
  } catch (e) {
    cliText = e.stdout; // exit 1: some keys differ
  }
  assert.equal(await page.textContent('[data-testid="captures-text"]'), cliText);
  // The whole diff as the CLI prints it: in its report, indented by 4.
  for (const c of cards) assert.ok(cliText.includes(c.diff.replace(/^(?=.)/gm, '    ')), c.program);
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

// Issue 35 item 4 / issue 36 item 5: a module diff you can read. Two real
// capture pairs (tests/web/data/module-diff, jax 0.12.0.1), each run twice by
// tests/capture/module_diff/program.py with one change: `constant` closes over
// 0.0729 (a) / 0.06561 (b); `precision` leaves jax_default_matmul_precision
// unset (a) / sets it to "highest" (b) for x @ x. Expected: the engine's
// finding for that change above the hunk, and on the one removed and the one
// added line only the changed value inside <mark>.
const pairs = path.join(root, 'tests/web/data/module-diff');

/** Compares pairs/CLS/a with pairs/CLS/b and returns the card of jit__lambda, the program that changed. */
async function comparePair(cls) {
  await page.setInputFiles('[data-testid="capture-dir-a"]', path.join(pairs, cls, 'a'));
  await page.setInputFiles('[data-testid="capture-dir-b"]', path.join(pairs, cls, 'b'));
  await page.click('[data-testid="captures-compare"]');
  // The first comparison loads the engine with MLIR (the structural module diff).
  await waitForText(page, '[data-testid="captures-status"]', /^Compared a \(A\) and b \(B\)\.$/, 90000);
  const card = page.locator('[data-testid^="capture-program-"][data-program="jit__lambda"]');
  await card.locator('.module-findings li').first().waitFor();
  await card.locator('pre.textdiff mark').first().waitFor();
  return card;
}

/** The card's findings, whether the list is above the diff, and each removed and added line with its marks. */
const readCard = (card) => card.evaluate((c) => {
  const list = c.querySelector('.module-findings');
  const pre = c.querySelector('pre.textdiff');
  const line = (s) => ({
    text: s.textContent,
    marks: [...s.querySelectorAll('mark')].map((m) => m.textContent),
    unmarked: [...s.childNodes].filter((n) => n.nodeName !== 'MARK').map((n) => n.textContent).join(''),
  });
  return {
    codes: [...list.querySelectorAll('li')].map((li) => li.getAttribute('data-code')),
    badges: [...list.querySelectorAll('li .finding-code')].map((b) => b.textContent),
    texts: [...list.querySelectorAll('li')].map((li) => li.textContent),
    above: !!(list.compareDocumentPosition(pre) & Node.DOCUMENT_POSITION_FOLLOWING)
      && list.getBoundingClientRect().bottom <= pre.getBoundingClientRect().top,
    removed: [...pre.querySelectorAll('.del')].map(line),
    added: [...pre.querySelectorAll('.add')].map(line),
    allMarks: pre.querySelectorAll('mark').length,
  };
});

/** The engine's JSON for the same pair (the native CLI): the finding texts the page must show. */
function cliFindings(cls) {
  let out;
  try {
    out = execFileSync(CLI, ['diff', '--json', 'a', 'b'], { cwd: path.join(pairs, cls), encoding: 'utf8' });
  } catch (e) {
    out = e.stdout; // exit 1: the keys differ
  }
  const d = JSON.parse(out).differing.find((x) => x.program === 'jit__lambda');
  return d.comparison.findings.details.filter((x) => x.code === 'module_finding').map((x) => x.finding);
}

/**
 * Compares the real pair `cls` (one line changed) and checks what every
 * such pair shows: the finding `code` first, the finding texts the CLI's,
 * the findings above the hunk, one removed and one added line.
 */
async function oneChangedLine(cls, code) {
  const card = await comparePair(cls);
  const c = await readCard(card);
  assert.equal(c.codes[0], code);
  assert.deepEqual(c.texts, cliFindings(cls).map((f) => `${f.code} ${f.text}`));
  assert.ok(c.above, 'the findings come before the hunk');
  assert.equal(c.removed.length, 1);
  assert.equal(c.added.length, 1);
  return { card, c, del: c.removed[0], add: c.added[0] };
}

test('a baked-in constant: the finding above the diff, the changed number marked on both lines', async () => {
  const { c, del, add } = await oneChangedLine('constant', 'baked_constant');
  assert.equal(c.badges[0], 'baked_constant');
  // Only the number is marked: 0.0729 on the removed line, 0.06561 on the added one.
  assert.equal(del.marks.length, 1, JSON.stringify(del));
  assert.equal(add.marks.length, 1, JSON.stringify(add));
  assert.equal(Number(del.marks[0]), 0.0729, del.marks[0]);
  assert.equal(Number(add.marks[0]), 0.06561, add.marks[0]);
  // Everything else on the two lines is the same and unmarked.
  assert.equal(del.unmarked.slice(1), add.unmarked.slice(1));
  assert.match(del.unmarked, /stablehlo\.constant dense</);
  assert.equal(c.allMarks, 2, 'no marks on unchanged lines');
  assert.deepEqual(page.errors, []);
});

test('matmul precision: the finding above the diff, the precision words marked, long lines wrapped', async () => {
  const { card, c, del, add } = await oneChangedLine('precision', 'matmul_precision');
  // x @ x: one dot_general with two operands, each at the default precision
  // in a and at "highest" in b.
  assert.deepEqual(del.marks, ['DEFAULT', 'DEFAULT']);
  assert.deepEqual(add.marks, ['HIGHEST', 'HIGHEST']);
  assert.equal(del.unmarked.slice(1), add.unmarked.slice(1));
  assert.match(del.unmarked, /stablehlo\.dot_general .*precision = \[, \]/);
  assert.equal(c.allMarks, 4, 'no marks on unchanged lines');
  // The dot_general line is longer than a phone is wide: it wraps inside the
  // card, never past its right edge.
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    const fit = await card.locator('pre.textdiff').evaluate((pre) => ({
      scroll: pre.scrollWidth, client: pre.clientWidth,
      lines: Math.round(pre.querySelector('.add').getClientRects().length),
    }));
    assert.ok(fit.scroll <= fit.client, `${width} px: no horizontal overflow (${fit.scroll} > ${fit.client})`);
    if (width === 390) assert.ok(fit.lines > 1, 'the long line wraps at 390 px');
    await shot(page, `captures-moddiff-${width}.png`, '[data-testid^="capture-program-"][data-program="jit__lambda"]');
  }
  await page.setViewportSize({ width: 1400, height: 1000 });
  assert.deepEqual(page.errors, []);
});
