// The key exhibit's sentence on page findings F13, F14 and F17 of the
// 2026-11-30 review: the sentence is the engine's (compareResults), so these
// check that the page shows it, waiting for the debounced update.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { useOpenPage, waitForText } from './helpers.mjs';

const env = useOpenPage({ before, after, beforeEach }, { reset: true });
let page;

before(async () => { page = await env.opened; });

beforeEach(async () => {
  await waitForText(page, '[data-testid="sentence"]', /Nothing moved/);
});

test('F13: a CPU device count change is named, the fingerprint last', async () => {
  await page.selectOption('[data-testid="accel-kind"]', 'cpu');
  await page.fill('[data-testid="cpu-devices"]', '4');
  const s = await waitForText(page, '[data-testid="sentence"]', /devices 1 → 4/);
  assert.match(s, /The cause is entry 6 \(accelerator_config\): devices 1 → 4 \(ids \[0\] → \[0, 1, 2, 3\]\); topology fingerprint/);
  const details = await page.$$eval('#details li', (ls) => ls.map((l) => l.textContent));
  assert.match(details.at(-1), /^topology fingerprint /);
  assert.deepEqual(page.errors, []);
});

test('F14: a 12,000-character custom hook is shortened in the sentence and details', async () => {
  await page.fill('[data-testid="custom-hook"]', 'h'.repeat(12000));
  const s = await waitForText(page, '[data-testid="sentence"]', /entry 8 \(custom_hook\)/);
  assert.match(s, /\(12002 chars\)/);
  assert.ok(s.length < 500, String(s.length));
  const details = await page.$$eval('#details li', (ls) => ls.map((l) => l.textContent.length));
  assert.ok(details.every((n) => n < 200), JSON.stringify(details));
});

test('F17: a zeroed DebugOptions field is said to be zeroed, not silently equal', async () => {
  await page.selectOption('[data-testid="dbg-field"]', 'xla_dump_to');
  await page.fill('[data-testid="dbg-value"]', '/tmp/x');
  await page.click('[data-testid="dbg-add"]');
  const s = await waitForText(page, '[data-testid="sentence"]', /Not hashed/);
  assert.match(s, /^Nothing moved/);
  assert.match(s, /DebugOptions\.xla_dump_to \(field 109\) .* \(zeroed before entry 5 is hashed\)/);
});
