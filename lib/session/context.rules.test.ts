import { describe, expect, it, vi } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { loadSession, loadSessions } from '@/lib/testing/compactionData';
import { buildSessionContext } from './context';
import { resolveLabels, resolveSummaries } from './revisions';
import type { CompactionEntry, MessageEntry, SessionEntry } from './types';

/** A reply that failed, was stopped or was cut off before producing anything. */
const isEmptyFailed = (e: SessionEntry) =>
  e.type === 'message' && e.message.role === 'assistant' && e.message.content.length === 0 && ['error', 'aborted', 'interrupted'].includes(e.message.stopReason ?? '');

describe('buildSessionContext on real sessions', () => {
  it('pi session at its leaf: the latest compaction, which keeps nothing before itself, starts the context; its kept part starts at itself', () => {
    const { snapshot, path } = loadSession('piV1');
    const ctx = buildSessionContext(snapshot.entries, snapshot.meta.leafId);
    const last = path.findLast((e): e is CompactionEntry => e.type === 'compaction')!;
    expect(last.firstKeptEntryId).toBe(last.id);
    expect(ctx.compaction).toBe(last);
    expect(ctx.keptFromIndex).toBe(path.indexOf(last));
    expect(ctx.items.map((it) => it.entryId)).toEqual([last.id, ...path.slice(path.indexOf(last) + 1).map((e) => e.id)]);
  });

  it('pi session before its first compaction: replies aborted before any output are not sent, everything else on the path is, in order', () => {
    const { snapshot, path } = loadSession('piV1');
    const first = path.findIndex((e) => e.type === 'compaction');
    const leaf = path[first - 1]!;
    const ctx = buildSessionContext(snapshot.entries, leaf.id);
    const aborted = path.slice(0, first).filter(isEmptyFailed);
    expect(aborted.length).toBeGreaterThan(2);
    expect(ctx.items.map((it) => it.entryId)).toEqual(path.slice(0, first).filter((e) => !isEmptyFailed(e)).map((e) => e.id));
    // A reply aborted after some output keeps it.
    const partial = path.slice(0, first).find((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.stopReason === 'aborted' && e.message.content.length > 0);
    expect(ctx.items.some((it) => it.entryId === partial!.id)).toBe(true);
  });

  it('LobeChat export: a reply that failed with an error and nothing else is not sent, the prompt is', () => {
    const failed = loadSessions('lobeChatExport').filter((s) => s.path.some((e) => e.type === 'message' && e.message.role === 'assistant' && e.message.stopReason === 'error'));
    expect(failed.length).toBeGreaterThan(0);
    for (const s of failed) {
      const ctx = buildSessionContext(s.tree, s.snapshot.meta.leafId);
      expect(ctx.items.map((it) => it.entryId)).toEqual(s.path.filter((e) => !isEmptyFailed(e)).map((e) => e.id));
      expect(ctx.items.length).toBeLessThan(s.path.length);
    }
  });
});

describe('buildSessionContext: compactions and branch summaries', () => {
  it('a session continued from another starts with a root compaction that keeps itself: the summary, then everything after it', () => {
    const b = new TreeBuilder();
    const root = b.compaction('What happened before.', 'c1', 5000, 'c1');
    const u = b.user('carry on');
    const a = b.assistant('ok');
    const ctx = buildSessionContext(b.entries, a.id);
    expect(ctx.items.map((it) => it.entryId)).toEqual([root.id, u.id, a.id]);
    expect(ctx.items[0]).toEqual({ kind: 'compactionSummary', entryId: root.id, summary: 'What happened before.', tokensBefore: 5000 });
    expect(ctx.keptFromIndex).toBe(0);
  });

  it('a branch summary is sent while it stands, not once undone, and again once redone', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    b.assistant('tried X');
    b.at(u1);
    const bs = b.branchSummary('X did not work', 'a2');
    const u2 = b.user('try Y');
    const undo = b.revision(bs.id, 'undo');
    const redo = b.revision(bs.id, 'redo');
    const ids = (leaf: string) => buildSessionContext(b.entries, leaf).items.map((it) => it.entryId);
    expect(ids(u2.id)).toEqual([u1.id, bs.id, u2.id]);
    expect(ids(undo.id)).toEqual([u1.id, u2.id]);
    expect(ids(redo.id)).toEqual([u1.id, bs.id, u2.id]);
    expect(buildSessionContext(b.entries, u2.id).items[1]).toEqual({ kind: 'branchSummary', entryId: bs.id, summary: 'X did not work', fromId: 'a2' });
  });

  it('a model change after a compaction still sets the model', () => {
    const b = new TreeBuilder();
    b.modelChange('openai:gpt-4o');
    const u = b.user('q');
    b.compaction('S', u.id);
    b.modelChange('anthropic:claude-sonnet-4-5');
    expect(buildSessionContext(b.entries, b.cursor).model).toBe('anthropic:claude-sonnet-4-5');
  });
});

