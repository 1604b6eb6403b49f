import { describe, expect, it } from 'vitest';
import { SessionTree } from '@/lib/session/tree';
import { TreeBuilder } from '@/lib/testing/builder';
import { flattenTree, type FlatTree } from './flatten';
import { isPrintable, nextBranchRow, previousBranchRow, treeKeyAction, type KeyInput } from './keyboard';

/**
 * u1 → a2 ┬ u3 → a4 ┬ u5        rows: u1 a2 | u3 a4 | u5 a6 | u7 a8 | u9 a10 u11
 *         │         └ a6
 *         ├ u7 → a8
 *         └ u9 → a10 → u11
 */
function fixture(folded: string[] = [], query = ''): FlatTree {
  const b = new TreeBuilder();
  b.user('hello', 'u1');
  b.assistant('hi', 'a2');
  b.user('first try', 'u3');
  b.assistant('ok', 'a4');
  b.user('deep', 'u5');
  b.at('a4').assistant('regenerated', 'a6');
  b.at('a2').user('second try', 'u7');
  b.assistant('fine', 'a8');
  b.at('a2').user('third try', 'u9');
  b.assistant('great', 'a10');
  b.user('last', 'u11');
  return flattenTree(new SessionTree(b.entries), { filter: 'default', labels: new Map(), folded: new Set(folded), query });
}

function press(flat: FlatTree, focusId: string, key: string | KeyInput, query = '') {
  const input = typeof key === 'string' ? { key } : key;
  return treeKeyAction(input, { rows: flat.rows, focusIndex: flat.rowIndex.get(focusId) ?? 0, query, branchRows: flat.branchRows });
}

/** The id focus lands on, or the action when it is not a focus move. */
function land(flat: FlatTree, focusId: string, key: string) {
  const a = press(flat, focusId, key);
  return a.type === 'focus' ? flat.rows[a.index]!.id : a;
}

