import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings, type CustomEntry, type PinEntry, type SessionEntry, type ToolMaskEntry } from '@/lib/session/types';
import { TreeBuilder, textLengthTokens } from '@/lib/testing/builder';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { contextTokensOf, cutRule, keptRoom, prepareCompaction, prepareRegeneration, previewCompaction, tryPrepareCompaction } from './prepare';
import { MIN_SUMMARY_TOKENS } from './summaryBudget';

/** Preparation rules no other test states: window edge cases, refusals with their figures, where a region starts, the preview's counts. */

const S = (keepRecentTokens: number, extra: Partial<CompactionSettings> = {}): CompactionSettings => ({ ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens, ...extra });
const x = (n: number) => 'x'.repeat(n);
const tokensOf = (path: readonly SessionEntry[]) => pathTokensFromCounts(path.map(textLengthTokens));
const pin = (targetId: string, id: string): PinEntry => ({ type: 'pin', targetId, pinned: true, id, parentId: null, timestamp: 0 });
const ids = (items: readonly { entryId: string }[]) => items.map((i) => i.entryId);

/** u1 a1 u2 a2 u3 a3, 100 tokens each. */
function sixMessages(b = new TreeBuilder()): TreeBuilder {
  for (let i = 1; i <= 3; i++) {
    b.user(x(100), `u${i}`);
    b.assistant(x(100), `a${i}`);
  }
  return b;
}

describe('the window: absent, zero or negative means unknown', () => {
  it('keptRoom and the cut rule ignore a window that is not positive', () => {
    const s = S(5000, { reserveTokens: 1000 });
    for (const window of [undefined, 0, -100, Number.NaN]) {
      expect(keptRoom(s, window), String(window)).toBeUndefined();
      expect(cutRule(s, window === undefined ? {} : { window }, 1_000_000), String(window)).toEqual({ keepRecentTokens: 5000, smallPrefixTokens: 500, mustFit: false });
    }
  });

  it('a zero window prepares exactly as no window', () => {
    const path = sixMessages().entries;
    expect(prepareCompaction(path, tokensOf(path), S(200), { window: 0 })).toEqual(prepareCompaction(path, tokensOf(path), S(200)));
  });

  it('with a window: the last-resort kept tail leaves the minimum summary under the limit, less the request; over the limit means above it', () => {
    const s = S(5000, { reserveTokens: 1000 });
    const limit = 10_000 - 1000;
    const rule = cutRule(s, { window: 10_000, requestTokens: 300 }, limit);
    expect(rule.lastResortKeptTokens).toBe(limit - 300 - MIN_SUMMARY_TOKENS);
    expect(rule.maxKeptTokens).toBe(limit - 300 - Math.floor(1000 * 0.8));
    expect(rule.mustFit).toBe(false);
    expect(cutRule(s, { window: 10_000 }, limit + 1).mustFit).toBe(true);
  });
});

