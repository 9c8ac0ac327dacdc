// @ts-check
// The page's wiring. cachekey_engine_key.js was loaded by a classic <script>
// before this module (the engine for ordinary scenarios, on this thread;
// worker.js loads its own, and the one with MLIR). Boot loads the engine,
// registers every captured fixture as a scenario base (catalog.mjs), makes
// the store (store.mjs: a preset id and a JSON merge patch over it, and what
// the engine computed), and mounts one pane per exhibit, each rendering from
// the store. Nothing else happens here.
import { CacheKeyEngine } from './engine.mjs';
import { $ } from './dom.mjs';
import { Catalog } from './catalog.mjs';
import { createStore } from './store.mjs';
import { setStatus } from './status.mjs';
import { setupEmbed, EXHIBITS, EMBED_PRESET } from './embed.mjs';
import { createMlirLoader, fetchJson, renderAbout } from './canonicaliser.mjs';
import { setUpstreamLinks } from './data.mjs';
import { mountKeyExhibit } from './entries.mjs';
import { mountControls } from './controls/index.mjs';
import { mountFlags } from './flags.mjs';
import { mountTrace } from './trace.mjs';
import { mountLogs } from './logs.mjs';
import { mountShare } from './permalink.mjs';
import { mountScenarioFiles } from './scenario-file.mjs';
import { mountCaptures } from './captures.mjs';
import { mountCacheDir } from './cachedir.mjs';
import { mountFirstView } from './first-view.mjs';
import { mountCases } from './cases.mjs';
import { mountQuestions } from './questions.mjs';
import { mountModes, connectModes, reveal, enterModeOf } from './modes.mjs';
import { EngineWorker } from './worker-client.mjs';
import { mountBusy } from './busy.mjs';
import { mountWalk } from './walk.mjs';
import { mountPipeline } from './pipeline.mjs';
import { mountFlagPlay } from './flagplay.mjs';

const DEFAULT_PRESET = 'add_1x1';
const params = new URLSearchParams(location.search);
const embed = params.has('embed') ? params.get('embed') : null;
// The two modes work from the first paint on, before the engine loads.
mountModes({ embed: embed !== null });

async function boot() {
  const t0 = performance.now();
  const postHeight = embed !== null ? setupEmbed(embed) : null;

  let engine;
  let presets;
  let tpu;
  let gpu;
  let links;
  try {
    [engine, presets, tpu, gpu, links] = await Promise.all([
      CacheKeyEngine.load({ baseUrl: './' }),
      fetchJson('presets.json'),
      fetchJson('tpu_topologies.json').catch(() => null),
      fetchJson('gpu_topologies.json').catch(() => null),
      // Each release's line of every place the page links to in cache_key.py.
      fetchJson('upstream-links.json').catch(() => null),
    ]);
  } catch (e) {
    setStatus('The key engine could not be loaded: ' + e.message, 'error');
    return;
  }
  // The engine's worker (worker.js) does what can take long: module text,
  // links, logs. It starts with its first job.
  setUpstreamLinks(links);
  const worker = new EngineWorker('worker.js');
  mountBusy(worker);
  const catalog = new Catalog(engine, worker);
  catalog.mlir = !!engine.version().mlir;
  // The releases and their rules, as the engine knows them (never copied here).
  const profiles = engine.profiles();
  if (profiles.error) {
    setStatus('The key engine could not list its releases: ' + profiles.error.message, 'error');
    return;
  }
  catalog.profiles = /** @type {import('./engine-types.mjs').Profiles} */ (profiles);
  // The compressions and platform_version strings the pickers offer, and their labels.
  const choices = engine.scenarioChoices();
  if (choices.error) {
    setStatus('The key engine could not list its choices: ' + choices.error.message, 'error');
    return;
  }
  catalog.choices = /** @type {import('./engine-types.mjs').ScenarioChoices} */ (choices);
  catalog.tpu = tpu;
  catalog.gpu = gpu;
  // The large captures (large_mlp) come when the reader picks one.
  catalog.fetchMore = () => fetchJson('presets-more.json');
  if (!catalog.load(presets, DEFAULT_PRESET)) {
    setStatus('presets.json has no add_1x1 fixture; the page cannot show its default scenario.', 'error');
    return;
  }

  const store = createStore(catalog, DEFAULT_PRESET, worker);
  connectModes(store);
  const loader = createMlirLoader(catalog, store);
  mountKeyExhibit(store, catalog);
  mountPipeline(store, $('#pipeline'));
  mountControls(store, catalog, loader);
  mountFlags(store, catalog);
  mountFlagPlay(store, $('#exhibit-flags'));
  mountTrace(store);
  const logs = mountLogs(catalog, { embed: !!embed });
  const share = mountShare(store, catalog, loader, { embed: !!embed, defaultPreset: DEFAULT_PRESET });
  mountScenarioFiles(store, catalog, loader, share);
  mountCaptures(catalog, loader, store);
  mountCacheDir(catalog);
  mountWalk(store, catalog, $('#walk'));

  /** Opens a scenario from a case study or a question, and moves to the key (in "How the key is made"). */
  const show = (presetId, patch) => {
    if (!catalog.presets.has(presetId)) return;
    store.dispatch({ type: 'open', presetId, patch, announce: true });
    if (!embed) reveal($('#entries-h'));
  };
  /** Fills the log reader with the example logs and moves to it (in "Why did my run recompile?"). */
  const openExampleLogs = () => {
    enterModeOf($('#exhibit-logs'));
    logs.loadExample(true);
  };

  if (!(await share.applyHash())) {
    const opens = embed !== null && EMBED_PRESET[embed];
    if (opens && catalog.presets.has(opens)) store.dispatch({ type: 'open', presetId: opens, patch: {} });
    else store.dispatch({ type: 'recompute' });
  }
  await store.settled();
  if (embed === null) {
    mountCases($('#cases-list'), catalog, loader, show);
    mountQuestions($('#questions-list'), catalog, { show, openExampleLogs });
    mountFirstView({ openExampleLogs });
    renderAbout(catalog, 'yes');
  }
  if (embed === null || EXHIBITS.includes(embed)) setStatus('');
  document.documentElement.setAttribute('data-ready', 'true');
  // After the first view: is the MLIR module there, or still being built
  // (scripts/run builds it in the background)? Polls build-status.json.
  loader.watchBuild();
  document.documentElement.setAttribute('data-boot-ms', String(Math.round(performance.now() - t0)));
  document.documentElement.setAttribute('data-ready-ms', String(Math.round(performance.now())));
  if (postHeight) postHeight();
}

window.addEventListener('error', (e) => setStatus('Something went wrong: ' + (e.message || 'unknown error'), 'error'));
boot().catch((e) => setStatus('The page failed to start: ' + e.message, 'error'));