describe('tree keyboard model', () => {
  const flat = fixture();

  it('checks the fixture layout it relies on', () => {
    expect(flat.rows.map((r) => `${r.level}:${r.id}`)).toEqual(['1:u1', '1:a2', '2:u3', '2:a4', '3:u5', '3:a6', '2:u7', '2:a8', '2:u9', '2:a10', '2:u11']);
  });

  it('ArrowDown / ArrowUp move one row and stop at the ends', () => {
    expect(land(flat, 'u1', 'ArrowDown')).toBe('a2');
    expect(land(flat, 'a4', 'ArrowDown')).toBe('u5');
    expect(land(flat, 'u11', 'ArrowDown')).toBe('u11');
    expect(land(flat, 'u5', 'ArrowUp')).toBe('a4');
    expect(land(flat, 'u1', 'ArrowUp')).toBe('u1');
  });

  it('Home / End go to the first and last row', () => {
    expect(land(flat, 'a8', 'Home')).toBe('u1');
    expect(land(flat, 'a8', 'End')).toBe('u11');
  });

  it('ArrowRight expands a collapsed branch point, then moves to its first child', () => {
    const folded = fixture(['a4']);
    expect(press(folded, 'a4', 'ArrowRight')).toEqual({ type: 'expand', index: folded.rowIndex.get('a4'), id: 'a4' });
    expect(land(flat, 'a4', 'ArrowRight')).toBe('u5');
    expect(land(flat, 'a2', 'ArrowRight')).toBe('u3');
  });

  it('ArrowRight does nothing on rows without children of their own', () => {
    expect(land(flat, 'u3', 'ArrowRight')).toBe('u3');
    expect(land(flat, 'u11', 'ArrowRight')).toBe('u11');
  });

  it('ArrowLeft collapses an expanded branch point, else moves to the branch point above', () => {
    expect(press(flat, 'a2', 'ArrowLeft')).toEqual({ type: 'collapse', index: 1, id: 'a2' });
    expect(land(flat, 'a10', 'ArrowLeft')).toBe('a2');
    expect(land(flat, 'a6', 'ArrowLeft')).toBe('a4');
    expect(land(flat, 'u3', 'ArrowLeft')).toBe('a2');
    expect(land(fixture(['a4']), 'a4', 'ArrowLeft')).toBe('a2');
    // Top level has no parent: focus stays.
    expect(land(flat, 'u1', 'ArrowLeft')).toBe('u1');
  });

  it('PageDown / PageUp jump between branch points and stay put past the last one', () => {
    expect(land(flat, 'u1', 'PageDown')).toBe('a2');
    expect(land(flat, 'a2', 'PageDown')).toBe('a4');
    expect(land(flat, 'u3', 'PageDown')).toBe('a4');
    expect(land(flat, 'a4', 'PageDown')).toBe('a4');
    expect(land(flat, 'u11', 'PageDown')).toBe('u11');
    expect(land(flat, 'u11', 'PageUp')).toBe('a4');
    expect(land(flat, 'a4', 'PageUp')).toBe('a2');
    expect(land(flat, 'a2', 'PageUp')).toBe('a2');
    expect(land(flat, 'u1', 'PageUp')).toBe('u1');
  });

  it('branch point search is a binary search over the sorted indices', () => {
    const rows = [3, 7, 20];
    expect([-1, 0, 3, 6, 7, 19, 20, 99].map((i) => nextBranchRow(rows, i))).toEqual([3, 3, 7, 7, 20, 20, undefined, undefined]);
    expect([-1, 0, 3, 4, 7, 20, 21].map((i) => previousBranchRow(rows, i))).toEqual([undefined, undefined, undefined, 3, 3, 7, 20]);
    expect(nextBranchRow([], 0)).toBeUndefined();
  });

  it('Enter and Space select; Space is a character once a query is being typed', () => {
    expect(press(flat, 'a8', 'Enter')).toEqual({ type: 'select', index: 7, id: 'a8' });
    expect(press(flat, 'a8', ' ')).toEqual({ type: 'select', index: 7, id: 'a8' });
    expect(press(flat, 'a8', ' ', 'two')).toEqual({ type: 'query', query: 'two ' });
    expect(press(flat, 'a8', 'Enter', 'two')).toEqual({ type: 'select', index: 7, id: 'a8' });
  });

  it('F2 edits the label of the focused row', () => {
    expect(press(flat, 'u9', 'F2')).toEqual({ type: 'editLabel', index: 8, id: 'u9' });
  });

  it('printable characters type into the query; Backspace deletes; Escape clears', () => {
    expect(press(flat, 'u1', 'f')).toEqual({ type: 'query', query: 'f' });
    expect(press(flat, 'u1', 'O', 'f')).toEqual({ type: 'query', query: 'fO' });
    expect(press(flat, 'u1', '*', 'a')).toEqual({ type: 'query', query: 'a*' });
    expect(press(flat, 'u1', 'é', 'caf')).toEqual({ type: 'query', query: 'café' });
    expect(press(flat, 'u1', '🚀', 'go ')).toEqual({ type: 'query', query: 'go 🚀' });
    expect(press(flat, 'u1', 'Backspace', 'go 🚀')).toEqual({ type: 'query', query: 'go ' });
    expect(press(flat, 'u1', 'Backspace', 'x')).toEqual({ type: 'query', query: '' });
    expect(press(flat, 'u1', 'Backspace')).toEqual({ type: 'none' });
    expect(press(flat, 'u1', 'Escape', 'abc')).toEqual({ type: 'query', query: '' });
    expect(press(flat, 'u1', 'Escape')).toEqual({ type: 'none' });
  });

  it('leaves shortcuts, named keys and IME composition alone', () => {
    expect(press(flat, 'u1', { key: 'c', ctrlKey: true })).toEqual({ type: 'none' });
    expect(press(flat, 'u1', { key: 'v', metaKey: true })).toEqual({ type: 'none' });
    expect(press(flat, 'u1', { key: 'x', altKey: true })).toEqual({ type: 'none' });
    expect(press(flat, 'u1', { key: 'ArrowDown', altKey: true })).toEqual({ type: 'none' });
    expect(press(flat, 'u1', 'Tab')).toEqual({ type: 'none' });
    expect(press(flat, 'u1', 'Shift')).toEqual({ type: 'none' });
    expect(press(flat, 'u1', 'F5')).toEqual({ type: 'none' });
    expect(press(flat, 'u1', { key: 'a', isComposing: true })).toEqual({ type: 'none' });
    // AltGr (Ctrl+Alt on Windows) produces characters such as @.
    expect(press(flat, 'u1', { key: '@', ctrlKey: true, altKey: true })).toEqual({ type: 'query', query: '@' });
    expect(isPrintable({ key: 'Dead' })).toBe(false);
    expect(isPrintable({ key: '\u007f' })).toBe(false);
  });

  it('works on the filtered rows: keys move among what is shown', () => {
    const filtered = fixture([], 'try');
    expect(filtered.rows.map((r) => r.id)).toEqual(['a2', 'u3', 'u7', 'u9']);
    expect(land(filtered, 'u3', 'ArrowDown')).toBe('u7');
    expect(land(filtered, 'u9', 'ArrowLeft')).toBe('a2');
    expect(land(filtered, 'u9', 'PageUp')).toBe('a2');
  });

  it('with no rows only the query keys do anything', () => {
    const empty = fixture([], 'nothing matches this');
    expect(empty.rows).toEqual([]);
    for (const key of ['ArrowDown', 'ArrowUp', 'Home', 'End', 'ArrowLeft', 'ArrowRight', 'PageDown', 'PageUp', 'Enter', 'F2']) {
      expect(press(empty, 'x', key, 'nothing')).toEqual({ type: 'none' });
    }
    expect(press(empty, 'x', 'Backspace', 'nothing')).toEqual({ type: 'query', query: 'nothin' });
    expect(press(empty, 'x', 'Escape', 'nothing')).toEqual({ type: 'query', query: '' });
    expect(press(empty, 'x', ' ', 'nothing')).toEqual({ type: 'query', query: 'nothing ' });
  });

  it('clamps a stale focus index into range', () => {
    const a = treeKeyAction({ key: 'ArrowUp' }, { rows: flat.rows, focusIndex: 99, query: '', branchRows: flat.branchRows });
    expect(a).toEqual({ type: 'focus', index: flat.rows.length - 2 });
    expect(treeKeyAction({ key: 'ArrowDown' }, { rows: flat.rows, focusIndex: -1, query: '', branchRows: flat.branchRows })).toEqual({ type: 'focus', index: 1 });
  });
});
