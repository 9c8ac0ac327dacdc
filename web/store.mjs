// @ts-check
// The page's one store: the scenario (a preset id and a JSON merge patch over
// it), what the engine computed for it, and the view options. Every pane
// renders from store.state; every change goes through store.dispatch. An
// ordinary scenario is computed inside the dispatch (the state a pane reads
// after it is already the new one); one with module text is computed in the
// engine's worker, and its answer is a later change (state.pending
// meanwhile; store.settled() waits for it). Subscribers get (state, change),
// where `change` says what the dispatch did (the render hints below).
// Modelled on Compiler Explorer's panes, each with typed state, talking over
// one hub.
import { patchValue, clone } from './state.mjs';

// The engine's shapes (KeyResult, CompareResult, ResolvedScenario, …) are
// declared once, in engine-types.mjs.
/** @typedef {import('./engine-types.mjs').EngineError} EngineError */
/** @typedef {import('./engine-types.mjs').CompareResult} CompareResult */
/** @typedef {import('./engine-types.mjs').ResolvedScenario} ResolvedScenario */

// ------------------------------------------------------------- page state
/**
 * The engine's refusal of the scenario the user asked for.
 * `refused`: the change was not applied (the scenario shown, and every
 * control, is still the one before it); otherwise the scenario holds the
 * change (a text being typed) and the exhibits are stale until it computes.
 * @typedef {{error: EngineError, refused: boolean}} PageError
 */
/**
 * @typedef {Object} PageState
 * @property {string} presetId the baseline preset
 * @property {Object} patch the perturbation: a JSON merge patch over the preset
 * @property {?CompareResult} cmp the last comparison computed (stale while `error` holds a change)
 * @property {?ResolvedScenario} resolved the perturbed scenario resolved, when it resolves
 * @property {boolean} liveBaseline the baseline's entry 1 is computed live from its preset's text
 * @property {?PageError} error
 * @property {boolean} fullDigests show digests whole
 * @property {boolean} tracePrefix show Python's logging prefix in the trace
 * @property {''|'why'|'how'} mode the page's mode (modes.mjs: a 'mode' action; '' in an embed, which has none)
 * @property {'off'|'loading'|'ready'|'failed'} mlir the live MLIR canonicaliser
 * @property {string} mlirError why loading it failed
 * @property {?import('./canonicaliser.mjs').MlirBuild} mlirBuild the last build-status.json read (null before)
 * @property {?Job} pending a scenario being computed in the engine's worker (it becomes presetId and patch when done)
 * @property {string} cancelled what the last cancel stopped ('' after the next computed change)
 * @property {WalkSelection} walk the code walk's selection (walk.mjs; the link's step, entry and line)
 */
/**
 * The code walk's selection (walk.mjs), the part of the page a walk link
 * names ("&step=3&entry=5&line=40", permalink.mjs). One shape: below the
 * last step the selected entry is the step's; a selected line feeds the
 * selected entry; the walk keeps it so when it dispatches.
 * @typedef {Object} WalkSelection
 * @property {number} step the step player's position, 0..the entry count (at rest: the entry count, every entry fed)
 * @property {number} entry the selected entry, 1-based (0: none)
 * @property {number} line the selected line of cache_key.py, 1-based (0: none)
 * @property {boolean} playing the player is playing (the link is written when it stops)
 * @property {boolean} linked the selection is an opened link's, not shown yet (the walk shows it once its file is there)
 */
/**
 * A scenario to compute, and how to apply the answer.
 * @typedef {Object} Job
 * @property {string} presetId
 * @property {Object} patch
 * @property {?Element} origin the control that asked
 * @property {boolean} sync write the answer back into the controls
 * @property {boolean} announce
 * @property {boolean} refusable a choice the engine refuses is not applied (edits)
 * @property {number} [seq] the worker job's number
 */
/**
 * What one dispatch did, for the panes.
 * @typedef {Object} Change
 * @property {string} type the action type
 * @property {?Element} origin the control that made the change (its fieldset is not re-synced)
 * @property {boolean} sync write the scenario back into the controls
 * @property {boolean} announce announce the key even when it did not move
 * @property {boolean} computed the engine computed a new result
 * @property {boolean} keyChanged the perturbed key differs from the one shown before
 * @property {?('link'|'apply'|'reader')} walkFrom a 'walk' change: an opened link's part, held ('link'); the walk showing one ('apply'); or the reader's choice
 */
/**
 * @typedef {{type: 'edit', path?: string[], value?: *, edits?: Array<[string[], *]>, origin?: ?Element, sync?: boolean}
 *   | {type: 'open', presetId: string, patch?: Object, announce?: boolean}
 *   | {type: 'recompute'}
 *   | {type: 'view', fullDigests?: boolean, tracePrefix?: boolean}
 *   | {type: 'mode', mode: 'why'|'how'}
 *   | {type: 'mlir', status: 'loading'|'ready'|'failed', error?: string}
 *   | {type: 'mlirBuild', build: import('./canonicaliser.mjs').MlirBuild}
 *   | {type: 'computed', seq: number, answer: Answer}
 *   | {type: 'cancelled', seq: number, label: string}
 *   | {type: 'walk', step?: number, entry?: number, line?: number, playing?: boolean, from?: 'link'|'apply'|'reader'}} Action
 */
