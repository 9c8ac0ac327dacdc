// @ts-check
// The program table of a two-log comparison (issue 36 item 3), in the style
// of tlparse's per-rank report: one row per program pair of the engine's
// result (`pairs`), with a badge per run, the moved entry, the compile
// seconds lost and the engine's verdict for the pair. It sorts (by clicking
// the program, moved entry and seconds headers), filters (run B's misses
// only, by moved entry, by verdict code) and searches by program name.
//
// Rows are virtualised: only the rows in the scroll box's view, and a margin
// of MARGIN rows either side, are in the DOM, between two spacer rows whose
// heights stand for the rows left out (the average row height measured from
// the rows shown). A result of 100,000 pairs renders about 60 rows, so no
// task after the answer arrives is long.
//
// Every word shown about a program is the engine's (`text` fields, entry
// names); badges and classes come from its codes. The badge words and the
// column headers are the page's own short, fixed words.
import { el, put, setText, setAttr } from './dom.mjs';

/** @typedef {import('./engine-types.mjs').PairOutcome} PairOutcome */
/** @typedef {import('./engine-types.mjs').Pair} Pair */
/**
 * What the table reads of the engine's two-log result.
 * @typedef {Pick<import('./engine-types.mjs').LogComparison, 'pairs' | 'logs' | 'entry_names' | 'paired_by'>} TwoLogResult
 */
/** @typedef {'order'|'label'|'cause'|'seconds'} SortKey */
/**
 * What filters and sorts read, per pair: its moved entry, run B's compile
 * seconds lost (-1: none), whether run B missed, its verdict code (an index
 * into `codes`), and its label in lower case.
 * @typedef {{cause: Int32Array, seconds: Float64Array, missed: Uint8Array, verdict: Uint16Array,
 *   codes: string[], lower: string[]}} PairIndex
 */

/** Rows rendered above and below the ones in view. */
const MARGIN = 12;
/** The row height assumed until rows are measured (px). */
const ROW_GUESS = 40;
/** Milliseconds of indexing per task. */
const SLICE_MS = 8;

const seconds2 = new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const count = new Intl.NumberFormat('en');

/**
 * The badge word and class for a run's outcome code: the page's fixed
 * vocabulary ("hit", "missed"), never the engine's sentence, chosen by the
 * outcome's `lookup` (outcomeJson: hit, miss or unknown).
 * @param {?PairOutcome} o
 * @returns {{word: string, cls: string}}
 */
export function outcomeBadge(o) {
  if (!o) return { word: '\u2014', cls: 'none' };
  if (o.lookup === 'hit') return { word: 'hit', cls: 'hit' };
  if (o.lookup === 'miss') return { word: 'missed', cls: 'missed' };
  return { word: 'no outcome', cls: 'unknown' };
}

/**
 * Whether run B missed the program (the run whose recompiles the verdict
 * counts).
 * @param {Pair} p
 */
export const missedInB = (p) => !!p.findings.outcome_b && p.findings.outcome_b.lookup === 'miss';

/**
 * The compile seconds run B lost on the program: its logged compile time
 * when it missed, else -1.
 * @param {Pair} p
 */
export function secondsLost(p) {
  const o = p.findings.outcome_b;
  return o && missedInB(p) && typeof o.compile_seconds === 'number' ? o.compile_seconds : -1;
}

/**
 * The elements of the table and its controls (index.html, #logs-programs-box).
 * @typedef {{box: HTMLElement, table: HTMLTableElement, caption: HTMLElement, body: HTMLElement,
 *   scroll: HTMLElement, count: HTMLElement, search: HTMLInputElement, misses: HTMLInputElement,
 *   move: HTMLSelectElement, verdict: HTMLSelectElement}} ProgramTableElements
 */

