import { describe, expect, it } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { buildSessionContext } from './context';

/** A compaction's firstKeptEntryId must name an entry at or before it; an import can carry one that does not. */
describe('buildSessionContext with a damaged kept pointer', () => {
  it('a firstKeptEntryId past the compaction keeps everything after the compaction (no message silently dropped)', () => {
    const b = new TreeBuilder();
    b.user('q1');
    b.assistant('r1');
    const c = b.compaction('S1', 'later');
    const q2 = b.user('q2');
    const r2 = b.assistant('r2');
    const q3 = b.user('q3', 'later');
    const r3 = b.assistant('r3');
    const ctx = buildSessionContext(b.entries, r3.id);
    expect(ctx.items.map((i) => i.entryId)).toEqual([c.id, q2.id, r2.id, q3.id, r3.id]);
    expect(ctx.keptFromIndex).toBe(ctx.path.indexOf(c) + 1);
  });

  it('a firstKeptEntryId that is not on the path keeps everything after the compaction', () => {
    const b = new TreeBuilder();
    b.user('q1');
    b.assistant('r1');
    const c = b.compaction('S1', 'nowhere');
    const q2 = b.user('q2');
    const r2 = b.assistant('r2');
    const ctx = buildSessionContext(b.entries, r2.id);
    expect(ctx.items.map((i) => i.entryId)).toEqual([c.id, q2.id, r2.id]);
  });
});
