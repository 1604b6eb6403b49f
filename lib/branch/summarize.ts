import { consultBeforeHooks, hookList, notifyAfterHooks } from '@/lib/compaction/compact';
import { planSequence } from '@/lib/compaction/chunking';
import { extractiveSummary, type ExtractiveOptions } from '@/lib/compaction/extractive';
import { fileFooter } from '@/lib/compaction/fileOps';
import { planLimits, type PlanOptions } from '@/lib/compaction/plan';
import { SUMMARIZER_SYSTEM, branchInstructions } from '@/lib/compaction/prompts';
import { runSummaryPlan, type RunPlanOptions } from '@/lib/compaction/run';
import { throwIfAborted, type TextSummarizer } from '@/lib/compaction/summarizer';
import type { BeforeSummaryDecision, FileLists, MaybePromise, SummaryPlan } from '@/lib/compaction/types';
import { DEFAULT_COMPACTION_SETTINGS, type EntryId, type NewEntry, type SummarizerInfo, type SummaryDetails, type Usage } from '@/lib/session/types';
import type { BranchSummaryPreparation } from './prepare';

const BRANCH_CHAIN_NOTE =
  'The <previous-summary> summarises the earlier part of this same branch; the transcript continues it. Merge both into one branch summary.\n\n';

/** Plans the summarizer requests for a branch summary (chunked like a compaction when the branch is long). */
export function planBranchSummary(prep: BranchSummaryPreparation, opts: PlanOptions): SummaryPlan {
  const { maxOutputTokens, safetyMarginTokens } = planLimits(opts);
  const seq = planSequence({
    items: prep.items,
    previousSummary: null,
    system: SUMMARIZER_SYSTEM,
    freshInstructions: branchInstructions(opts.customInstructions),
    updateInstructions: BRANCH_CHAIN_NOTE + branchInstructions(opts.customInstructions),
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
}

export interface BranchSummaryHooks {
  name?: string;
  beforeBranchSummary?(prep: BranchSummaryPreparation, ctx: { signal?: AbortSignal }): MaybePromise<BeforeSummaryDecision>;
  afterBranchSummary?(result: BranchSummaryResult): MaybePromise<void>;
}

export type BranchSummaryEngine =
  | { kind: 'model'; summarizer: TextSummarizer; plan: SummaryPlan }
  | { kind: 'extractive'; options?: ExtractiveOptions };

export interface SummarizeBranchOptions extends RunPlanOptions {
  hooks?: BranchSummaryHooks | readonly BranchSummaryHooks[];
  now?: () => number;
  onHookError?: (error: unknown) => void;
}

/**
 * Summarises an abandoned branch. Resolves with the data of the
 * branch_summary entry (appended by the caller at the position the user moved
 * to, `fromId` = old leaf), or null when a hook cancelled; rejects with an
 * AbortError on abort, leaving nothing behind.
 */
export async function summarizeBranch(
  prep: BranchSummaryPreparation,
  engine: BranchSummaryEngine,
  opts: SummarizeBranchOptions = {},
): Promise<BranchSummaryResult | null> {
  const now = opts.now ?? Date.now;
  const started = now();
  const hooks = hookList(opts.hooks);
  const decision = await consultBeforeHooks(hooks, (h, ctx) => (h.beforeBranchSummary ? () => h.beforeBranchSummary!(prep, ctx) : undefined), opts.signal);
  if (decision && 'cancel' in decision) return null;

  let summary: string;
  let summarizer: SummarizerInfo;
  let usage: Usage | undefined;
  let fileOps: FileLists = prep.fileOps;
  let customInstructions: string | undefined;
  if (decision) {
    summary = decision.summary;
    summarizer = { kind: 'hook', name: decision.name };
    usage = decision.details?.usage;
    fileOps = { readFiles: decision.details?.readFiles ?? prep.fileOps.readFiles, modifiedFiles: decision.details?.modifiedFiles ?? prep.fileOps.modifiedFiles };
  } else if (engine.kind === 'model') {
    const run = await runSummaryPlan(engine.plan, engine.summarizer, opts);
    summary = run.text;
    summarizer = engine.summarizer.info;
    usage = run.usage;
    customInstructions = engine.plan.customInstructions;
  } else {
    summary = extractiveSummary({ kind: 'branch', items: prep.items, fileOps: prep.fileOps }, engine.options);
    summarizer = { kind: 'extractive' };
  }
  throwIfAborted(opts.signal);

  const result: BranchSummaryResult = {
    summary,
    fromId: prep.fromId,
    details: {
      readFiles: fileOps.readFiles,
      modifiedFiles: fileOps.modifiedFiles,
      summarizer,
      durationMs: Math.max(0, now() - started),
      ...(usage ? { usage } : {}),
      ...(customInstructions ? { customInstructions } : {}),
      ...(prep.firstIncludedEntryId ? { firstSummarizedEntryId: prep.firstIncludedEntryId } : {}),
      summarizedEntryCount: prep.items.length,
    },
  };
  await notifyAfterHooks(hooks, (h) => h.afterBranchSummary?.(result), opts.onHookError);
  return result;
}

/** The entry to append at the new position (the store adds id, parentId = target, timestamp). */
export function branchSummaryEntryFrom(result: BranchSummaryResult): NewEntry {
  return { type: 'branch_summary', fromId: result.fromId, summary: result.summary, details: result.details };
}