export class ProgramTable {
  /** @param {ProgramTableElements} els */
  constructor(els) {
    this.els = els;
    /** @type {Pair[]} */
    this.pairs = [];
    /** @type {string[]} */
    this.entryNames = [];
    /** @type {string[]} the data-label of the two run columns (phone cards) */
    this.runLabels = ['run A', 'run B'];
    /** Indices into `pairs` of the rows shown, in their order. @type {Int32Array} */
    this.view = new Int32Array(0);
    /** @type {?PairIndex} what filters and sorts read, made in slices after the answer */
    this.index = null;
    /** The pairs indexed so far (the index is complete at pairs.length). */
    this.indexed = 0;
    this.indexTimer = 0;
    /** @type {{key: SortKey, dir: number}} */
    this.sort = { key: 'order', dir: 1 };
    this.rowH = ROW_GUESS;
    this.measured = false;
    this.fitted = false;
    /** @type {?Map<string, number>} verdict code to its index in the index's codes */
    this.codeOf = null;
    this.start = -1;
    this.end = -1;
    this.frame = 0;
    this.top = el('tr', { class: 'spacer', 'aria-hidden': 'true' }, el('td', { colspan: '6' }));
    this.bottom = el('tr', { class: 'spacer', 'aria-hidden': 'true' }, el('td', { colspan: '6' }));
    const refilter = () => this.apply(true);
    els.search.addEventListener('input', refilter);
    els.misses.addEventListener('change', refilter);
    els.move.addEventListener('change', refilter);
    els.verdict.addEventListener('change', refilter);
    for (const b of /** @type {HTMLButtonElement[]} */ ([...els.table.querySelectorAll('thead button[data-sort]')])) {
      b.addEventListener('click', () => this.sortBy(/** @type {SortKey} */ (b.dataset.sort)));
    }
    els.scroll.addEventListener('scroll', () => this.schedule(), { passive: true });
    window.addEventListener('resize', () => this.schedule());
  }

  /** Hides the table and its controls. */
  hide() {
    this.els.box.hidden = true;
    this.els.table.hidden = true;
  }

  /**
   * Shows the pairs of `r`, in the engine's order, every filter cleared.
   * @param {TwoLogResult} r
   */
  show(r) {
    const { els } = this;
    const [la, lb] = r.logs;
    this.pairs = r.pairs;
    this.entryNames = r.entry_names || [];
    this.runLabels = [la.name === 'run A' ? 'run A' : `run A (${la.name})`, lb.name === 'run B' ? 'run B' : `run B (${lb.name})`];
    setText(els.caption, `Programs, paired by ${r.paired_by.text}: ${la.name} (A) and ${lb.name} (B)`);
    const n = this.pairs.length;
    // The rows in view first, in the engine's order; the index that filters
    // and sorts read is made in slices of a few milliseconds after that.
    this.startIndex();
    put(els.move, el('option', { value: '' }, 'any'));
    put(els.verdict, el('option', { value: '' }, 'any'));
    els.search.value = '';
    els.misses.checked = false;
    this.sort = { key: 'order', dir: 1 };
    els.box.hidden = n === 0;
    els.table.hidden = n === 0;
    this.view = new Int32Array(n);
    for (let i = 0; i < n; i++) this.view[i] = i;
    this.shown(n);
    this.fitted = false;
    els.scroll.scrollTop = 0;
    this.render(true, true);
  }

  /** Starts indexing the pairs, a slice per task (SLICE_MS each). */
  startIndex() {
    clearTimeout(this.indexTimer);
    const n = this.pairs.length;
    this.index = { cause: new Int32Array(n), seconds: new Float64Array(n), missed: new Uint8Array(n), verdict: new Uint16Array(n),
      codes: [], lower: new Array(n) };
    this.indexed = 0;
    const step = () => {
      const until = performance.now() + SLICE_MS;
      while (this.indexed < this.pairs.length && performance.now() < until) this.indexSome(2000);
      if (this.indexed < this.pairs.length) this.indexTimer = window.setTimeout(step, 0);
      else this.indexDone();
    };
    this.indexTimer = window.setTimeout(step, 0);
  }

  /**
   * Indexes up to `k` more pairs.
   * @param {number} k
   */
  indexSome(k) {
    const ix = /** @type {PairIndex} */ (this.index);
    const { pairs } = this;
    const end = Math.min(pairs.length, this.indexed + k);
    /** @type {Map<string, number>} */
    const codeOf = this.codeOf || (this.codeOf = new Map());
    if (this.indexed === 0) codeOf.clear();
    for (let i = this.indexed; i < end; i++) {
      const p = pairs[i];
      ix.cause[i] = p.cause;
      ix.seconds[i] = secondsLost(p);
      ix.missed[i] = missedInB(p) ? 1 : 0;
      const v = p.findings.verdict.code;
      let c = codeOf.get(v);
      if (c === undefined) {
        c = ix.codes.length;
        ix.codes.push(v);
        codeOf.set(v, c);
      }
      ix.verdict[i] = c;
      ix.lower[i] = p.label.toLowerCase();
    }
    this.indexed = end;
  }

