// The wasm log reader against the native CLI on every case of tests/cases:
// one engine implementation, so `compareLogs` (pasted text),
// `compareLogSources` (streamed in chunks) and `cachekey compare-logs --json`
// give identical results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cli, loadEngine, root } from './fixtures.mjs';

const engine = await loadEngine();
const cases = path.join(root, 'tests/cases');

const comparisons = [];
for (const c of fs.readdirSync(cases).sort()) {
  const f = path.join(cases, c, 'expect.json');
  if (!fs.existsSync(f)) continue;
  for (const e of JSON.parse(fs.readFileSync(f, 'utf8')).compare || []) comparisons.push({ dir: path.join(cases, c), ...e });
}

/** The CLI's --json; exit 1 (a key differs) is not an error here. */
function native(dir, a, b) {
  try {
    return JSON.parse(execFileSync(cli, ['compare-logs', a, b, '--json'], { cwd: dir }).toString());
  } catch (e) {
    if (e.status === 1) return JSON.parse(e.stdout.toString());
    throw e;
  }
}

test('wasm and native compare every case log identically', { skip: !fs.existsSync(cli) && 'no native build' }, async () => {
  assert.ok(comparisons.length >= 25, String(comparisons.length));
  for (const { dir, a, b } of comparisons) {
    const ta = fs.readFileSync(path.join(dir, a), 'utf8');
    const tb = fs.readFileSync(path.join(dir, b), 'utf8');
    const want = native(dir, a, b);
    assert.deepEqual(engine.compareLogs(ta, tb, a, b), want, `${a} vs ${b} (text)`);
    // Streamed from Blobs, as the page reads dropped files.
    const streamed = await engine.compareLogSources({ source: new Blob([ta]), name: a }, { source: new Blob([tb]), name: b });
    assert.deepEqual(streamed, want, `${a} vs ${b} (streamed)`);
  }
});

test('log readers report misuse as errors and are bounded', () => {
  assert.match(engine.call('feedLogReader', 12345, 'x').error.message, /no open log reader/);
  const ids = Array.from({ length: 12 }, (_, i) => engine.call('openLogReader', `l${i}`).reader);
  // At most 8 stay open: the oldest were dropped.
  assert.ok(engine.call('feedLogReader', ids[0], 'x').error);
  assert.deepEqual(engine.call('feedLogReader', ids[11], 'x'), { ok: true });
  assert.ok(engine.call('compareLogReaders', ids[11], ids[11]).error);
  // l10 was fed nothing: an empty log, said so; l11 one line without a key.
  const r = engine.call('compareLogReaders', ids[10], ids[11]);
  assert.match(r.error.message, /the log is empty/);
  // (a comparison closes its readers: two new ones, one line without a key first)
  const line = engine.call('openLogReader', 'line.log').reader;
  assert.deepEqual(engine.call('feedLogReader', line, 'x'), { ok: true });
  const empty = engine.call('openLogReader', 'empty.log').reader;
  assert.match(engine.call('compareLogReaders', line, empty).error.message, /no cache-key lines/);
});
