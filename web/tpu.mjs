// @ts-check
// TPU facts for the page: the accelerator picker's topologies (real libtpu
// values from tpu_topologies.json, schema 2) and the TPU case studies, whose
// presets are whole keys captured with libtpu (fixtures/tpu/). Nothing here
// is computed: the page only offers what libtpu returned.
import { pull, upstreamUrl, UPSTREAM } from './data.mjs';

const GENERATIONS = ['v2', 'v3', 'v4', 'v4 lite', 'v5e', 'v5p', 'v6e', 'TPU7x'];

/** The topologies of a tpu_topologies.json, grouped by generation, in file order. */
export function tpuGroups(tpu) {
  const groups = new Map();
  for (const t of (tpu && tpu.topologies) || []) {
    if (!groups.has(t.generation)) groups.set(t.generation, []);
    groups.get(t.generation).push(t);
  }
  return [...groups.entries()].sort(([a], [b]) => GENERATIONS.indexOf(a) - GENERATIONS.indexOf(b));
}

export const tpuById = (tpu, id) => ((tpu && tpu.topologies) || []).find((t) => t.id === id);
export const tpuByFingerprint = (tpu, value) => ((tpu && tpu.topologies) || []).find((t) => t.fingerprint.value === value);

/** The picker's label for one topology. */
export function tpuLabel(t) {
  const more = [t.device_kind, `${t.devices} device${t.devices === 1 ? '' : 's'}`];
  if (t.processes > 1) more.push(`${t.processes} processes`);
  if (t.cloud_name) more.push(t.cloud_name);
  return `${t.id} \u2014 ${more.join(', ')}`;
}

/** Compares two dotted versions, newest first. */
function newestFirst(a, b) {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); ++i) {
    const d = (y[i] || 0) - (x[i] || 0);
    if (d) return d;
  }
  return 0;
}

/** The libtpu builds, newest first: [{libtpu, jax, …}]. */
export function libtpuBuilds(tpu) {
  return [...((tpu && tpu.libtpu_builds) || [])].sort((a, b) => newestFirst(a.libtpu, b.libtpu));
}

/**
 * The newest libtpu captured with jax `release` (an alias resolved by the
 * caller, catalog.releaseOf; none: the newest jax captured), else the newest.
 */
export function libtpuForProfile(tpu, release) {
  const builds = libtpuBuilds(tpu);
  if (!builds.length) return '';
  const jax = release || builds.map((b) => b.jax).sort(newestFirst)[0];
  return (builds.find((b) => b.jax === jax) || builds[0]).libtpu;
}

/** The topology's platform_version under libtpu `libtpu`, or undefined. */
export function tpuPlatformVersion(t, libtpu) {
  const p = t && t.platform_versions.find((x) => x.libtpu === libtpu);
  return p ? p.value : undefined;
}

/** Entry 6 for a topology: its measured fingerprint, with a provenance short enough for links. */
export function tpuAccelerator(t) {
  const builds = t.platform_versions.map((p) => p.libtpu).join(', ');
  return { fingerprint: { value: t.fingerprint.value, provenance: `libtpu ${builds}, ${t.id} (tpu_topologies.json)`, stand_in: !!t.fingerprint.stand_in } };
}

/** The note under the picker. */
export function tpuNote(t, libtpu) {
  const shape = `${t.device_kind}, ${t.devices} device${t.devices === 1 ? '' : 's'}${t.processes > 1 ? ` in ${t.processes} processes` : ''}${t.cloud_name ? ` (Cloud type ${t.cloud_name}: a label, not checked on a TPU VM)` : ''}`;
  const builds = t.platform_versions.map((p) => p.libtpu).join(', ');
  const pv = tpuPlatformVersion(t, libtpu);
  return `${t.id}: ${shape}. Fingerprint ${t.fingerprint.value}, measured: libtpu ${builds} all compute this value for the topology they describe (deviceless, no TPU). `
    + (pv !== undefined ? `Under libtpu ${libtpu}, platform_version (entry 3) reads \u201c${pv.replace(/\n/g, ' / ')}\u201d.` : `libtpu ${libtpu} refuses this name${t.refused_by && t.refused_by[libtpu] ? ` (${t.refused_by[libtpu]})` : ''}.`);
}

/** platform_version choices for entry 3: one per distinct string, [value, label]. */
export function tpuPlatformVersionChoices(tpu) {
  const seen = new Map();
  for (const [, ts] of tpuGroups(tpu)) {
    for (const t of ts) {
      for (const p of t.platform_versions) {
        if (seen.has(p.value)) continue;
        const chip = p.value.split('\n').find((l) => l.includes('TPU')) || t.device_kind;
        seen.set(p.value, `${chip}, libtpu ${p.libtpu} (jax ${p.jax})`);
      }
    }
  }
  return [...seen.entries()];
}

/**
 * TPU case studies. Every preset and every patched-in ingredient is a whole
 * key captured with libtpu, so both keys the page shows are the ones real
 * JAX computed.
 */
