import { buildSessionContext } from '@/lib/session/context';
import { mediaParts } from './entryText';
import { mediaTokens, type ImageFormula } from './mediaTokens';
import type { PathTokenIndex } from './pathIndex';

/** Where the context's tokens go, like Claude Code's /context. Counted (calibrated), not provider-reported. */
export interface ContextBreakdown {
  system: number;
  summaries: number;
  messages: number;
  toolResults: number;
  attachments: number;
  total: number;
  window?: number;
  free?: number;
  approximate: boolean;
}

/**
 * Splits the context at the index's leaf by kind. Each entry's count comes
 * from the path index (so it matches the meter); images and files inside a
 * message are moved to "attachments" by their provider formula.
 */
export function contextBreakdown(index: PathTokenIndex, opts: { requestTokens: number; imageFormula: ImageFormula; contextWindow?: number }): ContextBreakdown {
  const entries = index.entries();
  const counts = index.pathTokens().counts;
  const { factor, approximate } = index.calibration;
  const ctx = buildSessionContext(entries, entries.at(-1)?.id ?? null);
  const out: ContextBreakdown = { system: Math.round(opts.requestTokens * factor), summaries: 0, messages: 0, toolResults: 0, attachments: 0, total: 0, approximate };
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
  out.total = out.system + out.summaries + out.messages + out.toolResults + out.attachments;
  if (opts.contextWindow) {
    out.window = opts.contextWindow;
    out.free = Math.max(0, opts.contextWindow - out.total);
  }
  return out;
}
