import { describe, expect, it } from 'vitest';
import { SessionTree } from '@/lib/session/tree';
import { TreeBuilder } from '@/lib/testing/builder';
import { appliedEntry, placePending, type PendingSummary } from './pending';

/** A conversation, a draft prepared at its fourth message, and what was said after. */
function setup(opts: { keepsNothing?: boolean } = {}) {
  const b = new TreeBuilder();
  const u1 = b.user('first request');
  const a1 = b.assistant('first answer');
  const u2 = b.user('second request');
  const a2 = b.assistant('second answer');
  const draft: PendingSummary = {
    sessionId: 's',
    entry: {
      id: 'draft1',
      type: 'compaction',
      summary: '## Goal\nThe two requests.',
      firstKeptEntryId: opts.keepsNothing ? 'draft1' : u2.id,
      tokensBefore: 400,
      tokensAfter: 150,
      details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' }, firstSummarizedEntryId: u1.id },
    },
    keepsNothing: opts.keepsNothing ?? false,
    preparedAt: a2.id,
    basedOn: null,
    createdAt: 0,
  };
  return { b, u1, a1, u2, a2, draft, path: () => new SessionTree(b.entries).pathTo(b.cursor) };
}

describe('placing a draft on the conversation as it is now', () => {
  it('where it was prepared: its own cut, nothing new', () => {
    const { draft, path, u1, a1, u2, a2 } = setup();
    const p = placePending(path(), draft);
    expect(p).toMatchObject({ ok: true, firstKeptEntryId: u2.id, newMessages: 0 });
    if (!p.ok) return;
    expect(p.summarized.map((e) => e.id)).toEqual([u1.id, a1.id]);
    expect(p.kept.map((e) => e.id)).toEqual([u2.id, a2.id]);
  });

  it('after the session moved on: the same cut, and what came since joins the kept part', () => {
    const { b, draft, path, u2 } = setup();
    b.user('third request');
    b.assistant('third answer');
    b.label('u1', 'bookmark');
    expect(placePending(path(), draft)).toMatchObject({ ok: true, firstKeptEntryId: u2.id, newMessages: 2 });
  });

  it('a draft that kept nothing keeps what was written since it was prepared, from the first message on', () => {
    const { b, draft, path } = setup({ keepsNothing: true });
    expect(placePending(path(), draft)).toMatchObject({ ok: true, firstKeptEntryId: null });
    b.label('u1', 'not a message');
    const u3 = b.user('third request');
    const p = placePending(path(), draft);
    expect(p).toMatchObject({ ok: true, firstKeptEntryId: u3.id, newMessages: 1 });
    // Appended, it names that message; with nothing new it names itself, as a compaction keeping nothing does.
    expect(appliedEntry(draft, u3.id, { tokensBefore: 500, tokensAfter: 200 })).toMatchObject({ id: 'draft1', firstKeptEntryId: u3.id, tokensBefore: 500, tokensAfter: 200 });
    expect(appliedEntry(draft, null, { tokensBefore: 500, tokensAfter: 200 }).firstKeptEntryId).toBe('draft1');
  });

  it('not on another branch, and not once another compaction is in effect (or the one it updated was undone)', () => {
    const { b, draft, path, u1, u2 } = setup();
    b.at(u1).assistant('a different answer');
    expect(placePending(path(), draft)).toEqual({ ok: false, problem: 'other-branch' });
    b.at(draft.preparedAt);
    const c = b.compaction('## Goal\nApplied by hand.', u2.id);
    expect(placePending(path(), draft)).toEqual({ ok: false, problem: 'superseded' });
    // Undoing that one restores the state the draft was written against.
    b.revision(c.id, 'undo');
    expect(placePending(path(), draft).ok).toBe(true);
    // A draft that updated a compaction no longer applies once that one is undone.
    expect(placePending(path(), { ...draft, basedOn: c.id })).toEqual({ ok: false, problem: 'superseded' });
  });
});
