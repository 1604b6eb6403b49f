import { describe, expect, it } from 'vitest';
import { placePending, type PendingSummary } from '@/lib/compaction/pending';
import { SessionTree } from '@/lib/session/tree';
import { TreeBuilder } from '@/lib/testing/builder';
import { pendingCoverText, pendingProbeKey } from './pendingCard';

describe('the card of a summary waiting for review', () => {
  const b = new TreeBuilder();
  const u1 = b.user('first');
  b.assistant('answer');
  const u2 = b.user('second');
  const a2 = b.assistant('answer two');
  const pending: PendingSummary = {
    sessionId: 's',
    entry: { id: 'd', type: 'compaction', summary: '## Goal\nx', firstKeptEntryId: u2.id, tokensBefore: 41_980, tokensAfter: 9_000, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' }, firstSummarizedEntryId: u1.id } },
    keepsNothing: false,
    preparedAt: a2.id,
    basedOn: null,
    createdAt: 0,
  };
  const place = () => {
    const p = placePending(new SessionTree(b.entries).pathTo(b.cursor), pending);
    if (!p.ok) throw new Error('not placeable');
    return p;
  };

  it('says what it covers, and once the conversation moved on, that what came since stays verbatim', () => {
    expect(pendingCoverText(pending, place())).toBe('Summarises 2 messages (41,980 tokens in context when it was prepared), keeps the last 2 messages then verbatim.');
    b.user('third');
    b.assistant('answer three');
    expect(pendingCoverText(pending, place())).toBe(
      'Summarises 2 messages (41,980 tokens in context when it was prepared), keeps the last 2 messages then verbatim; the 2 messages written since stay verbatim too.',
    );
  });

  it('names its probe report by id and text: an edit is a new report', () => {
    expect(pendingProbeKey(pending)).toBe(pendingProbeKey({ ...pending }));
    expect(pendingProbeKey({ ...pending, entry: { ...pending.entry, summary: '## Goal\ny' } })).not.toBe(pendingProbeKey(pending));
  });
});
