import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { compactionLimit, compactionVerdict, shouldCompact, wouldOverflow } from './policy';
import { noCompactionMessage } from './reasons';

/** The limits at their edges: tiny windows, ratios out of range, unknown windows. */

const s = DEFAULT_COMPACTION_SETTINGS;

describe('limits at the edges', () => {
  it('a reserve as large as the window: half the window is the limit, for compaction and for sending alike', () => {
    const window = 16_384; // = the default reserve
    expect(compactionLimit(window, s)).toBe(8192);
    expect(wouldOverflow({ contextTokens: 8000, newMessageTokens: 192, window, settings: s })).toBe(false);
    expect(wouldOverflow({ contextTokens: 8000, newMessageTokens: 193, window, settings: s })).toBe(true);
    // Just above the reserve the ordinary rule applies (one token of room).
    expect(wouldOverflow({ contextTokens: 1, newMessageTokens: 0, window: 16_385, settings: s })).toBe(false);
    expect(wouldOverflow({ contextTokens: 1, newMessageTokens: 1, window: 16_385, settings: s })).toBe(true);
  });

  it('no window or a non-positive one: never compact, never "would overflow"', () => {
    for (const window of [0, -1, Number.NaN]) {
      expect(shouldCompact({ contextTokens: 1e9, window, settings: s })).toBe(false);
      expect(wouldOverflow({ contextTokens: 1e9, newMessageTokens: 1, window, settings: s })).toBe(false);
    }
  });

  it('a fill ratio counts only between 0 and 1 (inclusive of 1)', () => {
    expect(compactionLimit(100_000, { ...s, thresholdPercent: 1 })).toBe(100_000 - 16_384);
    expect(compactionLimit(100_000, { ...s, reserveTokens: 0, thresholdPercent: 1 })).toBe(100_000);
    expect(compactionLimit(100_000, { ...s, thresholdPercent: 0 })).toBe(100_000 - 16_384);
    expect(compactionLimit(100_000, { ...s, thresholdPercent: 1.5 })).toBe(100_000 - 16_384);
    expect(compactionLimit(100_000, { ...s, thresholdPercent: -0.5 })).toBe(100_000 - 16_384);
    expect(compactionLimit(100_000, { ...s, thresholdPercent: 0.5 })).toBe(50_000);
  });

  it('a verdict without a known window never blames the window', () => {
    expect(compactionVerdict({ tokensBefore: 1000, tokensKept: 5000, summaryTokens: 10 })).toEqual({ append: false, tokensAfter: 5010, why: 'summary-not-smaller' });
    expect(compactionVerdict({ tokensBefore: 1000, tokensKept: 5000, summaryTokens: 10, window: 0 })).toMatchObject({ why: 'summary-not-smaller' });
    // A kept tail exactly the window's size can never fit next to a summary.
    expect(compactionVerdict({ tokensBefore: 9000, tokensKept: 8192, summaryTokens: 900, window: 8192 })).toMatchObject({ why: 'kept-exceeds-window' });
    expect(compactionVerdict({ tokensBefore: 9000, tokensKept: 8191, summaryTokens: 900, window: 8192 })).toMatchObject({ why: 'summary-not-smaller' });
  });

  it('over the limit without a known limit, the message still says what to do', () => {
    const text = noCompactionMessage({ reason: 'recent-too-large', tokensBefore: 50_000, keepRecentTokens: 20_000 });
    expect(text.startsWith('The context is over the compaction limit, and compacting cannot bring it under')).toBe(true);
    expect(text).not.toContain('50,000');
    expect(noCompactionMessage({ reason: 'below-keep-recent', tokensBefore: 1, keepRecentTokens: 20_000 })).toContain('the 20,000 tokens kept word for word');
  });

  it('each reason has its own message', () => {
    const say = (reason: Parameters<typeof noCompactionMessage>[0]['reason']) => noCompactionMessage({ reason, tokensBefore: 20_000, keepRecentTokens: 3000, limit: 16_384 });
    expect(say('empty')).toBe('Nothing to compact: this session has no messages yet.');
    expect(say('already-compacted')).toMatch(/^Nothing new to compact: the latest entry is already a compaction\./);
    expect(say('below-keep-recent')).toMatch(/^Nothing to compact yet: everything since the last compaction fits in the 3,000 tokens kept word for word\./);
    expect(say('nothing-to-summarize')).toMatch(/^Nothing to compact: there is no complete message before the recent part/);
    expect(say('recent-too-large')).toMatch(/^The context \(20,000 tokens\) is over the compaction limit \(16,384\), and compacting cannot bring it under/);
  });
});