  /** Completes the index now (a filter or sort asked before the slices ended). */
  finishIndex() {
    if (this.indexed >= this.pairs.length) return;
    clearTimeout(this.indexTimer);
    while (this.indexed < this.pairs.length) this.indexSome(1 << 30);
    this.indexDone();
  }

  /** Fills the filter menus with what the index counted. */
  indexDone() {
    const ix = /** @type {PairIndex} */ (this.index);
    const { els } = this;
    const n = this.pairs.length;
    /** @type {Map<number, number>} */
    const causes = new Map();
    const perCode = new Array(ix.codes.length).fill(0);
    for (let i = 0; i < n; i++) {
      causes.set(ix.cause[i], (causes.get(ix.cause[i]) || 0) + 1);
      perCode[ix.verdict[i]] += 1;
    }
    const move = els.move.value, verdict = els.verdict.value;
    put(els.move, el('option', { value: '' }, `any (${count.format(n)})`),
      ...[...causes.keys()].sort((x, y) => x - y).map((c) => el('option', { value: String(c) }, `${this.causeWords(c)} (${count.format(causes.get(c) || 0)})`)));
    put(els.verdict, el('option', { value: '' }, `any (${count.format(n)})`),
      ...ix.codes.map((v, c) => [v, c]).sort((x, y) => (x[0] < y[0] ? -1 : 1))
        .map(([v, c]) => el('option', { value: v }, `${String(v).replace(/_/g, ' ')} (${count.format(perCode[Number(c)])})`)));
    els.move.value = move;
    els.verdict.value = verdict;
    els.box.dataset.indexed = 'true';
  }

  /**
   * The live count: `m` of the pairs shown.
   * @param {number} m
   */
  shown(m) {
    const { els } = this;
    setAttr(els.table, 'aria-rowcount', m + 1);
    setText(els.count, `showing ${count.format(m)} of ${count.format(this.pairs.length)} programs`);
    els.count.dataset.shown = String(m);
  }

  /**
   * The moved entry as shown: its number and the engine's name for it, or
   * a dash for none.
   * @param {number} cause
   */
  causeWords(cause) {
    if (!cause) return 'none';
    const name = this.entryNames[cause - 1];
    return name ? `${cause} ${name}` : String(cause);
  }

  /**
   * Sorts by `key`: a second click on the same column reverses the order.
   * The first click sorts names and entries ascending and seconds
   * descending (the costliest first).
   * @param {SortKey} key
   */
  sortBy(key) {
    this.sort = this.sort.key === key ? { key, dir: -this.sort.dir } : { key, dir: key === 'seconds' ? -1 : 1 };
    this.apply(false);
  }

  /**
   * Filters and sorts the pairs into `view`, then renders the rows in view.
   * @param {boolean} toTop whether to scroll the box back to its top
   */
  apply(toTop) {
    const { els, pairs } = this;
    this.finishIndex();
    const ix = /** @type {PairIndex} */ (this.index);
    const q = els.search.value.trim().toLowerCase();
    const missesOnly = els.misses.checked;
    const move = els.move.value === '' ? -1 : Number(els.move.value);
    const verdict = els.verdict.value === '' ? -1 : ix.codes.indexOf(els.verdict.value);
    const out = new Int32Array(pairs.length);
    let m = 0;
    if (els.verdict.value === '' || verdict >= 0) {
      for (let i = 0; i < pairs.length; i++) {
        if (missesOnly && !ix.missed[i]) continue;
        if (move >= 0 && ix.cause[i] !== move) continue;
        if (verdict >= 0 && ix.verdict[i] !== verdict) continue;
        if (q && !ix.lower[i].includes(q)) continue;
        out[m++] = i;
      }
    }
    const view = out.slice(0, m);
    const { key, dir } = this.sort;
    if (key === 'label') {
      // by name (UTF-16 code units), then in the engine's order
      view.sort((i, j) => {
        const x = pairs[i].label, y = pairs[j].label;
        return x < y ? -dir : x > y ? dir : i - j;
      });
    } else if (key === 'cause') {
      const { cause } = ix;
      view.sort((i, j) => (cause[i] - cause[j]) * dir || i - j);
    } else if (key === 'seconds') {
      const { seconds } = ix;
      view.sort((i, j) => (seconds[i] - seconds[j]) * dir || i - j);
    }
    this.view = view;
    for (const th of /** @type {HTMLElement[]} */ ([...els.table.querySelectorAll('thead th[data-sort-key]')])) {
      const sorted = th.dataset.sortKey === key;
      if (sorted) th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
      const mark = th.querySelector('.sort-mark');
      if (mark) setText(mark, sorted ? (dir > 0 ? ' \u25b2' : ' \u25bc') : '');
    }
    this.shown(m);
    this.fitted = false;
    if (toTop) els.scroll.scrollTop = 0;
    this.render(true, toTop);
  }

