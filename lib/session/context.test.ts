import { describe, expect, it } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { buildSessionContext, type ContextItem } from './context';
import { resolveLabels } from './revisions';
import { SessionTree, walkDepthFirst } from './tree';

function describeItems(items: ContextItem[]): string[] {
  return items.map((i) => {
    if (i.kind === 'compactionSummary') return `C:${i.summary}`;
    if (i.kind === 'branchSummary') return `B:${i.summary}`;
    const m = i.message;
    const first = m.content[0];
    const text = first && first.type === 'text' ? first.text : first?.type ?? '';
    return `${m.role}:${text}`;
  });
}

describe('SessionTree', () => {
  it('indexes children, paths, branch points and common ancestors', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    const a1 = b.assistant('r1');
    const u2 = b.user('q2');
    const a2 = b.assistant('r2');
    b.at(a1);
    const u2b = b.user('q2 edited');
    const a2b = b.assistant('r2 edited');
    const tree = new SessionTree(b.entries);

    expect(tree.children(a1.id).map((e) => e.id)).toEqual([u2.id, u2b.id]);
    expect(tree.pathTo(a2.id).map((e) => e.id)).toEqual([u1.id, a1.id, u2.id, a2.id]);
    expect(tree.branchPoints().map((e) => e.id)).toEqual([a1.id]);
    expect(tree.commonAncestor(a2.id, a2b.id)).toBe(a1.id);
    expect(tree.commonAncestor(a2.id, a1.id)).toBe(a1.id);
    expect(tree.isAncestor(u1.id, a2b.id)).toBe(true);
    expect(tree.isAncestor(u2.id, a2b.id)).toBe(false);
    expect(tree.leaves().map((e) => e.id).sort()).toEqual([a2.id, a2b.id].sort());
    expect(tree.newestLeaf()).toBe(a2b.id);
    expect(tree.newestLeafUnder(a1.id)).toBe(a2b.id);
    expect([...walkDepthFirst(tree)].map((x) => `${x.entry.id}@${x.depth}`)).toEqual([
      `${u1.id}@0`, `${a1.id}@1`, `${u2.id}@2`, `${a2.id}@3`, `${u2b.id}@2`, `${a2b.id}@3`,
    ]);
  });

  it('rejects duplicate ids and survives very deep trees', () => {
    const b = new TreeBuilder();
    for (let i = 0; i < 50_000; i++) b.user(`m${i}`);
    const tree = new SessionTree(b.entries);
    expect(tree.pathTo(b.cursor)).toHaveLength(50_000);
    expect([...walkDepthFirst(tree)]).toHaveLength(50_000);
    expect(() => tree.add(b.entries[0]!)).toThrow(/Duplicate/);
  });
});

