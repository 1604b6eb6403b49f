import { formatCount } from '@/lib/format/numbers';
import type { EffectiveSummary, SummaryEntry } from '@/lib/session/revisions';

export interface CardTokens {
  /** Context (compaction) or branch (branch summary) tokens before. */
  before: number | null;
  /** The context right after the compaction with the summary as it is now, or the summary's own tokens (branch summary). */
  after: number | null;
  /** "36,182 → 2,410 tokens", or why a figure is missing. */
  text: string;
}

/**
 * The token figures of a summary card. A compaction records the context
 * before and after it (the meter's figures then); when its summary was
 * regenerated or edited, the "after" follows the summary now in effect: the
 * kept part did not change, the summary's tokens did.
 */
export function summaryCardTokens(entry: SummaryEntry, effective: EffectiveSummary, summarizedEntries: number): CardTokens {
  if (entry.type === 'compaction') {
    const before = entry.tokensBefore;
    if (entry.tokensAfter === undefined) return { before, after: null, text: `${formatCount(before)} → not recorded` };
    const original = entry.details.summaryTokens;
    const now = effective.details.summaryTokens;
    if (effective.summary === entry.summary) return { before, after: entry.tokensAfter, text: `${formatCount(before)} → ${formatCount(entry.tokensAfter)} tokens` };
    if (original !== undefined && now !== undefined) {
      const after = entry.tokensAfter - original + now;
      return { before, after, text: `${formatCount(before)} → ${formatCount(after)} tokens` };
    }
    // Revised before summaries recorded their size: the figure is the original summary's.
    return { before, after: entry.tokensAfter, text: `${formatCount(before)} → ${formatCount(entry.tokensAfter)} tokens (with the original summary)` };
  }
  const before = effective.details.tokensSummarized ?? null;
  const after = effective.details.summaryTokens ?? null;
  if (before !== null && after !== null) return { before, after, text: `${formatCount(before)} → ${formatCount(after)} tokens` };
  return { before, after, text: `${summarizedEntries} entries summarised` };
}
