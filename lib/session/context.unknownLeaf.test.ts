import { afterEach, describe, expect, it, vi } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { loadSession } from '@/lib/testing/compactionData';
import { buildSessionContext } from './context';
import { SessionTree } from './tree';

/**
 * A leaf id the tree does not hold (a stale pointer after a partial import or
 * a sync that has not delivered the entry yet) must not blank the context: the
 * model would then be sent nothing but the new prompt. Like pi, the newest
 * entry stands in, and the fallback is reported.
 */
describe('buildSessionContext with an unknown leaf id', () => {
  afterEach(() => vi.restoreAllMocks());

  it('falls back to the newest entry and reports it', () => {
    const b = new TreeBuilder();
    b.user('q1', 'u1');
    const a1 = b.assistant('r1', 'a1');
    b.user('q2', 'u2');
    b.assistant('r2', 'a2');
    b.at(a1);
    b.user('q2 again', 'u3');
    const newest = b.assistant('r2 again', 'a3');
    const warn = vi.fn();
    const ctx = buildSessionContext(b.entries, 'gone', { warn });
    expect(ctx.path.map((e) => e.id)).toEqual(['u1', 'a1', 'u3', newest.id]);
    expect(ctx.items.map((i) => i.entryId)).toEqual(['u1', 'a1', 'u3', 'a3']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain('gone');
    expect(String(warn.mock.calls[0]![0])).toContain('a3');
  });

  it('reports through console.warn when no reporter is given', () => {
    const spy = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const b = new TreeBuilder();
    b.user('q1', 'u1');
    b.assistant('r1', 'a1');
    expect(buildSessionContext(b.entries, 'gone').items.map((i) => i.entryId)).toEqual(['u1', 'a1']);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('a null leaf (before the first entry) stays empty and is not an error', () => {
    const warn = vi.fn();
    const b = new TreeBuilder();
    b.user('q1', 'u1');
    expect(buildSessionContext(b.entries, null, { warn }).items).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('real pi session: an unknown leaf gives the context of the newest entry, compaction included', () => {
    const { snapshot } = loadSession('piV1');
    const tree = new SessionTree(snapshot.entries);
    const newest = [...snapshot.entries].reduce((a, e) => (e.timestamp >= a.timestamp ? e : a));
    const expected = buildSessionContext(tree, newest.id);
    const warn = vi.fn();
    const got = buildSessionContext(tree, 'not-in-this-session', { warn });
    expect(expected.items.length).toBeGreaterThan(0);
    expect(expected.compaction).not.toBeNull();
    expect(got.items.map((i) => i.entryId)).toEqual(expected.items.map((i) => i.entryId));
    expect(got.compaction?.id).toBe(expected.compaction?.id);
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
