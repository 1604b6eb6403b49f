'use client';

import { summaryOutputBudget } from '@/lib/compaction/prepare';
import type { SummaryPlan } from '@/lib/compaction/types';
import type { ExtractiveOptions } from '@/lib/compaction/extractive';
import type { TextSummarizer } from '@/lib/compaction/summarizer';
import { routeSummarizer } from '@/components/client/routeSummarizer';
import { throttledPatch, type Run } from '@/components/chat/runStore';
import type { SummaryPlanOptions } from '@/workers/tokens.api';
import type { CompactionEnv } from './compactSession';

/**
 * What every summary the app writes (compaction, branch summary, regeneration)
 * shares: how the worker plans it for the summarizer model, which engine runs
 * it, and how its streamed text reaches the screen.
 */

/** Planning options for the worker, or undefined when no model is connected (extractive summary). */
export function summaryPlanOptions(env: CompactionEnv, instructions?: string): SummaryPlanOptions | undefined {
  const { summarizer, settings } = env;
  if (!summarizer) return undefined;
  return {
    model: summarizer.id,
    window: summarizer.contextWindow,
    maxOutputTokens: Math.min(summaryOutputBudget(settings), summarizer.maxOutputTokens ?? Infinity),
    ...(instructions ? { customInstructions: instructions } : {}),
  };
}

export type Engine = { kind: 'model'; summarizer: TextSummarizer; plan: SummaryPlan } | { kind: 'extractive'; options?: ExtractiveOptions };

/** The model through /api/summarize when a plan exists, else the built-in extractive summarizer. */
export function summaryEngine(env: CompactionEnv, plan: SummaryPlan | null): Engine {
  return plan && env.summarizer ? { kind: 'model', summarizer: routeSummarizer(env.summarizer.id, env.chatModel?.id), plan } : { kind: 'extractive' };
}

/** An onDelta that accumulates the streamed summary and shows it on the run, throttled. */
export function streamToRun(run: Run): (delta: string) => void {
  const patch = throttledPatch(run);
  let text = '';
  return (delta) => {
    text += delta;
    patch({ text });
  };
}
