// @ts-check
// The page's side of the engine's worker (worker.js): calls as promises,
// progress, and cancelling. The worker starts with the first call (the first
// view does not load it). Cancelling terminates the worker (a wasm call
// cannot be interrupted otherwise) and starts a new one, set up again with
// every setup call made so far (fixtures, the MLIR engine); the jobs that
// were running or waiting reject with {cancelled: true}. Long strings (a
// module text) cross in pieces (transfer.mjs); texts longer than LARGE stay
// in the worker and come back as TextHandles.
import { takeLongStrings, putLongStrings, putLongArrays, putHandles, pieces, nextTask, TextHandle } from './transfer.mjs';

/** One TextHandle per id, so that the same kept text is the same value on the page. */
const handles = new Map();
const handleOf = (m) => {
  if (!handles.has(m.__text)) handles.set(m.__text, new TextHandle({ id: m.__text, length: m.length, preview: m.preview, source: m.source }));
  return handles.get(m.__text);
};

/**
 * A job the page waits for.
 * @typedef {{id: number, op: string, label: string, started: number,
 *   progress: ?{done: number, total: number}, resolve: Function, reject: Function, parts?: string[][], rows?: any[][][],
 *   onProgress?: (p: {done: number, total: number}) => void}} Job
 */

export class EngineWorker {
  /** @param {string} [url] the worker script */
  constructor(url = 'worker.js') {
    this.url = url;
    /** @type {Map<number, Job>} */
    this.jobs = new Map();
    this.next = 1;
    /** Setup calls, made again on a new worker: [op, args]. */
    this.setup = [];
    /** @type {Set<(jobs: Job[]) => void>} */
    this.listeners = new Set();
    this.worker = null;
  }

  /** Starts the worker if it is not running. */
  ensure() {
    if (!this.worker) this.start();
  }

  start() {
    this.worker = new Worker(this.url);
    this.worker.onmessage = (e) => this.receive(e.data);
    this.worker.onerror = (e) => {
      e.preventDefault();
      const error = { code: 'internal', path: '', message: `the engine's worker failed (${e.message || 'no message'})` };
      for (const job of [...this.jobs.values()]) this.finish(job.id, { error });
    };
    for (const [op, args] of this.setup) this.post({ id: this.next++, op, args });
  }

  /**
   * Posts {id, op, args}; the long strings in args go first, a piece per
   * task ({id, piece: [n, text]}). Messages leave in the order of the calls.
   */
  post(message) {
    const worker = this.worker;
    this.sending = (this.sending || Promise.resolve()).then(async () => {
      const long = [];
      const args = takeLongStrings(message.args, long);
      for (const piece of pieces(long)) {
        if (this.worker !== worker) return; // cancelled meanwhile
        worker.postMessage({ id: message.id, piece });
        await nextTask();
      }
      if (this.worker === worker) worker.postMessage({ ...message, args });
    });
  }

  receive(data) {
    const job = this.jobs.get(data.id);
    if (!job) return;
    if (data.piece) {
      const [n, text] = data.piece;
      job.parts = job.parts || [];
      (job.parts[n] = job.parts[n] || []).push(text);
      return;
    }
    if (data.rows) {
      // A slice of a long array of the answer (transfer.mjs ROWS), its long
      // strings already here: made whole in this task, joined at the end.
      const [n, slice] = data.rows;
      job.rows = job.rows || [];
      (job.rows[n] = job.rows[n] || []).push(putHandles(putLongStrings(slice, job.parts || []), handleOf));
      return;
    }
    if (data.progress) {
      job.progress = data.progress;
      if (job.onProgress) job.onProgress(data.progress);
      this.notify();
      return;
    }
    this.finish(data.id, data.error ? { error: data.error }
      : putLongArrays(putHandles(putLongStrings(data.result, job.parts || []), handleOf), job.rows || []));
  }

  finish(id, result) {
    const job = this.jobs.get(id);
    if (!job) return;
    this.jobs.delete(id);
    job.resolve(result);
    this.notify();
  }

  notify() {
    const jobs = [...this.jobs.values()];
    for (const fn of this.listeners) fn(jobs);
  }

  /**
   * Calls `op` in the worker. Resolves to its result (engine errors are
   * {error} results); rejects with {cancelled: true} when cancelled.
   * @param {string} op
   * @param {any[]} args
   * @param {{label?: string, onProgress?: (p: {done: number, total: number}) => void}} [options]
   * @returns {Promise<any>}
   */
  call(op, args, options = {}) {
    const { label = op, onProgress } = options;
    this.ensure();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.jobs.set(id, { id, op, label, started: performance.now(), progress: null, resolve, reject, onProgress });
      this.post({ id, op, args });
      this.notify();
    });
  }

  /**
   * A call that sets the worker up (registering fixtures, loading MLIR): it
   * is made again on every new worker after a cancel.
   * @param {string} op
   * @param {any[]} args
   * @param {{label?: string}} [options]
   */
  callSetup(op, args, options = {}) {
    this.ensure();
    this.setup.push([op, args]);
    return this.call(op, args, options);
  }

  /** A setup call whose answer nobody waits for; made once the worker runs. */
  addSetup(op, args) {
    this.setup.push([op, args]);
    if (this.worker) this.post({ id: this.next++, op, args });
  }

  /** Calls `fn(jobs)` whenever a job starts, progresses or ends; returns the unsubscribe. */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Cancels every job: the worker is terminated and a new one set up. */
  cancel() {
    if (this.worker) this.worker.terminate();
    this.sending = null;
    const jobs = [...this.jobs.values()];
    this.jobs.clear();
    this.start();
    for (const job of jobs) job.reject({ cancelled: true, label: job.label });
    this.notify();
  }
}
