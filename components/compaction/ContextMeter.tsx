'use client';

import './compaction.css';
import { formatCount, formatCountShort } from '@/lib/format/numbers';
import type { ContextFigure } from '@/lib/tokens/pathIndex';

/**
 * Tokens in context against the model's window. "≈" while the count is an
 * estimate for a model without a public tokenizer that is not yet calibrated
 * from the provider's reported usage.
 */
export function ContextMeter({ figure, window, limit }: { figure: ContextFigure | null; window: number | undefined; limit?: number }) {
  const tokens = figure ? Math.round(figure.tokens) : 0;
  const max = window ?? 0;
  const pct = max > 0 ? Math.min(100, (tokens / max) * 100) : 0;
  const approx = figure?.approximate ? '≈ ' : '';
  const text = figure
    ? max > 0
      ? `${approx}${formatCount(tokens)} of ${formatCount(max)} tokens (${pct.toFixed(0)}%)`
      : `${approx}${formatCount(tokens)} tokens`
    : 'counting…';
  const level = limit && tokens > limit ? 'full' : pct > 70 ? 'warn' : '';
  const how = figure?.source === 'usage+estimate' ? 'last reported usage plus counts of what came after' : 'counted';
  return (
    <div
      className="meter"
      role="meter"
      aria-label="Context"
      aria-valuemin={0}
      aria-valuemax={max || undefined}
      aria-valuenow={figure ? tokens : undefined}
      aria-valuetext={text}
      title={`${text}; ${how}${limit ? `; auto-compaction above ${formatCount(limit)}` : ''}`}
    >
      {max > 0 && (
        <span className="meter-bar" aria-hidden="true">
          <span className={`meter-fill ${level}`} style={{ width: `${pct}%`, display: 'block' }} />
        </span>
      )}
      <span aria-hidden="true">
        {figure ? `${approx}${formatCountShort(tokens)}${max > 0 ? ` / ${formatCountShort(max)}` : ''}` : '…'}
      </span>
    </div>
  );
}
