import { describe, expect, it } from 'vitest';
import { resolveSummaries } from '@/lib/session/revisions';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionEntry, type SessionEntry } from '@/lib/session/types';
import { TreeBuilder, textLengthTokens } from '@/lib/testing/builder';
import { loadSession, pathTokens } from '@/lib/testing/compactionData';
import type { FixtureName } from '@/lib/testing/fixtures';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { compact, compactionEntryFrom } from './compact';
import { countsInKeptContext, isValidCutPoint } from './cutPoint';
import { compactionLimit, shouldCompact } from './policy';
import { contextTokensOf, prepareCompaction, previewCompaction } from './prepare';
import { MIN_SUMMARY_TOKENS } from './summaryBudget';
import type { CompactionPreparation } from './types';

/**
 * Issue 17, item 1: whenever the context is over window − reserve, a
 * compaction either brings it under (keeping less than keep-recent if it must,
 * summarising a large entry at the region start itself) or says why it
 * cannot. Never silently nothing.
 */

const settings = DEFAULT_COMPACTION_SETTINGS;
const x = (n: number) => 'x'.repeat(n);

const len = textLengthTokens;

/** Tool results from `from` on whose call lies before `from`: what a bad cut would orphan. */
function orphans(path: readonly SessionEntry[], from: number): string[] {
  const before = new Set<string>();
  const after = new Set<string>();
  path.forEach((e, i) => {
    if (e.type === 'message' && e.message.role === 'assistant') for (const p of e.message.content) if (p.type === 'toolCall') (i < from ? before : after).add(p.id);
  });
  return path
    .slice(from)
    .filter((e) => e.type === 'message' && e.message.role === 'toolResult' && before.has(e.message.toolCallId) && !after.has(e.message.toolCallId))
    .map((e) => e.id);
}

function summarisedIds(p: CompactionPreparation): string[] {
  return [...p.messagesToSummarize, ...p.turnPrefixMessages].map((i) => i.entryId);
}

function expectUnderLimit(path: readonly SessionEntry[], counts: number[], window: number) {
  const tokens = pathTokensFromCounts(counts);
  const before = contextTokensOf(path, tokens);
  const limit = compactionLimit(window, settings);
  expect(shouldCompact({ contextTokens: before, window, settings })).toBe(true);
  const p = prepareCompaction(path, tokens, settings, { window });
  expect(p).not.toBeNull();
  expect(p!.estimatedTokensAfter).toBeLessThanOrEqual(limit);
  expect(isValidCutPoint(path[p!.firstKeptIndex])).toBe(true);
  expect(orphans(path, p!.firstKeptIndex)).toEqual([]);
  return { p: p!, before, limit };
}

describe('over the limit with a large entry at the region start', () => {
  it('issue reproduction at a 64k window: the 37,000-token message the last compaction kept is summarised itself', () => {
    const b = new TreeBuilder();
    for (let i = 0; i < 5; i++) {
      b.user(x(200));
      b.assistant(x(200));
    }
    b.user(x(37_000), 'big');
    b.assistant(x(300), 'after-big');
    b.compaction(x(2000), 'big');
    for (let i = 0; i < 7; i++) {
      b.user(x(300));
      b.assistant(x(1500));
    }
    const path = b.entries;
    const { p, before } = expectUnderLimit(path, path.map(len), 65_536);
    expect(before).toBe(51_900);
    expect(summarisedIds(p)).toContain('big');
    // Everything after the big message stays verbatim: less than keep-recent, but the most that fits.
    expect(p.firstKeptEntryId).toBe('after-big');
    expect(p.tokensKept).toBe(300 + 7 * 1800);
    expect(p.previousSummary).toBe(x(2000));
  });

  it('issue reproduction at a 32k window: [user 20,000, assistant 100, user 50, assistant 100]', () => {
    const b = new TreeBuilder();
    b.user(x(20_000), 'big');
    b.assistant(x(100));
    b.user(x(50));
    b.assistant(x(100));
    const path = b.entries;
    const { p } = expectUnderLimit(path, path.map(len), 32_768);
    expect(summarisedIds(p)).toContain('big');
    expect(p.tokensKept).toBeLessThanOrEqual(250);
  });

  it('a huge tool result at the region start is summarised with its call, never orphaned', () => {
    const b = new TreeBuilder();
    b.user(x(100), 'u1');
    b.toolCall('read', { path: '/big.log' }, 'c1', 'call');
    b.toolResult('c1', 'read', x(30_000), 'result');
    b.compaction(x(500), 'call');
    b.assistant(x(100), 'a2');
    b.user(x(50), 'u2');
    b.assistant(x(100), 'a3');
    const path = b.entries;
    const { p } = expectUnderLimit(path, path.map(len), 32_768);
    expect(summarisedIds(p)).toEqual(['call', 'result']);
    expect(p.firstKeptEntryId).toBe('a2');
  });

  it('when even the newest message cannot fit, the preview names the reason instead of nothing', () => {
    const b = new TreeBuilder();
    b.user(x(100));
    b.assistant(x(100));
    b.user(x(30_000));
    const path = b.entries;
    const tokens = pathTokensFromCounts(path.map(len));
    expect(shouldCompact({ contextTokens: contextTokensOf(path, tokens), window: 32_768, settings })).toBe(true);
    expect(prepareCompaction(path, tokens, settings, { window: 32_768 })).toBeNull();
    expect(previewCompaction(path, tokens, settings, { window: 32_768 })).toMatchObject({ ok: false, reason: 'recent-too-large' });
  });
});

