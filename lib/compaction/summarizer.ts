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
  /** Why the model stopped, where the transport knows: 'length' means the text was cut at maxOutputTokens. */
  finishReason?: string;
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
