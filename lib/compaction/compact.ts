import { newId } from '@/lib/session/ids';
import type { CompactionEntry, EntryId } from '@/lib/session/types';
import { extractiveBudgetChars, extractiveSummary } from './extractive';
import { notifyAfterHooks, hookList, produceSummary, producedDetails, type SummaryEngine, type SummaryRunOptions } from './produce';
import type { CompactionHooks, CompactionPreparation, CompactionResult } from './types';

export type CompactOptions = SummaryRunOptions<CompactionHooks>;

/** The extractive summary is one text with its own user-messages section: it gets the whole output budget, previous summary included. */
function extractiveBudgetTokens(prep: CompactionPreparation): number {
  const b = prep.summaryBudget;
  return b.carried + b.history + b.turnPrefix + b.userMessages;
}

/**
 * Produces a compaction summary. Resolves with the result to append, or null
 * when a hook cancelled. Rejects with an AbortError when `signal` fires (even
 * after the model finished, as long as this has not resolved): the caller
 * appends the compaction entry only on a resolved result, so an aborted or
 * failed summary changes nothing.
 */
export async function compact(prep: CompactionPreparation, engine: SummaryEngine, opts: CompactOptions = {}): Promise<CompactionResult | null> {
  // The summary replaces the summarised messages and the previous summary.
  const spanTokens = prep.tokensSummarized + prep.tokensTurnPrefix + prep.previousSummaryTokens;
  const produced = await produceSummary<CompactionHooks>({
    engine,
    fileOps: prep.fileOps,
    span: { tokens: spanTokens, userMessages: prep.userMessages },
    extractive: (options) =>
      extractiveSummary(
        { kind: 'compaction', items: prep.messagesToSummarize, turnPrefix: prep.turnPrefixMessages, previousSummary: prep.previousSummary, fileOps: prep.fileOps },
        // Same size bound as a model summary (its share of the compaction's budget), and never more than the span.
        { maxChars: extractiveBudgetChars(extractiveBudgetTokens(prep), spanTokens), spanTokens, ...options },
      ),
    ask: (h, ctx) => (h.beforeCompact ? () => h.beforeCompact!(prep, ctx) : undefined),
    opts: { ...(prep.settings.selfCheck ? { selfCheck: true } : {}), ...opts },
  });
  if (!produced) return null;
  const result: CompactionResult = {
    summary: produced.summary,
    firstKeptEntryId: prep.firstKeptEntryId,
    ...(prep.keepsNothing ? { keepsNothing: true as const } : {}),
    tokensBefore: prep.tokensBefore,
    // The summary's real size is counted by the worker once the entry exists; chars/4 is a fair interim figure.
    estimatedTokensAfter: prep.tokensKept + Math.ceil(produced.summary.length / 4),
    details: {
      ...producedDetails(produced),
      ...(prep.isSplitTurn ? { isSplitTurn: true } : {}),
      ...(prep.firstSummarizedEntryId ? { firstSummarizedEntryId: prep.firstSummarizedEntryId } : {}),
      summarizedEntryCount: prep.summarizedEntryCount,
    },
    leafId: prep.leafId,
    ...(produced.warnings ? { warnings: produced.warnings } : {}),
  };
  await notifyAfterHooks(hookList(opts.hooks), (h) => h.afterCompact?.(result), opts.onHookError);
  return result;
}

/**
 * The entry to append for a compaction result (the store adds parentId =
 * leaf and timestamp, and the id unless given). One that keeps nothing names
 * itself as its first kept entry, as buildSessionContext reads it, so its id
 * is chosen here (`newEntryId`).
 */
export function compactionEntryFrom(result: CompactionResult, newEntryId: () => EntryId = newId): Omit<CompactionEntry, 'id' | 'parentId' | 'timestamp'> & { id?: EntryId } {
  const own = result.keepsNothing ? newEntryId() : undefined;
  return {
    ...(own !== undefined ? { id: own } : {}),
    type: 'compaction',
    summary: result.summary,
    firstKeptEntryId: own ?? result.firstKeptEntryId,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.estimatedTokensAfter,
    details: result.details,
  };
}
