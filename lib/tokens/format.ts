import type { ContextFigure } from './pathIndex';

/** 950 → "950", 12_345 → "12.3k", 1_234_567 → "1.23M". */
export function formatTokens(n: number): string {
  const a = Math.abs(n);
  if (a < 1_000) return String(Math.round(n));
  if (a < 100_000) return `${(n / 1_000).toFixed(1).replace(/\.0$/, '')}k`;
  if (a < 1_000_000) return `${Math.round(n / 1_000)}k`;
  return `${(n / 1_000_000).toFixed(2).replace(/\.?0+$/, '')}M`;
}

/** "≈ 12.3k / 200k (6%)": the meter's text. "≈" marks an uncalibrated estimate. */
export function formatContextFigure(f: Pick<ContextFigure, 'tokens' | 'approximate' | 'window'>): string {
  const head = `${f.approximate ? '≈ ' : ''}${formatTokens(f.tokens)}`;
  if (!f.window) return head;
  return `${head} / ${formatTokens(f.window)} (${Math.round((100 * f.tokens) / f.window)}%)`;
}

/** Fraction of the window in use, clamped to [0, 1]; null without a window. */
export function contextFill(f: Pick<ContextFigure, 'tokens' | 'window'>): number | null {
  if (!f.window) return null;
  return Math.min(1, Math.max(0, f.tokens / f.window));
}
