import type { NewEntry, SummarizerInfo, SummaryDetails, Usage } from '@/lib/session/types';
import { extractiveSummary, type ExtractiveOptions } from './extractive';
import { summaryOutputBudget } from './prepare';
import { runSummaryPlan, type RunPlanOptions } from './run';
import { throwIfAborted, type TextSummarizer } from './summarizer';
import type { BeforeSummaryDecision, CompactionHooks, CompactionPreparation, CompactionResult, FileLists, MaybePromise, SummaryPlan } from './types';

/** How the summary is produced: a planned model run, or the extractive summarizer (no model). */
export type SummaryEngine =
  | { kind: 'model'; summarizer: TextSummarizer; plan: SummaryPlan }
  | { kind: 'extractive'; options?: ExtractiveOptions };

export interface CompactOptions extends RunPlanOptions {
  hooks?: CompactionHooks | readonly CompactionHooks[];
  /** Clock for durationMs (tests). */
  now?: () => number;
  /** An afterCompact hook failed: reported here, never fails the compaction (observers must not undo a finished summary). */
  onHookError?: (error: unknown) => void;
}

export function hookList<H>(hooks: H | readonly H[] | undefined): readonly H[] {
  if (!hooks) return [];
  return Array.isArray(hooks) ? (hooks as readonly H[]) : [hooks as H];
}

/**
 * Runs observers after a summary is final. A failing observer is reported and
 * never fails the summary: undoing a finished summary because a watcher threw
 * would lose work the user waited for.
 */
export async function notifyAfterHooks<H>(hooks: readonly H[], call: (h: H) => MaybePromise<void> | undefined, onError?: (error: unknown) => void): Promise<void> {
  for (const h of hooks) {
    try {
      await call(h);
    } catch (e) {
      onError?.(e);
    }
  }
}

/**
 * The start every summary shares: bail out if already aborted, then let the
 * before-hooks cancel or supply the summary (`ask` picks each hook's
 * before-method). Throws on abort; null means "no hook decided".
 */
export async function consultBeforeHooks<H extends { name?: string }>(
  hooks: readonly H[],
  ask: (h: H, ctx: { signal?: AbortSignal }) => (() => MaybePromise<BeforeSummaryDecision>) | undefined,
  signal: AbortSignal | undefined,
): Promise<Awaited<ReturnType<typeof askBeforeHooks>>> {
  throwIfAborted(signal);
  const ctx = signal ? { signal } : {};
  const decision = await askBeforeHooks(
    hooks.map((h) => {
      const fn = ask(h, ctx);
      return { ...(h.name ? { name: h.name } : {}), ...(fn ? { ask: fn } : {}) };
    }),
  );
  throwIfAborted(signal);
  return decision;
}

export interface HookAsk {
  name?: string;
  ask?: () => MaybePromise<BeforeSummaryDecision>;
}

/**
 * Asks the before-hooks in order. A cancel wins immediately; the first
 * supplied summary is used (later hooks still get to cancel), as with pi's
 * extension handlers.
 */
export async function askBeforeHooks(
  asks: readonly HookAsk[],
): Promise<{ cancel: true } | { summary: string; details?: Partial<SummaryDetails>; name: string } | null> {
  let supplied: { summary: string; details?: Partial<SummaryDetails>; name: string } | null = null;
  for (const h of asks) {
    const d = h.ask ? await h.ask() : undefined;
    if (!d) continue;
    if ('cancel' in d && d.cancel) return { cancel: true };
    if ('summary' in d && supplied === null) supplied = { summary: d.summary, ...(d.details ? { details: d.details } : {}), name: d.name ?? h.name ?? 'hook' };
  }
  return supplied;
}

export interface ProducedSummary {
  summary: string;
  summarizer: SummarizerInfo;
  usage?: Usage;
  fileOps: FileLists;
}

/**
 * Produces a compaction summary. Resolves with the result to append, or null
 * when a hook cancelled. Rejects with an AbortError when `signal` fires (even
 * after the model finished, as long as this has not resolved): the caller
 * appends the compaction entry only on a resolved result, so an aborted or
 * failed summary changes nothing.
 */
export async function compact(prep: CompactionPreparation, engine: SummaryEngine, opts: CompactOptions = {}): Promise<CompactionResult | null> {
  const now = opts.now ?? Date.now;
  const started = now();
  const hooks = hookList(opts.hooks);
  const decision = await consultBeforeHooks(hooks, (h, ctx) => (h.beforeCompact ? () => h.beforeCompact!(prep, ctx) : undefined), opts.signal);
  if (decision && 'cancel' in decision) return null;

  let produced: ProducedSummary;
  let customInstructions: string | undefined;
  if (decision) {
    produced = {
      summary: decision.summary,
      summarizer: { kind: 'hook', name: decision.name },
      fileOps: {
        readFiles: decision.details?.readFiles ?? prep.fileOps.readFiles,
        modifiedFiles: decision.details?.modifiedFiles ?? prep.fileOps.modifiedFiles,
      },
      ...(decision.details?.usage ? { usage: decision.details.usage } : {}),
    };
  } else if (engine.kind === 'model') {
    const run = await runSummaryPlan(engine.plan, engine.summarizer, opts);
    produced = { summary: run.text, summarizer: engine.summarizer.info, fileOps: engine.plan.fileOps, ...(run.usage ? { usage: run.usage } : {}) };
    customInstructions = engine.plan.customInstructions;
  } else {
    const text = extractiveSummary(
      {
        kind: 'compaction',
        items: prep.messagesToSummarize,
        turnPrefix: prep.turnPrefixMessages,
        previousSummary: prep.previousSummary,
        fileOps: prep.fileOps,
      },
      // Same size bound as a model summary (its output budget), at a conservative 3 characters per token.
      { maxChars: Math.min(24_000, summaryOutputBudget(prep.settings) * 3), ...engine.options },
    );
    produced = { summary: text, summarizer: { kind: 'extractive' }, fileOps: prep.fileOps };
  }
  throwIfAborted(opts.signal);

  const details: SummaryDetails = {
    readFiles: produced.fileOps.readFiles,
    modifiedFiles: produced.fileOps.modifiedFiles,
    summarizer: produced.summarizer,
    durationMs: Math.max(0, now() - started),
    ...(produced.usage ? { usage: produced.usage } : {}),
    ...(customInstructions ? { customInstructions } : {}),
    ...(prep.isSplitTurn ? { isSplitTurn: true } : {}),
    ...(prep.firstSummarizedEntryId ? { firstSummarizedEntryId: prep.firstSummarizedEntryId } : {}),
    summarizedEntryCount: prep.summarizedEntryCount,
  };
  const result: CompactionResult = {
    summary: produced.summary,
    firstKeptEntryId: prep.firstKeptEntryId,
    tokensBefore: prep.tokensBefore,
    // The summary's real size is counted by the worker once the entry exists; chars/4 is a fair interim figure.
    estimatedTokensAfter: prep.tokensKept + Math.ceil(produced.summary.length / 4),
    details,
    leafId: prep.leafId,
  };

  await notifyAfterHooks(hooks, (h) => h.afterCompact?.(result), opts.onHookError);
  return result;
}

/** The entry to append for a compaction result (the store adds id, parentId = leaf, timestamp). */
export function compactionEntryFrom(result: CompactionResult): NewEntry {
  return {
    type: 'compaction',
    summary: result.summary,
    firstKeptEntryId: result.firstKeptEntryId,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.estimatedTokensAfter,
    details: result.details,
  };
}
