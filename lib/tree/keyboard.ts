/**
 * The tree's keyboard model: a key plus the current rows and focus in, one
 * action out. Pure so every key can be tested without a DOM; the component
 * only applies the action. Follows the WAI-ARIA APG tree view pattern, with
 * two additions for long sessions: PageUp / PageDown jump between branch
 * points, and printable keys type into a text filter instead of the APG's
 * type-ahead (a filter is more useful on thousands of similar rows).
 *
 * Key map (no Ctrl / Alt / Meta unless noted):
 *   ArrowDown / ArrowUp   next / previous row (stays at the ends)
 *   ArrowRight            collapsed branch point: expand; expanded: first child; other rows: nothing
 *   ArrowLeft             expanded branch point: collapse; otherwise: the tree parent (the branch point above)
 *   Home / End            first / last row
 *   PageDown / PageUp     next / previous branch point; stays put when there is none in that direction
 *   Enter                 select the row (move the session there)
 *   Space                 select when no text filter is being typed; inside a query it is a space
 *   F2                    edit the row's label
 *   printable characters  append to the text filter (AltGr, reported as Ctrl+Alt, counts as printable)
 *   Backspace             delete the last character of the text filter
 *   Escape                clear the text filter
 */

export interface KeyInput {
  key: string;
  ctrlKey?: boolean;
  altKey?: boolean;
  metaKey?: boolean;
  isComposing?: boolean;
}

/** The parts of a row the keyboard needs (TreeRow satisfies it). */
export interface NavRow {
  id: string;
  expandable: boolean;
  expanded: boolean;
  parentIndex: number;
}

export interface KeyContext {
  rows: readonly NavRow[];
  /** Index of the focused row; clamped into range. */
  focusIndex: number;
  query: string;
  /** Row indices of branch points, ascending. */
  branchRows: readonly number[];
}

export type TreeAction =
  | { type: 'focus'; index: number }
  | { type: 'expand'; index: number; id: string }
  | { type: 'collapse'; index: number; id: string }
  | { type: 'select'; index: number; id: string }
  | { type: 'editLabel'; index: number; id: string }
  | { type: 'query'; query: string }
  | { type: 'none' };

const NONE: TreeAction = { type: 'none' };

/** First value in ascending `sorted` that is > i, or undefined. */
function firstAfter(sorted: readonly number[], i: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! > i) hi = mid;
    else lo = mid + 1;
  }
  return sorted[lo];
}

/** Last value in ascending `sorted` that is < i, or undefined. */
function lastBefore(sorted: readonly number[], i: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < i) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? sorted[lo - 1] : undefined;
}

export function nextBranchRow(branchRows: readonly number[], from: number): number | undefined {
  return firstAfter(branchRows, from);
}

export function previousBranchRow(branchRows: readonly number[], from: number): number | undefined {
  return lastBefore(branchRows, from);
}

/** One character the user typed, as opposed to a named key such as "Enter" or "F2". */
export function isPrintable(input: KeyInput): boolean {
  if (input.isComposing) return false;
  if (input.metaKey) return false;
  // AltGr arrives as Ctrl+Alt on Windows; either alone is a shortcut.
  if (input.ctrlKey !== input.altKey && (input.ctrlKey || input.altKey)) return false;
  const chars = Array.from(input.key);
  return chars.length === 1 && chars[0]! >= ' ' && chars[0] !== '\u007f';
}

export function treeKeyAction(input: KeyInput, ctx: KeyContext): TreeAction {
  const { rows, query } = ctx;
  const last = rows.length - 1;
  const i = Math.min(Math.max(ctx.focusIndex, 0), Math.max(last, 0));
  const row = rows[i];
  const modified = Boolean(input.ctrlKey || input.altKey || input.metaKey);

  if (input.isComposing) return NONE;

  if (!modified) {
    switch (input.key) {
      case 'ArrowDown':
        return row ? { type: 'focus', index: Math.min(i + 1, last) } : NONE;
      case 'ArrowUp':
        return row ? { type: 'focus', index: Math.max(i - 1, 0) } : NONE;
      case 'Home':
        return row ? { type: 'focus', index: 0 } : NONE;
      case 'End':
        return row ? { type: 'focus', index: last } : NONE;
      case 'ArrowRight':
        if (!row) return NONE;
        if (row.expandable && !row.expanded) return { type: 'expand', index: i, id: row.id };
        if (row.expandable && i < last) return { type: 'focus', index: i + 1 };
        return { type: 'focus', index: i };
      case 'ArrowLeft':
        if (!row) return NONE;
        if (row.expandable && row.expanded) return { type: 'collapse', index: i, id: row.id };
        return { type: 'focus', index: row.parentIndex >= 0 ? row.parentIndex : i };
      case 'PageDown':
        return row ? { type: 'focus', index: nextBranchRow(ctx.branchRows, i) ?? i } : NONE;
      case 'PageUp':
        return row ? { type: 'focus', index: previousBranchRow(ctx.branchRows, i) ?? i } : NONE;
      case 'Enter':
        return row ? { type: 'select', index: i, id: row.id } : NONE;
      case 'F2':
        return row ? { type: 'editLabel', index: i, id: row.id } : NONE;
      case 'Escape':
        return query ? { type: 'query', query: '' } : NONE;
      case 'Backspace':
        return query ? { type: 'query', query: Array.from(query).slice(0, -1).join('') } : NONE;
      case ' ':
        if (!query) return row ? { type: 'select', index: i, id: row.id } : NONE;
        break;
    }
  }
  if (isPrintable(input)) return { type: 'query', query: query + input.key };
  return NONE;
}
