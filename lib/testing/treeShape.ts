import { expect } from 'vitest';
import type { SessionTree } from '@/lib/session/tree';
import type { EntryId } from '@/lib/session/types';
import type { FlatTree, Forest, TreeRow } from '@/lib/tree/flatten';

/**
 * Invariants every flattening must keep, whatever the tree, filter, folds or
 * query. Test-only.
 */
export function expectWellFormed(flat: FlatTree, forest: Forest): void {
  const { rows } = flat;
  const tree = forest.tree;
  if (rows.length) expect(rows[0]!.level).toBe(1);
  const lastAtLevel: number[] = [];
  const groups = new Map<number, TreeRow[]>();
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    expect(row.depth).toBe(row.level - 1);
    expect(flat.rowIndex.get(row.id)).toBe(r);
    // Depth grows only right below an expanded branch point, one level at a time.
    if (r > 0) {
      const prev = rows[r - 1]!;
      expect(row.level).toBeLessThanOrEqual(prev.level + 1);
      if (row.level === prev.level + 1) {
        expect(prev.isBranchPoint).toBe(true);
        expect(prev.expanded).toBe(true);
      }
    }
    // The tree parent is the nearest row above at level - 1, and an ancestor of this entry.
    lastAtLevel.length = row.level;
    const expectedParent = row.level > 1 ? lastAtLevel[row.level - 1] : -1;
    expect(row.parentIndex).toBe(expectedParent ?? -1);
    if (row.parentIndex >= 0) {
      const parentRow = rows[row.parentIndex]!;
      expect(parentRow.isBranchPoint).toBe(true);
      expect(tree.isAncestor(parentRow.id, row.id)).toBe(true);
    }
    lastAtLevel[row.level] = r;
    const g = groups.get(row.parentIndex) ?? [];
    g.push(row);
    groups.set(row.parentIndex, g);
    expect(row.expandable).toBe(row.expandable && row.isBranchPoint);
    if (!row.expandable) expect(row.expanded).toBe(false);
    expect(row.isLeaf).toBe(tree.children(row.id).length === 0);
  }
  for (const g of groups.values()) {
    g.forEach((row, k) => {
      expect(row.posinset).toBe(k + 1);
      expect(row.setsize).toBe(g.length);
    });
  }
  expect(flat.branchRows).toEqual(rows.flatMap((row, r) => (row.isBranchPoint ? [r] : [])));
}

/** Nearest ancestor of `id` (excluding itself) that `keep` accepts. */
export function nearestKeptAncestor(tree: SessionTree, id: EntryId, keep: (id: EntryId) => boolean): EntryId | null {
  let cur = tree.get(id);
  cur = cur?.parentId ? tree.get(cur.parentId) : undefined;
  while (cur) {
    if (keep(cur.id)) return cur.id;
    cur = cur.parentId ? tree.get(cur.parentId) : undefined;
  }
  return null;
}

/**
 * Without folds or a query, the rows are exactly the visible entries in
 * pre-order, and each row hangs from the nearest visible ancestor: a chain
 * row right after its visible parent at the same level, a branch head one
 * level below its branch point.
 */
export function expectTruthfulShape(flat: FlatTree, forest: Forest, visible: (id: EntryId) => boolean): void {
  const tree = forest.tree;
  const kids = new Map<EntryId | null, EntryId[]>();
  for (const row of flat.rows) {
    const parent = nearestKeptAncestor(tree, row.id, visible);
    const list = kids.get(parent) ?? [];
    list.push(row.id);
    kids.set(parent, list);
  }
  for (const [r, row] of flat.rows.entries()) {
    const parent = nearestKeptAncestor(tree, row.id, visible);
    expect(row.childCount).toBe(kids.get(row.id)?.length ?? 0);
    if (parent === null) {
      expect(row.level).toBe(1);
      continue;
    }
    const p = flat.rowIndex.get(parent)!;
    const parentRow = flat.rows[p]!;
    const siblings = kids.get(parent)!;
    if (siblings.length >= 2) {
      expect(row.level).toBe(parentRow.level + 1);
      expect(row.parentIndex).toBe(p);
      expect(row.branchIndex).toBe(siblings.indexOf(row.id) + 1);
      expect(row.branchCount).toBe(siblings.length);
    } else {
      // A chain continues right below its parent, at the same level.
      expect(p).toBe(r - 1);
      expect(row.level).toBe(parentRow.level);
      expect(row.branchIndex).toBe(0);
    }
  }
}
