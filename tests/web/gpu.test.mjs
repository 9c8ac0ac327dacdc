// The page's GPU parts in Chromium: the accelerator picker offers the GPU
// topologies measured with the CUDA plugin's compile-only client
// (fixtures/gpu_topologies.json), labelled with the host CPU they were
// measured on, and entry 6 then feeds what real JAX fed for a GPU capture of
// that topology (fixtures/gpu/). Every expected digest is read from those
// captures. Each check waits for the state it reads.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root, useOpenPage, waitForText } from './helpers.mjs';

const env = useOpenPage({ before, after, beforeEach }, { reset: true });
let page;

const gpuFixture = (id) => JSON.parse(fs.readFileSync(path.join(root, 'fixtures', 'gpu', id + '.json'), 'utf8'));
const table = JSON.parse(fs.readFileSync(path.join(root, 'fixtures', 'gpu_topologies.json'), 'utf8'));
const digestOf = (id, n) => gpuFixture(id).expected.entries[n - 1].digest;

before(async () => { page = await env.opened; });

async function waitForDigest(n, digest) {
  await page.waitForFunction(([sel, v]) => {
    const e = document.querySelector(sel);
    return !!e && e.getAttribute('data-digest') === v;
  }, [`[data-testid="entry-${n}"]`, digest], { timeout: 10000 });
}

test('the GPU picker offers every measured topology, labelled compile-only GPU client', async () => {
  await page.selectOption('[data-testid="accel-kind"]', 'gpu');
  const options = await page.$$eval('[data-testid="gpu-topology"] option', (os) => os.map((o) => o.value));
  assert.deepEqual(options.sort(), table.topologies.map((t) => t.id).sort());
  // The default is an 8-GPU H100 host: entry 6 feeds what real JAX fed there.
  await waitForDigest(6, digestOf('matmul_h100_1x1x8_mesh2x4__0.12.0.1', 6));
  const note = await waitForText(page, '[data-testid="gpu-note"]', /measured/);
  assert.match(note, /^NVIDIA H100 80GB HBM3\/1x1x8: NVIDIA H100 80GB HBM3, 8 devices/);
  assert.ok(table.label.startsWith(`compile-only GPU client, host CPU ${table.provenance.host_cpu}`), table.label);
  assert.ok(note.includes(table.label), note);
  assert.match(note, /unverified/);
  await page.selectOption('[data-testid="gpu-topology"]', 'NVIDIA B200/1x1x1');
  await waitForDigest(6, digestOf('add_b200_1x1x1__0.12.0.1', 6));
  assert.equal(await page.isVisible('[data-testid="entry-6"] .stand-in'), false, 'entry 6 has no stand-in label');
  assert.deepEqual(page.errors, []);
});

test('a GPU capture opened as a preset reproduces the key real JAX computed', async () => {
  const fx = gpuFixture('matmul_h100_1x1x8_reversed__0.12.0.1');
  await page.selectOption('#preset', 'matmul_h100_1x1x8_reversed__0.12.0.1');
  await waitForText(page, '[data-testid="final-key"]', new RegExp(`^${fx.expected.key}$`));
});
