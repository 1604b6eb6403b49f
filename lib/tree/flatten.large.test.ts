import { describe, expect, it } from 'vitest';
import { SessionTree } from '@/lib/session/tree';
import { branchingTree } from '@/lib/testing/branchingTree';
import { generateSession } from '@/lib/testing/generate';
import { buildForest, flattenForest } from './flatten';
import { treeKeyAction } from './keyboard';
import { expectWellFormed } from '@/lib/testing/treeShape';

// What the tree view computes for 10,000 entries. How long it takes is measured by the tree benchmark
// (scripts/bench-tree.ts, `npm run bench tree`), not here: a time bound fails on a busy machine.

describe('flattening 10,000 entries', () => {
  it('linear generated session: one row per entry', () => {
    const { entries, leafId } = generateSession({ seed: 7, entries: 10_000 });
    const tree = new SessionTree(entries);
    const active = new Set(tree.pathTo(leafId).map((e) => e.id));
    const forest = buildForest(tree, { filter: 'default', labels: new Map() });
    expect(flattenForest(forest, { leafId, activePathIds: active }).rows.length).toBe(10_000);
  });

  it('branching tree: forest and rows stay well formed, folded or not', () => {
    const { tree, leafId } = branchingTree(10_000, 11);
    const active = new Set(tree.pathTo(leafId).map((e) => e.id));
    const forest = buildForest(tree, { filter: 'default', labels: new Map() });
    const flat = flattenForest(forest, { leafId, activePathIds: active });
    expect(flat.branchRows.length).toBeGreaterThan(50);
    expect(Math.max(...flat.rows.map((r) => r.level))).toBeGreaterThan(3);
    expectWellFormed(flat, forest);
    // Re-laying out rows alone (a fold) hides rows and keeps the rest well formed.
    const folded = new Set(flat.branchRows.slice(0, 20).map((i) => flat.rows[i]!.id));
    const foldedFlat = flattenForest(forest, { folded, leafId, activePathIds: active });
    expect(foldedFlat.rows.length).toBeLessThan(flat.rows.length);
    expect(foldedFlat.rows.every((r) => flat.rows.some((x) => x.id === r.id))).toBe(true);
  });

  it('text filter over 10,000 generated entries: a narrower query matches a subset', () => {
    const { entries } = generateSession({ seed: 3, entries: 10_000 });
    const tree = new SessionTree(entries);
    const forest = buildForest(tree, { filter: 'all', labels: new Map() });
    const first = flattenForest(forest, { query: 'c' });
    const next = flattenForest(forest, { query: 'context' });
    expect(first.matchCount).toBeGreaterThan(0);
    expect(next.matchCount).toBeGreaterThan(0);
    expect(next.matchCount).toBeLessThanOrEqual(first.matchCount);
  });

  it('PageDown walks the branch rows to the last one', () => {
    const { tree } = branchingTree(10_000, 5);
    const flat = flattenForest(buildForest(tree, { filter: 'default', labels: new Map() }));
    const ctx = { rows: flat.rows, focusIndex: 0, query: '', branchRows: flat.branchRows };
    let at = 0;
    for (let k = 0; k < 10_000; k++) {
      const a = treeKeyAction({ key: 'PageDown' }, { ...ctx, focusIndex: at });
      if (a.type === 'focus') at = a.index;
    }
    expect(at).toBe(flat.branchRows.at(-1));
  });
});
