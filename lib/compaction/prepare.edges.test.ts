import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings, type PinEntry, type SessionEntry } from '@/lib/session/types';
import { TreeBuilder, textLengthTokens } from '@/lib/testing/builder';
import { loadSession, pathTokens } from '@/lib/testing/compactionData';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { contextTokensOf, effectiveKeepRecent, prepareCompaction, prepareRegeneration, previewCompaction, summaryOutputBudget } from './prepare';

/** Preparations around pins, failed replies, damaged pointers and compactions that kept nothing. */

const S = (keepRecentTokens: number, extra: Partial<CompactionSettings> = {}): CompactionSettings => ({ ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens, ...extra });
const x = (n: number) => 'x'.repeat(n);
const tokensOf = (path: readonly SessionEntry[]) => pathTokensFromCounts(path.map(textLengthTokens));
const pin = (targetId: string, id: string): PinEntry => ({ type: 'pin', targetId, pinned: true, id, parentId: null, timestamp: 0 });
const sum = (path: readonly SessionEntry[], from: number, to: number) => path.slice(from, to).reduce((n, e) => n + textLengthTokens(e), 0);

describe('pinned messages', () => {
  it('a pinned call before the cut travels with its result: counted after the summary, listed, in the estimate', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.toolCall('read', { path: '/spec.md' }, 'c1', 'a1');
    b.toolResult('c1', 'read', x(300), 't1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.user(x(100), 'u3');
    b.assistant(x(100), 'a3');
    const path: SessionEntry[] = [...b.entries, pin('a1', 'p1')];
    const p = prepareCompaction(path, tokensOf(path), S(200))!;
    expect(p.firstKeptEntryId).toBe('u3');
    expect(p.pinnedEntryIds).toEqual(['a1', 't1']);
    expect(p.tokensPinned).toBe(10 + 300);
    expect(p.estimatedTokensAfter).toBe(Math.ceil(p.tokensKept + p.tokensPinned + p.summaryBudget.total));
    const pv = previewCompaction(path, tokensOf(path), S(200));
    expect(pv).toMatchObject({ ok: true, pinned: { count: 2, tokens: 310 } });
    // Unpinned, nothing is carried.
    const none = prepareCompaction(b.entries, tokensOf(b.entries), S(200))!;
    expect(none.pinnedEntryIds).toEqual([]);
    expect(none.tokensPinned).toBe(0);
  });

  it('after a compaction, the context figure counts the summary, the carried pinned messages and the kept part', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.compaction(x(50), 'u2', 400, 'cmp');
    b.user(x(30), 'u3');
    const path: SessionEntry[] = [...b.entries, pin('a1', 'p1')];
    expect(contextTokensOf(path, tokensOf(path))).toBe(50 + 100 + 100 + 100 + 30);
    expect(contextTokensOf(b.entries, tokensOf(b.entries))).toBe(50 + 100 + 100 + 30);
  });
});

describe('entries that do not reach the model', () => {
  it('an empty interrupted or aborted reply is neither kept in the count nor summarised', () => {
    for (const stopReason of ['interrupted', 'aborted', 'error'] as const) {
      const b = new TreeBuilder();
      b.user(x(100), 'u1');
      b.assistant([], 'dead', { stopReason });
      b.user(x(100), 'u2');
      b.assistant(x(100), 'a2');
      b.user(x(100), 'u3');
      b.assistant(x(100), 'a3');
      const path = b.entries.slice();
      // The test counter gives the empty reply 5 tokens, which the model never sees.
      const counts = path.map((e) => (e.id === 'dead' ? 5 : textLengthTokens(e)));
      const p = prepareCompaction(path, pathTokensFromCounts(counts), S(150))!;
      expect(p.messagesToSummarize.map((i) => i.entryId), stopReason).toEqual(['u1', 'u2', 'a2']);
      expect(p.tokensSummarized, stopReason).toBe(300);
      expect(contextTokensOf(path, pathTokensFromCounts(counts)), stopReason).toBe(500);
    }
    // A stopped reply with text is a real message.
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(40), 'half', { stopReason: 'interrupted' });
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    const p = prepareCompaction(b.entries, tokensOf(b.entries), S(150))!;
    expect(p.messagesToSummarize.map((i) => i.entryId)).toEqual(['u1', 'half']);
  });
});

