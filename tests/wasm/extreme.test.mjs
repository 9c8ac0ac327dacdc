// Large and extreme inputs in the wasm engine: each one works or gives a
// clear error, and the instance stays usable afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadEngine, root } from './fixtures.mjs';

const fixture = (id) => JSON.parse(fs.readFileSync(path.join(root, 'fixtures', id + '.json'), 'utf8'));
const add = fixture('add_1x1');
const load = async (mlir) => {
  const e = await loadEngine(mlir ? 'mlir/cachekey_engine_mlir' : 'cachekey_engine');
  e.registerFixture('add_1x1', add);
  return e;
};
const usable = (e) => assert.equal(e.computeKey({ schema: 1, base: 'add_1x1' }).key, add.expected.key);

test('100,000 flags', async () => {
  const e = await load(false);
  const flags = Array.from({ length: 100000 }, (_, i) => `--xla_flag_${i % 997}=${i}`).join(' ');
  // Flags XLA does not register: real JAX aborts, so the engine refuses them,
  // naming a few and counting the rest (the error stays short).
  const refused = e.computeKey({ schema: 1, base: 'add_1x1', flags: { XLA_FLAGS: flags } });
  assert.equal(refused.error && refused.error.code, 'unknown_flag');
  assert.match(refused.error.message, /and 99995 more/);
  assert.ok(refused.error.message.length < 1000);
  // The same 100,000 flags where XLA never parsed them (compile_options.xla_flags: false): all reach entry 4.
  const r = e.computeKey({ schema: 1, base: 'add_1x1', flags: { XLA_FLAGS: flags }, compile_options: { xla_flags: false } });
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.flags.length, 100000);
  usable(e);
});

test('a device assignment of 4,096 devices', async () => {
  const e = await load(false);
  const da = Array.from({ length: 64 }, (_, r) => Array.from({ length: 64 }, (_, c) => 4095 - (r * 64 + c)));
  const r = e.computeKey({ schema: 1, base: 'add_1x1', backend: { platform: 'gpu', platform_version: 'cuda 12080' },
    compile_options: { edits: { device_assignment: da, num_replicas: 64, num_partitions: 64 } } });
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.ok(r.compile_options.edits.some((e) => e.code === 'renumbered'));
  usable(e);
});

test('200 MB of entry-1 bytes', async () => {
  const e = await load(false);
  const r = e.computeKeyWithModuleBytes({ schema: 1, base: 'add_1x1' }, new Uint8Array(200 << 20).fill(0x5a));
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.entries[0].bytes_len, 200 << 20);
  usable(e);
});

test('a 50 MB MLIR text', async () => {
  const e = await load(true);
  const lines = ['module @jit_big {', '  "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "main"}> ({',
    '  ^bb0(%arg0: tensor<f32>):'];
  let size = 0;
  let i = 0;
  let prev = '%arg0';
  while (size < 50 * 1024 * 1024) {
    const l = `    %${i} = "stablehlo.add"(${prev}, %arg0) : (tensor<f32>, tensor<f32>) -> tensor<f32> loc("/home/user/project/model.py":${i}:7)`;
    lines.push(l);
    size += l.length + 1;
    prev = `%${i++}`;
  }
  lines.push(`    "func.return"(${prev}) : (tensor<f32>) -> ()`, '  }) : () -> ()', '}');
  const text = lines.join('\n');
  const r = e.computeKey({ schema: 1, base: 'add_1x1', module: { entry1_b64: null, text } });
  // Either a key or a clear error; never a trap. (Measured: it works, in
  // about 27 s and 470 MiB of wasm memory.)
  if (r.error) assert.doesNotMatch(r.error.message, /failed on this input/);
  else assert.equal(r.sym_name, 'jit_big');
  usable(e);
});

test('a scenario larger than a link may decompress to is refused by the encoder, before compressing', async () => {
  const e = await load(false);
  // 300 KiB of one letter compresses into a short fragment, but the decoder
  // refuses anything that decompresses past 256 KiB (kPermalinkMaxJsonBytes;
  // tests/engine/ExtremeInputsTest.cpp checks the decoder's cap natively):
  // such a link could never be opened, so none is made.
  const big = { schema: 1, base: 'add_1x1', custom_hook: 'x'.repeat(300 * 1024) };
  const json = JSON.stringify(big);
  const enc = e.encodePermalink(big);
  assert.equal(enc.too_long, true);
  assert.equal(enc.fragment, '');
  assert.equal(enc.json_bytes, Buffer.byteLength(json));
  assert.equal(enc.max_json_bytes, 256 * 1024);
  // The same limits are in version(), for a caller that refuses before calling.
  assert.equal(e.version().permalink_max_json_bytes, 256 * 1024);
  assert.equal(e.version().permalink_max_chars, enc.max_length);
  // Just under the cap, the same scenario makes a short link that opens.
  const fits = { schema: 1, base: 'add_1x1', custom_hook: 'x'.repeat(256 * 1024 - (json.length - 300 * 1024)) };
  assert.equal(Buffer.byteLength(JSON.stringify(fits)), 256 * 1024);
  const ok = e.encodePermalink(fits);
  assert.equal(ok.too_long, false);
  assert.equal(ok.json_bytes, 256 * 1024);
  assert.deepEqual(e.decodePermalink(ok.fragment).scenario, fits);
  usable(e);
});