  /** Renders the rows in view at the next frame (scrolling, resizing). */
  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render(false);
    });
  }

  /**
   * Renders the rows of `view` that are in the scroll box's view, with
   * MARGIN rows either side, between the two spacers; when the rows in view
   * are the ones rendered, measures their height once (at the frame after
   * they were rendered).
   * @param {boolean} force render even when the same rows are in view
   * @param {boolean} [atTop] the box was just scrolled to its top
   */
  render(force, atTop = false) {
    const { els, view } = this;
    if (els.table.hidden) return;
    const n = view.length;
    const h = this.rowH;
    // How far the rows' top has scrolled above the box's top (not measured
    // when the box was just scrolled to its top: no layout is forced then).
    const above = atTop ? 0 : els.scroll.getBoundingClientRect().top - els.body.getBoundingClientRect().top;
    const inView = Math.ceil(Math.max(els.scroll.clientHeight, window.innerHeight) / h);
    const start = Math.min(Math.max(0, Math.floor(above / h) - MARGIN), Math.max(0, n - inView - MARGIN));
    const end = Math.min(n, start + inView + 2 * MARGIN);
    if (force || start !== this.start || end !== this.end) {
      this.start = start;
      this.end = end;
      const rows = [];
      for (let k = start; k < end; k++) rows.push(this.row(view[k], k));
      /** @type {HTMLElement} */ (this.top.firstChild).style.height = `${start * h}px`;
      /** @type {HTMLElement} */ (this.bottom.firstChild).style.height = `${(n - end) * h}px`;
      put(els.body, this.top, ...rows, this.bottom);
      this.measured = false;
      // The rows' height is measured at the next frame, with its layout.
      this.schedule();
      return;
    }
    if (this.measured || end <= start) return;
    // The rows' average height, margins included (cards on a phone), for
    // the spacers from now on.
    this.measured = true;
    const first = els.body.children[1];
    const stride = first ? (this.bottom.getBoundingClientRect().top - first.getBoundingClientRect().top) / (end - start) : 0;
    if (stride > 4 && Math.abs(stride - h) > 1) {
      this.rowH = stride;
      // Once per result or filter, the rows are laid out again with it.
      if (!this.fitted) {
        this.fitted = true;
        this.render(true);
      }
    }
  }

  /**
   * One row: the program pair `i`, shown at position `k` of the view.
   * @param {number} i
   * @param {number} k
   */
  row(i, k) {
    const p = this.pairs[i];
    const f = p.findings;
    const s = secondsLost(p);
    return el('tr', {
      'data-testid': `log-program-${i}`, 'aria-rowindex': k + 2, class: 'keys-' + p.keys, 'data-keys': p.keys, 'data-in': p.in,
      'data-outcome-a': f.outcome_a ? f.outcome_a.code : '', 'data-outcome-b': f.outcome_b ? f.outcome_b.code : '',
      'data-cause': p.cause, 'data-seconds': s >= 0 ? s : '',
    },
    el('th', { scope: 'row' }, p.label),
    el('td', { 'data-label': this.runLabels[0] }, this.badge(f.outcome_a)),
    el('td', { 'data-label': this.runLabels[1] }, this.badge(f.outcome_b)),
    el('td', { 'data-label': 'moved entry', title: f.move ? f.move.text : null }, p.cause ? this.causeWords(p.cause) : '\u2014'),
    el('td', { 'data-label': 'seconds lost', class: 'num-cell' }, s >= 0 ? seconds2.format(s) : '\u2014'),
    el('td', { 'data-label': 'verdict', 'data-verdict': f.verdict.code }, f.verdict.text));
  }

  /**
   * A run's outcome badge: a fixed word from the engine's code, named by the
   * engine's text.
   * @param {?PairOutcome} o
   */
  badge(o) {
    const { word, cls } = outcomeBadge(o);
    const name = o ? o.text : 'not in this run';
    return el('span', { class: `badge outcome outcome-${cls}`, role: 'img', 'aria-label': name, title: name, 'data-code': o ? o.code : '' }, word);
  }
}
