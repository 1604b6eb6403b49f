import { streamText, type LanguageModel, type LanguageModelUsage } from 'ai';
import type { SummarizerInfo, Usage } from '@/lib/session/types';
import type { SummaryPurpose } from './types';

/**
 * The one thing compaction needs from a model: text in, text out, streamed.
 * The app gives it a network-backed implementation (through the route
 * handler), tests a scripted one; the engine never knows which.
 */
export interface SummaryRequest {
  system: string;
  prompt: string;
  maxOutputTokens: number;
  purpose: SummaryPurpose;
}

export interface SummaryResponse {
  text: string;
  usage?: Usage;
}

export interface TextSummarizer {
  info: SummarizerInfo;
  complete(req: SummaryRequest, opts: { signal?: AbortSignal; onDelta?: (delta: string) => void }): Promise<SummaryResponse>;
}

export function abortError(message = 'Summary aborted'): Error {
  return new DOMException(message, 'AbortError');
}

export function isAbortError(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { name?: unknown }).name === 'AbortError';
}

/** Rejects with an AbortError whatever reason the signal carries, so callers have one thing to test for. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError();
}

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

export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  const sum = (x?: number, y?: number) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const out: Usage = { input: a.input + b.input, output: a.output + b.output };
  const cr = sum(a.cacheRead, b.cacheRead);
  const cw = sum(a.cacheWrite, b.cacheWrite);
  const tt = sum(a.totalTokens, b.totalTokens);
  const cost = sum(a.cost, b.cost);
  if (cr !== undefined) out.cacheRead = cr;
  if (cw !== undefined) out.cacheWrite = cw;
  if (tt !== undefined) out.totalTokens = tt;
  if (cost !== undefined) out.cost = cost;
  return out;
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
          }
        }
      } catch (e) {
        if (signal?.aborted) throw abortError();
        throw e;
      }
      // An abort can end the stream quietly; what arrived is not a summary.
      throwIfAborted(signal);
      return usage ? { text, usage } : { text };
    },
  };
}
