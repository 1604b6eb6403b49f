import { describe, expect, it } from 'vitest';
import { Observable } from './observable';

describe('Observable', () => {
  it('tells every subscriber of a change, and only of a change', () => {
    const o = new Observable({ tokens: 1 });
    const calls: string[] = [];
    o.subscribe(() => calls.push('a'));
    o.subscribe(() => calls.push('b'));
    const same = o.getSnapshot();
    o.set(same);
    expect(calls).toEqual([]);
    o.set({ tokens: 1 });
    expect(calls).toEqual(['a', 'b']);
    expect(o.getSnapshot()).not.toBe(same);
  });

  it('stops telling a subscriber that unsubscribed', () => {
    const o = new Observable(0);
    const seen: number[] = [];
    const off = o.subscribe(() => seen.push(o.getSnapshot()));
    o.set(1);
    off();
    o.set(2);
    expect(seen).toEqual([1]);
    expect(o.getSnapshot()).toBe(2);
  });

  it('update derives the next value from the current one, and an unchanged result is no change', () => {
    const o = new Observable(3);
    let calls = 0;
    o.subscribe(() => calls++);
    o.update((n) => n * 2);
    o.update((n) => n);
    expect(o.getSnapshot()).toBe(6);
    expect(calls).toBe(1);
  });
});
