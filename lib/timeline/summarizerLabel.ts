import type { SummarizerInfo } from '@/lib/session/types';

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
