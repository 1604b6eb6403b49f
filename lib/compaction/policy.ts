import type { CompactionSettings } from '@/lib/session/types';

/**
 * When to compact. Two triggers, both settable: the reserve rule of pi
 * (context > window − reserve: leave room for the next prompt and reply) and
 * the fill-ratio rule of Opal/aura (context ≥ threshold × window). With both
 * set, the lower limit wins: each protects against a different failure (the
 * reserve against an oversize next turn, the ratio against slow, expensive
 * near-full requests).
 */

type Policy = Pick<CompactionSettings, 'enabled' | 'reserveTokens' | 'thresholdPercent'>;

/** Context size above which auto-compaction fires for this window. */
export function compactionLimit(window: number, settings: Policy): number {
  let limit = window - settings.reserveTokens;
  // A reserve as large as the window (tiny local models) would make every context "too big": use half the window then.
  if (limit <= 0) limit = Math.floor(window / 2);
  const pct = settings.thresholdPercent;
  if (pct !== undefined && pct > 0 && pct <= 1) limit = Math.min(limit, Math.floor(window * pct));
  return limit;
}

export interface ShouldCompactInput {
  contextTokens: number;
  window: number;
  settings: Policy;
  /** A reply is streaming on this session: never compact under it; the caller re-checks when the stream ends. */
  streaming?: boolean;
}

export function shouldCompact({ contextTokens, window, settings, streaming }: ShouldCompactInput): boolean {
  if (!settings.enabled || streaming || !(window > 0)) return false;
  return contextTokens > compactionLimit(window, settings);
}

/**
 * Sending `newMessageTokens` more would leave less than the reserve for the
 * reply: compact first. Independent of `enabled` (a request that cannot fit
 * must not be sent either way; the caller decides whether to compact or warn).
 */
export function wouldOverflow(input: { contextTokens: number; newMessageTokens: number; window: number; settings: Pick<CompactionSettings, 'reserveTokens'> }): boolean {
  const { contextTokens, newMessageTokens, window, settings } = input;
  if (!(window > 0)) return false;
  const limit = window - settings.reserveTokens > 0 ? window - settings.reserveTokens : Math.floor(window / 2);
  return contextTokens + newMessageTokens > limit;
}

/** Compacting is allowed now: the pure form of "never during a stream". */
export function canCompactNow(state: { streaming: boolean; compacting?: boolean }): boolean {
  return !state.streaming && !state.compacting;
}

/**
 * Keep-recent for overflow recovery: a fifth of the window (Opal), never more
 * than the normal setting, so the retry has real room.
 */
export function emergencyKeepRecent(window: number, settings?: Pick<CompactionSettings, 'keepRecentTokens'>): number {
  const fifth = Math.floor(window / 5);
  return settings ? Math.min(settings.keepRecentTokens, fifth) : fifth;
}

export interface CompactionFigures {
  /** The context now. */
  tokensBefore: number;
  /** What stays verbatim after the cut. */
  tokensKept: number;
  /** The new summary; 0 to ask before summarising whether any summary could help. */
  summaryTokens: number;
  /** The chat model's window, when known: it tells a kept tail that can never fit from a summary that is too long. */
  window?: number;
}

export type CompactionVerdict =
  | { append: true; tokensAfter: number }
  /**
   * kept-exceeds-window: the tail kept verbatim (typically one huge message) is larger than the whole window,
   * so no summary of what precedes it can make room. summary-not-smaller: the summary is no shorter than the
   * history it replaces (too little history before the kept tail).
   */
  | { append: false; tokensAfter: number; why: 'kept-exceeds-window' | 'summary-not-smaller' };

/**
 * A compaction is appended only when it leaves a smaller context than it
 * found. One that does not (seen: 750,014 → 750,127 tokens, an overflow
 * recovery on one message bigger than the window) would only add a summary
 * to every later request, and an overflow recovery built on it would retry
 * a request that still cannot fit.
 */
export function compactionVerdict(f: CompactionFigures): CompactionVerdict {
  const tokensAfter = f.summaryTokens + f.tokensKept;
  if (tokensAfter < f.tokensBefore) return { append: true, tokensAfter };
  const keptTooBig = f.window !== undefined && f.window > 0 && f.tokensKept >= f.window;
  return { append: false, tokensAfter, why: keptTooBig ? 'kept-exceeds-window' : 'summary-not-smaller' };
}
