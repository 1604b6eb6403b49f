import type { EntryId, SessionEntry } from '@/lib/session/types';
import { isToolCallOnly } from './preview';

/**
 * Which entries the tree shows. Entries a filter hides are not cut out with
 * their subtree: their visible descendants hang from the nearest visible
 * ancestor (see flatten.ts), so the shape of the tree stays truthful.
 *
 * - default:  messages, compactions, branch summaries, model changes; hides the
 *             bookkeeping entries (labels, summary revisions, custom records).
 * - no-tools: default minus tool results and minus assistant messages that only
 *             call tools (no text of their own). A reply that says something and
 *             also calls a tool stays: it is part of the conversation.
 * - user:     user messages only: the prompts, which is how people find their way.
 * - labelled: only entries that carry a label.
 * - all:      everything, bookkeeping included.
 */
export type TreeFilter = 'default' | 'no-tools' | 'user' | 'labelled' | 'all';

export const TREE_FILTERS: readonly { id: TreeFilter; label: string }[] = [
  { id: 'default', label: 'Conversation' },
  { id: 'no-tools', label: 'No tool calls' },
  { id: 'user', label: 'User messages' },
  { id: 'labelled', label: 'Labelled' },
  { id: 'all', label: 'Everything' },
];

export function isTreeFilter(value: string): value is TreeFilter {
  return TREE_FILTERS.some((f) => f.id === value);
}

function isDefaultVisible(e: SessionEntry): boolean {
  return e.type === 'message' || e.type === 'compaction' || e.type === 'branch_summary' || e.type === 'model_change';
}

export function passesFilter(e: SessionEntry, filter: TreeFilter, labels: ReadonlyMap<EntryId, string>): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'default':
      return isDefaultVisible(e);
    case 'no-tools':
      if (e.type !== 'message') return isDefaultVisible(e);
      if (e.message.role === 'toolResult') return false;
      return e.message.role !== 'assistant' || !isToolCallOnly(e.message);
    case 'user':
      return e.type === 'message' && e.message.role === 'user';
    case 'labelled':
      return labels.has(e.id);
  }
}
