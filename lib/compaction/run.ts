import type { Usage } from '@/lib/session/types';
import { withFileFooter } from './fileOps';
import { cleanModelSummary, outputFlaw, type OutputFlaw } from './modelOutput';
import { TURN_PREFIX_DIVIDER, assemblePrompt, wrapConversation } from './prompts';
import { addUsage, throwIfAborted, type TextSummarizer } from './summarizer';
import type { PlanStep, SummaryPlan, SummaryPurpose } from './types';
import { splitUserMessages } from './userMessages';

export interface StepInfo {
  purpose: SummaryPurpose;
  /** 0-based over all steps of the plan (history first, then turn prefix). */
  step: number;
  steps: number;
}

export interface RunPlanOptions {
  signal?: AbortSignal;
  onDelta?: (delta: string, info: StepInfo) => void;
  /** Called when a step starts; lets the UI show "chunk 2 of 3". */
  onStep?: (info: StepInfo) => void;
  /** A second attempt after a rejected summary: every step gets this output cap and this note after its instructions. */
  tighten?: { maxOutputTokens: number; note: string };
}

/** What made a model run unusable as it came back: an empty step, a step cut off at its output limit, or an answer that is not a summary. */
export type RunFlaw = 'empty' | 'length' | OutputFlaw;

export interface SummaryRunResult {
  /** Final text: summary body plus file footer. */
  text: string;
  /** Summary of the history (or the unchanged previous summary when there was no new history). */
  historyText: string;
  /** Summary of a split turn's prefix, '' otherwise. */
  turnPrefixText: string;
  usage?: Usage;
  requests: number;
  /** Set when a step came back empty, cut off, echoing the request or without the asked sections; the run stopped there and its text is not a summary. */
  flaw?: RunFlaw;
}

async function runSequence(
  steps: readonly PlanStep[],
  inputPrevious: string | null,
  summarizer: TextSummarizer,
  opts: RunPlanOptions,
  offset: number,
  total: number,
  acc: { usage: Usage | undefined; requests: number; flaw?: RunFlaw },
): Promise<string> {
  let previous: string | null = null;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    throwIfAborted(opts.signal);
    const info: StepInfo = { purpose: step.purpose, step: offset + i, steps: total };
    opts.onStep?.(info);
    const prevText = step.previous === 'input' ? inputPrevious : step.previous === 'chain' ? previous : null;
    // The user-messages section of an earlier summary is re-attached by the app (userMessages.ts): the model need not read or copy it.
    const instructions = opts.tighten ? `${step.instructions}\n\n${opts.tighten.note}` : step.instructions;
    const prompt = assemblePrompt(prevText === null ? null : splitUserMessages(prevText).rest, step.transcript, instructions);
    const maxOutputTokens = opts.tighten ? Math.min(step.maxOutputTokens, opts.tighten.maxOutputTokens) : step.maxOutputTokens;
    const res = await summarizer.complete(
      { system: step.system, prompt, maxOutputTokens, purpose: step.purpose },
      { ...(opts.signal ? { signal: opts.signal } : {}), onDelta: (d) => opts.onDelta?.(d, info) },
    );
    throwIfAborted(opts.signal);
    // The scratchpad is the model's working notes, not part of the summary.
    const text = cleanModelSummary(res.text);
    acc.usage = addUsage(acc.usage, res.usage);
    acc.requests++;
    // A chunk that is not a summary would poison every step after it: stop and let the caller decide.
    // The echo test reads the transcript and the task, not the earlier summary a good update rightly repeats.
    const flaw = !text ? 'empty' : res.finishReason === 'length' ? 'length' : outputFlaw(text, wrapConversation(step.transcript) + instructions, step.purpose);
    if (flaw) {
      acc.flaw = flaw;
      return text;
    }
    previous = text;
  }
  return previous ?? '';
}

/**
 * Runs a plan with an injected summarizer: no token counting, prompts are
 * concatenated from the planned pieces. Rejects with an AbortError when the
 * signal fires, and produces nothing in that case.
 */
export async function runSummaryPlan(plan: SummaryPlan, summarizer: TextSummarizer, opts: RunPlanOptions = {}): Promise<SummaryRunResult> {
  throwIfAborted(opts.signal);
  const total = plan.history.length + plan.turnPrefix.length;
  const acc: { usage: Usage | undefined; requests: number; flaw?: RunFlaw } = { usage: undefined, requests: 0 };
  let historyText = await runSequence(plan.history, plan.previousSummary, summarizer, opts, 0, total, acc);
  // No new history (everything new is the split turn's prefix): the previous summary stands as it is.
  if (plan.history.length === 0) historyText = plan.previousSummary ?? '';
  const turnPrefixText = plan.turnPrefix.length && !acc.flaw
    ? await runSequence(plan.turnPrefix, null, summarizer, opts, plan.history.length, total, acc)
    : '';
  throwIfAborted(opts.signal);
  const body = joinSplitTurn(historyText, turnPrefixText);
  const out: SummaryRunResult = { text: withFileFooter(body, plan.fileOps), historyText, turnPrefixText, requests: acc.requests };
  if (acc.usage) out.usage = acc.usage;
  if (acc.flaw) out.flaw = acc.flaw;
  return out;
}

export function joinSplitTurn(historyText: string, turnPrefixText: string): string {
  if (!turnPrefixText) return historyText;
  if (!historyText) return TURN_PREFIX_DIVIDER.trimStart() + turnPrefixText;
  return historyText + TURN_PREFIX_DIVIDER + turnPrefixText;
}