/**
 * The worker's answer to 'compare' (worker.js): the engine's comparison and
 * the perturbed scenario resolved, or the worker's error.
 * @typedef {{cmp?: import('./engine-types.mjs').Result<CompareResult>, resolved?: import('./engine-types.mjs').Result<ResolvedScenario>,
 *   textOmitted?: boolean, error?: EngineError}} CompareAnswer
 */
/**
 * The engine's answer for a scenario.
 * @typedef {{cmp?: CompareResult, resolved: ?ResolvedScenario, liveBaseline: boolean, error?: EngineError}} Answer
 */

/**
 * The walk's selection after `action`: each part given replaces the one
 * held when it is valid (an integer in range; a link is hostile input) and
 * is ignored otherwise. An opened link's parts ('link') are held until the
 * walk shows them (linked); any other change is what the walk shows.
 * @param {WalkSelection} w
 * @param {{step?: number, entry?: number, line?: number, playing?: boolean, from?: 'link'|'apply'|'reader'}} action
 * @param {number} count the number of entries (the last step)
 * @returns {WalkSelection}
 */
export function walkReduce(w, action, count) {
  const ok = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;
  const next = { ...w, linked: action.from === 'link' };
  if (ok(action.step, 0, count)) next.step = action.step;
  if (ok(action.entry, 0, count)) next.entry = action.entry;
  if (ok(action.line, 0, Number.MAX_SAFE_INTEGER)) next.line = action.line;
  if (typeof action.playing === 'boolean') next.playing = action.playing;
  return next;
}

/** Whether `node` is a field the user types into (a change there is kept while its error is fixed). */
const typedInto = (node) => !!node && (node.tagName === 'TEXTAREA'
  || (node.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'file', 'submit'].includes(/** @type {HTMLInputElement} */ (node).type)));

/**
 * The store over a catalog (catalog.mjs: the engine, the presets and the
 * queries over them). Scenarios whose module is text (or otherwise heavy,
 * catalog.needsWorker) are computed in the engine's worker: the dispatch
 * then returns at once with state.pending set, and the answer arrives as a
 * later change. Everything else is computed here, synchronously.
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {string} presetId the first scenario's preset
 * @param {import('./worker-client.mjs').EngineWorker} worker
 */