export function tpuCaseStudies(fixtures) {
  const fx = (id) => fixtures[id];
  // The baseline capture, and the ingredients `keys` of the capture `expect`
  // patched over it: the perturbed scenario is that capture.
  const move = (preset, expect, keys) => {
    const f = fx(expect);
    const patch = f ? Object.fromEntries(keys.map((k) => [k, f[k]])) : undefined;
    return { preset, patch, expect };
  };
  return [
    {
      id: 'libtpu-upgrade',
      title: 'A libtpu upgrade moves entry 3, not entry 6',
      source: [pull(27814), 'jax-ml/jax#27814'],
      source2: [() => upstreamUrl('platform'), UPSTREAM.platform.label + ' at jax-v0.10.2'],
      text: 'The same sharded matmul compiled by jax 0.12.0.1 for a v5e:2x2 slice, once with libtpu 0.0.50 and once with 0.0.50.1, both builds that jax[tpu]==0.12.0.1 accepts. Both keys were captured with libtpu on a machine without a TPU. libtpu writes its build into platform_version, so entry 3 moves and with it the key: the new compiler does not reuse the old one\u2019s executables. The topology fingerprint of entry 6 stays the same: every libtpu build captured (0.0.42.1, 0.0.50, 0.0.50.1) computes the same value for the same topology. Before PR #27814, under many setups the backend version did not reach the key, and an upgrade could read back an executable built by the older compiler.',
      ...move('matmul_v5e_2x2__0.12.0.1__libtpu0.0.50', 'matmul_v5e_2x2__0.12.0.1', ['backend']),
    },
    {
      id: 'tpu-v5e-v5p',
      title: 'A v5e slice or a v5p slice: three entries move',
      source: [() => upstreamUrl('accelerator'), UPSTREAM.accelerator.label + ' at jax-v0.10.2'],
      source2: [() => upstreamUrl('platform'), UPSTREAM.platform.label],
      text: 'The same sharded matmul on 4 chips of v5e (TPU v5 lite) and on 4 chips of v5p (TPU v5), both captured with jax 0.12.0.1 and libtpu 0.0.50.1. The module bytes are equal. Entry 3 moves first, because platform_version names the chip (TFRT TPU v5 lite, TFRT TPU v5); entry 6 moves with the topology\u2019s fingerprint; and entry 5 moves too, because make_mesh orders the devices of the two slices differently ([0, 1, 3, 2] on v5e, [0, 1, 2, 3] on v5p) and on TPU the device assignment is hashed as it is.',
      ...move('matmul_v5e_2x2__0.12.0.1', 'matmul_v5p_2x2x1__0.12.0.1', ['backend', 'compile_options', 'accelerator']),
    },
    {
      id: 'tpu-4-vs-8',
      title: 'The same program on 4 and on 8 chips',
      source: [() => upstreamUrl('compile_options'), UPSTREAM.compile_options.label + ' at jax-v0.10.2'],
      source2: [() => upstreamUrl('accelerator'), UPSTREAM.accelerator.label],
      text: 'The same sharded matmul on a v5e:2x2 slice (4 chips, mesh 2x2) and on a v5e:2x4 slice (8 chips in 2 processes, mesh 2x4), both captured with jax 0.12.0.1 and libtpu 0.0.50.1. Entry 1 moves first: the module records the number of partitions and the shardings. Entry 5 carries the larger device assignment, and entry 6 the other topology\u2019s fingerprint. A cache filled on one slice size does not serve another.',
      ...move('matmul_v5e_2x2__0.12.0.1', 'matmul_v5e_2x4__0.12.0.1', ['module', 'compile_options', 'accelerator']),
    },
    {
      id: 'tpu-pallas-lines',
      title: 'A Pallas kernel at another source line (captured on TPU)',
      source: [pull(35699), 'jax-ml/jax#35699'],
      source2: [() => upstreamUrl('canonicalize'), UPSTREAM.canonicalize.label + ' at jax-v0.10.2'],
      text: 'The same Pallas add-one kernel (pl.pallas_call on int32[8,128]) defined at two source lines, compiled for device 0 of a v5e:2x2 slice and captured with libtpu. On jax 0.12.0.1 the kernel\u2019s locations sit in a debug_locations member of the tpu_custom_call\u2019s backend_config, which JAX deletes before hashing: the captured entry-1 bytes are equal and so are the keys. The second button makes the same move on jax 0.10.2 (libtpu 0.0.42.1), where the locations live inside the encoded kernel body that strip-debuginfo does not reach: entry 1 moves.',
      ...move('pallas_a__0.12.0.1', 'pallas_b__0.12.0.1', ['module']),
      alt: { label: 'Same move on jax 0.10.2', ...move('pallas_a__0.10.2', 'pallas_b__0.10.2', ['module']) },
    },
  ].filter((c) => c.patch !== undefined);
}
