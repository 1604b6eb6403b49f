import { splitFileFooter } from '@/lib/compaction/fileOps';

/**
 * A stored summary as a card shows it: the file lists of its footer become
 * the card's file lists (shown as lists, not as tags). A model's scratchpad
 * never reaches storage (removed when the summary is made), and the text
 * itself is shown as stored: a summary may quote a tag from the conversation.
 */
export function summaryForDisplay(summary: string, details: { readFiles: readonly string[]; modifiedFiles: readonly string[] }): { text: string; readFiles: string[]; modifiedFiles: string[] } {
  const split = splitFileFooter(summary);
  const merge = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];
  return { text: split.body, readFiles: merge(details.readFiles, split.readFiles), modifiedFiles: merge(details.modifiedFiles, split.modifiedFiles) };
}
