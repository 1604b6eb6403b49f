'use client';

import './compaction.css';
import { meterReading } from '@/lib/tokens/contextFigures';
import type { ContextFigure } from '@/lib/tokens/pathIndex';

/**
 * Tokens in context against the model's window. "≈" while the count is an
 * estimate for a model without a public tokenizer that is not yet calibrated
 * from the provider's reported usage. Its words (and whether the figure was
 * reported or counted) come from lib/tokens/contextFigures, as the Timeline's do.
 */
export function ContextMeter({ figure, window, limit, notes = [] }: { figure: ContextFigure | null; window: number | undefined; limit?: number; notes?: readonly string[] }) {
  const reading = meterReading(figure, window, limit);
  // What the window scaled down in the settings explains the limit the tooltip names.
  const title = [reading ? `${reading.title}.` : 'counting…', ...notes].join(' ');
  const max = window ?? 0;
  const level = reading && limit && reading.tokens > limit ? 'full' : reading && reading.percent > 70 ? 'warn' : '';
  return (
    <div
      className="meter"
      role="meter"
      aria-label="Context"
      aria-valuemin={0}
      aria-valuemax={max || undefined}
      aria-valuenow={reading ? reading.tokens : undefined}
      aria-valuetext={reading ? reading.text : 'counting…'}
      title={title}
    >
      {max > 0 && (
        <span className="meter-bar" aria-hidden="true">
          <span className={`meter-fill ${level}`} style={{ width: `${reading?.percent ?? 0}%`, display: 'block' }} />
        </span>
      )}
      <span aria-hidden="true">{reading ? reading.short : '…'}</span>
    </div>
  );
}
