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
