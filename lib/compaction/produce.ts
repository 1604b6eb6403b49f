import type { SummarizerInfo, SummaryDetails, Usage } from '@/lib/session/types';
import type { ExtractiveOptions } from './extractive';
import { runSummaryPlan, type RunPlanOptions } from './run';
import { errorMessage } from '@/lib/errors';
import { isAbortError, throwIfAborted, type TextSummarizer } from './summarizer';
import type { BeforeSummaryDecision, FileLists, MaybePromise, SummaryPlan } from './types';

/**
 * What every summary shares, whether it replaces old history (a compaction)
 * or stands for an abandoned branch: hooks may cancel it or supply the text,
 * otherwise a planned model run or the extractive summarizer writes it, and
 * observers hear about it once it is final. compact() and summarizeBranch()
 * differ only in what they prepare and in the entry they describe.
 */

/** How the summary is produced: a planned model run, or the extractive summarizer (no model). */
export type SummaryEngine =
  | { kind: 'model'; summarizer: TextSummarizer; plan: SummaryPlan }
  | { kind: 'extractive'; options?: ExtractiveOptions };

export interface SummaryRunOptions<H> extends RunPlanOptions {
  hooks?: H | readonly H[];
  /** Clock for durationMs (tests). */
  now?: () => number;
  /** A hook failed: reported here, never fails the summary (a before-hook is skipped; observers must not undo a finished summary). */
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

type HookDecision = { cancel: true } | { summary: string; details?: Partial<SummaryDetails>; name: string } | null;

/**
 * Asks the before-hooks in order. A cancel wins immediately; the first
 * supplied summary is used (later hooks still get to cancel), as with pi's
 * extension handlers. A hook that throws is skipped and reported (onError and
 * a warning): a broken extension must not cost the user the summary they
 * asked for. An abort is still an abort.
 */
async function askBeforeHooks<H extends { name?: string }>(
  hooks: readonly H[],
  ask: (h: H, ctx: { signal?: AbortSignal }) => (() => MaybePromise<BeforeSummaryDecision>) | undefined,
  signal: AbortSignal | undefined,
  warnings: string[],
  onError: ((error: unknown) => void) | undefined,
): Promise<HookDecision> {
  throwIfAborted(signal);
  const ctx = signal ? { signal } : {};
  let supplied: HookDecision = null;
  for (const h of hooks) {
    const fn = ask(h, ctx);
    let d: BeforeSummaryDecision;
    try {
      d = fn ? await fn() : undefined;
    } catch (e) {
      if (isAbortError(e) || signal?.aborted) throw e;
      onError?.(e);
      warnings.push(`The summary hook "${h.name ?? 'unnamed'}" failed and was skipped: ${errorMessage(e)}`);
      continue;
    }
    if (!d) continue;
    if ('cancel' in d && d.cancel) return { cancel: true };
    if ('summary' in d && supplied === null) supplied = { summary: d.summary, ...(d.details ? { details: d.details } : {}), name: d.name ?? h.name ?? 'hook' };
  }
  throwIfAborted(signal);
  return supplied;
}

export interface ProducedSummary {
  summary: string;
  summarizer: SummarizerInfo;
  usage?: Usage;
  fileOps: FileLists;
  customInstructions?: string;
  durationMs: number;
  /** Before-hooks that failed and were skipped, for the user. */
  warnings?: string[];
}

/**
 * Produces a summary's text. Resolves with null when a before-hook cancelled;
 * rejects with an AbortError when `signal` fires (even after the model
 * finished), so a caller that appends only on a resolved result changes
 * nothing on abort or failure.
 */
export async function produceSummary<H extends { name?: string }>(args: {
  engine: SummaryEngine;
  /** What the preparation found: the file lists a hook or the extractive summarizer keeps unless told otherwise. */
  fileOps: FileLists;
  /** The summary without a model. */
  extractive: (options: ExtractiveOptions | undefined) => string;
  ask: (h: H, ctx: { signal?: AbortSignal }) => (() => MaybePromise<BeforeSummaryDecision>) | undefined;
  opts: SummaryRunOptions<H>;
}): Promise<ProducedSummary | null> {
  const { engine, fileOps, opts } = args;
  const now = opts.now ?? Date.now;
  const started = now();
  const warnings: string[] = [];
  const decision = await askBeforeHooks(hookList(opts.hooks), args.ask, opts.signal, warnings, opts.onHookError);
  if (decision && 'cancel' in decision) return null;

  let produced: Omit<ProducedSummary, 'durationMs'>;
  if (decision) {
    produced = {
      summary: decision.summary,
      summarizer: { kind: 'hook', name: decision.name },
      fileOps: { readFiles: decision.details?.readFiles ?? fileOps.readFiles, modifiedFiles: decision.details?.modifiedFiles ?? fileOps.modifiedFiles },
      ...(decision.details?.usage ? { usage: decision.details.usage } : {}),
    };
  } else if (engine.kind === 'model') {
    const run = await runSummaryPlan(engine.plan, engine.summarizer, opts);
    produced = {
      summary: run.text,
      summarizer: engine.summarizer.info,
      fileOps: engine.plan.fileOps,
      ...(run.usage ? { usage: run.usage } : {}),
      ...(engine.plan.customInstructions ? { customInstructions: engine.plan.customInstructions } : {}),
    };
  } else {
    produced = { summary: args.extractive(engine.options), summarizer: { kind: 'extractive' }, fileOps };
  }
  throwIfAborted(opts.signal);
  return { ...produced, durationMs: Math.max(0, now() - started), ...(warnings.length ? { warnings } : {}) };
}

/** The details both kinds of summary record about how they were made. */
export function producedDetails(p: ProducedSummary): SummaryDetails {
  return {
    readFiles: p.fileOps.readFiles,
    modifiedFiles: p.fileOps.modifiedFiles,
    summarizer: p.summarizer,
    durationMs: p.durationMs,
    ...(p.usage ? { usage: p.usage } : {}),
    ...(p.customInstructions ? { customInstructions: p.customInstructions } : {}),
  };
}