export function createStore(catalog, presetId, worker) {
  /** @type {PageState} */
  let state = {
    presetId, patch: {}, cmp: null, resolved: null, liveBaseline: false, error: null,
    fullDigests: false, tracePrefix: false, mode: '', mlir: 'off', mlirError: '', mlirBuild: null, pending: null, cancelled: '',
    walk: { step: catalog.entryCount, entry: 0, line: 0, playing: false, linked: false },
  };
  /** @type {Set<(state: PageState, change: Change) => void>} */
  const subscribers = new Set();
  /** @type {Function[]} */
  let waiting = [];
  let seq = 0;

  /**
   * The engine's answer for a scenario, computed on this thread.
   * @returns {Answer}
   */
  function compute(id, patch) {
    const engine = catalog.engine;
    const baseline = catalog.baselineOf(id, patch);
    const scenario = catalog.scenarioOf(id, patch);
    const r = engine.resolveScenario(scenario);
    const resolved = r.error ? null : /** @type {ResolvedScenario} */ (r);
    const cmp = engine.compareScenarios(baseline, scenario);
    const liveBaseline = !!baseline.module;
    if (cmp.error) return { error: cmp.error, resolved, liveBaseline };
    return { cmp: /** @type {CompareResult} */ (cmp), resolved, liveBaseline };
  }

  /**
   * Sends `job` to the worker; its answer comes back as a 'computed' action.
   * @param {PageState} s
   * @param {Job} job
   * @returns {[PageState, Partial<Change>]}
   */
  function request(s, job) {
    const mine = ++seq;
    const scenario = catalog.scenarioOf(job.presetId, job.patch);
    const baseline = catalog.baselineOf(job.presetId, job.patch);
    const label = catalog.jobLabel(job.presetId, job.patch);
    worker.call('compare', [baseline, scenario], { label }).then((/** @type {CompareAnswer} */ r) => {
      const resolved = r.resolved && !r.resolved.error ? /** @type {ResolvedScenario} */ (r.resolved) : null;
      // The worker leaves out the text it was sent (textOmitted): it is put back here.
      if (resolved && r.textOmitted && resolved.module) resolved.module.text = scenario.module.text;
      const liveBaseline = !!baseline.module;
      /** @type {Answer} */
      const answer = r.error ? { error: r.error, resolved: null, liveBaseline }
        : r.cmp.error ? { error: r.cmp.error, resolved, liveBaseline } : { cmp: /** @type {CompareResult} */ (r.cmp), resolved, liveBaseline };
      dispatch({ type: 'computed', seq: mine, answer });
    }, (e) => {
      if (e && e.cancelled) dispatch({ type: 'cancelled', seq: mine, label: e.label });
    });
    return [{ ...s, pending: { ...job, seq: mine } }, {}];
  }

  /**
   * Applies the engine's answer for `job`.
   * @param {PageState} s
   * @param {Job} job
   * @param {Answer} r
   * @param {boolean} later the answer came from the worker
   * @returns {[PageState, Partial<Change>]}
   */
  function settle(s, job, r, later) {
    const done = { ...s, pending: null };
    if (r.error) {
      // A choice (a select, a box, a button) that the engine refuses is not
      // applied: the page, controls included, stays on the scenario it
      // shows. A text being typed is kept so that it can be fixed.
      if (job.refusable && !s.error && !typedInto(job.origin)) {
        return [{ ...done, error: { error: r.error, refused: true } }, { sync: true, origin: null }];
      }
      return [{ ...done, presetId: job.presetId, patch: job.patch, resolved: r.resolved || (job.refusable ? s.resolved : null),
        error: { error: r.error, refused: false } }, { sync: job.sync }];
    }
    return [{ ...done, presetId: job.presetId, patch: job.patch, cmp: r.cmp || null, resolved: r.resolved,
      liveBaseline: r.liveBaseline, error: null, cancelled: '' },
    { computed: true, sync: job.sync, announce: job.announce,
      // After a wait, only a field being typed in is left as it is.
      origin: later && !typedInto(job.origin) ? null : job.origin }];
  }

  /**
   * Computes `job` here, or in the worker when it is heavy.
   * @param {PageState} s
   * @param {Job} job
   * @returns {[PageState, Partial<Change>]}
   */
  function run(s, job) {
    if (catalog.needsWorker(job.presetId, job.patch)) return request(s, job);
    return settle({ ...s, pending: null }, job, compute(job.presetId, job.patch), false);
  }

  /**
   * @param {PageState} s
   * @param {Action} action
   * @returns {[PageState, Partial<Change>]}
   */
  function reduce(s, action) {
    switch (action.type) {
      case 'view': {
        const next = { ...s };
        if (action.fullDigests !== undefined) next.fullDigests = !!action.fullDigests;
        if (action.tracePrefix !== undefined) next.tracePrefix = !!action.tracePrefix;
        return [next, {}];
      }
      case 'mode':
        // the page's mode (modes.mjs): nothing else re-renders for it
        return [{ ...s, mode: action.mode }, {}];
      case 'mlir':
        return [{ ...s, mlir: action.status, mlirError: action.error || '' }, {}];
      case 'mlirBuild':
        return [{ ...s, mlirBuild: action.build }, {}];
      case 'edit': {
        // An edit made while another scenario is computed applies to that one.
        const from = s.pending || s;
        const patch = clone(from.patch) || {};
        // one edit (path, value), or several made by one gesture (edits)
        for (const [path, value] of action.edits || [[action.path, action.value]]) patchValue(patch, catalog.resolvedOf(from.presetId), path, value);
        return run(s, { presetId: from.presetId, patch, origin: action.origin || null, sync: !!action.sync, announce: false, refusable: true });
      }
      case 'open':
        return run(s, { presetId: action.presetId, patch: clone(action.patch || {}), origin: null, sync: true, announce: !!action.announce, refusable: false });
      case 'recompute':
        return run(s, { presetId: s.presetId, patch: s.patch, origin: null, sync: true, announce: false, refusable: false });
      case 'computed':
        if (!s.pending || s.pending.seq !== action.seq) return [s, {}];
        return settle(s, s.pending, action.answer, true);
      case 'cancelled':
        if (!s.pending || s.pending.seq !== action.seq) return [s, {}];
        return [{ ...s, pending: null, cancelled: action.label }, { sync: true }];
      case 'walk':
        return [{ ...s, walk: walkReduce(s.walk, action, catalog.entryCount) }, { walkFrom: action.from || 'reader' }];
      default:
        return [s, {}];
    }
  }

  /** @param {Action} action */
  function dispatch(action) {
    const before = state;
    const [next, hints] = reduce(state, action);
    state = next;
    /** @type {Change} */
    const change = {
      type: action.type,
      origin: null,
      sync: false,
      announce: false,
      computed: false,
      walkFrom: null,
      ...hints,
      keyChanged: !!(hints.computed && state.cmp && (!before.cmp || before.cmp.b.key !== state.cmp.b.key)),
    };
    for (const fn of subscribers) fn(state, change);
    if (!state.pending && waiting.length) {
      const w = waiting;
      waiting = [];
      for (const r of w) r();
    }
    return state;
  }

  return {
    /** @returns {PageState} */
    get state() { return state; },
    /**
     * Calls `fn(state, change)` after every dispatch; returns the unsubscribe.
     * @param {(state: PageState, change: Change) => void} fn
     */
    subscribe(fn) {
      subscribers.add(fn);
      return () => subscribers.delete(fn);
    },
    dispatch,
    /** Resolves when no scenario is being computed in the worker. */
    settled() {
      return state.pending ? new Promise((r) => { waiting.push(r); }) : Promise.resolve();
    },
  };
}

/** @typedef {ReturnType<typeof createStore>} Store */
