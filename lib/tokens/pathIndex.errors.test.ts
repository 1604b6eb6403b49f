import { describe, expect, it } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { createExactCounter } from './exact';
import { PathTokenIndex } from './pathIndex';

const counter = () => createExactCounter({ encoding: 'o200k_base', imageFormula: 'anthropic' });

/** The index mirrors one path: a change that does not fit that path is refused, naming the entries involved. */
describe('PathTokenIndex refuses changes that do not fit its path', () => {
  function indexed() {
    const b = new TreeBuilder();
    const u1 = b.user('first', 'u1');
    const a1 = b.assistant('answer', 'a1');
    const index = new PathTokenIndex(counter());
    index.push(u1);
    index.push(a1);
    return { b, index, u1, a1 };
  }

  it('an entry whose parent is not the leaf', () => {
    const { index, u1 } = indexed();
    const stray = { ...u1, id: 'u9', parentId: 'nowhere' };
    expect(() => index.push(stray)).toThrow('PathTokenIndex.push: u9 is not a child of the leaf a1');
  });

  it('an entry already on the path', () => {
    const { index, a1 } = indexed();
    expect(() => index.push({ ...a1, parentId: 'a1' })).toThrow('PathTokenIndex.push: a1 is already on the path');
  });

  it('popping to, or replacing, an entry that is not on the path', () => {
    const { index, a1 } = indexed();
    expect(() => index.popTo('x7')).toThrow('PathTokenIndex.popTo: x7 is not on the path');
    expect(() => index.replace({ ...a1, id: 'x8' })).toThrow('PathTokenIndex.replace: x8 is not on the path');
    expect(index.entries().map((e) => e.id)).toEqual(['u1', 'a1']);
  });
});
