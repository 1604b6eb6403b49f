import { describe, expect, it } from 'vitest';
import { resolveLabels } from '@/lib/session/revisions';
import { SessionTree } from '@/lib/session/tree';
import type { EntryId } from '@/lib/session/types';
import { TreeBuilder } from '@/lib/testing/builder';
import { passesFilter, type TreeFilter } from './filters';
import { buildForest, flattenForest, flattenTree, type FlatTree } from './flatten';
import { expectTruthfulShape, expectWellFormed } from '@/lib/testing/treeShape';

const FILTERS: TreeFilter[] = ['default', 'no-tools', 'user', 'labelled', 'all'];

function shape(flat: FlatTree): string[] {
  return flat.rows.map((r) => `${'  '.repeat(r.depth)}${r.id}`);
}

/**
 * u1 → a2 → u3 ┬ a4 → u5 → a6            (first reply, continued)
 *              └ a7 ┬ u8 → a9            (regenerated reply, then two edited prompts)
 *                   └ u10 → a11 → u12
 */
function branchy() {
  const b = new TreeBuilder();
  b.user('hello', 'u1');
  b.assistant('hi, how can I help', 'a2');
  b.user('explain trees', 'u3');
  b.assistant('first answer', 'a4');
  b.user('more please', 'u5');
  b.assistant('more detail', 'a6');
  b.at('u3').assistant('second answer', 'a7');
  b.user('follow up one', 'u8');
  b.assistant('reply one', 'a9');
  b.at('a7').user('follow up two', 'u10');
  b.assistant('reply two', 'a11');
  b.user('last question', 'u12');
  return { b, tree: new SessionTree(b.entries) };
}

