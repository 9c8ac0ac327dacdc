// @ts-check
// A step player for the page's animations: a position 0..last, stepped by
// hand or played on a timer, each step shown in timed phases. It knows
// nothing about what a step shows: `show(step, phase)` draws it, and the last
// phase of a step is the same drawing as showing that step at rest. With
// reduced motion the steps and phases are the same; only the drawing (CSS)
// leaves out the motion.

/** Whether the reader asked for reduced motion (live: follows the setting). */
export { reducedMotion } from './dom.mjs';

/**
 * @param {{last: number, phases: {name: string, at: number}[], stepMs: number,
 *   show: (step: number, phase: string, playing: boolean) => void,
 *   onState?: (state: {step: number, playing: boolean}) => void,
 *   speed?: () => number}} opts
 *   phases: the phases of one step with their start (ms from the step's
 *   start), the last one is the resting phase; stepMs: a step's length when
 *   playing; speed: the reader's tempo (1 = as given, 2 = twice as fast),
 *   read at the start of every step.
 */
export function createPlayer({ last, phases, stepMs, show, onState, speed = () => 1 }) {
  const rest = phases[phases.length - 1].name;
  let step = last;
  let playing = false;
  let timers = [];
  const clear = () => { timers.forEach(clearTimeout); timers = []; };
  const state = () => onState && onState({ step, playing });

  function go(k, phase = rest) {
    step = Math.max(0, Math.min(last, k));
    show(step, phase, playing);
  }

  /** Plays step k's phases, then the next step, until the last one rests. */
  function run(k) {
    go(k, phases[0].name);
    state();
    const f = Math.max(0.1, Number(speed()) || 1);
    for (const p of phases.slice(1)) timers.push(setTimeout(() => go(k, p.name), p.at / f));
    timers.push(setTimeout(() => {
      if (k >= last) { stop(); return; }
      run(k + 1);
    }, stepMs / f));
  }

  function stop() {
    clear();
    playing = false;
    go(step);
    state();
  }

  return {
    get step() { return step; },
    get playing() { return playing; },
    get last() { return last; },
    /** Shows step k at rest (stops playing). */
    set(k) { clear(); playing = false; go(k); state(); },
    /** Plays from step `from` (default: step 1 after the last step, else the next one). */
    play(from) {
      clear();
      playing = true;
      run(from !== undefined ? from : step >= last ? 1 : step + 1);
    },
    pause: stop,
    toggle() { if (playing) stop(); else this.play(); },
    next() { this.set(step + 1); },
    prev() { this.set(step - 1); },
    /** Redraws the current step (the data changed). */
    redraw() { if (!playing) go(step); },
  };
}
