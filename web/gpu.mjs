// @ts-check
// GPU facts for the page: the accelerator picker's topologies, measured with
// the CUDA plugin's compile-only client on a CPU-only machine
// (gpu_topologies.json, written by tools/capture-gpu). Nothing here is
// computed: entry 6 of a GPU topology is the fingerprint the plugin
// returned, labelled with where it was measured.

/** The topologies of a gpu_topologies.json, grouped by target config, in file order. */
export function gpuGroups(gpu) {
  const groups = new Map();
  for (const t of (gpu && gpu.topologies) || []) {
    if (!groups.has(t.target_config)) groups.set(t.target_config, []);
    groups.get(t.target_config).push(t);
  }
  return [...groups.entries()];
}

export const gpuById = (gpu, id) => ((gpu && gpu.topologies) || []).find((t) => t.id === id);
export const gpuByFingerprint = (gpu, value) => ((gpu && gpu.topologies) || []).find((t) => t.fingerprint.value === value);

/** The picker's label for one topology. */
export function gpuLabel(t) {
  const more = [`${t.devices} device${t.devices === 1 ? '' : 's'}`];
  if (t.processes > 1) more.push(`${t.processes} processes`);
  return `${t.shape} \u2014 ${more.join(', ')}`;
}

/** Entry 6 for a topology: its measured fingerprint, labelled. */
export function gpuAccelerator(gpu, t) {
  return { fingerprint: { value: t.fingerprint.value, provenance: `${gpu.label}: jax-cuda12-plugin ${gpu.provenance.cuda_plugin}, ${t.id} (gpu_topologies.json)`, stand_in: !!t.fingerprint.stand_in } };
}

/** The note under the picker: what was measured, where, and what was not. */
export function gpuNote(gpu, t) {
  const shape = `${t.device_kind}, ${t.devices} device${t.devices === 1 ? '' : 's'}${t.processes > 1 ? ` in ${t.processes} processes` : ''}`;
  return `${t.id}: ${shape}. Fingerprint ${t.fingerprint.value}, measured (${gpu.label}; jax-cuda12-plugin ${gpu.provenance.cuda_plugin}, jax ${gpu.provenance.jax}, no GPU). `
    + `The fingerprint depends on the target config and on the compiling host\u2019s CPU. The compile-only client\u2019s platform_version (entry 3) reads \u201c${t.platform_version}\u201d; `
    + 'a process on a real GPU reports another one (expected \u201ccuda <runtime version>\u201d, unverified), and its entry 6 has not been compared with a device.';
}
