import type { SummarizerInfo, SummaryDetails, SummaryFallback, Usage } from '@/lib/session/types';
import type { ExtractiveOptions } from './extractive';
import { errorMessage } from '@/lib/errors';
import { withFileFooter } from './fileOps';
import { joinSplitTurn, runSummaryPlan, type RunPlanOptions } from './run';
import { selfCheckSummary } from './selfCheck';
import { addUsage, isAbortError, throwIfAborted, type TextSummarizer } from './summarizer';
import { retryBudget, summaryFlaw } from './summaryCheck';
import type { BeforeSummaryDecision, FileLists, MaybePromise, SummaryPlan } from './types';
import { withUserMessages } from './userMessages';

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
  /**
   * Tokens of a text as the context will count it (the app: the token worker).
   * Judges whether a summary is larger than what it replaces; without it,
   * characters / 4.
   */
  countTokens?: (text: string) => MaybePromise<number>;
  /** One more model call that checks the summary for omissions and patches it (setting, off by default). */
  selfCheck?: boolean;
}

/** What a summary replaces. */
export interface SummarySpan {
  /** Its tokens (0: unknown). */
  tokens: number;
  /**
   * The user-messages section every model summary ends with (userMessages.ts),
   * rendered by the caller: a compaction decided it with its budget when it was
   * prepared (estimatedTokensAfter counts it), so it is used as it is.
   */
  userMessages: string;
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
  fallback?: SummaryFallback;
  selfCheck?: { usage?: Usage; patched: boolean };
}

/**
 * A model summary that is fit to append, or why not after the retry. The
 * body is the model's text; what the app adds (the user messages, the file
 * lists) is added here, before judging the size, because that is what
 * lands in the context.
 */
async function modelSummary(
  engine: Extract<SummaryEngine, { kind: 'model' }>,
  span: SummarySpan,
  opts: SummaryRunOptions<unknown>,
): Promise<{ ok: true; summary: string; body: string; usage?: Usage } | { ok: false; fallback: SummaryFallback; usage?: Usage }> {
  const { plan, summarizer } = engine;
  const count = opts.countTokens ?? ((t: string) => Math.ceil(t.length / 4));
  const finish = (body: string) => withFileFooter(withUserMessages(body, span.userMessages), plan.fileOps);
  let usage: Usage | undefined;
  let tighten: RunPlanOptions['tighten'];
  let attempts = 0;
  for (;;) {
    const run = await runSummaryPlan(plan, summarizer, { ...opts, ...(tighten ? { tighten } : {}) });
    attempts++;
    usage = addUsage(usage, run.usage);
    const body = joinSplitTurn(run.historyText, run.turnPrefixText);
    const summary = finish(body);
    const flaw = summaryFlaw(run, run.flaw ? 0 : await count(summary), span.tokens);
    throwIfAborted(opts.signal);
    if (!flaw) return { ok: true, summary, body, ...(usage ? { usage } : {}) };
    const next = attempts === 1 ? retryBudget(flaw, plan.maxOutputTokens, span.tokens, await count(finish(''))) : null;
    if (!next) return { ok: false, fallback: { model: summarizer.info.kind === 'model' ? summarizer.info.model : 'model', reason: flaw, attempts }, ...(usage ? { usage } : {}) };
    tighten = next;
  }
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
  span: SummarySpan;
  /** The summary without a model; with `fallback` set when it stands in for a rejected model summary. */
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
    const got = await modelSummary(engine, args.span, opts);
    const custom = engine.plan.customInstructions ? { customInstructions: engine.plan.customInstructions } : {};
    if (got.ok) {
      produced = { summary: got.summary, summarizer: engine.summarizer.info, fileOps: engine.plan.fileOps, ...(got.usage ? { usage: got.usage } : {}), ...custom };
      if (opts.selfCheck) produced = await withSelfCheck(produced, got.body, engine, args.span, opts);
    } else {
      // What the rejected attempts cost is still recorded: the user paid for it.
      produced = {
        summary: args.extractive({ fallback: got.fallback }),
        summarizer: { kind: 'extractive' },
        fileOps,
        fallback: got.fallback,
        ...(got.usage ? { usage: got.usage } : {}),
        ...custom,
      };
    }
  } else {
    produced = { summary: args.extractive(engine.options), summarizer: { kind: 'extractive' }, fileOps };
  }
  throwIfAborted(opts.signal);
  return { ...produced, durationMs: Math.max(0, now() - started), ...(warnings.length ? { warnings } : {}) };
}

/** Runs the self-check pass on an accepted model summary; a patch that would make it larger than the span is not taken. */
async function withSelfCheck(
  produced: Omit<ProducedSummary, 'durationMs'>,
  body: string,
  engine: Extract<SummaryEngine, { kind: 'model' }>,
  span: SummarySpan,
  opts: SummaryRunOptions<unknown>,
): Promise<Omit<ProducedSummary, 'durationMs'>> {
  const check = await selfCheckSummary(engine.plan, engine.summarizer, body, opts.signal ? { signal: opts.signal } : {});
  const usage = check.usage ? { usage: check.usage } : {};
  if (!check.patched) return { ...produced, selfCheck: { patched: false, ...usage } };
  const summary = withFileFooter(withUserMessages(check.body, span.userMessages), engine.plan.fileOps);
  const count = opts.countTokens ?? ((t: string) => Math.ceil(t.length / 4));
  if (span.tokens > 0 && (await count(summary)) >= span.tokens) return { ...produced, selfCheck: { patched: false, ...usage } };
  return { ...produced, summary, selfCheck: { patched: true, ...usage } };
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
    ...(p.fallback ? { fallback: p.fallback } : {}),
    ...(p.selfCheck ? { selfCheck: p.selfCheck } : {}),
  };
}
