// @ts-check
// The baseline fieldset: the preset, the JAX release (which cache_key.py the
// engine follows), what changed between two releases, and "undo all". The
// releases and their differences are the engine's (profiles(),
// profileDifferences()); nothing about them is written here.
import { el, put, setText } from '../dom.mjs';
import { errorText } from '../engine.mjs';

/** @param {import('./index.mjs').Controls} controls */
export function bindRelease({ store, catalog, loader, changeMany, baseline }) {
  // The profile of a scenario that names none: the engine's default (an
  // alias, which catalog.releaseOf resolves).
  const DEFAULT_PROFILE = catalog.profiles.default;
  /** @param {string} id */
  const q = (id) => document.getElementById(id);
  /** @param {string} id */
  const select = (id) => /** @type {HTMLSelectElement} */ (q(id));
  const ui = {
    preset: select('preset'), presetNote: q('preset-note'), profile: select('profile'), reset: q('reset'),
    profileNote: q('profile-note'), profileJaxlib: /** @type {HTMLInputElement} */ (q('profile-jaxlib')), profileMeaning: q('profile-meaning'),
    profileFrom: select('profile-from'), profileTo: select('profile-to'), profileChanges: q('profile-changes'),
  };
  const presetLabel = (p) => `${p.id} — ${p.title}`;
  const onTpu = (p) => catalog.fixtureInfo(p.id)?.backend?.platform === 'tpu';
  // The captures presets-more.json brings are listed with the others (fetched when picked).
  const all = [...catalog.presets.values(), ...[...catalog.more].map(([id, m]) => ({ id, title: m.title, derived: false }))];
  const captured = all.filter((p) => !p.derived && !onTpu(p));
  const capturedTpu = all.filter((p) => !p.derived && onTpu(p));
  const derived = all.filter((p) => p.derived);
  const live = [...catalog.live.values()];
  const options = (ps) => ps.map((p) => el('option', { value: p.id }, presetLabel(p)));
  // The releases the CPU captures were made with, from their provenance.
  const jaxOf = (p) => ((catalog.fixtureInfo(p.id) || {}).provenance || {}).jax;
  const capturedWith = [...new Set(captured.map(jaxOf).filter(Boolean))];
  put(ui.preset,
    el('optgroup', { label: `Captured from real JAX ${capturedWith.join(', ') || '(release not recorded)'}` }, options(captured)),
    capturedTpu.length ? el('optgroup', { label: 'Captured from real JAX with libtpu (TPU, deviceless)' }, options(capturedTpu)) : null,
    derived.length ? el('optgroup', { label: 'Derived (a patch over a capture)' }, options(derived)) : null,
    live.length ? el('optgroup', { label: 'Needs live MLIR (loads about 0.7 MB)', 'data-live': '' }, options(live)) : null);

  // Releases, grouped by the profile (behaviour) that covers them.
  const profiles = catalog.profiles.profiles || [];
  const newest = catalog.profiles.newest || '';
  const releaseOptions = () => profiles.slice().reverse().map((p) => el('optgroup', { label: `profile ${p.id}` },
    p.releases.slice().reverse().map((r) => el('option', { value: r }, `jax ${r}`))));
  // The engine's aliases ("main", the newest release) come first.
  const aliases = Object.entries(catalog.profiles.aliases || {});
  const aliasOptions = (long) => aliases.map(([alias, rel]) => el('option', { value: alias },
    long && rel === newest ? `${alias} (the newest: jax ${rel})` : `${alias} (jax ${rel})`));
  put(ui.profile, ...aliasOptions(true), ...releaseOptions());
  put(ui.profileFrom, ...releaseOptions());
  put(ui.profileTo, ...aliasOptions(false), ...releaseOptions());
  // "What changed" starts from the release the default preset was captured with.
  ui.profileFrom.value = jaxOf({ id: store.state.presetId }) || capturedWith[0] || newest;
  ui.profileTo.value = aliases.length ? aliases[0][0] : newest;
  const showChanges = () => {
    const d = catalog.engine.profileDifferences(ui.profileFrom.value, ui.profileTo.value);
    if (d.error) {
      put(ui.profileChanges, el('li', { class: 'error' }, errorText(d.error)));
      return;
    }
    put(ui.profileChanges, ...(d.differences.length ? d.differences.map((t) => el('li', null, t))
      : [el('li', null, d.from === d.to
        ? `jax ${ui.profileFrom.value} and ${ui.profileTo.value} compute the key the same way (profile ${d.from}).`
        : `Profiles ${d.from} and ${d.to} differ in nothing this page can list.`)]));
  };
  ui.profileFrom.addEventListener('change', showChanges);
  ui.profileTo.addEventListener('change', showChanges);
  showChanges();

  /** The preset select shows the preset in the store (adding one opened from a file). */
  function syncPreset() {
    const id = store.state.presetId;
    if (!ui.preset.querySelector(`option[value="${CSS.escape(id)}"]`) && catalog.presets.has(id)) {
      ui.preset.append(el('option', { value: id }, presetLabel(catalog.presets.get(id))));
    }
    ui.preset.value = id;
  }

  async function setPreset(id) {
    if (catalog.isMore(id)) {
      setText(ui.presetNote, `Loading ${id} (presets-more.json)\u2026`);
      try {
        await catalog.loadMore();
      } catch (e) {
        syncPreset();
        setText(ui.presetNote, `${id} could not be loaded: ${e.message}. The preset shown is unchanged.`);
        return;
      }
      if (ui.preset.value !== id) return; // another pick came meanwhile
    }
    if (!catalog.presets.has(id) && catalog.live.has(id)) {
      try {
        await loader.load();
      } catch {
        syncPreset();
        return;
      }
    }
    if (catalog.presets.has(id)) store.dispatch({ type: 'open', presetId: id, patch: {} });
  }

  ui.preset.addEventListener('change', () => setPreset(ui.preset.value));
  // The picker sets the release of the perturbed side only: the baseline
  // stays the preset as captured. With "its own jaxlib" (the default) the
  // perturbed side's jaxlib version (entry 2) becomes the one pip installs
  // with that release (the engine's profiles: jaxlibs; a jax-only patch
  // release comes with the jaxlib before it), so an upgrade moves entry 2
  // as a real one does; without it only cache_key.py changes.
  const releaseOf = (v) => catalog.releaseOf(v);
  /** Picks the release; `jaxlib`: also set entry 2 (true) or put the baseline's back (false). */
  const pickRelease = (origin, jaxlib) => {
    const v = ui.profile.value;
    const base = baseline();
    /** @type {Array<[string[], *]>} */
    const edits = [[['profile'], v]];
    const own = catalog.jaxlibOf(v);
    if (jaxlib !== undefined) edits.push([['jaxlib_version'], jaxlib && own !== undefined && releaseOf(v) !== releaseOf(base.profile || DEFAULT_PROFILE) ? own : base.jaxlib_version]);
    changeMany(edits, origin);
  };
  ui.profile.addEventListener('change', (e) => pickRelease(e.target, ui.profileJaxlib.checked ? true : undefined));
  ui.profileJaxlib.addEventListener('change', (e) => pickRelease(e.target, ui.profileJaxlib.checked));
  /** States on the page what the picker compares. */
  const meaning = (r) => {
    const base = baseline();
    const a = releaseOf(base.profile || DEFAULT_PROFILE);
    const b = releaseOf(r.profile || DEFAULT_PROFILE);
    setText(ui.profileMeaning, a === b
      ? `Both sides follow jax ${a}, the release the baseline preset is computed with.`
      : `The baseline stays at jax ${a} (jaxlib ${base.jaxlib_version ?? 'as captured'}); the perturbed side follows jax ${b}’s cache_key.py, with jaxlib ${r.jaxlib_version ?? 'as captured'}${r.jaxlib_version === base.jaxlib_version ? ' (unchanged: only the code that computes the key differs)' : ''}.`);
  };
  ui.reset.addEventListener('click', () => store.dispatch({ type: 'open', presetId: store.state.presetId, patch: {} }));

  return {
    entry: 0,
    /** @param {import('../engine-types.mjs').ResolvedScenario} r */
    sync(r) {
      syncPreset();
      ui.profile.value = r.profile || DEFAULT_PROFILE;
      meaning(r);
      if (ui.profile.value === '' && r.profile) {
        // A release this page lists under another spelling: add it as given.
        ui.profile.append(el('option', { value: r.profile }, r.profile));
        ui.profile.value = r.profile;
      }
      const meta = catalog.presets.get(store.state.presetId);
      setText(ui.presetNote, meta ? (meta.derived ? 'Derived, not captured: ' + meta.note : 'Captured from real JAX (' + (meta.provenance || 'release not recorded') + ').') : '');
    },
    /** @param {import('../engine-types.mjs').KeyResult} result */
    notes(result) {
      const profile = catalog.profileOf(result.profile);
      setText(ui.profileNote, profile ? `Profile ${profile.id}: jax ${profile.releases.join(', ')}; ${profile.entry_count} entries. ${profile.changes}.` : '');
    },
  };
}
