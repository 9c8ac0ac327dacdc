// @ts-check
// Long work in the engine's worker, shown: any job running for more than
// 300 ms shows what it is, its progress (a bar when the job reports bytes,
// else the seconds so far, in words) and a Cancel button. Cancelling terminates the
// worker and starts a new one; the page stays usable and says what was
// cancelled.
import { $, setText } from './dom.mjs';

/** How long a job runs before it is shown, in ms. */
export const SHOW_AFTER_MS = 300;

/**
 * @param {import('./worker-client.mjs').EngineWorker} worker
 */
export function mountBusy(worker) {
  const box = $('#busy');
  const text = $('#busy-text');
  const bar = /** @type {HTMLProgressElement} */ ($('#busy-progress'));
  const cancel = $('#busy-cancel');
  /** @type {import('./worker-client.mjs').Job[]} */
  let jobs = [];
  let timer = 0;

  function render() {
    clearTimeout(timer);
    const now = performance.now();
    const long = jobs.filter((j) => now - j.started >= SHOW_AFTER_MS);
    if (jobs.length && !long.length) timer = setTimeout(render, SHOW_AFTER_MS - (now - jobs[0].started) + 1);
    if (!long.length) {
      // The words of a job that has ended go with it: hidden text that
      // still names a job would read as work under way.
      if (box.getAttribute('data-state') === 'running') { box.hidden = true; box.removeAttribute('data-state'); setText(text, ''); }
      return;
    }
    const job = long[0];
    box.hidden = false;
    box.setAttribute('data-state', 'running');
    cancel.hidden = false;
    const seconds = Math.floor((now - job.started) / 1000);
    // A bar only for a job that reports its progress: an indeterminate bar
    // is animated by repainting on this thread many times a second, for as
    // long as the job runs. Without progress the text counts the seconds.
    const known = !!(job.progress && job.progress.total > 0);
    bar.hidden = !known;
    if (known) {
      bar.max = job.progress.total;
      bar.value = job.progress.done;
      setText(text, `${job.label}: ${Math.floor(100 * job.progress.done / job.progress.total)} %\u2026`);
    } else {
      setText(text, `${job.label}\u2026 ${seconds} s`);
    }
    timer = setTimeout(render, 1000);
  }

  worker.subscribe((j) => { jobs = j; render(); });
  cancel.addEventListener('click', () => {
    const label = jobs.length ? jobs[0].label : 'the work';
    worker.cancel();
    box.hidden = false;
    box.setAttribute('data-state', 'cancelled');
    bar.hidden = true;
    cancel.hidden = true;
    setText(text, `Cancelled: ${label}. The page shows what it showed before; change something to go on.`);
  });
}
