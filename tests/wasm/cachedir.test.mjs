// Node tests of engine.readCacheFolder (wasm/WorkerApi.cpp → CacheDir.h's
// scanListedFiles), on the directories real JAX wrote (fixtures/cache_dirs):
// the wasm report equals the native CLI's `cachekey cache-dir DIR --json` on
// the same files (the CLI reads them through POSIX; here the engine asks a
// JS reader for the bytes it needs), and the reader is asked only for heads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cacheDirVariants, cli, listing, loadEngine, root } from './fixtures.mjs';

const engine = await loadEngine();
const dirs = path.join(root, 'fixtures/cache_dirs');

/** A copy of fixtures/cache_dirs/<rel>/cache with describe.json's mtimes, to the millisecond. */
function copy(rel) {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'cachedir-wasm-'));
  const to = path.join(parent, 'cache');
  fs.cpSync(path.join(dirs, rel, 'cache'), to, { recursive: true });
  for (const [name, row] of Object.entries(JSON.parse(fs.readFileSync(path.join(dirs, rel, 'describe.json'), 'utf8')).files)) {
    // exactly whole milliseconds on disk (utimes with a float would not be)
    const ms = BigInt(row.mtime_ns) / 1000000n;
    const stamp = `@${ms / 1000n}.${String(ms % 1000n).padStart(3, '0')}`;
    assert.equal(spawnSync('touch', ['-h', '-d', stamp, path.join(to, name)]).status, 0, name);
  }
  return parent;
}

const variants = cacheDirVariants(dirs);

test('every real cache directory: the wasm report is the CLI\u2019s, with and without a cap', (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  assert.ok(variants.length >= 8, variants.join(' '));
  for (const rel of variants) {
    const parent = copy(rel);
    for (const cap of [undefined, 4000]) {
      const args = ['cache-dir', 'cache', '--json', ...(cap === undefined ? [] : ['--max-size', String(cap)])];
      const r = spawnSync(cli, args, { cwd: parent });
      assert.ok(r.status === 0 || r.status === 1, `${rel}: exit ${r.status} ${r.stderr}`);
      const want = JSON.parse(r.stdout.toString());
      const { list, reader } = listing(path.join(parent, 'cache'));
      const got = engine.readCacheFolder(list, reader, 'cache', cap === undefined ? {} : { max_size: cap });
      assert.equal(got.error, undefined, JSON.stringify(got.error));
      delete got.text;
      assert.deepEqual(got, want, `${rel} cap ${cap}`);
    }
    fs.rmSync(parent, { recursive: true, force: true });
  }
});

test('only the heads of entries are read, unless the frame must be walked', () => {
  const parent = copy('0.12.0.1/cap');
  const dir = path.join(parent, 'cache');
  const { list, reader, reads } = listing(dir);
  const total = list.reduce((n, f) => n + f.size, 0);
  engine.readCacheFolder(list, reader, 'cache', {});
  // the 48 KB jit_slow entry is read to its first 16 KiB and its block headers
  assert.ok(reads.bytes < total, `read ${reads.bytes} of ${total} bytes`);
  fs.rmSync(parent, { recursive: true, force: true });
});

test('a bad cap is an error naming it; the engine stays usable', () => {
  const parent = copy('0.10.2/nocap');
  const { list, reader } = listing(path.join(parent, 'cache'));
  const bad = engine.readCacheFolder(list, reader, 'cache', { max_size: 1.5 });
  assert.equal(bad.error.code, 'invalid');
  assert.equal(bad.error.path, '$.max_size');
  assert.equal(engine.readCacheFolder(list, reader, 'cache', {}).error, undefined);
  fs.rmSync(parent, { recursive: true, force: true });
});

test('max_size -1 and 0 mean what jax_compilation_cache_max_size means, as the CLI says', () => {
  const parent = copy('0.12.0.1/cap');
  const { list, reader } = listing(path.join(parent, 'cache'));
  for (const [cap, code] of [[-1, 'no_cap'], [0, 'writes_refused']]) {
    const got = engine.readCacheFolder(list, reader, 'cache', { max_size: cap });
    const r = spawnSync(cli, ['cache-dir', 'cache', '--json', '--max-size', String(cap)], { cwd: parent });
    const want = JSON.parse(r.stdout.toString());
    // lru_cache.py: -1 turns eviction off; 0 refuses every put
    assert.equal(got.eviction.code, code);
    assert.deepEqual(got.eviction, want.eviction);
  }
  fs.rmSync(parent, { recursive: true, force: true });
});

test('the release choices are one per eviction rule, each read under its rule as the CLI reads --release', () => {
  const choices = engine.cacheReleases();
  assert.deepEqual(new Set(choices.map((c) => c.rule)), new Set(['mtime_all_files', 'atime_strict', 'atime_missing_zero']));
  const parent = copy('0.12.0.1/nocap');
  const { list, reader } = listing(path.join(parent, 'cache'));
  for (const c of choices) {
    assert.ok(c.text.length > 0);
    const got = engine.readCacheFolder(list, reader, 'cache', { release: c.release });
    const r = spawnSync(cli, ['cache-dir', 'cache', '--json', '--release', c.release], { cwd: parent });
    assert.equal(got.rule, c.rule);
    assert.equal(JSON.parse(r.stdout.toString()).rule, c.rule);
  }
  fs.rmSync(parent, { recursive: true, force: true });
});

test('names the eviction meets that JAX did not write: the wasm plan is the CLI\u2019s, and JAX\u2019s', (t) => {
  if (!fs.existsSync(cli)) t.skip('build/native/bin/cachekey is not built');
  // fixtures/cache_dirs/<release>/glob (tools/cache_dir_glob_fixture.sh): a
  // directory named zz-cache, foreign names ending in -cache, -atime values
  // above 2^63 and of 16 bytes. (atime_link is left out: the page's folder
  // picker shows no links.) The target is the one JAX logged.
  for (const rel of ['0.12.0.1/glob/directory', '0.12.0.1/glob/names', '0.12.0.1/glob/atime', '0.10.2/glob/atime']) {
    const log = fs.readFileSync(path.join(dirs, rel, 'run.log'), 'utf8');
    const evicted = [...log.matchAll(/Evicting cache entry '([^']*)': file size \d+ bytes, target cache size (\d+) bytes/g)];
    assert.ok(evicted.length > 0, rel);
    const target = Number(evicted[0][2]);
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'cachedir-wasm-'));
    fs.cpSync(path.join(dirs, rel, 'cache'), path.join(parent, 'cache'), { recursive: true });
    const r = spawnSync(cli, ['cache-dir', 'cache', '--json', '--max-size', String(target)], { cwd: parent });
    assert.ok(r.status === 0 || r.status === 1, `${rel}: exit ${r.status} ${r.stderr}`);
    const want = JSON.parse(r.stdout.toString());
    const { list, reader } = listing(path.join(parent, 'cache'));
    const got = engine.readCacheFolder(list, reader, 'cache', { max_size: target });
    assert.equal(got.error, undefined, JSON.stringify(got.error));
    delete got.text;
    assert.deepEqual(got, want, rel);
    // What JAX did: the files it logged evicting, in its order; where its
    // first is a directory, the plan stops there, raising.
    const jax = evicted.map((m) => `${m[1]}-cache`);
    const plan = got.eviction.evicted.map((e) => e.file);
    if (got.eviction.raise_reason === 'directory_entry') assert.deepEqual([...plan, got.eviction.raises_at], jax, rel);
    else assert.deepEqual(plan, jax, rel);
    fs.rmSync(parent, { recursive: true, force: true });
  }
});