describe('damaged or unusual compactions', () => {
  it('a compaction whose kept pointer is off the path starts the next region right after it, as the context does', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.compaction(x(50), 'gone', 400, 'cmp');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.user(x(100), 'u3');
    b.assistant(x(100), 'a3');
    const path = b.entries.slice();
    const p = prepareCompaction(path, tokensOf(path), S(150))!;
    expect(p.summarizeFromIndex).toBe(3);
    expect(p.messagesToSummarize[0]!.entryId).toBe('u2');
    const ctx = buildSessionContext(path, 'a3');
    expect(contextTokensOf(path, tokensOf(path))).toBe(50 + sum(path, 3, path.length));
    expect(ctx.items.filter((i) => i.kind === 'message').map((i) => i.entryId)).toEqual(['u2', 'a2', 'u3', 'a3']);
  });

  it('only bookkeeping after the compaction (labels, pins, model changes) is nothing new to compact', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    b.compaction(x(50), 'u2', 400, 'cmp');
    b.modelChange('openai:gpt-4o');
    b.label('u2', 'here');
    const path: SessionEntry[] = [...b.entries, pin('u2', 'p1')];
    expect(previewCompaction(path, tokensOf(path), S(1), { force: true })).toMatchObject({ ok: false, reason: 'already-compacted' });
    // A branch summary after it is new.
    b.branchSummary(x(100), 'u2', 'bs');
    b.user(x(10), 'u3');
    expect(previewCompaction(b.entries, tokensOf(b.entries), S(1), { force: true }).ok).toBe(true);
  });

  it('forced with a single user message and nothing else: nothing to summarise', () => {
    const b = new TreeBuilder();
    b.modelChange('openai:gpt-4o');
    b.label('u1', 'start');
    b.user(x(100), 'u1');
    expect(previewCompaction(b.entries, tokensOf(b.entries), S(1), { force: true })).toMatchObject({ ok: false, reason: 'nothing-to-summarize' });
    // With a reply after it, the forced cut keeps the reply and summarises the request (the region starts after the bookkeeping).
    b.assistant(x(100), 'a1');
    const p = prepareCompaction(b.entries, tokensOf(b.entries), S(10_000), { force: true })!;
    expect(p.firstKeptEntryId).toBe('a1');
    expect(p.turnPrefixMessages.map((i) => i.entryId)).toEqual(['u1']);
    expect(p.force).toBe(true);
  });

  it('over the limit with a huge first request behind bookkeeping: the request is summarised on its own and the rest fits', () => {
    const b = new TreeBuilder();
    b.modelChange('openai:gpt-4o');
    b.user(x(5000), 'u1');
    b.assistant(x(2000), 'a1');
    b.user(x(50), 'u2');
    b.assistant(x(50), 'a2');
    const settings = S(20_000, { reserveTokens: 2000 });
    const p = prepareCompaction(b.entries, tokensOf(b.entries), settings, { window: 8000 })!;
    expect(p.firstKeptEntryId).toBe('a1');
    expect(p.isSplitTurn).toBe(true);
    expect(p.turnPrefixMessages.map((i) => i.entryId)).toEqual(['u1']);
    expect(p.messagesToSummarize).toEqual([]);
    expect(p.estimatedTokensAfter).toBeLessThanOrEqual(8000 - 2000);
  });

  it('counts that do not match the path are refused', () => {
    const b = new TreeBuilder();
    b.user(x(10), 'u1');
    expect(() => prepareCompaction(b.entries, pathTokensFromCounts([1, 2]), S(1))).toThrow('PathTokens has 2 counts for a path of 1 entries');
    expect(() => prepareRegeneration(b.entries, pathTokensFromCounts([]), S(1), { id: 'c', firstKeptEntryId: 'u1', tokensBefore: 1, details: {} })).toThrow('PathTokens has 0 counts for a path of 1 entries');
  });
});

