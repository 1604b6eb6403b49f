import { describe, expect, it } from 'vitest';
import { SessionTree } from '@/lib/session/tree';
import { TreeBuilder } from '@/lib/testing/builder';
import { buildForest, flattenForest } from './flatten';
import { resolveFocusIndex } from './focus';

function setup() {
  const b = new TreeBuilder();
  b.user('hello', 'u1');
  b.assistant('hi', 'a2');
  b.user('left', 'u3');
  b.assistant('left answer', 'a4');
  b.at('a2').user('right', 'u5');
  b.assistant('right answer', 'a6');
  b.label('a6', 'mark', 'l7');
  const tree = new SessionTree(b.entries);
  const forest = buildForest(tree, { filter: 'default', labels: new Map() });
  return { tree, forest };
}

describe('resolveFocusIndex', () => {
  it('keeps focus on the same entry wherever its row moves', () => {
    const { tree, forest } = setup();
    const flat = flattenForest(forest, { leafId: 'a6' });
    expect(flat.rows[resolveFocusIndex(flat, tree, 'u5')]!.id).toBe('u5');
    const folded = flattenForest(forest, { leafId: 'a6', query: 'right' });
    expect(folded.rows[resolveFocusIndex(folded, tree, 'u5', 'right')]!.id).toBe('u5');
  });

  it('falls back to the nearest shown ancestor when a fold or filter hides the entry', () => {
    const { tree, forest } = setup();
    const folded = flattenForest(forest, { folded: new Set(['a2']), leafId: 'a6' });
    expect(folded.rows[resolveFocusIndex(folded, tree, 'a4')]!.id).toBe('a2');
    // The label entry is hidden by the default filter: its parent takes the focus.
    const flat = flattenForest(forest, { leafId: 'a6' });
    expect(flat.rows[resolveFocusIndex(flat, tree, 'l7')]!.id).toBe('a6');
  });

  it('goes to the first match while searching', () => {
    const { tree, forest } = setup();
    const flat = flattenForest(forest, { query: 'answer', leafId: 'a6' });
    expect(flat.rows[resolveFocusIndex(flat, tree, 'u1', 'answer')]!.id).toBe('a4');
  });

  it('starts on the current leaf, then the first row, and is -1 without rows', () => {
    const { tree, forest } = setup();
    const flat = flattenForest(forest, { leafId: 'a4' });
    expect(flat.rows[resolveFocusIndex(flat, tree, null)]!.id).toBe('a4');
    expect(resolveFocusIndex(flattenForest(forest, {}), tree, null)).toBe(0);
    expect(resolveFocusIndex(flattenForest(forest, { query: 'zzz' }), tree, 'u1', 'zzz')).toBe(-1);
    expect(resolveFocusIndex(flat, tree, 'no-such-id')).toBe(flat.currentIndex);
  });
});
