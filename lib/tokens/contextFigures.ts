import { formatCount, formatCountShort } from '@/lib/format/numbers';
import type { ContextBreakdown } from './breakdown';
import type { ContextFigure } from './pathIndex';

/**
 * The context figures the UI shows, each computed here from the worker's
 * state so two places never disagree without saying why: the meter, the
 * Timeline's breakdown (counted, by kind) and how the two relate when the
 * meter rests on a provider's report.
 */

export type FigureSource = 'reported' | 'counted';

/** How a figure was obtained, in the words the UI uses. */
export function sourceLabel(figure: Pick<ContextFigure, 'source'>): string {
  return figure.source === 'usage+estimate' ? 'reported by the provider' : 'counted';
}

export interface MeterReading {
  tokens: number;
  source: FigureSource;
  /** Full sentence for assistive technology: figure, window, share and source. */
  text: string;
  /** What the bar shows: "≈ 36.2k / 200k". */
  short: string;
  /** Tooltip: how the figure was obtained and where auto-compaction starts. */
  title: string;
  /** Share of the window, 0–100. */
  percent: number;
}

export function meterReading(figure: ContextFigure | null, window: number | undefined, limit?: number): MeterReading | null {
  if (!figure) return null;
  const tokens = Math.max(0, Math.round(figure.tokens));
  const max = window ?? 0;
  const percent = max > 0 ? Math.min(100, (tokens / max) * 100) : 0;
  const approx = figure.approximate ? '≈ ' : '';
  const source = figure.source === 'usage+estimate' ? 'reported' : 'counted';
  const label = sourceLabel(figure);
  const text = `${approx}${formatCount(tokens)}${max > 0 ? ` of ${formatCount(max)}` : ''} tokens${max > 0 ? ` (${percent.toFixed(0)}%)` : ''}, ${label}`;
  const how =
    figure.source === 'usage+estimate'
      ? `the provider's report for the last reply${figure.estimatedTokens > 0 ? ', plus counts of what came after' : ''}`
      : 'counted here';
  return {
    tokens,
    source,
    text,
    short: `${approx}${formatCountShort(tokens)}${max > 0 ? ` / ${formatCountShort(max)}` : ''}`,
    title: `${text}: ${how}${limit ? `; auto-compaction above ${formatCount(limit)}` : ''}`,
    percent,
  };
}

export interface MeterVsBreakdown {
  /** The breakdown's total: counted here. */
  counted: number;
  /** What the meter shows for the same state. */
  meter: number;
  meterSource: FigureSource;
  /** meter − counted. */
  difference: number;
  /** Why the meter shows another number; null when both show the same. */
  note: string | null;
}

/**
 * The breakdown is always counted (it splits the context by kind, which a
 * provider's report cannot). When the meter rests on a report, the two can
 * differ: a transcript imported from another app (Claude Code, Codex) was
 * measured with that app's own system prompt and tool definitions, which are
 * not in this session. Said in the breakdown, with both numbers.
 */
export function meterVsBreakdown(b: ContextBreakdown): MeterVsBreakdown {
  const meter = Math.max(0, Math.round(b.meter.tokens));
  const difference = meter - b.total;
  const meterSource: FigureSource = b.meter.source === 'usage+estimate' ? 'reported' : 'counted';
  if (difference === 0) return { counted: b.total, meter, meterSource, difference, note: null };
  const since = b.meter.estimatedTokens > 0 ? ` plus ${formatCount(b.meter.estimatedTokens)} counted since` : '';
  const note =
    meterSource === 'reported'
      ? `The meter shows ${formatCount(meter)} tokens, reported by the provider for the last reply${since}: ${formatCount(Math.abs(difference))} ${difference > 0 ? 'more' : 'fewer'} than counted here. The provider also counts what the app that sent that request added (its own system prompt and tool definitions) and uses its own tokenizer.`
      : `The meter shows ${formatCount(meter)} tokens, counted a moment earlier or later than this breakdown.`;
  return { counted: b.total, meter, meterSource, difference, note };
}