describe('regenerating a compaction that kept nothing (pi writes its own id as the first kept entry)', () => {
  it('summarises the whole region before it, keeps nothing, and names itself as the first kept entry', () => {
    const messages = loadSession('piV1').path.filter((e) => e.type === 'message').slice(0, 30);
    const p = prepareRegeneration(messages, pathTokens(messages), DEFAULT_COMPACTION_SETTINGS, { id: 'c-self', firstKeptEntryId: 'c-self', tokensBefore: 12_345, details: {} })!;
    expect(p.firstKeptEntryId).toBe('c-self');
    expect(p.firstKeptIndex).toBe(messages.length);
    expect(p.tokensKept).toBe(0);
    expect(p.tokensBefore).toBe(12_345);
    expect(p.messagesToSummarize.map((i) => i.entryId)).toEqual(messages.map((e) => e.id));
    expect(prepareRegeneration([], pathTokensFromCounts([]), DEFAULT_COMPACTION_SETTINGS, { id: 'c', firstKeptEntryId: 'c', tokensBefore: 1, details: {} })).toBeNull();
  });

  it('a split turn is re-derived from the turn’s user message', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    b.toolCall('bash', { command: 'ls' }, 'c1', 'a2');
    b.toolResult('c1', 'bash', x(100), 't1');
    b.assistant(x(100), 'a3');
    const p = prepareRegeneration(b.entries, tokensOf(b.entries), S(100), { id: 'c', firstKeptEntryId: 'a3', tokensBefore: 1, details: { isSplitTurn: true } })!;
    expect(p.isSplitTurn).toBe(true);
    expect(p.turnStartIndex).toBe(2);
    expect(p.messagesToSummarize.map((i) => i.entryId)).toEqual(['u1', 'a1']);
    expect(p.turnPrefixMessages.map((i) => i.entryId)).toEqual(['u2', 'a2', 't1']);
  });
});

describe('cut rules the sweeps do not reach', () => {
  it('a tool result whose call is not on the path (a truncated log) does not stop the cut; it is kept', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.user(x(100), 'u3');
    b.toolResult('lost-call', 'bash', x(300), 'orphan');
    b.assistant(x(100), 'a3');
    const p = prepareCompaction(b.entries, tokensOf(b.entries), S(150))!;
    expect(p).not.toBeNull();
    expect(p.firstKeptEntryId).toBe('u3');
    expect(p.messagesToSummarize.map((i) => i.entryId)).toEqual(['u1', 'a1', 'u2', 'a2']);
  });

  it('a short turn prefix is kept whole only when the window still has room for it', () => {
    const b = new TreeBuilder();
    b.user(x(2000), 'u1');
    b.assistant(x(2000), 'a1');
    b.user(x(50), 'u2');
    b.assistant(x(1000), 'a2');
    b.assistant(x(1000), 'a3');
    // Without a window the 50-token prefix joins the kept part (see cutPoint.test.ts).
    expect(prepareCompaction(b.entries, tokensOf(b.entries), S(1800))!.firstKeptEntryId).toBe('u2');
    // Window 3820, reserve 1000: the kept part may hold 3820 − 1000 − 800 = 2020 tokens; a2 on is 2000, u2 on would be 2050.
    // (A manual compaction under the limit: the caller's context figure says so.)
    const p = prepareCompaction(b.entries, tokensOf(b.entries), S(1800, { reserveTokens: 1000 }), { window: 3820, contextTokens: 1000 })!;
    expect(p.firstKeptEntryId).toBe('a2');
    expect(p.isSplitTurn).toBe(true);
    expect(p.tokensKept).toBe(2000);
  });

  it('forced on a region that is one turn of tool work: keeps from the last assistant message, the rest is the turn prefix', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.toolCall('bash', { command: 'ls' }, 'c1', 'a1');
    b.toolResult('c1', 'bash', x(200), 't1');
    b.toolCall('bash', { command: 'pwd' }, 'c2', 'a2');
    b.toolResult('c2', 'bash', x(200), 't2');
    b.assistant(x(100), 'a3');
    const p = prepareCompaction(b.entries, tokensOf(b.entries), S(10_000), { force: true })!;
    expect(p.firstKeptEntryId).toBe('a3');
    expect(p.turnPrefixMessages.map((i) => i.entryId)).toEqual(['u1', 'a1', 't1', 'a2', 't2']);
    expect(p.tokensKept).toBe(100);
  });
});

