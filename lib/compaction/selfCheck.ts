import type { Usage } from '@/lib/session/types';
import { cleanModelSummary, outputFlaw } from './modelOutput';
import { SELF_CHECK_UNCHANGED, assemblePrompt, selfCheckInstructions, wrapConversation } from './prompts';
import { throwIfAborted, type TextSummarizer } from './summarizer';
import type { SummaryPlan } from './types';

/**
 * One more model call after a summary (issue 17, item 12; off by default):
 * the model reads the transcript and the summary and adds what the summary
 * omitted. It sees the transcript of the plan's last history step, the one
 * the summary was finished from: a chunked plan's earlier chunks do not fit
 * the window together with it, and they were checked into the chained
 * summary already.
 */

interface SelfCheckResult {
  /** The summary body to use: patched, or the one given. */
  body: string;
  patched: boolean;
  usage?: Usage;
}

export async function selfCheckSummary(plan: SummaryPlan, summarizer: TextSummarizer, body: string, opts: { signal?: AbortSignal } = {}): Promise<SelfCheckResult> {
  const step = plan.history[plan.history.length - 1] ?? plan.turnPrefix[plan.turnPrefix.length - 1];
  if (!step) return { body, patched: false };
  throwIfAborted(opts.signal);
  const res = await summarizer.complete(
    { system: step.system, prompt: assemblePrompt(null, step.transcript, selfCheckInstructions(body)), maxOutputTokens: plan.maxOutputTokens, purpose: 'self-check' },
    opts.signal ? { signal: opts.signal } : {},
  );
  throwIfAborted(opts.signal);
  const text = cleanModelSummary(res.text);
  const usage = res.usage ? { usage: res.usage } : {};
  // A cut-off, empty or echoed patch is worse than the summary it would replace; "no changes" keeps it as well.
  if (!text || res.finishReason === 'length' || text.replace(/[.\s]+$/, '').toUpperCase() === SELF_CHECK_UNCHANGED) return { body, patched: false, ...usage };
  if (outputFlaw(text, wrapConversation(step.transcript), step.purpose === 'turn-prefix' ? 'turn-prefix' : 'compaction')) return { body, patched: false, ...usage };
  return { body: text, patched: text !== body.trim(), ...usage };
}
