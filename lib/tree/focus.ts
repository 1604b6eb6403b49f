import type { SessionTree } from '@/lib/session/tree';
import type { EntryId } from '@/lib/session/types';
import type { FlatTree } from './flatten';

/**
 * Which row has focus, given the entry the user last focused. Focus is kept
 * as an entry id, not a row index or a DOM node, so it survives new rows,
 * filters, folds and virtualisation. When that entry is not shown:
 * - while a text query is typed, the first match (the user is searching);
 * - otherwise its nearest shown ancestor (what a fold or a filter collapsed it into);
 * - failing that, the current leaf's row, then the first row.
 * Returns -1 only when there are no rows.
 */
export function resolveFocusIndex(flat: FlatTree, tree: SessionTree, focusedId: EntryId | null, query = ''): number {
  if (flat.rows.length === 0) return -1;
  if (focusedId !== null) {
    const direct = flat.rowIndex.get(focusedId);
    if (direct !== undefined) return direct;
  }
  if (query.trim()) {
    const firstMatch = flat.rows.findIndex((r) => r.match);
    if (firstMatch >= 0) return firstMatch;
  } else if (focusedId !== null) {
    let cur = tree.get(focusedId);
    let guard = tree.size;
    while (cur?.parentId && guard-- > 0) {
      const at = flat.rowIndex.get(cur.parentId);
      if (at !== undefined) return at;
      cur = tree.get(cur.parentId);
    }
  }
  return flat.currentIndex >= 0 ? flat.currentIndex : 0;
}
