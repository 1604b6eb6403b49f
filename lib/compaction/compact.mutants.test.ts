import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { TreeBuilder, textLengthTokens } from '@/lib/testing/builder';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { compact } from './compact';
import { stripFileFooter } from './fileOps';
import { prepareCompaction } from './prepare';

/** What compact() adds to the summary: its size bound (the span includes the previous summary), the interim size after, the first summarised entry. */

/** A token per ten characters: the extractive bound (2 characters per span token) is then what limits the summary. */
const tokensOf = (path: readonly SessionEntry[]) => pathTokensFromCounts(path.map((e) => Math.ceil(textLengthTokens(e) / 10)));

describe('compact with the extractive summary', () => {
  it('the summary stays within twice the span, the previous summary counted in the span; the result states the first summarised entry and the size after', async () => {
    const b = new TreeBuilder();
    b.user('first request', 'u0');
    b.assistant('first reply', 'a0');
    b.compaction(`Earlier work. ${'y'.repeat(1990)}`, 'u0', 500, 'cmp');
    for (let i = 1; i <= 10; i++) {
      b.user(`request ${i} ${'r'.repeat(40)}`, `u${i}`);
      b.assistant(`reply ${i} ${'s'.repeat(40)}`, `a${i}`);
    }
    const path = b.entries;
    const prep = prepareCompaction(path, tokensOf(path), { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 10 })!;
    const span = prep.tokensSummarized + prep.tokensTurnPrefix + prep.previousSummaryTokens;
    expect(prep.previousSummaryTokens).toBeGreaterThan(prep.tokensSummarized);
    const result = (await compact(prep, { kind: 'extractive' }))!;
    expect(stripFileFooter(result.summary).length).toBeLessThanOrEqual(Math.max(1200, 2 * span));
    expect(result.details.firstSummarizedEntryId).toBe('u0');
    expect(result.estimatedTokensAfter).toBe(prep.tokensKept + Math.ceil(result.summary.length / 4));
  });
});
