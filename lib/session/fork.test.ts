import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { readFixture } from '@/lib/testing/fixtures';
import { TreeBuilder } from '@/lib/testing/builder';
import { buildSessionContext } from './context';
import { forkSession } from './fork';
import { SessionTree } from './tree';

const meta = { id: 's', title: 'Original', createdAt: 1, updatedAt: 1, leafId: null };

describe('forkSession', () => {
  it('copies the path to the chosen entry, with the same ids, and nothing from other branches', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    const a1 = b.assistant('r1');
    b.user('q2');
    b.assistant('r2');
    b.at(a1);
    const u2b = b.user('q2 edited');
    b.label(u1.id, 'start');
    b.label('r-missing', 'elsewhere');
    const a2b = b.assistant('r2 edited');
    const fork = forkSession(meta, b.entries, a2b.id, 5);
    expect(fork.meta.title).toBe('Fork of Original');
    expect(fork.meta.id).not.toBe('s');
    expect(fork.meta.leafId).toBe(a2b.id);
    const types = fork.entries.map((e) => (e.type === 'label' ? `label:${e.label}` : e.id));
    expect(types).toEqual([u1.id, a1.id, u2b.id, 'label:start', a2b.id]);
    const tree = new SessionTree(fork.entries);
    expect(tree.pathTo(fork.meta.leafId).map((e) => e.id)).toEqual(fork.entries.map((e) => e.id));
  });

  it('forks a real session mid-way, keeping its compaction in effect', () => {
    const [snap] = importText(readFixture('piV1'), { fileName: 'compact.jsonl' }).sessions;
    const full = buildSessionContext(snap!.entries, snap!.meta.leafId);
    // Fork right after the first compaction's kept range plus a few entries.
    const firstCompaction = full.path.findIndex((e) => e.type === 'compaction');
    const at = full.path[firstCompaction + 5]!;
    const fork = forkSession(snap!.meta, snap!.entries, at.id);
    expect(fork.entries).toHaveLength(firstCompaction + 6);
    const ctx = buildSessionContext(fork.entries, fork.meta.leafId);
    expect(ctx.compaction?.id).toBe(full.path[firstCompaction]!.id);
    expect(ctx.items[0]!.kind).toBe('compactionSummary');
  });

  it('refuses an unknown entry', () => {
    expect(() => forkSession(meta, [], 'nope')).toThrow(/not in this session/);
  });
});