describe('refusals and their figures', () => {
  it('a path without messages is empty, whatever else it holds', () => {
    const s = S(200);
    expect(tryPrepareCompaction([], pathTokensFromCounts([]), s)).toEqual({ ok: false, reason: 'empty', tokensBefore: 0, keepRecentTokens: 200 });
    const b = new TreeBuilder();
    b.modelChange('openai:gpt-4o');
    b.branchSummary(x(100), 'gone', 'bs');
    expect(tryPrepareCompaction(b.entries, tokensOf(b.entries), s, { force: true })).toMatchObject({ ok: false, reason: 'empty' });
  });

  it('the request tokens count towards the limit: a context under it alone but over it with the request is too large, and the refusal says so with the whole figure', () => {
    const b = new TreeBuilder();
    b.user(x(2500), 'u1');
    const s = S(20_000, { reserveTokens: 1000 });
    const window = 4000;
    expect(tryPrepareCompaction(b.entries, tokensOf(b.entries), s, { window })).toMatchObject({ ok: false, reason: 'nothing-to-summarize', tokensBefore: 2500 });
    expect(tryPrepareCompaction(b.entries, tokensOf(b.entries), s, { window, requestTokens: 600 })).toMatchObject({ ok: false, reason: 'recent-too-large', tokensBefore: 3100 });
  });

  it('over the limit, a preparation whose pinned messages leave no room for the summary is refused as too large; forced it goes ahead', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.toolCall('read', { path: '/big.md' }, 'c1', 'a1');
    b.toolResult('c1', 'read', x(2500), 't1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.user(x(100), 'u3');
    b.assistant(x(100), 'a3');
    const path: SessionEntry[] = [...b.entries, pin('a1', 'p1')];
    const s = S(200, { reserveTokens: 1000 });
    const window = 4000;
    // 3 010 tokens against a limit of 3 000.
    expect(contextTokensOf(path, tokensOf(path))).toBe(3010);
    expect(tryPrepareCompaction(path, tokensOf(path), s, { window })).toEqual({ ok: false, reason: 'recent-too-large', tokensBefore: 3010, keepRecentTokens: 200 });
    const forced = tryPrepareCompaction(path, tokensOf(path), s, { window, force: true });
    expect(forced.ok).toBe(true);
    if (forced.ok) expect(forced.prep.estimatedTokensAfter).toBeGreaterThan(3000);
  });

  it('only bookkeeping after the compaction in effect (custom records, summary edits, masks) is nothing new to compact', () => {
    const extra: ((b: TreeBuilder) => void)[] = [
      (b) => b.entries.push({ type: 'custom', customType: 'note', id: 'cu', parentId: b.cursor, timestamp: 0 } satisfies CustomEntry),
      (b) => b.revision('cmp', 'edit', 'edited summary'),
      (b) => b.entries.push({ type: 'tool_mask', maskedIds: [], tokensBefore: 10, tokensAfter: 5, protectTokens: 0, id: 'tm', parentId: b.cursor, timestamp: 0 } satisfies ToolMaskEntry),
    ];
    for (const [i, add] of extra.entries()) {
      const b = sixMessages();
      b.compaction(x(50), 'u3', 600, 'cmp');
      add(b);
      expect(tryPrepareCompaction(b.entries, tokensOf(b.entries), S(1), { force: true }), `case ${i}`).toMatchObject({ ok: false, reason: 'already-compacted' });
    }
  });
});

describe('where the region to summarise starts', () => {
  it('a compaction at the very start of the path: its summary is the previous one and the region starts after it', () => {
    const b = new TreeBuilder();
    b.compaction(x(50), 'gone', 400, 'cmp');
    sixMessages(b);
    const path = b.entries;
    expect(contextTokensOf(path, tokensOf(path))).toBe(50 + 600);
    const p = prepareCompaction(path, tokensOf(path), S(200))!;
    expect(p.summarizeFromIndex).toBe(1);
    expect(p.previousSummary).toBe(x(50));
    expect(p.previousCompactionId).toBe('cmp');
    expect(p.previousSummaryTokens).toBe(50);
    expect(ids(p.messagesToSummarize)).toEqual(['u1', 'a1', 'u2', 'a2']);
  });

  it('a compaction that kept everything from the first entry: the region starts at the first entry', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u0');
    b.assistant(x(100), 'a0');
    b.compaction(x(50), 'u0', 400, 'cmp');
    sixMessages(b);
    const p = prepareCompaction(b.entries, tokensOf(b.entries), S(200))!;
    expect(p.summarizeFromIndex).toBe(0);
    expect(ids(p.messagesToSummarize)).toEqual(['u0', 'a0', 'u1', 'a1', 'u2', 'a2']);
  });

  it('a kept pointer after the compaction (damaged) starts the region right after the compaction; pi\'s keep-nothing pointer (its own id) at the compaction', () => {
    const damaged = new TreeBuilder();
    damaged.user(x(100), 'u0');
    damaged.compaction(x(50), 'u3', 400, 'cmp');
    sixMessages(damaged);
    const p = prepareCompaction(damaged.entries, tokensOf(damaged.entries), S(200))!;
    expect(p.summarizeFromIndex).toBe(2);
    expect(ids(p.messagesToSummarize)).toEqual(['u1', 'a1', 'u2', 'a2']);
    const own = new TreeBuilder();
    own.user(x(100), 'u0');
    own.compaction(x(50), 'cmp', 400, 'cmp');
    sixMessages(own);
    expect(prepareCompaction(own.entries, tokensOf(own.entries), S(200))!.summarizeFromIndex).toBe(1);
  });

  it('an undone branch summary in the region is not summarised; a live one is', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.branchSummary('tried another parser', 'u1', 'bs');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.user(x(100), 'u3');
    b.assistant(x(100), 'a3');
    expect(ids(prepareCompaction(b.entries, tokensOf(b.entries), S(200))!.messagesToSummarize)).toEqual(['u1', 'a1', 'bs', 'u2', 'a2']);
    b.revision('bs', 'undo');
    b.user(x(10), 'u4');
    expect(ids(prepareCompaction(b.entries, tokensOf(b.entries), S(210))!.messagesToSummarize)).toEqual(['u1', 'a1', 'u2', 'a2']);
  });
});

