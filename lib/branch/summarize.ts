import { planSequence } from '@/lib/compaction/chunking';
import { extractiveBudgetChars, extractiveSummary } from '@/lib/compaction/extractive';
import { summaryOutputBudget } from '@/lib/compaction/prepare';
import { renderUserMessages, userMessagesBudgetChars, userMessagesOf } from '@/lib/compaction/userMessages';
import { fileFooter } from '@/lib/compaction/fileOps';
import { planLimits, type PlanOptions } from '@/lib/compaction/plan';
import { SCRATCHPAD_MIN_OUTPUT, SUMMARIZER_SYSTEM, branchInstructions, continuationInstructions } from '@/lib/compaction/prompts';
import { hookList, notifyAfterHooks, produceSummary, producedDetails, type SummaryEngine, type SummaryRunOptions } from '@/lib/compaction/produce';
import type { BeforeSummaryDecision, MaybePromise, SummaryPlan } from '@/lib/compaction/types';
import { DEFAULT_COMPACTION_SETTINGS, type EntryId, type NewEntry, type SummaryDetails } from '@/lib/session/types';
import type { BranchSummaryPreparation } from './prepare';

const BRANCH_CHAIN_NOTE =
  'The <previous-summary> summarises the earlier part of this same branch; the transcript continues it. Merge both into one branch summary.\n\n';
const CONTINUATION_CHAIN_NOTE =
  'The <previous-summary> summarises the earlier part of this same conversation; the transcript continues it. Merge both into one summary.\n\n';

/**
 * What a path is summarised for: a branch the user left (appended where they
 * went), or the conversation up to a message that a new session continues
 * from ("Continue in new session"); the same preparation, other instructions.
 */
export type BranchPurpose = 'branch' | 'continuation';

/** Plans the summarizer requests for a branch summary (chunked like a compaction when the branch is long). */
export function planBranchSummary(prep: BranchSummaryPreparation, opts: PlanOptions & { purpose?: BranchPurpose }): SummaryPlan {
  const { maxOutputTokens, safetyMarginTokens } = planLimits(opts);
  const continuation = opts.purpose === 'continuation';
  const instructions = continuation ? continuationInstructions(opts.customInstructions, { scratchpad: maxOutputTokens >= SCRATCHPAD_MIN_OUTPUT }) : branchInstructions(opts.customInstructions);
  const seq = planSequence({
    items: prep.items,
    previousSummary: null,
    system: SUMMARIZER_SYSTEM,
    freshInstructions: instructions,
    updateInstructions: (continuation ? CONTINUATION_CHAIN_NOTE : BRANCH_CHAIN_NOTE) + instructions,
    purpose: 'branch',
    window: opts.window,
    maxOutputTokens,
    safetyMarginTokens,
    countText: opts.countText,
    serialize: { toolResultMaxChars: opts.toolResultMaxChars ?? DEFAULT_COMPACTION_SETTINGS.toolResultMaxChars },
  });
  return {
    kind: 'branch',
    history: seq.steps,
    turnPrefix: [],
    previousSummary: null,
    fileOps: prep.fileOps,
    footer: fileFooter(prep.fileOps),
    ...(opts.customInstructions?.trim() ? { customInstructions: opts.customInstructions.trim() } : {}),
    window: opts.window,
    maxOutputTokens,
    warnings: seq.warnings,
  };
}

export interface BranchSummaryResult {
  summary: string;
  /** The old leaf. */
  fromId: EntryId;
  details: SummaryDetails;
  /** Problems that did not stop the summary (a before-hook that threw and was skipped). */
  warnings?: string[];
}

export interface BranchSummaryHooks {
  name?: string;
  beforeBranchSummary?(prep: BranchSummaryPreparation, ctx: { signal?: AbortSignal }): MaybePromise<BeforeSummaryDecision>;
  afterBranchSummary?(result: BranchSummaryResult): MaybePromise<void>;
}

export type SummarizeBranchOptions = SummaryRunOptions<BranchSummaryHooks> & { purpose?: BranchPurpose };

/**
 * Summarises an abandoned branch. Resolves with the data of the
 * branch_summary entry (appended by the caller at the position the user moved
 * to, `fromId` = old leaf), or null when a hook cancelled; rejects with an
 * AbortError on abort, leaving nothing behind.
 */
export async function summarizeBranch(prep: BranchSummaryPreparation, engine: SummaryEngine, opts: SummarizeBranchOptions = {}): Promise<BranchSummaryResult | null> {
  const produced = await produceSummary<BranchSummaryHooks>({
    engine,
    fileOps: prep.fileOps,
    // A branch summary has no window bound to keep: its section is sized by the span alone.
    span: { tokens: prep.tokens, userMessages: renderUserMessages(userMessagesOf(prep.items), userMessagesBudgetChars(prep.tokens)) },
    // A continuation is the conversation itself, not an abandoned branch: the extractive summary says so.
    extractive: (options) =>
      extractiveSummary({ kind: opts.purpose === 'continuation' ? 'compaction' : 'branch', items: prep.items, fileOps: prep.fileOps }, { maxChars: extractiveBudgetChars(summaryOutputBudget(DEFAULT_COMPACTION_SETTINGS), prep.tokens), spanTokens: prep.tokens, ...options }),
    ask: (h, ctx) => (h.beforeBranchSummary ? () => h.beforeBranchSummary!(prep, ctx) : undefined),
    opts,
  });
  if (!produced) return null;
  const result: BranchSummaryResult = {
    summary: produced.summary,
    fromId: prep.fromId,
    details: {
      ...producedDetails(produced),
      ...(prep.firstIncludedEntryId ? { firstSummarizedEntryId: prep.firstIncludedEntryId } : {}),
      summarizedEntryCount: prep.items.length,
    },
    ...(produced.warnings ? { warnings: produced.warnings } : {}),
  };
  await notifyAfterHooks(hookList(opts.hooks), (h) => h.afterBranchSummary?.(result), opts.onHookError);
  return result;
}

/** The entry to append at the new position (the store adds id, parentId = target, timestamp). */
export function branchSummaryEntryFrom(result: BranchSummaryResult): NewEntry {
  return { type: 'branch_summary', fromId: result.fromId, summary: result.summary, details: result.details };
}
