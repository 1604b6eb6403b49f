import type { SessionEntry } from './types';

/**
 * The one line the conversation shows for an entry that is not a message or a
 * summary: a model change, a summary revision, or a record from an imported
 * file that the model never sees (a `custom` entry: Claude Code's command
 * notes, Codex's injected context, a CLI's notices…). Empty when there is
 * nothing to show.
 */
export function noteText(entry: SessionEntry, target?: SessionEntry): string {
  switch (entry.type) {
    case 'tool_mask':
      // The token figures are on the mask's Timeline card; the note only says what happened.
      return `Old tool output masked in the model's context: ${entry.maskedIds.length} result${entry.maskedIds.length === 1 ? '' : 's'} shown as one-line stubs (originals kept)`;
    case 'model_change':
      return `Model changed to ${entry.model}`;
    case 'custom':
      return entry.display?.trim() || `[${entry.customType}]`;
    case 'summary_revision':
      // A revision may also undo or redo a tool mask (the entry it targets says which).
      if (target?.type === 'tool_mask') return entry.action === 'undo' ? 'Masking undone — the full tool output is back in context' : entry.action === 'redo' ? 'Masking restored' : '';
      return { undo: 'Compaction undone — full history is back in context', redo: 'Compaction restored', regenerate: 'Summary regenerated', edit: 'Summary edited' }[entry.action];
    default:
      return '';
  }
}
