import { buildSessionContext } from '@/lib/session/context';
import { mediaParts } from './entryText';
import { mediaTokens, type ImageFormula } from './mediaTokens';
import type { ContextFigure, PathTokenIndex } from './pathIndex';

/** Where the context's tokens go, like Claude Code's /context. Counted (calibrated), not provider-reported. */
export interface ContextBreakdown {
  /** The system prompt and the request's framing (with the calibration's fixed offset). */
  system: number;
  summaries: number;
  messages: number;
  toolResults: number;
  attachments: number;
  total: number;
  window?: number;
  free?: number;
  approximate: boolean;
  /** The meter's figure at the same moment (it may rest on a provider's report: see meterVsBreakdown). */
  meter: ContextFigure;
}

/**
 * Splits the context at the index's leaf by kind. Each entry's count comes
 * from the path index (so it matches the meter); images and files inside a
 * message are moved to "attachments" by their provider formula.
 */
export function contextBreakdown(index: PathTokenIndex, opts: { imageFormula: ImageFormula; contextWindow?: number }): ContextBreakdown {
  const entries = index.entries();
  const counts = index.pathTokens().counts;
  const { factor, approximate } = index.calibration;
  const ctx = buildSessionContext(entries, entries.at(-1)?.id ?? null);
  const out: ContextBreakdown = { system: 0, summaries: 0, messages: 0, toolResults: 0, attachments: 0, total: 0, approximate, meter: index.figure(opts.contextWindow) };
  for (const item of ctx.items) {
    const i = index.indexOf(item.entryId);
    const count = i >= 0 ? counts[i]! : 0;
    if (item.kind !== 'message') {
      out.summaries += count;
      continue;
    }
    const media = Math.min(count, Math.round(mediaTokens(mediaParts(entries[i]!), opts.imageFormula) * factor));
    out.attachments += media;
    if (item.message.role === 'toolResult') out.toolResults += count - media;
    else out.messages += count - media;
  }
  for (const k of ['summaries', 'messages', 'toolResults', 'attachments'] as const) out[k] = Math.round(out[k]);
  // The total is the index's counted figure, the meter's own when no provider report anchors it; the
  // request row takes the rest (its framing, the calibration's offset and the rounding of the rows above).
  out.total = index.countedTokens();
  const rest = out.total - out.summaries - out.messages - out.toolResults - out.attachments;
  out.system = Math.max(0, rest);
  if (rest < 0) {
    // A negative offset (the provider counts less per request than we do) comes off the largest row, so the rows still add up.
    const largest = (['messages', 'toolResults', 'summaries', 'attachments'] as const).reduce((a, k) => (out[k] > out[a] ? k : a));
    out[largest] = Math.max(0, out[largest] + rest);
  }
  if (opts.contextWindow) {
    out.window = opts.contextWindow;
    out.free = Math.max(0, opts.contextWindow - out.total);
  }
  return out;
}
