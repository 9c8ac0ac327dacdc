// @ts-check
// The flag filter, played: collect, sort, then for each flag in turn split
// at the first "=", test the name against the exclusion list, keep (its
// bytes go to the hash) or drop; last, the kept bytes are hashed. It animates the nodes flags.mjs rendered;
// what happens to each flag is the engine's (result.flags: sorted, with the
// collection position, the name, the decision and the bytes). At rest (the
// last step) the exhibit is exactly the static rendering.
import { el, setText, setAttr, $$ } from './dom.mjs';
import { createPlayer, reducedMotion } from './animate.mjs';

const PHASES = [{ name: 'split', at: 0 }, { name: 'test', at: 550 }, { name: 'done', at: 1100 }];
const STEP_MS = 1600;

/**
 * Adds the player to the flag exhibit `root` (#exhibit-flags), over the
 * store; mounted after flags.mjs, whose rendering it marks. Returns
 * {player}.
 * @param {import('./store.mjs').Store} store
 * @param {Element} root
 */
export function mountFlagPlay(store, root) {
  const range = el('input', { type: 'range', min: '0', max: '3', value: '3', id: 'flag-step', 'data-testid': 'flag-step', 'aria-describedby': 'flag-step-text' });
  const play = el('button', { type: 'button', class: 'small', 'data-testid': 'flag-play', 'aria-pressed': 'false' }, 'Play the filter');
  const text = el('p', { id: 'flag-step-text', class: 'hint flag-step-text', 'data-testid': 'flag-step-text', 'aria-live': 'polite' });
  const bar = el('div', { class: 'row flag-play' }, play, el('label', { for: 'flag-step', class: 'walk-step-label' }, 'Step'), range, text);
  root.querySelector('.steps').before(bar);

  /** Removes a row's sort offset, leaving no empty style attribute behind. */
  const unshift = (n) => {
    n.removeAttribute('data-fp-shift');
    n.style.removeProperty('--fp-shift');
    if (n.getAttribute('style') === '') n.removeAttribute('style');
  };

  let flags = [];
  let player = null;
  let stepped = false;

  const clearMarks = () => {
    root.removeAttribute('data-fp');
    root.classList.remove('motion');
    for (const n of $$('[data-fp]', root)) n.removeAttribute('data-fp');
    for (const n of $$('[data-fp-shift]', root)) unshift(n);
  };

  function show(k, phase, playing) {
    const last = flags.length + 3;
    range.value = String(k);
    if (k >= last && phase === 'done') {
      clearMarks();
      setText(text, stepped ? `Done: ${flags.filter((f) => f.included).length} of ${flags.length} flags kept and hashed, in sorted order.` : '');
      return;
    }
    root.setAttribute('data-fp', String(k));
    root.classList.toggle('motion', playing && !reducedMotion());
    const chips = $$('#flags-collected .chip', root);
    const rows = $$('#flags-tbody tr', root);
    const chunks = $$('#flags-bytes [data-testid="flag-bytes"]', root);
    chips.forEach((c) => setAttr(c, 'data-fp', k >= 1 ? 'in' : 'wait'));
    let kept = 0;
    rows.forEach((r, i) => {
      const f = flags[i];
      const decided = Math.min(k - 2, flags.length); // flags decided so far (1-based step index)
      const state = k < 2 ? 'wait' : i + 1 < decided ? 'done' : i + 1 === decided ? phase : 'sorted';
      setAttr(r, 'data-fp', state);
      if (k === 2 && phase === 'split') {
        // sorted in: each row starts where it was collected
        const h = r.getBoundingClientRect().height || 24;
        r.setAttribute('data-fp-shift', '');
        r.style.setProperty('--fp-shift', `${(f.collected - i) * h}px`);
      } else if (r.hasAttribute('data-fp-shift')) {
        unshift(r);
      }
      if (f.included) {
        const chunk = chunks[kept++];
        if (chunk) setAttr(chunk, 'data-fp', state === 'done' ? 'in' : 'wait');
      }
    });
    const f = flags[k - 3];
    setText(text, k === last ? `Step ${k}: hash the kept flags\u2019 bytes, in this order, into entry 4.`
      : k === 0 ? 'Step 0: nothing collected yet.'
      : k === 1 ? `Step 1: collect ${flags.length} flag${flags.length === 1 ? '' : 's'} (XLA_FLAGS, then LIBTPU_INIT_ARGS, then argv).`
        : k === 2 ? 'Step 2: sort them by code point.'
          : `Step ${k}: ${f.flag} \u2014 ${phase === 'split' ? `split at the first \u201c=\u201d: the name is ${f.name}`
            : phase === 'test' ? `is ${f.name} on the exclusion list? ${f.included ? 'no' : 'yes'}`
              : f.included ? 'kept: its bytes go into entry 4' : 'dropped: it never reaches the hash'}.`);
  }

  function makePlayer(n) {
    player = createPlayer({
      last: n + 3, phases: PHASES, stepMs: STEP_MS, show,
      onState: ({ playing }) => {
        setText(play, playing ? 'Pause' : 'Play the filter');
        setAttr(play, 'aria-pressed', String(playing));
      },
    });
    setAttr(range, 'max', String(n + 3));
  }

  play.addEventListener('click', () => { stepped = true; player.toggle(); });
  range.addEventListener('input', () => { stepped = true; player.set(Number(range.value)); });

  /** flags.mjs has just rendered cmp (the perturbed result's entry 4). */
  function render(cmp) {
    const next = cmp.b.flags || [];
    if (!player || next.length !== flags.length) {
      // another number of steps: a new player, at rest
      if (player) player.pause(); // ends at rest with the old flags
      flags = next;
      makePlayer(flags.length);
      range.value = String(flags.length + 3);
      setText(text, '');
    }
    flags = next;
    // flags.mjs has just re-rendered: put the marks of the current step back
    if (player.playing || player.step < player.last) player.redraw();
    else clearMarks();
  }
  let shown = null;
  store.subscribe((state) => {
    if (!state.cmp || state.cmp === shown) return;
    shown = state.cmp;
    render(state.cmp);
  });
  return { get player() { return player; } };
}
