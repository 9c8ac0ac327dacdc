// @ts-check
// Exhibit: cache_key.py, line by line. The selected release's file, whole,
// beside the eight entries: an entry lights up the lines that make its bytes,
// a line says what it does and goes to the entry it feeds, and a step
// control feeds the entries into SHA-256 one by one.
//
// The file and its anchors come from walk/ (tools/walk_anchors.py, built
// from the release's wheel at build time: nothing here knows a line number or
// a JAX rule); the entries, digests and roles from the engine's comparison;
// how many entries there are from the engine's profiles (catalog.entryCount).
//
// The selection a link names (step, entry, line) is the store's
// (state.walk, a 'walk' action; permalink.mjs writes it to the link and
// reads it from one): the handlers here dispatch the selection they make,
// and the exhibit draws whatever the store holds (drawSelection). What is
// only the view's (the keyboard cursor, the lit block shown, scrolling)
// stays here.
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
 * each new comparison, follows the scenario's release, and draws the
 * store's selection (state.walk).
 * Returns {ensure, player} (ensure(): load and show the file now).
 * @param {import('./store.mjs').Store} store
 * @param {import('./catalog.mjs').Catalog} catalog
 * @param {Element} root
 */
export function mountWalk(store, catalog, root) {
  // The exhibit's state is on its section (data-walk, data-release,
  // data-step, data-phase, data-playing), where embeds and tests look.
  const host = root.closest('section') || root;
  const W = {
    index: null, // Promise of walk/index.json
    files: new Map(), // id -> Promise of the file's document
    doc: null, // the file shown
    release: null, // the release shown
    cmp: null,
    cursor: 0, // keyboard cursor line (1-based; 0 = none)
    lines: [], // line elements, [i] for line i + 1
    drawn: '', // the selection drawn (see drawSelection)
    lastStep: -1, // the step shown last
    beforePlay: 0, // the entry selected when Play was pressed
    stepped: false, // the step control was used: steps select their entry
    syncing: false, // an entry chosen by the reader is moving the step to it
    applying: false, // an opened link's state is being applied
    block: 0, // the selected entry's lit block shown (see blocksOf)
  };
  // The number of entries (the last step), and the running digest before
  // any is fed (SHA-256 of no bytes), from the engine.
  const N = catalog.entryCount;
  const fresh = catalog.engine.version().fresh_digest;
  /** The selection: the store's (step, entry, line; 0 = none). */
  const sel = () => store.state.walk;
  // The selection keeps one shape, so that the link (step, entry, line)
  // restores exactly what it names: below the last step the selected entry
  // is the step's (choosing an entry or a line moves the step to it; step 0
  // selects none); a selected line feeds the selected entry (choosing an
  // entry clears it); the note describes the line when one is selected, else
  // the entry.
  /** Dispatches a selection (from: 'apply' while an opened link's is applied). */
  const choose = (parts) => store.dispatch({ type: 'walk', ...parts, from: W.applying ? 'apply' : 'reader' });

  // ---------------------------------------------------------------- DOM
  const status = el('p', { class: 'hint walk-status', 'data-testid': 'walk-status', role: 'status' }, 'The source loads when you reach this section.');
  const stepInput = el('input', { type: 'range', min: '0', max: String(N), step: '1', value: String(N), id: 'walk-step', 'data-testid': 'step', 'aria-describedby': 'walk-step-text' });
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
  for (let n = 1; n <= N; n++) {
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
    last: N, phases: PHASES, stepMs: STEP_MS, speed: () => Number(speedSelect.value),
    show: (k, phase, playing) => showStep(k, phase, playing),
    onState: ({ step, playing }) => {
      // Playing is not a choice of entry: at its end the selection is the
      // one from before it.
      if (!playing && sel().playing && step >= N) restoreSelection(W.beforePlay);
      stepInput.value = String(step);
      setText(play, playing ? 'Pause' : 'Play');
      setAttr(play, 'aria-pressed', String(playing));
      host.toggleAttribute('data-playing', playing);
      // the note follows the steps; read out only when they stop
      setAttr(note, 'aria-live', playing ? 'off' : 'polite');
      // the store's step (the link is written when the player stops)
      choose({ step, playing });
    },
  });
  const used = () => { W.stepped = true; ensure(); };
  stepInput.addEventListener('input', () => { used(); player.set(Number(stepInput.value)); });
  play.addEventListener('click', () => {
    if (!player.playing) W.beforePlay = sel().entry;
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
    setAttr(host, 'data-phase', k >= N && phase === 'running' ? 'rest' : phase);
    host.classList.toggle('motion', playing && !reducedMotion());
    if (!cmp) return;
    rows.forEach((r, i) => {
      const n = i + 1;
      const st = n < k ? 'fed' : n === k ? (phase === 'running' ? 'fed' : 'current') : 'pending';
      setAttr(r.li, 'data-state', st);
      setAttr(r.li, 'data-phase', n === k ? phase : st === 'fed' ? 'running' : 'none');
    });
    if (k === 0) {
      setText(stepText, `Step 0 of ${N}: a fresh SHA-256, nothing fed yet.`);
      setText(chunk, '');
      setText(shaRun, `${abbrev(fresh, 8)} (no bytes)`);
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
      setText(stepText, k === N && phase === 'running' && !playing
        ? `All ${hashedCount} entries fed (step ${N} of ${N}${hashedCount < N ? `; this release hashes ${hashedCount} of the ${N}` : ''}): the key is the module name, a dash and this running digest${ea.running !== eb.running ? ', which differs from the baseline\u2019s' : ', equal to the baseline\u2019s'}.`
        : `Step ${k} of ${N}: ${said}${after}${roleText}.`);
      setText(chunk, eb.hashed === false ? '(not hashed)' : eb.preview_hex === '' ? '(no bytes)' : `${abbrev(eb.preview_hex, 24)} (${eb.bytes_len} B)`);
      setText(shaRun, phase === 'running' ? abbrev(eb.running, 16) : k > 1 ? abbrev(cmp.b.entries[k - 2].running, 16) : abbrev(fresh, 8));
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
    // an alias ("main") is the release the engine says it stands for
    return catalog.releaseOf((r && typeof r.profile === 'string' && r.profile) || (W.cmp && W.cmp.b.profile) || '');
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
      applyLinked();
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
      applyLinked();
      return;
    }
    W.doc = doc;
    W.release = rel;
    buildSource();
    describe();
    applyLinked();
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
    W.drawn = '';
    // The file opens on its first annotated line, not on the licence header
    // (a selection, or a link's, scrolls it elsewhere).
    const firstAnnotated = doc.anchors.reduce((m, a) => Math.min(m, a.start), Infinity);
    source.scrollTop = 0;
    if (Number.isFinite(firstAnnotated)) {
      const line = W.lines[firstAnnotated - 1];
      if (line) source.scrollTop = line.offsetTop - source.offsetTop;
    }
    // another file: a line of the last one does not hold (an opened link's
    // is shown next, applyLinked); the entry's lines are drawn in this one
    if (sel().line && !sel().linked) choose({ line: 0 });
    else drawSelection();
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
    W.drawn = drawnKey(); // the note is the one drawn, with its counter moved
  }
  /** Marks the lines of `range` ([first, last]; null: none) as the block shown. */
  function markBlock(range) {
    W.lines.forEach((line, i) => line.toggleAttribute('data-block', !!range && i + 1 >= range[0] && i + 1 <= range[1]));
  }
  const blockText = (blocks, k) => {
    const [s, e] = blocks[k];
    return `Block ${k + 1} of ${blocks.length}: ${s === e ? `line ${s}` : `lines ${s}\u2013${e}`}${k === 0 ? ' (its item in entries = [\u2026])' : ''}`;
  };

  /** The anchor line n (1-based) belongs to, or null (none, or not annotated). */
  const anchorOf = (n) => {
    const ai = W.doc && n >= 1 && n <= W.lines.length ? W.doc.line_anchor[n - 1] : -1;
    return ai >= 0 ? W.doc.anchors[ai] : null;
  };

  /**
   * Below the last step (or while playing) the step goes to entry n, which
   * the reader chose.
   */
  function stepTo(n) {
    if ((player.playing || player.step < N) && player.step !== n) {
      W.stepped = true;
      W.syncing = true;
      try { player.set(n); } finally { W.syncing = false; }
    }
  }

  /**
   * Selects entry n (the line selection goes). fromStep: the step control
   * moved to it; scroll: the source box shows its first lit block.
   */
  function selectEntry(n, { scroll = false, fromStep = false } = {}) {
    if (!fromStep) stepTo(n);
    W.block = 0;
    choose({ entry: n, line: 0 });
    if (!W.doc) { ensure(); return; }
    const blocks = blocksOf(n);
    if (scroll && blocks.length) scrollToLine(blocks[0][0]);
  }

  /** What drawSelection last drew: the file, the selection, the block and the entries' names. */
  const drawnKey = () => [W.doc ? W.doc.id : '', sel().entry, sel().line, W.block,
    W.cmp ? W.cmp.b.entries.map((e) => e.name).join('\n') : ''].join('\u0000');

  /**
   * Draws the store's selection: the pressed entry, the lines it lights up
   * (and its first lit block), the selected line's block and the note (on
   * the line when one is selected, else on the entry). The note is drawn
   * again only when what it says changed (it is read out).
   */
  function drawSelection() {
    const { entry, line } = sel();
    rows.forEach((r, i) => {
      setAttr(r.btn, 'aria-pressed', String(i + 1 === entry));
      r.li.toggleAttribute('data-selected', i + 1 === entry);
    });
    if (!W.doc) return;
    const key = drawnKey();
    if (key === W.drawn) return;
    W.drawn = key;
    const lit = entry ? linesOf(entry) : new Set();
    const a = anchorOf(line);
    const [from, to] = a ? [a.start, a.end] : line >= 1 && line <= W.lines.length ? [line, line] : [0, -1];
    W.lines.forEach((l, i) => {
      if (lit.has(i + 1)) l.setAttribute('data-active', 'true');
      else if (l.hasAttribute('data-active')) l.removeAttribute('data-active');
      if (i + 1 >= from && i + 1 <= to) l.setAttribute('data-selected', 'true');
      else if (l.hasAttribute('data-selected')) l.removeAttribute('data-selected');
    });
    const blocks = entry ? blocksOf(entry) : [];
    markBlock(blocks.length > 1 ? blocks[Math.min(W.block, blocks.length - 1)] : null);
    if (from > 0) {
      if (a) showNote(a.title, a.note, a.entries, line);
      else showNote('Not annotated', 'Imports, the licence header and helpers the key does not use.', [], line);
    } else if (entry) entryNote(entry);
    else put(note);
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

  /** Selects entry n (0: none) as the step control does, with its note. */
  function restoreSelection(n) {
    if (n) { selectEntry(n, { fromStep: true }); return; }
    W.block = 0;
    choose({ entry: 0, line: 0 });
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

  /**
   * Selects line n: it goes to the entry it feeds (the selected one, if it
   * feeds several including it; else the first), and the step with it.
   */
  function selectLine(n, { fromKeyboard = false } = {}) {
    if (!W.doc || n < 1 || n > W.lines.length) return;
    moveCursor(n, false);
    const a = anchorOf(n);
    let entry = sel().entry;
    if (a && a.entries.length) {
      entry = a.entries.includes(entry) ? entry : a.entries[0];
      stepTo(entry);
      W.block = 0;
      rows[entry - 1].li.scrollIntoView({ block: 'nearest', behavior: reducedMotion() ? 'auto' : 'smooth' });
    }
    choose({ entry, line: n });
    if (a && !fromKeyboard) source.focus({ preventScroll: true });
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
    const entry = sel().entry;
    if (!W.doc || !entry) return;
    const side = list.getBoundingClientRect();
    const box = source.getBoundingClientRect();
    if (box.top < side.bottom) return; // side by side
    const blocks = blocksOf(entry);
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
  source.addEventListener('focus', () => { if (W.doc && !W.cursor) { const a = anchorOf(sel().line); moveCursor(a ? a.start : firstVisibleLine(), false); } });
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
  // The walk's selection rides in the link (permalink.mjs, from the store).
  // An opened link's parts are held in the store (state.walk.linked) until
  // the file is shown; then they are applied as the reader's choices would
  // be: the step, then the entry, then the line, each later part winning
  // where a link (written by hand) names an inconsistent selection.
  function applyLinked() {
    const p = sel();
    if (!p.linked || !W.doc) return;
    W.applying = true;
    try {
      W.block = 0;
      choose({ entry: 0, line: 0 }); // the link's parts are applied below
      if (p.step !== player.step) { W.stepped = true; player.set(p.step); }
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

  store.subscribe((state, change) => {
    if (change.type === 'walk') {
      // An opened link's selection: shown once the file is (after this
      // dispatch: applying it dispatches).
      if (state.walk.linked) {
        if (W.doc) queueMicrotask(applyLinked);
        else ensure();
      } else drawSelection();
      return;
    }
    if (!state.cmp || state.cmp === W.cmp) return;
    W.cmp = state.cmp;
    renderRows(state.cmp);
    player.redraw();
    // the note names entries (drawn again only when a name changed: it is read out)
    drawSelection();
    if (W.index && currentRelease() !== W.release) showRelease();
  });
  return { ensure, player };
}