describe('what a preparation carries', () => {
  it('files touched in a split turn\'s prefix are in the lists; the first summarised entry and force are stated', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    b.toolCall('edit', { path: '/src/p.ts' }, 'c2', 'a2');
    b.toolResult('c2', 'edit', x(50), 't2');
    b.assistant(x(300), 'a3');
    const p = prepareCompaction(b.entries, tokensOf(b.entries), S(300))!;
    expect(p.isSplitTurn).toBe(true);
    expect(ids(p.turnPrefixMessages)).toEqual(['u2', 'a2', 't2']);
    expect(p.fileOps.modifiedFiles).toEqual(['/src/p.ts']);
    expect(p.firstSummarizedEntryId).toBe('u1');
    expect(p.force).toBe(false);
  });

  it('the fixed text around a summary is counted by the given tokenizer', () => {
    const path = sixMessages().entries;
    const fixed = (countText: (t: string) => number) => prepareCompaction(path, tokensOf(path), S(200), { countText })!.summaryBudget.fixed;
    expect(fixed(() => 1000) - fixed(() => 0)).toBe(1000);
  });

  it('with the window known, the context after stays under the limit: the summary gets what the request, the kept tail and the pinned messages leave', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u0');
    b.toolCall('read', { path: '/spec.md' }, 'c0', 'a0');
    b.toolResult('c0', 'read', x(300), 't0');
    b.user(x(2000), 'u1');
    b.assistant(x(2000), 'a1');
    b.user(x(500), 'u2');
    b.assistant(x(400), 'a2');
    const s = S(1000, { reserveTokens: 5000 });
    const window = 10_000;
    const limit = window - 5000;
    for (const path of [b.entries, [...b.entries, pin('a0', 'p0')]]) {
      for (const requestTokens of [0, 500]) {
        const p = prepareCompaction(path, tokensOf(path), s, { window, requestTokens })!;
        expect(p.tokensKept).toBe(900);
        expect(p.estimatedTokensAfter, `request ${requestTokens}, ${path.length} entries`).toBeLessThanOrEqual(limit);
        expect(p.estimatedTokensAfter).toBeGreaterThan(limit * 0.98);
      }
    }
  });
});

describe('regenerating a compaction', () => {
  it('one that kept the whole path is regenerated, with nothing to summarise', () => {
    const path = sixMessages().entries;
    const p = prepareRegeneration(path, tokensOf(path), S(200), { id: 'cmp', firstKeptEntryId: 'u1', tokensBefore: 600, details: {} })!;
    expect(p).not.toBeNull();
    expect(p.firstKeptIndex).toBe(0);
    expect(p.messagesToSummarize).toEqual([]);
    expect(p.tokensKept).toBe(600);
  });

  it('a split turn opened by the first entry of the path, with bookkeeping inside the turn', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.label('u1', 'start');
    b.assistant(x(100), 'a2');
    const p = prepareRegeneration(b.entries, tokensOf(b.entries), S(200), { id: 'cmp', firstKeptEntryId: 'a2', tokensBefore: 300, details: { isSplitTurn: true } })!;
    expect(p.isSplitTurn).toBe(true);
    expect(p.turnStartIndex).toBe(0);
    expect(ids(p.turnPrefixMessages)).toEqual(['u1', 'a1']);
    expect(p.messagesToSummarize).toEqual([]);
  });
});

describe('the preview', () => {
  it('counts entries and the messages that reach the model in each range', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.assistant(x(100), 'a1');
    b.user(x(100), 'u2');
    b.assistant(x(100), 'a2');
    b.user(x(100), 'u3');
    b.label('u3', 'here');
    b.assistant([], 'dead', { stopReason: 'error' });
    b.assistant(x(100), 'a3');
    const pv = previewCompaction(b.entries, tokensOf(b.entries), S(200));
    expect(pv).toMatchObject({
      ok: true,
      summarize: { fromIndex: 0, toIndex: 4, firstEntryId: 'u1', entryCount: 4, messageCount: 4, tokens: 400 },
      turnPrefix: null,
      keep: { fromIndex: 4, toIndex: 8, firstEntryId: 'u3', entryCount: 4, messageCount: 2, tokens: 200 },
    });
  });
});