describe('buildSessionContext', () => {
  it('sends nothing for a reply that never arrived (interrupted, empty), as for a failed one', async () => {
    const { readLobeChat } = await import('@/lib/formats/readers/lobeChat');
    const { readFixture } = await import('@/lib/testing/fixtures');
    const sessions = readLobeChat(readFixture('lobeChatExport')).sessions;
    const s = sessions.find((x) => x.entries.some((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.stopReason === 'interrupted'))!;
    const ctx = buildSessionContext(s.entries, s.meta.leafId);
    expect(ctx.path).toHaveLength(2);
    expect(ctx.items.map((i) => (i.kind === 'message' ? i.message.role : i.kind))).toEqual(['user']);
  });

  it('returns the whole path without compactions, following only the active branch', () => {
    const b = new TreeBuilder();
    b.user('q1');
    const a1 = b.assistant('r1');
    b.user('q2');
    b.assistant('r2');
    b.at(a1);
    b.user('q2 edited');
    const leaf = b.assistant('r2 edited');
    const ctx = buildSessionContext(b.entries, leaf.id);
    expect(describeItems(ctx.items)).toEqual(['user:q1', 'assistant:r1', 'user:q2 edited', 'assistant:r2 edited']);
    expect(ctx.compaction).toBeNull();
  });

  it('honours the latest compaction: summary, kept entries, then later ones', () => {
    const b = new TreeBuilder();
    b.user('q1');
    b.assistant('r1');
    const u2 = b.user('q2');
    b.assistant('r2');
    b.compaction('S1', u2.id);
    b.user('q3');
    const leaf = b.assistant('r3');
    const ctx = buildSessionContext(b.entries, leaf.id);
    expect(describeItems(ctx.items)).toEqual(['C:S1', 'user:q2', 'assistant:r2', 'user:q3', 'assistant:r3']);
    expect(ctx.keptFromIndex).toBe(2);
  });

  it('nested compactions: the later summary supersedes the earlier one, even inside its kept range', () => {
    const b = new TreeBuilder();
    b.user('q1');
    b.assistant('r1');
    const u2 = b.user('q2');
    const a2 = b.assistant('r2');
    b.compaction('S1', u2.id);
    b.user('q3');
    b.assistant('r3');
    b.compaction('S2', a2.id); // keeps from inside the first compaction's kept range
    const u4 = b.user('q4');
    const ctx = buildSessionContext(b.entries, u4.id);
    expect(describeItems(ctx.items)).toEqual(['C:S2', 'assistant:r2', 'user:q3', 'assistant:r3', 'user:q4']);
  });

  it('includes branch summaries on the path and drops ones before the kept range', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    b.assistant('r1');
    b.at(u1);
    b.branchSummary('explored X', 'a2');
    const u2 = b.user('q2');
    b.assistant('r2');
    let ctx = buildSessionContext(b.entries, b.cursor);
    expect(describeItems(ctx.items)).toEqual(['user:q1', 'B:explored X', 'user:q2', 'assistant:r2']);
    b.compaction('S', u2.id);
    ctx = buildSessionContext(b.entries, b.cursor);
    expect(describeItems(ctx.items)).toEqual(['C:S', 'user:q2', 'assistant:r2']);
  });

  it('applies summary revisions on the path: regenerate, edit, undo, redo — and only on that branch', () => {
    const b = new TreeBuilder();
    b.user('q1');
    b.assistant('r1');
    const u2 = b.user('q2');
    b.assistant('r2');
    const c = b.compaction('S1', u2.id);
    b.revision(c.id, 'regenerate', 'S1 v2');
    const afterRegen = b.cursor;
    expect(describeItems(buildSessionContext(b.entries, afterRegen).items)[0]).toBe('C:S1 v2');
    b.revision(c.id, 'edit', 'S1 v3 edited');
    const ctxEdited = buildSessionContext(b.entries, b.cursor);
    expect(describeItems(ctxEdited.items)[0]).toBe('C:S1 v3 edited');
    expect(ctxEdited.summaries.get(c.id)!.versions.map((v) => v.summary)).toEqual(['S1', 'S1 v2', 'S1 v3 edited']);
    const undo = b.revision(c.id, 'undo');
    expect(describeItems(buildSessionContext(b.entries, undo.id).items)).toEqual(['user:q1', 'assistant:r1', 'user:q2', 'assistant:r2']);
    b.revision(c.id, 'redo');
    expect(describeItems(buildSessionContext(b.entries, b.cursor).items)[0]).toBe('C:S1 v3 edited');
    // The branch that left before the undo still has the compaction.
    b.at(afterRegen);
    const other = b.user('q3');
    expect(describeItems(buildSessionContext(b.entries, other.id).items)).toEqual(['C:S1 v2', 'user:q2', 'assistant:r2', 'user:q3']);
  });

  it('undoing the second compaction falls back to the first', () => {
    const b = new TreeBuilder();
    b.user('q1');
    const u2 = b.user('q2');
    b.compaction('S1', u2.id);
    const u3 = b.user('q3');
    const c2 = b.compaction('S2', u3.id);
    b.revision(c2.id, 'undo');
    const ctx = buildSessionContext(b.entries, b.cursor);
    expect(describeItems(ctx.items)).toEqual(['C:S1', 'user:q2', 'user:q3']);
  });

  it('tracks the model from model_change entries and ignores labels', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    b.modelChange('openai:gpt-4o');
    b.label(u1.id, 'start');
    b.assistant('r1');
    const ctx = buildSessionContext(b.entries, b.cursor);
    expect(ctx.model).toBe('openai:gpt-4o');
    expect(describeItems(ctx.items)).toEqual(['user:q1', 'assistant:r1']);
    expect(resolveLabels(b.entries).get(u1.id)).toBe('start');
    b.label(u1.id, null);
    expect(resolveLabels(b.entries).has(u1.id)).toBe(false);
  });

  it('skips empty failed replies but keeps partial interrupted ones', () => {
    const b = new TreeBuilder();
    b.user('q1');
    b.assistant([], undefined, { stopReason: 'error', errorMessage: '401' });
    b.at('u1');
    b.assistant('partial', undefined, { stopReason: 'interrupted' });
    expect(describeItems(buildSessionContext(b.entries, b.cursor).items)).toEqual(['user:q1', 'assistant:partial']);
  });
});

describe('SessionTree.replace', () => {
  it('swaps a streaming entry in place and refuses to move it', () => {
    const b = new TreeBuilder();
    const u = b.user('q');
    const a = b.assistant('par');
    const tree = new SessionTree(b.entries);
    const grown = { ...a, message: { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'partial reply' }] } };
    tree.replace(grown);
    expect(tree.get(a.id)).toBe(grown);
    expect(tree.children(u.id)[0]).toBe(grown);
    expect(tree.entries()[1]).toBe(grown);
    expect(() => tree.replace({ ...grown, parentId: null })).toThrow(/cannot move/);
  });
});