/**
 * Independent check of a 'recent-too-large': is there any cut after the kept
 * start of the compaction in effect, on a user or assistant message, orphaning
 * no tool result, with a message before it, whose kept tail leaves room for a
 * minimal summary under the limit?
 */
function fitsWithSomeCut(path: readonly SessionEntry[], counts: ArrayLike<number>, limit: number): boolean {
  // The replay's array is the path (its compactions are not linked into the fixture's tree).
  const summaries = resolveSummaries(path);
  const last = path.findLastIndex((e) => e.type === 'compaction');
  const keptFrom = last < 0 ? 0 : path.findIndex((e) => e.id === (path[last] as CompactionEntry).firstKeptEntryId);
  for (let c = keptFrom + 1; c < path.length; c++) {
    if (!isValidCutPoint(path[c]) || orphans(path, c).length) continue;
    if (!path.slice(keptFrom, c).some((e) => e.type === 'message')) continue;
    let kept = 0;
    for (let i = c; i < path.length; i++) if (countsInKeptContext(path[i]!, summaries)) kept += counts[i]!;
    if (kept + MIN_SUMMARY_TOKENS <= limit) return true;
  }
  return false;
}

/**
 * Replays a real session message by message at a 32k window, compacting
 * (extractive summary, appended like the app does) whenever shouldCompact
 * says so. Every such moment must end in a compaction under the limit whose
 * real size after is within its estimate, or in a stated reason.
 */
async function replay(path: readonly SessionEntry[], window: number) {
  const limit = compactionLimit(window, settings);
  const working: SessionEntry[] = [];
  const out = { triggers: 0, compactions: 0, reasons: [] as string[], refusals: [] as string[], overLimit: [] as string[], overEstimate: [] as string[] };
  for (const e of path) {
    // The fixture's own compactions and revisions point into its history; the replay makes its own.
    if (e.type !== 'message') continue;
    working.push(e);
    const tokens = pathTokens(working);
    const before = contextTokensOf(working, tokens);
    if (!shouldCompact({ contextTokens: before, window, settings })) continue;
    out.triggers++;
    const p = prepareCompaction(working, tokens, settings, { window });
    if (!p) {
      const pv = previewCompaction(working, tokens, settings, { window });
      const reason = pv.ok ? 'none' : pv.reason;
      // "Cannot" is allowed only with a reason that is about the tail kept, never "nothing to do".
      if (reason === 'recent-too-large' && !fitsWithSomeCut(working, tokens.counts, limit)) out.reasons.push(`${e.id}:${reason}`);
      else out.refusals.push(`${e.id}:${reason}`);
      continue;
    }
    if (p.estimatedTokensAfter > limit) out.overLimit.push(`${e.id}:${p.estimatedTokensAfter}`);
    const result = (await compact(p, { kind: 'extractive' }))!;
    const entry = { ...compactionEntryFrom(result), id: `replay-c${out.compactions}`, parentId: e.id, timestamp: e.timestamp } as CompactionEntry;
    working.push(entry);
    const after = contextTokensOf(working, pathTokens(working));
    expect(after).toBeLessThan(before);
    if (after > p.estimatedTokensAfter) out.overEstimate.push(`${e.id}:${after}>${p.estimatedTokensAfter}`);
    out.compactions++;
  }
  return out;
}

describe('replaying real sessions at a 32k window', () => {
  it.each(['piV1', 'codexRollout'] as FixtureName[])('%s: every time compaction is due it brings the context under the limit or says why', async (name) => {
    const { path } = loadSession(name);
    const r = await replay(path, 32_768);
    expect(r.triggers).toBeGreaterThan(0);
    expect(r.refusals).toEqual([]);
    expect(r.overLimit).toEqual([]);
    expect(r.overEstimate).toEqual([]);
    expect(r.compactions).toBeGreaterThan(0);
    // Stated reasons ("the newest messages alone leave no room for a summary") are counted; each was checked above.
    expect(r.reasons.length).toBeLessThanOrEqual(r.triggers - r.compactions);
  });
});
