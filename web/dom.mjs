// @ts-check
// Tiny DOM helpers. Every string goes in through textContent or an attribute
// setter, never through innerHTML: permalinks, uploaded scenarios and pasted
// logs are hostile input, and so is anything the engine echoes back from them.

/**
 * el('p', {class: 'x', 'data-testid': 'y'}, 'text', child, ...)
 * Attribute values are set with setAttribute (never 'style' or on* handlers:
 * those are refused so that no caller can turn data into script).
 */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'style' || /^on/i.test(k)) throw new Error('el(): refusing attribute ' + k);
      if (k === 'text') node.textContent = String(v);
      else node.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** Replaces a node's children. */
export function put(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

export const $ = (sel, root = document) => root.querySelector(sel);
/**
 * Every element under `root` (the document, or an element) matching `sel`.
 * @param {string} sel
 * @param {ParentNode} [root]
 * @returns {HTMLElement[]}
 */
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

/** An external link that opens normally and says where it goes. */
export function link(href, text) {
  return el('a', { href, rel: 'noopener noreferrer' }, text);
}

export function setText(node, text) {
  const s = String(text);
  if (node.textContent !== s) node.textContent = s;
}

export function setAttr(node, name, value) {
  const s = String(value);
  if (node.getAttribute(name) !== s) node.setAttribute(name, s);
}

/** The whole number typed in `input`: undefined when empty, NaN when not a safe integer. */
export function numberIn(input) {
  const v = input.value.trim();
  if (v === '') return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : NaN;
}

/** Whether the user prefers reduced motion (read when asked). */
const motionQuery = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-reduced-motion: reduce)') : null;
export const reducedMotion = () => !!(motionQuery && motionQuery.matches);

/** Scrolls `node` into view (smoothly unless reduced motion is asked for) and focuses it. */
export function scrollAndFocus(node, block = 'start') {
  node.scrollIntoView({ behavior: reducedMotion() ? 'auto' : 'smooth', block });
  node.focus({ preventScroll: true });
}
