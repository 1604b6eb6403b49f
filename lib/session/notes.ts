import type { SessionEntry } from './types';

/**
 * The one line the conversation shows for an entry that is not a message or a
 * summary: a model change, a summary revision, or a record from an imported
 * file that the model never sees (a `custom` entry: Claude Code's command
 * notes, Codex's injected context, a CLI's notices…). Empty when there is
 * nothing to show.
 */
export function noteText(entry: SessionEntry): string {
  switch (entry.type) {
    case 'model_change':
      return `Model changed to ${entry.model}`;
    case 'custom':
      return entry.display?.trim() || `[${entry.customType}]`;
    case 'summary_revision':
      return { undo: 'Compaction undone — full history is back in context', redo: 'Compaction restored', regenerate: 'Summary regenerated', edit: 'Summary edited' }[entry.action];
    default:
      return '';
  }
}
