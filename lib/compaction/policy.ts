import { formatCount } from '@/lib/format/numbers';
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

/** The summary's output budget, as pi sizes it: 80 % of the reserve. Also used as the size bound of a summary. */
export function summaryOutputBudget(settings: Pick<CompactionSettings, 'reserveTokens'>): number {
  return Math.max(256, Math.floor(settings.reserveTokens * 0.8));
}

/** The largest share of the window the reserve may take: more only postpones compaction without making room. */
export const RESERVE_SHARE = 0.25;
/**
 * The largest share of the window kept verbatim after a compaction. A fifth,
 * not more: the cut keeps at least keep-recent, so the tail overshoots it by
 * up to one message, and with the summary (at most a fifth) about 40 % of the
 * window is in use after a compaction, which leaves room for a few ordinary
 * turns under the limit (75 %). With 30 %, a turn of a sixth of a 3k window
 * could trigger the next compaction right away.
 */
export const KEEP_SHARE = 0.2;
/** After a compaction the kept part and the summary fill at most this share of the limit: the rest is the room until the next one. */
const AFTER_SHARE_OF_LIMIT = 2 / 3;

/** A setting the window made smaller, and why: the settings and the meter say it in these words. */
export interface ScaledSetting {
  field: 'reserveTokens' | 'keepRecentTokens' | 'maskProtectTokens';
  /** What the settings say. */
  set: number;
  /** What is used with this window. */
  used: number;
  window: number;
  /** share: more than its share of the window; room: with the threshold, it would leave too little room after a compaction. */
  why: 'share' | 'room';
}

export interface WindowBudget {
  settings: CompactionSettings;
  /** Context size above which auto-compaction fires (compactionLimit with the scaled settings). */
  limit: number;
  summaryBudget: number;
  scaled: ScaledSetting[];
}

/**
 * The settings as they work for one window. The defaults are sized for
 * 100k-token models (pi's 16,384 reserve, 20,000 kept); in an 8k window the
 * reserve alone is twice the window, so the limit fell back to half the
 * window while the summary was still allowed 13k tokens: every compaction
 * left the context at the limit and the next turn compacted again. Here the
 * reserve takes at most a quarter of the window (so the summary, 80 % of it,
 * at most a fifth) and keep-recent at most a fifth, and together the kept part
 * and the summary stay within two thirds of the limit; with a threshold that
 * lowers the limit, the summary budget and keep-recent shrink with it. Large
 * windows are unchanged. Pure and idempotent: what it returns for a window
 * maps to itself.
 */
export function windowBudget(settings: CompactionSettings, window: number | undefined): WindowBudget {
  if (window === undefined || !(window > 0)) return { settings, limit: Infinity, summaryBudget: summaryOutputBudget(settings), scaled: [] };
  const scaled: ScaledSetting[] = [];
  let reserve = Math.min(settings.reserveTokens, Math.floor(window * RESERVE_SHARE));
  let why: ScaledSetting['why'] = 'share';
  let limit = compactionLimit(window, { ...settings, reserveTokens: reserve });
  const room = Math.floor(limit * AFTER_SHARE_OF_LIMIT);
  // A threshold far below window − reserve: the summary alone must leave room too.
  if (summaryOutputBudget({ reserveTokens: reserve }) > room / 2) {
    const fitting = Math.floor(room / 2 / 0.8);
    if (fitting < reserve) {
      reserve = fitting;
      why = 'room';
      limit = compactionLimit(window, { ...settings, reserveTokens: reserve });
    }
  }
  if (reserve < settings.reserveTokens) scaled.push({ field: 'reserveTokens', set: settings.reserveTokens, used: reserve, window, why });
  const summaryBudget = summaryOutputBudget({ reserveTokens: reserve });
  const byShare = Math.floor(window * KEEP_SHARE);
  const byRoom = Math.max(0, Math.floor(limit * AFTER_SHARE_OF_LIMIT) - summaryBudget);
  const keepCap = Math.min(byShare, byRoom);
  const keep = Math.min(settings.keepRecentTokens, keepCap);
  const keepWhy: ScaledSetting['why'] = byRoom < byShare ? 'room' : 'share';
  if (keep < settings.keepRecentTokens) scaled.push({ field: 'keepRecentTokens', set: settings.keepRecentTokens, used: keep, window, why: keepWhy });
  const out: CompactionSettings = { ...settings, reserveTokens: reserve, keepRecentTokens: keep };
  const protect = settings.maskProtectTokens;
  if (protect !== undefined && protect > keepCap) {
    out.maskProtectTokens = keepCap;
    if (settings.maskToolOutput) scaled.push({ field: 'maskProtectTokens', set: protect, used: keepCap, window, why: keepWhy });
  }
  return { settings: out, limit, summaryBudget, scaled };
}

/** The settings as they work for this window (see windowBudget). */
export function settingsForWindow(settings: CompactionSettings, window: number | undefined): CompactionSettings {
  return windowBudget(settings, window).settings;
}

const FIELD_NAME: Record<ScaledSetting['field'], string> = {
  reserveTokens: 'Reserve',
  keepRecentTokens: 'Keep recent',
  maskProtectTokens: 'Protected recent tokens',
};

const SHARE_WORDS: Record<ScaledSetting['field'], string> = {
  reserveTokens: 'a quarter',
  keepRecentTokens: 'a fifth',
  maskProtectTokens: 'a fifth',
};

/** One sentence for a scaled setting: "Reserve 16,384 is more than a quarter of this model's 8,192-token window: 2,048 is used." */
export function scaledSettingText(s: ScaledSetting): string {
  const head = `${FIELD_NAME[s.field]} ${formatCount(s.set)}`;
  const used = `${formatCount(s.used)} is used.`;
  if (s.why === 'share') return `${head} is more than ${SHARE_WORDS[s.field]} of this model’s ${formatCount(s.window)}-token window: ${used}`;
  return `${head} would leave too little room after a compaction under the threshold in this model’s ${formatCount(s.window)}-token window: ${used}`;
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

/**
 * With review before apply, the context size past which a prepared summary
 * is applied without waiting for the user: the conversation may go on into
 * the reserve until half of it is left for the reply (never below the
 * compaction limit itself).
 */
export function reviewLimit(window: number, settings: Policy): number {
  const half = window - Math.floor(settings.reserveTokens / 2);
  return Math.max(compactionLimit(window, settings), half > 0 ? half : Math.floor((window * 3) / 4));
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
