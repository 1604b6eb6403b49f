import { FLAW_TEXT } from '@/lib/compaction/summaryCheck';
import type { SummarizerInfo, SummaryFallback } from '@/lib/session/types';

/** Who wrote a summary, in a few words: the model, "extractive, no model", a hook, or the tool it was imported from. */
export function summarizerLabel(s: SummarizerInfo): string {
  switch (s.kind) {
    case 'model':
      return s.model;
    case 'extractive':
      return 'extractive, no model';
    case 'hook':
      return `hook: ${s.name}`;
    case 'imported':
      return `imported from ${s.source}`;
  }
}

/** Why an extractive summary stands where a model summary was asked for: it was rejected, and for what. */
export function fallbackNote(f: SummaryFallback): string {
  return `model summary rejected: ${FLAW_TEXT[f.reason]} (${f.model}, ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}); the extractive summary stands in`;
}
