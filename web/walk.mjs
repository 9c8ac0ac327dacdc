// @ts-check
// Exhibit: cache_key.py, line by line. The selected release's file, whole,
// beside the eight entries: an entry lights up the lines that make its bytes,
// a line says what it does and goes to the entry it feeds, and a step
// control feeds the entries into SHA-256 one by one.
//
// The file and its anchors come from walk/ (tools/walk_anchors.py, built
// from the release's wheel at build time: nothing here knows a line number or
// a JAX rule); the entries, digests and roles from the engine's comparison.
// Loaded lazily: walk/index.json when the exhibit comes near the viewport or
// is used, then one walk/<id>.json per distinct file.
import { el, put, setText, setAttr } from './dom.mjs';
import { abbrev, roleOf, roleTextOf } from './state.mjs';
import { createPlayer, reducedMotion } from './animate.mjs';
import { fetchJson } from './canonicaliser.mjs';

const STEP_MS = 1500;
const PHASES = [{ name: 'feed', at: 0 }, { name: 'own', at: 650 }, { name: 'running', at: 1050 }];


/**
 * Mounts the exhibit inside `root` (#walk) over the store: it redraws with
 * each new comparison, follows the scenario's release, and keeps its step,
 * entry and line in the link (share.linkState; share.relink() rewrites it).
 * Returns {ensure, player} (ensure(): load and show the file now).
 * @param {import('./store.mjs').Store} store
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {{linkState: Map<string, import('./permalink.mjs').LinkPart>, relink: (opts?: {fromLink?: boolean}) => void}} share mountShare's
 * @param {Element} root
 */
