import { streamText, type LanguageModel, type LanguageModelUsage } from 'ai';
import type { Usage } from '@/lib/session/types';
import { abortError, throwIfAborted, type TextSummarizer } from '@/lib/compaction/summarizer';

/**
 * The summarizer over an AI SDK model: what the server's /api/summarize runs,
 * and what tests drive with ai/test mock models. Apart from summarizer.ts so
 * that the token worker, which plans summaries, never loads the AI SDK.
 */

export function usageFromAi(u: LanguageModelUsage | undefined): Usage | undefined {
  if (!u || (u.inputTokens === undefined && u.outputTokens === undefined)) return undefined;
  const input = u.inputTokenDetails?.noCacheTokens ?? u.inputTokens ?? 0;
  const cacheRead = u.inputTokenDetails?.cacheReadTokens;
  const cacheWrite = u.inputTokenDetails?.cacheWriteTokens;
  const output = u.outputTokens ?? 0;
  return {
    input,
    output,
    ...(cacheRead !== undefined ? { cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWrite } : {}),
    totalTokens: u.totalTokens ?? (u.inputTokens ?? 0) + output,
  };
}

function modelName(model: LanguageModel): string {
  if (typeof model === 'string') return model;
  return `${model.provider}:${model.modelId}`;
}

export interface LanguageModelSummarizerOptions {
  /** Overrides the "provider:model" name recorded in summary details. */
  modelName?: string;
  temperature?: number;
}

/**
 * A TextSummarizer over an AI SDK model (ai v7: `instructions` replaces
 * `system`, parts come from `result.stream`, usage is read from the finish part).
 * Used server-side by the route handler and in tests with MockLanguageModelV4.
 */
export function languageModelSummarizer(model: LanguageModel, options: LanguageModelSummarizerOptions = {}): TextSummarizer {
  return {
    info: { kind: 'model', model: options.modelName ?? modelName(model) },
    async complete(req, { signal, onDelta }) {
      throwIfAborted(signal);
      const result = streamText({
        model,
        instructions: req.system,
        prompt: req.prompt,
        maxOutputTokens: req.maxOutputTokens,
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(signal ? { abortSignal: signal } : {}),
      });
      let text = '';
      let usage: Usage | undefined;
      let finishReason: string | undefined;
      try {
        for await (const part of result.stream) {
          if (part.type === 'text-delta') {
            text += part.text;
            if (part.text) onDelta?.(part.text);
          } else if (part.type === 'error') {
            throw part.error instanceof Error ? part.error : new Error(String(part.error));
          } else if (part.type === 'abort') {
            throw abortError();
          } else if (part.type === 'finish') {
            usage = usageFromAi(part.totalUsage);
            finishReason = part.finishReason;
          }
        }
      } catch (e) {
        if (signal?.aborted) throw abortError();
        throw e;
      }
      // An abort can end the stream quietly; what arrived is not a summary.
      throwIfAborted(signal);
      return { text, ...(usage ? { usage } : {}), ...(finishReason ? { finishReason } : {}) };
    },
  };
}