describe('figures the caller passes in or reads back', () => {
  function fourTurns() {
    const b = new TreeBuilder();
    for (const t of [1, 2, 3, 4]) {
      b.user(x(1000), `u${t}`);
      b.assistant(x(1000), `a${t}`);
    }
    return b;
  }

  it('tokens every request carries count in the context before and after, and leave less room for the kept part', () => {
    const b = fourTurns();
    const plain = prepareCompaction(b.entries, tokensOf(b.entries), S(2000))!;
    const withRequest = prepareCompaction(b.entries, tokensOf(b.entries), S(2000), { requestTokens: 700 })!;
    expect(withRequest.tokensBefore).toBe(plain.tokensBefore + 700);
    expect(withRequest.estimatedTokensAfter).toBe(plain.estimatedTokensAfter + 700);
    // Window 12 000, reserve 2000: the kept part may hold 10 000 − 1600 = 8400 without the request, 8400 − 4000 with it.
    const settings = S(20_000, { reserveTokens: 2000 });
    expect(effectiveKeepRecent(settings, { window: 12_000 })).toBe(8400);
    expect(effectiveKeepRecent(settings, { window: 12_000, requestTokens: 4000 })).toBe(4400);
    const p = prepareCompaction(b.entries, tokensOf(b.entries), settings, { window: 12_000, requestTokens: 4000 })!;
    expect(p.tokensKept).toBeLessThanOrEqual(4400);
    expect(p.estimatedTokensAfter).toBeLessThanOrEqual(12_000 - 2000);
  });

  it('keep-recent is a whole, non-negative number of tokens; the summary budget never below 256', () => {
    expect(effectiveKeepRecent(S(1000), { keepRecentTokens: -50 })).toBe(0);
    expect(effectiveKeepRecent(S(1000), { keepRecentTokens: 99.7 })).toBe(99);
    expect(summaryOutputBudget({ reserveTokens: 100 })).toBe(256);
    expect(summaryOutputBudget({ reserveTokens: 16_384 })).toBe(13_107);
  });

  it('file lists of the previous summary and of branch summaries in the span are carried', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    const cmp = b.compaction(x(50), 'a1', 400, 'cmp');
    cmp.details = { readFiles: ['/old/read.ts'], modifiedFiles: ['/old/mod.ts'], summarizer: { kind: 'extractive' } };
    const bs = b.branchSummary(x(100), 'a1', 'bs');
    bs.details = { readFiles: ['/branch/read.ts'], modifiedFiles: [], summarizer: { kind: 'extractive' } };
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.user(x(100), 'u3');
    b.assistant(x(100), 'a3');
    const p = prepareCompaction(b.entries, tokensOf(b.entries), S(150))!;
    expect(p.messagesToSummarize.map((i) => i.entryId)).toEqual(['a1', 'bs', 'u2', 'a2']);
    expect(p.fileOps).toEqual({ readFiles: ['/branch/read.ts', '/old/read.ts'], modifiedFiles: ['/old/mod.ts'] });
    // The preview counts what the kept part and the summary in effect hold.
    const pv = previewCompaction(b.entries, tokensOf(b.entries), S(150));
    expect(pv).toMatchObject({ ok: true, summarize: { firstEntryId: 'a1' }, keep: { firstEntryId: 'u3' }, previousSummary: { entryId: 'cmp', tokens: 50 }, readFiles: 2, modifiedFiles: 1 });
  });
});
