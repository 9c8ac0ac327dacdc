// @ts-check
// The page's status line (#status): loading, failures, and what a link or
// file is waiting for. One line, replaced by each call.
import { $, setText } from './dom.mjs';

/**
 * Shows `text` in the status line ('' hides it); kind 'error' marks it red.
 * @param {string} text
 * @param {string} [kind]
 */
export function setStatus(text, kind) {
  const node = $('#status');
  if (!node) return;
  node.hidden = !text;
  setText(node, text || '');
  node.className = 'status' + (kind ? ' ' + kind : '');
}