export function mountWalk(store, catalog, share, root) {
  // The exhibit's state is on its section (data-walk, data-release,
  // data-step, data-phase, data-playing), where embeds and tests look.
  const host = root.closest('section') || root;
  const W = {
    index: null, // Promise of walk/index.json
    files: new Map(), // id -> Promise of the file's document
    doc: null, // the file shown
    release: null, // the release shown
    cmp: null,
    entry: null, // selected entry
    anchor: -1, // selected anchor (index into doc.anchors)
    line: 0, // selected line (1-based; 0 = none)
    cursor: 0, // keyboard cursor line (1-based; 0 = none)
    lines: [], // line elements, [i] for line i + 1
    pending: null, // link state to apply once a file is shown
    note: null, // draws the note (see setNote)
    stepped: false, // the step control was used: steps select their entry
    syncing: false, // an entry chosen by the reader is moving the step to it
    applying: false, // an opened link's state is being applied
    block: 0, // the selected entry's lit block shown (see blocksOf)
  };
  // The selection keeps one shape, so that the link (step, entry, line)
  // restores exactly what it names: below step 8 the selected entry is the
  // step's (choosing an entry or a line moves the step to it; step 0 selects
  // none); a selected line feeds the selected entry (choosing an entry clears
  // it); the note describes the line when one is selected, else the entry.
  const relink = () => share.relink({ fromLink: W.applying });

  // ---------------------------------------------------------------- DOM
  const status = el('p', { class: 'hint walk-status', 'data-testid': 'walk-status', role: 'status' }, 'The source loads when you reach this section.');
  const stepInput = el('input', { type: 'range', min: '0', max: '8', step: '1', value: '8', id: 'walk-step', 'data-testid': 'step', 'aria-describedby': 'walk-step-text' });
  const play = el('button', { type: 'button', class: 'small', 'data-testid': 'walk-play', 'aria-pressed': 'false' }, 'Play');
  const prev = el('button', { type: 'button', class: 'small secondary', 'data-testid': 'walk-prev', 'aria-label': 'Prev step' }, '\u2039 Prev');
  const next = el('button', { type: 'button', class: 'small secondary', 'data-testid': 'walk-next', 'aria-label': 'Next step' }, 'Next \u203a');
  const speedSelect = /** @type {HTMLSelectElement} */ (el('select', { id: 'walk-speed', 'data-testid': 'walk-speed' },
    el('option', { value: '0.5' }, '\u00bd\u00d7 (slow)'), el('option', { value: '1', selected: '' }, '1\u00d7'), el('option', { value: '2' }, '2\u00d7 (fast)')));
  const stepText = el('p', { id: 'walk-step-text', class: 'walk-step-text', 'data-testid': 'walk-step-text', 'aria-live': 'polite' });
  const chunk = el('code', { class: 'sha-chunk', 'data-testid': 'sha-chunk' });
  const shaRun = el('code', { class: 'sha-running', 'data-testid': 'sha-running' });
  const sha = el('div', { class: 'sha', 'data-testid': 'sha-box', 'data-phase': 'running' },
    el('span', { class: 'sha-in' }, chunk),
    el('span', { class: 'sha-box', 'aria-hidden': 'true' }, 'SHA-256'),
    el('span', { class: 'sha-out' }, el('span', { class: 'hint' }, 'running '), shaRun));
  const list = el('ol', { class: 'walk-entries', 'data-testid': 'walk-entries' });
  const note = el('div', { class: 'walk-note', 'data-testid': 'walk-note', 'aria-live': 'polite' });
  const absentList = el('ul', { class: 'walk-absent hint', 'data-testid': 'walk-absent' });
  const origin = el('p', { class: 'hint walk-origin', 'data-testid': 'walk-origin' });
  const source = el('div', {
    class: 'walk-source', 'data-testid': 'walk-source', role: 'listbox', tabindex: '0',
    'aria-label': 'cache_key.py', 'aria-describedby': 'walk-keys-help',
  });
  const rows = [];
  for (let n = 1; n <= 8; n++) {
    const btn = el('button', { type: 'button', class: 'wentry-btn', 'data-testid': `entry-${n}-code`, 'aria-pressed': 'false' },
      el('span', { class: 'idx' }, String(n)), ' ', el('span', { class: 'nm' }));
    const li = el('li', { class: 'wentry', 'data-entry': String(n), 'data-state': 'fed', 'data-role': 'same' },
      btn,
      el('span', { class: 'wbytes' }),
      el('span', { class: 'wdg wown' }, el('span', { class: 'lbl' }, 'own '), el('code', { class: 'own' })),
      el('span', { class: 'wdg wrun' }, el('span', { class: 'lbl' }, 'running '), el('code', { class: 'run' }),
        el('span', { class: 'was', hidden: true }, ' was ', el('code', { class: 'run-a' }))));
    btn.addEventListener('click', () => { selectEntry(n, { scroll: true }); bringCodeIntoView(); });
    rows.push({ li, btn, nm: li.querySelector('.nm'), bytes: li.querySelector('.wbytes'), own: li.querySelector('.own'),
      run: li.querySelector('.run'), was: li.querySelector('.was'), runA: li.querySelector('.run-a') });
    list.append(li);
  }
  put(root,
    el('p', { class: 'hint' }, 'The release\u2019s own ', el('code', null, 'jax/_src/cache_key.py'),
      ', read from its wheel when this page was built. Choose an entry to light up the lines that make its bytes, or a line to see what it does and which entry it feeds.',
      el('span', { class: 'not-in-embed' }, ' The release follows the \u201cJAX release\u201d picker under \u201cChange one ingredient\u201d.')),
    status,
    el('div', { class: 'walk-grid' },
      el('div', { class: 'walk-side' },
        // the step slider on its own line, then the player's buttons and
        // its speed on one line (they never wrap, at 390 px either)
        el('div', { class: 'walk-controls' },
          el('div', { class: 'walk-step-row' },
            el('label', { for: 'walk-step', class: 'walk-step-label' }, 'Step'), stepInput),
          el('div', { class: 'walk-buttons', 'data-testid': 'walk-buttons' }, prev, play, next,
            el('label', { for: 'walk-speed', class: 'walk-speed-label' }, 'Speed'), speedSelect)),
        stepText, sha, list, note),
      el('div', { class: 'walk-main' },
        el('p', { id: 'walk-keys-help', class: 'visually-hidden' }, 'Up and down arrows move between lines; Enter selects a line.'),
        source, origin, absentList)));

  // ---------------------------------------------------------------- player
  const player = createPlayer({
    last: 8, phases: PHASES, stepMs: STEP_MS, speed: () => Number(speedSelect.value),
    show: (k, phase, playing) => showStep(k, phase, playing),
    onState: ({ step, playing }) => {
      // Playing is not a choice of entry: at its end the selection is the
      // one from before it.
      if (!playing && W.playing && step >= 8) restoreSelection(W.beforePlay);
      W.playing = playing;
      stepInput.value = String(step);
      setText(play, playing ? 'Pause' : 'Play');
      setAttr(play, 'aria-pressed', String(playing));
      host.toggleAttribute('data-playing', playing);
      // the note follows the steps; read out only when they stop
      setAttr(note, 'aria-live', playing ? 'off' : 'polite');
      if (!playing) relink();
    },
  });
  const used = () => { W.stepped = true; ensure(); };
  stepInput.addEventListener('input', () => { used(); player.set(Number(stepInput.value)); });
  play.addEventListener('click', () => {
    if (!player.playing) W.beforePlay = W.entry;
    used();
    player.toggle();
  });
  prev.addEventListener('click', () => { used(); player.prev(); });
  next.addEventListener('click', () => { used(); player.next(); });

  function showStep(k, phase, playing) {
    const cmp = W.cmp;
    const lastStep = W.lastStep;
    W.lastStep = k;
    setAttr(host, 'data-step', String(k));
    setAttr(host, 'data-phase', k >= 8 && phase === 'running' ? 'rest' : phase);
    host.classList.toggle('motion', playing && !reducedMotion());
    if (!cmp) return;
    rows.forEach((r, i) => {
      const n = i + 1;
      const st = n < k ? 'fed' : n === k ? (phase === 'running' ? 'fed' : 'current') : 'pending';
      setAttr(r.li, 'data-state', st);
      setAttr(r.li, 'data-phase', n === k ? phase : st === 'fed' ? 'running' : 'none');
    });
    if (k === 0) {
      setText(stepText, 'Step 0 of 8: a fresh SHA-256, nothing fed yet.');
      setText(chunk, '');
      setText(shaRun, 'e3b0c442\u2026 (no bytes)');
      setAttr(sha, 'data-phase', 'none');
    } else {
      const eb = cmp.b.entries[k - 1];
      const ea = cmp.a.entries[k - 1];
      const hashedCount = cmp.b.entries.filter((e) => e.hashed !== false).length;
      const role = roleOf(cmp, k);
      const said = eb.hashed === false ? `entry ${k} (${eb.name}) is not hashed by this release: nothing is fed and the running digest carries over`
        : `entry ${k} (${eb.name}): ${eb.bytes_len} byte${eb.bytes_len === 1 ? '' : 's'} into the SHA-256`;
      const after = phase === 'feed' || eb.hashed === false ? '' : phase === 'own' ? `; its own digest ${abbrev(eb.digest, 12)}`
        : `; running digest ${abbrev(eb.running, 12)}${ea.running !== eb.running ? ` (baseline ${abbrev(ea.running, 12)})` : ''}`;
      const roleText = phase === 'running' && role !== 'same' ? ` \u2014 ${roleTextOf(cmp, k)}` : '';
      setText(stepText, k === 8 && phase === 'running' && !playing
        ? `All ${hashedCount} entries fed (step 8 of 8${hashedCount < 8 ? `; this release hashes ${hashedCount} of the 8` : ''}): the key is the module name, a dash and this running digest${ea.running !== eb.running ? ', which differs from the baseline\u2019s' : ', equal to the baseline\u2019s'}.`
        : `Step ${k} of 8: ${said}${after}${roleText}.`);
      setText(chunk, eb.hashed === false ? '(not hashed)' : eb.preview_hex === '' ? '(no bytes)' : `${abbrev(eb.preview_hex, 24)} (${eb.bytes_len} B)`);
      setText(shaRun, phase === 'running' ? abbrev(eb.running, 16) : k > 1 ? abbrev(cmp.b.entries[k - 2].running, 16) : 'e3b0c442\u2026');
      setAttr(sha, 'data-phase', phase);
      // Stepping lights up the entry being fed.
      // (only when the step moves: a redraw after a change of scenario keeps
      // the reader's own selection)
      const moved = k !== lastStep || (playing && phase === 'feed');
      if (W.doc && W.stepped && moved && !W.syncing) selectEntry(k, { scroll: true, fromStep: true });
    }
    // Step 0 has fed no entry: none is selected.
    if (k === 0 && W.stepped && k !== lastStep) restoreSelection(null);
  }

  // ---------------------------------------------------------------- data
  function currentRelease() {
    const state = store.state;
    const r = state.resolved || catalog.resolvedOf(state.presetId);
    let rel = (r && typeof r.profile === 'string' && r.profile) || (W.cmp && W.cmp.b.profile) || '';
    if (rel === 'main') rel = catalog.profiles.newest;
    return rel;
  }

  function ensure() {
    if (!W.index) {
      setText(status, 'Loading cache_key.py\u2026');
      W.index = fetchJson('walk/index.json').catch((e) => {
        W.index = null;
        throw e;
      });
    }
    return showRelease();
  }

  async function showRelease() {
    const rel = currentRelease();
    let index;
    try {
      index = await W.index;
    } catch (e) {
      unavailable(`The walk\u2019s data could not be loaded (${e.message}).`);
      return;
    }
    const fid = index.releases[rel] || (W.cmp && index.releases[W.cmp.b.profile]);
    if (!fid) {
      unavailable(`The source of cache_key.py for jax ${rel} is not in this build.`);
      return;
    }
    if (W.doc && W.doc.id === fid) {
      if (W.release !== rel) { W.release = rel; describe(); }
      return;
    }
    if (!W.files.has(fid)) W.files.set(fid, fetchJson(`walk/${fid}.json`).catch((e) => { W.files.delete(fid); throw e; }));
    let doc;
    try {
      doc = await W.files.get(fid);
    } catch (e) {
      unavailable(`The source of cache_key.py for jax ${rel} could not be loaded (${e.message}).`);
      return;
    }
    if (currentRelease() !== rel) return; // the picker moved on meanwhile
    if (W.doc && W.doc.id === fid) { // an earlier call showed it meanwhile
      if (W.release !== rel) { W.release = rel; describe(); }
      applyPending();
      return;
    }
    W.doc = doc;
    W.release = rel;
    buildSource();
    describe();
    applyPending();
  }

  function unavailable(text) {
    W.doc = null;
    source.replaceChildren();
    host.setAttribute('data-walk', 'unavailable');
    status.hidden = false;
    status.className = 'banner error walk-status';
    setText(status, text + ' The walk shows each release\u2019s file as its wheel has it; nothing else stands in for it.');
  }

  function describe() {
    const doc = W.doc;
    status.hidden = true;
    host.setAttribute('data-walk', 'ready');
    host.setAttribute('data-release', W.release);
    setAttr(source, 'aria-label', `cache_key.py of jax ${W.release}, ${doc.lines.length} lines`);
    const shared = doc.releases.length > 1 ? ` The same file ships in jax ${doc.releases.join(', ')}.` : '';
    setText(origin, `jax ${W.release}: jax/_src/cache_key.py, ${doc.lines.length} lines, as the release\u2019s wheel has it (Apache License 2.0, header kept).${shared}`);
    put(absentList, ...doc.absent.map((a) => el('li', { 'data-anchor': a.id }, el('strong', null, `Not in jax ${W.release}: ${a.title}. `), a.why)));
  }

  function buildSource() {
    const doc = W.doc;
    const frag = document.createDocumentFragment();
    W.lines = doc.lines.map((text, i) => {
      const n = i + 1;
      const ai = doc.line_anchor[i];
      const a = ai >= 0 ? doc.anchors[ai] : null;
      const first = a && a.start === n;
      const line = el('div', {
        class: 'src-line' + (first ? ' anchor-start' : ''), id: `walk-L${n}`, role: 'option', 'aria-selected': 'false',
        'data-testid': 'source-line', 'data-line': String(n),
        'data-entries': a ? a.entries.join(' ') : '', 'data-anchor': a ? a.id : '',
      },
      el('span', { class: 'ln', 'aria-hidden': 'true' }, String(n)),
      // the entries a block feeds: two fit the gutter; more show the first and "+"
      el('span', { class: 'mark', 'aria-hidden': 'true', title: first && a.entries.length > 2 ? `entries ${a.entries.join(', ')}` : null },
        first && a.entries.length ? (a.entries.length > 2 ? `${a.entries[0]}+` : a.entries.join(',')) : ''),
      el('code', { class: 'tx' }, text === '' ? '\u200b' : text));
      frag.append(line);
      return line;
    });
    source.replaceChildren(frag);
    W.cursor = 0;
    W.anchor = -1;
    W.line = 0;
    // The file opens on its first annotated line, not on the licence header
    // (a selection, or a link's, scrolls it elsewhere).
    const firstAnnotated = doc.anchors.reduce((m, a) => Math.min(m, a.start), Infinity);
    source.scrollTop = 0;
    if (Number.isFinite(firstAnnotated)) {
      const line = W.lines[firstAnnotated - 1];
      if (line) source.scrollTop = line.offsetTop - source.offsetTop;
    }
    if (W.entry) selectEntry(W.entry, { scroll: false, quiet: true });
    // another file: a note on a line of the last one does not hold
    if (W.note) setNote(W.entry ? () => entryNote(W.entry) : null);
  }

  // ---------------------------------------------------------------- selection
  /** The lines entry n lights up: every anchor that feeds it, by its lit ranges. */
  function linesOf(n) {
    const out = new Set();
    for (const a of W.doc.anchors) {
      if (!a.entries.includes(n)) continue;
      for (const [s, e] of a.lit) for (let l = s; l <= e; l++) out.add(l);
    }
    return out;
  }

  /**
   * The lit blocks of entry n: runs of consecutive lit lines, [first, last]
   * (1-based), the block holding the entry's own item in `entries = [...]`
   * first, then the others in file order.
   * @returns {Array<[number, number]>}
   */
  function blocksOf(n) {
    const lines = [...linesOf(n)].sort((x, y) => x - y);
    /** @type {Array<[number, number]>} */
    const blocks = [];
    for (const l of lines) {
      const last = blocks[blocks.length - 1];
      if (last && l === last[1] + 1) last[1] = l;
      else blocks.push([l, l]);
    }
    const own = W.doc.anchors.find((a) => a.id === `entry-${n}`);
    const at = own ? blocks.findIndex(([s, e]) => own.start >= s && own.start <= e) : -1;
    if (at > 0) blocks.unshift(...blocks.splice(at, 1));
    return blocks;
  }

  /** Shows block k of entry n's lit blocks: scrolls to it, marks it, updates the note's counter. */
  function showBlock(n, k) {
    const blocks = blocksOf(n);
    if (!blocks.length) return;
    W.block = ((k % blocks.length) + blocks.length) % blocks.length;
    markBlock(blocks[W.block]);
    scrollToLine(blocks[W.block][0]);
    const counter = note.querySelector('[data-testid="walk-block-n"]');
    if (counter) setText(counter, blockText(blocks, W.block));
  }
  /** Marks the lines of `range` ([first, last]; null: none) as the block shown. */
  function markBlock(range) {
    W.lines.forEach((line, i) => line.toggleAttribute('data-block', !!range && i + 1 >= range[0] && i + 1 <= range[1]));
  }
  const blockText = (blocks, k) => {
    const [s, e] = blocks[k];
    return `Block ${k + 1} of ${blocks.length}: ${s === e ? `line ${s}` : `lines ${s}\u2013${e}`}${k === 0 ? ' (its item in entries = [\u2026])' : ''}`;
  };

  /**
   * Selects entry n. fromStep: the step control moved to it; fromLine: a
   * selected line feeds it (the line stays selected; any other choice clears
   * it); quiet: redraws the selection without a note or a new link.
   */
  function selectEntry(n, { scroll = false, quiet = false, fromStep = false, fromLine = false } = {}) {
    W.entry = n;
    if (!fromLine) clearLine();
    // Below step 8 (or while playing) the step goes to the chosen entry.
    if (!fromStep && !quiet && (player.playing || player.step < 8) && player.step !== n) {
      W.stepped = true;
      W.syncing = true;
      try { player.set(n); } finally { W.syncing = false; }
    }
    rows.forEach((r, i) => {
      setAttr(r.btn, 'aria-pressed', String(i + 1 === n));
      r.li.toggleAttribute('data-selected', i + 1 === n);
    });
    if (!W.doc) { ensure(); return; }
    const lit = linesOf(n);
    W.lines.forEach((line, i) => {
      if (lit.has(i + 1)) line.setAttribute('data-active', 'true');
      else if (line.hasAttribute('data-active')) line.removeAttribute('data-active');
    });
    W.block = 0;
    const blocks = blocksOf(n);
    markBlock(blocks.length > 1 ? blocks[0] : null);
    if (scroll && blocks.length) scrollToLine(blocks[0][0]);
    if (!quiet && !fromLine) {
      setNote(() => entryNote(n));
      if (!fromStep) relink(); // a step rewrites the link when it stops
    }
  }

  /** The note on entry n. */
  function entryNote(n) {
    const entryAnchor = W.doc.anchors.find((a) => a.id === `entry-${n}`);
    const gone = W.doc.absent.find((a) => a.id === `entry-${n}`);
    const name = W.cmp ? W.cmp.b.entries[n - 1].name : `entry ${n}`;
    if (gone) showNote(`Entry ${n} in jax ${W.release}`, gone.why, null);
    else {
      showNote(`Entry ${n} (${name}): ${linesOf(n).size} lines`, entryAnchor ? entryAnchor.note : '', null);
      const blocks = blocksOf(n);
      if (blocks.length > 1) {
        const k = Math.min(W.block || 0, blocks.length - 1);
        const step = (d) => { const b = el('button', { type: 'button', class: 'small secondary', 'data-testid': d < 0 ? 'walk-block-prev' : 'walk-block-next' }, d < 0 ? 'Previous block' : 'Next block'); b.addEventListener('click', () => showBlock(n, W.block + d)); return b; };
        note.append(el('p', { class: 'walk-blocks' }, step(-1), ' ', el('span', { 'data-testid': 'walk-block-n', 'aria-live': 'polite' }, blockText(blocks, k)), ' ', step(1)));
      }
    }
  }

  /**
   * Draws the note with `draw` (null: no note), and again when the names of
   * the entries it gives change (a link opened before the comparison
   * arrived).
   */
  function setNote(draw) {
    W.note = draw;
    if (draw) draw();
    else put(note);
  }

  /** Clears the line selection (the cursor stays). */
  function clearLine() {
    W.line = 0;
    W.anchor = -1;
    for (const l of W.lines) if (l.hasAttribute('data-selected')) l.removeAttribute('data-selected');
  }

  /** Selects entry n (null: none) as the step control does, with its note. */
  function restoreSelection(n) {
    if (n) { selectEntry(n, { fromStep: true }); return; }
    clearLine();
    setNote(null);
    W.entry = null;
    rows.forEach((r) => { setAttr(r.btn, 'aria-pressed', 'false'); r.li.removeAttribute('data-selected'); });
    for (const l of W.lines) { l.removeAttribute('data-active'); l.removeAttribute('data-block'); }
  }

  function showNote(title, text, entries, lineNo) {
    const name = (n) => (W.cmp ? W.cmp.b.entries[n - 1].name : '');
    put(note,
      el('p', { class: 'walk-note-h' }, lineNo ? el('span', { class: 'hint' }, `line ${lineNo}: `) : null, el('strong', null, title)),
      text ? el('p', null, text) : null,
      !entries ? null : entries.length ? el('p', { class: 'walk-feeds' }, entries.length === 1 ? 'Feeds ' : 'Feeds entries ',
        entries.map((n, i) => [i ? ', ' : '', el('a', { href: '#exhibit-walk', 'data-go-entry': String(n) }, `${n} (${name(n)})`)])) : el('p', { class: 'hint' }, 'Feeds no entry by itself.'));
  }
  note.addEventListener('click', (e) => {
    const a = e.target.closest('a[data-go-entry]');
    if (!a) return;
    e.preventDefault();
    const n = Number(a.getAttribute('data-go-entry'));
    selectEntry(n, { scroll: true });
    rows[n - 1].btn.focus({ preventScroll: true });
    bringCodeIntoView();
  });

  function selectLine(n, { fromKeyboard = false } = {}) {
    if (!W.doc || n < 1 || n > W.lines.length) return;
    moveCursor(n, false);
    const ai = W.doc.line_anchor[n - 1];
    const a = ai >= 0 ? W.doc.anchors[ai] : null;
    // A line goes to the entry it feeds (the selected one, if it feeds
    // several including it; else the first).
    if (a && a.entries.length) {
      const to = a.entries.includes(W.entry) ? W.entry : a.entries[0];
      selectEntry(to, { fromLine: true });
      rows[to - 1].li.scrollIntoView({ block: 'nearest', behavior: reducedMotion() ? 'auto' : 'smooth' });
    }
    clearLine();
    W.line = n;
    W.anchor = ai;
    if (!a) {
      W.lines[n - 1].setAttribute('data-selected', 'true');
      setNote(() => showNote('Not annotated', 'Imports, the licence header and helpers the key does not use.', [], n));
      relink();
      return;
    }
    for (let l = a.start; l <= a.end; l++) W.lines[l - 1].setAttribute('data-selected', 'true');
    setNote(() => showNote(a.title, a.note, a.entries, n));
    if (!fromKeyboard) source.focus({ preventScroll: true });
    relink();
  }

  function moveCursor(n, scroll = true) {
    if (!W.doc) return;
    n = Math.max(1, Math.min(W.lines.length, n));
    if (W.cursor) { const old = W.lines[W.cursor - 1]; old.classList.remove('cursor'); setAttr(old, 'aria-selected', 'false'); }
    W.cursor = n;
    const line = W.lines[n - 1];
    line.classList.add('cursor');
    setAttr(line, 'aria-selected', 'true');
    setAttr(source, 'aria-activedescendant', line.id);
    if (scroll) scrollToLine(n, true);
  }

  /**
   * Where the file sits below the entries (a phone: one column), brings the
   * selected entry's first lit block into the viewport, so that choosing an
   * entry shows its lines; beside the entries only the box scrolls.
   */
  function bringCodeIntoView() {
    if (!W.doc || !W.entry) return;
    const side = list.getBoundingClientRect();
    const box = source.getBoundingClientRect();
    if (box.top < side.bottom) return; // side by side
    const blocks = blocksOf(W.entry);
    const line = blocks.length ? W.lines[blocks[W.block || 0][0] - 1] : null;
    if (line) line.scrollIntoView({ block: 'center', behavior: reducedMotion() ? 'auto' : 'smooth' });
  }

  /** Scrolls the source box (not the page) so line n is in view. */
  function scrollToLine(n, nearest = false) {
    const line = W.lines[n - 1];
    if (!line) return;
    const top = line.offsetTop - source.offsetTop;
    if (nearest) {
      if (top < source.scrollTop) source.scrollTop = top;
      else if (top + line.offsetHeight > source.scrollTop + source.clientHeight) source.scrollTop = top + line.offsetHeight - source.clientHeight;
      return;
    }
    source.scrollTo({ top: Math.max(0, top - 24), behavior: reducedMotion() ? 'auto' : 'smooth' });
  }

  source.addEventListener('click', (e) => {
    const line = e.target.closest('[data-testid="source-line"]');
    if (line) selectLine(Number(line.getAttribute('data-line')));
  });
  source.addEventListener('keydown', (e) => {
    if (!W.doc) return;
    const page = Math.max(1, Math.floor(source.clientHeight / 20) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) moveCursor((W.cursor || 1) + (W.cursor ? moves[e.key] : 0));
    else if (e.key === 'Home') moveCursor(1);
    else if (e.key === 'End') moveCursor(W.lines.length);
    else if (e.key === 'Enter' || e.key === ' ') selectLine(W.cursor || 1, { fromKeyboard: true });
    else return;
    e.preventDefault();
  });
  // Focus puts the cursor on a line without scrolling (a click's mousedown
  // focuses first: scrolling then would move the line from under the pointer).
  source.addEventListener('focus', () => { if (W.doc && !W.cursor) moveCursor(W.anchor >= 0 ? W.doc.anchors[W.anchor].start : firstVisibleLine(), false); });
  function firstVisibleLine() {
    const i = W.lines.findIndex((l) => l.offsetTop - source.offsetTop >= source.scrollTop);
    return i < 0 ? 1 : i + 1;
  }

  // ---------------------------------------------------------------- entries
  function renderRows(cmp) {
    rows.forEach((r, i) => {
      const n = i + 1;
      const ea = cmp.a.entries[i];
      const eb = cmp.b.entries[i];
      setText(r.nm, eb.name);
      setAttr(r.li, 'data-role', roleOf(cmp, n).replace(/_/g, '-'));
      r.li.toggleAttribute('data-not-hashed', eb.hashed === false);
      setText(r.bytes, eb.hashed === false ? 'not hashed' : `${eb.bytes_len} B`);
      setText(r.own, abbrev(eb.digest, 8));
      setAttr(r.own, 'title', eb.digest);
      setText(r.run, abbrev(eb.running, 8));
      setAttr(r.run, 'title', eb.running);
      r.was.hidden = ea.running === eb.running;
      setText(r.runA, abbrev(ea.running, 8));
      setAttr(r.runA, 'title', ea.running);
      setAttr(r.li, 'data-digest', eb.digest);
      setAttr(r.li, 'data-running', eb.running);
    });
  }

  // ---------------------------------------------------------------- links
  // The walk's state rides in the link after the scenario: step (when not
  // 8), the selected entry, the selected line.
  // Until an opened link's state is applied (its file loading), the link
  // carries that state.
  const pending = (k) => (W.pending && W.pending[k] !== undefined ? W.pending[k] : undefined);
  share.linkState.set('step', {
    get: () => { const k = pending('step') ?? player.step; return k < 8 ? String(k) : null; },
    set: (v) => { const k = Number(v); if (Number.isInteger(k) && k >= 0 && k <= 8) { W.pending = { ...W.pending, step: k }; ensure(); } },
  });
  share.linkState.set('entry', {
    get: () => { const n = pending('entry') ?? W.entry; return n ? String(n) : null; },
    set: (v) => { const n = Number(v); if (Number.isInteger(n) && n >= 1 && n <= 8) { W.pending = { ...W.pending, entry: n }; ensure(); } },
  });
  share.linkState.set('line', {
    get: () => { const n = pending('line') ?? (W.doc && W.line); return n ? String(n) : null; },
    set: (v) => { const n = Number(v); if (Number.isInteger(n) && n >= 1) { W.pending = { ...W.pending, line: n }; ensure(); } },
  });
  function applyPending() {
    const p = W.pending;
    if (!p || !W.doc) return;
    W.pending = null;
    // The step, then the entry, then the line: each later part wins where a
    // link (written by hand) names an inconsistent selection.
    W.applying = true;
    try {
      if (p.step !== undefined) { W.stepped = true; player.set(p.step); }
      if (p.entry) selectEntry(p.entry, { scroll: true });
      if (p.line) selectLine(p.line, { fromKeyboard: true });
    } finally {
      W.applying = false;
    }
  }

  // Loads when the exhibit comes within a screen or so of the viewport.
  if ('IntersectionObserver' in window) {
    const io = new IntersectionObserver((es) => {
      if (es.some((x) => x.isIntersecting)) { io.disconnect(); ensure(); }
    }, { rootMargin: '600px 0px' });
    io.observe(host);
  } else {
    ensure();
  }

  store.subscribe((state) => {
    if (!state.cmp || state.cmp === W.cmp) return;
    const names = (c) => (c ? c.b.entries.map((e) => e.name).join('\n') : '');
    const renamed = names(W.cmp) !== names(state.cmp);
    W.cmp = state.cmp;
    renderRows(state.cmp);
    player.redraw();
    // the note names entries (redrawn only when a name changed: it is read out)
    if (W.note && W.doc && renamed) W.note();
    if (W.index && currentRelease() !== W.release) showRelease();
  });
  return { ensure, player };
}