describe('buildSessionContext with an unknown leaf', () => {
  it('an empty session gives an empty context and says there was no entry to use', () => {
    const warn = vi.fn();
    const ctx = buildSessionContext([], 'gone', { warn });
    expect(ctx.items).toEqual([]);
    expect(ctx.path).toEqual([]);
    expect(String(warn.mock.calls[0]![0])).toMatch(/\(none\)/);
  });

  it('the newest entry is the one with the latest time, whatever the order of the entries; on a tie, the one added last', () => {
    const b = new TreeBuilder();
    const u1 = b.user('q1');
    const a1 = b.assistant('r1');
    b.at(u1);
    const a2 = b.assistant('r1 again');
    // Added last but older: an import that wrote a late record out of order.
    const late = { ...b.entries[1]!, id: 'late', parentId: u1.id, timestamp: u1.timestamp + 1 } as MessageEntry;
    const warn = () => {};
    expect(buildSessionContext([...b.entries, late], 'gone', { warn }).path.at(-1)!.id).toBe(a2.id);
    const tie = { ...a2, id: 'tie', parentId: u1.id } as MessageEntry;
    expect(buildSessionContext([...b.entries, tie], 'gone', { warn }).path.at(-1)!.id).toBe('tie');
    expect(a1.timestamp).toBeLessThan(a2.timestamp);
  });
});

describe('summary revisions and labels', () => {
  it('keeps every version with its action; an edit keeps the details it does not change; undo/redo are listed as toggles', () => {
    const b = new TreeBuilder();
    const u = b.user('q');
    const c = b.compaction('S1', u.id);
    const regen = b.revision(c.id, 'regenerate', 'S2');
    const edit = { ...b.revision(c.id, 'edit', 'S3'), details: { customInstructions: 'keep names' } };
    b.entries[b.entries.length - 1] = edit;
    const undo = b.revision(c.id, 'undo');
    const redo = b.revision(c.id, 'redo');
    // A regenerate that brought no text changes nothing.
    const empty = b.revision(c.id, 'regenerate');
    const eff = resolveSummaries(b.entries).get(c.id)!;
    expect(eff.versions.map((v) => [v.entryId, v.action, v.summary])).toEqual([
      [c.id, 'original', 'S1'],
      [regen.id, 'regenerate', 'S2'],
      [edit.id, 'edit', 'S3'],
    ]);
    expect(eff.summary).toBe('S3');
    expect(eff.details).toEqual({ ...c.details, customInstructions: 'keep names' });
    expect(eff.toggles).toEqual([undo, redo]);
    expect(eff.undone).toBe(false);
    expect(empty.summary).toBeUndefined();
  });

  it('a revision of something that is not a summary (a tool mask) is no summary', () => {
    const b = new TreeBuilder();
    const u = b.user('q');
    b.entries.push({ id: 'k', parentId: u.id, timestamp: u.timestamp + 1, type: 'tool_mask', maskedIds: [], tokensBefore: 1, tokensAfter: 1, protectTokens: 0 });
    b.at('k');
    b.revision('k', 'undo');
    expect(resolveSummaries(b.entries).size).toBe(0);
  });

  it('a blank label clears the bookmark like a null one', () => {
    const b = new TreeBuilder();
    const u = b.user('q');
    b.label(u.id, 'start');
    expect(resolveLabels(b.entries).get(u.id)).toBe('start');
    b.label(u.id, '   ');
    expect(resolveLabels(b.entries).has(u.id)).toBe(false);
  });
});