describe('layout: only branches indent', () => {
  it('keeps a long linear chain at one level with positions 1..n', () => {
    const b = new TreeBuilder();
    for (let i = 0; i < 500; i++) {
      b.user(`question ${i}`);
      b.assistant(`answer ${i}`);
    }
    const tree = new SessionTree(b.entries);
    const forest = buildForest(tree, { filter: 'default', labels: new Map() });
    const flat = flattenForest(forest, { leafId: b.cursor });
    expect(flat.rows).toHaveLength(1000);
    expect(new Set(flat.rows.map((r) => r.level))).toEqual(new Set([1]));
    expect(flat.rows.map((r) => r.posinset)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(flat.rows.every((r) => r.setsize === 1000 && !r.expandable && !r.isBranchPoint && r.parentIndex === -1)).toBe(true);
    expect(flat.branchRows).toEqual([]);
    expect(flat.currentIndex).toBe(999);
    expectWellFormed(flat, forest);
  });

  it('indents the children of a branch point one level, each branch a run', () => {
    const { tree } = branchy();
    const forest = buildForest(tree, { filter: 'default', labels: new Map() });
    const flat = flattenForest(forest, {});
    expect(shape(flat)).toEqual([
      'u1',
      'a2',
      'u3',
      '  a4',
      '  u5',
      '  a6',
      '  a7',
      '    u8',
      '    a9',
      '    u10',
      '    a11',
      '    u12',
    ]);
    const row = (id: string) => flat.rows[flat.rowIndex.get(id)!]!;
    expect(row('u3')).toMatchObject({ isBranchPoint: true, childCount: 2, expandable: true, expanded: true, posinset: 3, setsize: 3 });
    expect(row('a7')).toMatchObject({ isBranchPoint: true, childCount: 2, level: 2, branchIndex: 2, branchCount: 2 });
    expect(row('a4')).toMatchObject({ branchIndex: 1, branchCount: 2, parentIndex: flat.rowIndex.get('u3') });
    expect(row('u5')).toMatchObject({ branchIndex: 0, parentIndex: flat.rowIndex.get('u3') });
    // The runs below u3 are one group of siblings: a4 u5 a6 a7.
    expect(['a4', 'u5', 'a6', 'a7'].map((id) => [row(id).posinset, row(id).setsize])).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
    expect(['u8', 'a9', 'u10', 'a11', 'u12'].map((id) => row(id).posinset)).toEqual([1, 2, 3, 4, 5]);
    expect(row('u12').parentIndex).toBe(flat.rowIndex.get('a7'));
    expect(flat.branchRows).toEqual([flat.rowIndex.get('u3'), flat.rowIndex.get('a7')]);
    expect(row('a6').isLeaf).toBe(true);
    expect(row('a4').isLeaf).toBe(false);
    expectWellFormed(flat, forest);
    expectTruthfulShape(flat, forest, () => true);
  });

  it('lays several roots out as top-level branches', () => {
    const b = new TreeBuilder();
    b.user('root one', 'u1');
    b.assistant('reply', 'a2');
    b.at(null).user('root two', 'u3');
    b.at(null).user('root three', 'u4');
    const forest = buildForest(new SessionTree(b.entries), { filter: 'default', labels: new Map() });
    const flat = flattenForest(forest);
    expect(shape(flat)).toEqual(['u1', 'a2', 'u3', 'u4']);
    expect(flat.rows.map((r) => [r.branchIndex, r.branchCount])).toEqual([
      [1, 3],
      [0, 0],
      [2, 3],
      [3, 3],
    ]);
    expectWellFormed(flat, forest);
  });

  it('treats an entry whose parent is missing as a root instead of dropping it', () => {
    const b = new TreeBuilder();
    b.user('kept', 'u1');
    b.at('gone').user('orphan', 'u2');
    b.assistant('orphan reply', 'a3');
    const flat = flattenTree(new SessionTree(b.entries), { filter: 'default', labels: new Map() });
    expect(shape(flat)).toEqual(['u1', 'u2', 'a3']);
    expect(flat.rows[1]!.branchCount).toBe(2);
  });
});

describe('folding', () => {
  it('hides every run below a folded branch point and recounts siblings', () => {
    const { tree } = branchy();
    const forest = buildForest(tree, { filter: 'default', labels: new Map() });
    const foldedA7 = flattenForest(forest, { folded: new Set(['a7']) });
    expect(shape(foldedA7)).toEqual(['u1', 'a2', 'u3', '  a4', '  u5', '  a6', '  a7']);
    const a7 = foldedA7.rows[foldedA7.rowIndex.get('a7')!]!;
    expect(a7).toMatchObject({ expandable: true, expanded: false, isBranchPoint: true });
    expectWellFormed(foldedA7, forest);

    const foldedU3 = flattenForest(forest, { folded: new Set(['u3', 'a7']) });
    expect(shape(foldedU3)).toEqual(['u1', 'a2', 'u3']);
    expect(foldedU3.branchRows).toEqual([2]);
    expectWellFormed(foldedU3, forest);
  });

  it('ignores folds on rows that are not branch points', () => {
    const { tree } = branchy();
    const flat = flattenTree(tree, { filter: 'default', labels: new Map(), folded: new Set(['u1', 'a4', 'u8']) });
    expect(flat.rows).toHaveLength(12);
    expect(flat.rows.every((r) => r.expanded === r.expandable)).toBe(true);
  });

  it('loses the current row when it is folded away, and finds it again when unfolded', () => {
    const { tree } = branchy();
    const forest = buildForest(tree, { filter: 'default', labels: new Map() });
    expect(flattenForest(forest, { leafId: 'u12', folded: new Set(['a7']) }).currentIndex).toBe(-1);
    const open = flattenForest(forest, { leafId: 'u12' });
    expect(open.rows[open.currentIndex]!.id).toBe('u12');
  });
});

describe('filters re-parent hidden entries truthfully', () => {
  function bookkeeping() {
    const b = new TreeBuilder();
    b.user('start', 'u1');
    b.assistant([{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls' } }], 'a2');
    b.toolResult('c1', 'bash', 'file.txt', 't3');
    b.assistant('here are the files', 'a4');
    b.label('a4', 'files listed', 'l5');
    b.compaction('summary of the start', 'a4', 5000, 'c6');
    b.revision('c6', 'regenerate', 'better summary', 'r7');
    b.modelChange('openai:gpt-4o', 'm8');
    b.user('next', 'u9');
    // A branch whose only difference is bookkeeping: hidden by default, so u9 and u11 still look like one branch point's runs.
    b.at('a4').label('u1', 'the start', 'l10');
    b.user('other path', 'u11');
    b.at('a4').assistant([{ type: 'text', text: 'running it' }, { type: 'toolCall', id: 'c2', name: 'bash', arguments: { command: 'pwd' } }], 'a12');
    b.toolResult('c2', 'bash', '/home', 't13', true);
    return { b, tree: new SessionTree(b.entries), labels: resolveLabels(b.entries) };
  }

  it.each(FILTERS)('%s: rows are the visible entries and hang from their nearest visible ancestor', (filter) => {
    const { tree, labels } = bookkeeping();
    const forest = buildForest(tree, { filter, labels });
    const flat = flattenForest(forest, {});
    const visible = (id: EntryId) => passesFilter(tree.get(id)!, filter, labels);
    expect(flat.rows.map((r) => r.id)).toEqual(tree.entries().filter((e) => visible(e.id)).map((e) => e.id).filter((id) => flat.rowIndex.has(id)));
    expect(flat.rows).toHaveLength(tree.entries().filter((e) => visible(e.id)).length);
    expectWellFormed(flat, forest);
    expectTruthfulShape(flat, forest, visible);
  });

  it('default hides labels and revisions; their children attach to the nearest visible ancestor', () => {
    const { tree, labels } = bookkeeping();
    const flat = flattenTree(tree, { filter: 'default', labels });
    expect(shape(flat)).toEqual(['u1', 'a2', 't3', 'a4', '  c6', '  m8', '  u9', '  u11', '  a12', '  t13']);
    expect(flat.rows[flat.rowIndex.get('a4')!]).toMatchObject({ childCount: 3, label: 'files listed' });
    expect(flat.rows[flat.rowIndex.get('u1')!]!.label).toBe('the start');
  });

  it('no-tools hides tool results and replies that only call tools, keeps replies with text', () => {
    const { tree, labels } = bookkeeping();
    const flat = flattenTree(tree, { filter: 'no-tools', labels });
    expect(shape(flat)).toEqual(['u1', 'a4', '  c6', '  m8', '  u9', '  u11', '  a12']);
  });

  it('user keeps prompts only, and a branch point moves up to the nearest prompt', () => {
    const { tree, labels } = bookkeeping();
    const flat = flattenTree(tree, { filter: 'user', labels });
    expect(shape(flat)).toEqual(['u1', '  u9', '  u11']);
    expect(flat.rows[0]).toMatchObject({ isBranchPoint: true, childCount: 2 });
  });

  it('labelled keeps only labelled entries', () => {
    const { tree, labels } = bookkeeping();
    const flat = flattenTree(tree, { filter: 'labelled', labels });
    expect(shape(flat)).toEqual(['u1', 'a4']);
    expect(flat.rows.map((r) => r.label)).toEqual(['the start', 'files listed']);
    // A later label entry that clears the label takes the entry out again.
    const { b } = bookkeeping();
    b.at('u9').label('a4', null, 'l99');
    const cleared = flattenTree(new SessionTree(b.entries), { filter: 'labelled', labels: resolveLabels(b.entries) });
    expect(shape(cleared)).toEqual(['u1']);
  });

  it('all shows the bookkeeping as rows of their own', () => {
    const { tree, labels } = bookkeeping();
    const flat = flattenTree(tree, { filter: 'all', labels });
    expect(flat.rows).toHaveLength(tree.size);
    expect(flat.rows[flat.rowIndex.get('a4')!]!.childCount).toBe(3);
    expect(flat.rows[flat.rowIndex.get('l10')!]!.level).toBe(2);
  });

  it('marks the nearest visible ancestor of a hidden leaf as current', () => {
    const { tree, labels } = bookkeeping();
    const active = new Set(tree.pathTo('l10').map((e) => e.id));
    const def = flattenTree(tree, { filter: 'default', labels, leafId: 'l10', activePathIds: active });
    expect(def.currentId).toBe('a4');
    expect(def.rows[def.currentIndex]!.id).toBe('a4');
    expect(def.rows.filter((r) => r.isCurrent)).toHaveLength(1);
    expect(def.rows.filter((r) => r.onActivePath).map((r) => r.id)).toEqual(['u1', 'a2', 't3', 'a4']);
    const all = flattenTree(tree, { filter: 'all', labels, leafId: 'l10', activePathIds: active });
    expect(all.rows[all.currentIndex]!.id).toBe('l10');
    expect(flattenTree(tree, { filter: 'default', labels, leafId: null }).currentIndex).toBe(-1);
  });
});

describe('text filter', () => {
  it('shows matches with the branch points above them, at their usual levels', () => {
    const { tree } = branchy();
    const forest = buildForest(tree, { filter: 'default', labels: new Map() });
    const full = flattenForest(forest, {});
    const flat = flattenForest(forest, { query: 'REPLY two' });
    expect(shape(flat)).toEqual(['u3', '  a7', '    a11']);
    expect(flat.rows.map((r) => r.match)).toEqual([false, false, true]);
    expect(flat.matchCount).toBe(1);
    for (const row of flat.rows) expect(row.level).toBe(full.rows[full.rowIndex.get(row.id)!]!.level);
    expectWellFormed(flat, forest);
  });

  it('keeps every match and only the context they need', () => {
    const { tree } = branchy();
    const forest = buildForest(tree, { filter: 'default', labels: new Map() });
    const flat = flattenForest(forest, { query: 'answer' });
    expect(shape(flat)).toEqual(['u3', '  a4', '  a7']);
    expect(flat.rows.map((r) => r.match)).toEqual([false, true, true]);
    // a7 matches but nothing below it does: nothing to expand there.
    expect(flat.rows[2]).toMatchObject({ isBranchPoint: true, expandable: false, expanded: false });
    expect(flat.rows.map((r) => [r.posinset, r.setsize])).toEqual([
      [1, 1],
      [1, 2],
      [2, 2],
    ]);
    expectWellFormed(flat, forest);
  });

  it('matches labels too, ignores case and surrounding spaces, and finds nothing gracefully', () => {
    const { b } = branchy();
    b.at('a9').label('u8', 'Milestone', 'l1');
    const tree = new SessionTree(b.entries);
    const labels = resolveLabels(b.entries);
    const forest = buildForest(tree, { filter: 'default', labels });
    expect(flattenForest(forest, { query: '  milestone ' }).rows.map((r) => r.id)).toEqual(['u3', 'a7', 'u8']);
    const none = flattenForest(forest, { query: 'no such text anywhere' });
    expect(none.rows).toEqual([]);
    expect(none.branchRows).toEqual([]);
    expect(flattenForest(forest, { query: '   ' }).rows).toHaveLength(12);
  });

  it('respects folds while filtering', () => {
    const { tree } = branchy();
    const forest = buildForest(tree, { filter: 'default', labels: new Map() });
    const flat = flattenForest(forest, { query: 'reply', folded: new Set(['a7']) });
    expect(shape(flat)).toEqual(['u3', '  a7']);
    expect(flat.rows[1]).toMatchObject({ expandable: true, expanded: false });
  });
});
