import { splitFileFooter } from '@/lib/compaction/fileOps';
import { cleanModelSummary } from '@/lib/compaction/modelOutput';

/**
 * A stored summary as a card shows it: the file lists of its footer become
 * the card's file lists (shown as lists, not as tags), and the framing a
 * model or an older version may have left in the text (a scratchpad, the
 * <summary> wrapper) is not shown. The stored text is unchanged; this is
 * only what is read.
 */
export function summaryForDisplay(summary: string, details: { readFiles: readonly string[]; modifiedFiles: readonly string[] }): { text: string; readFiles: string[]; modifiedFiles: string[] } {
  const split = splitFileFooter(summary);
  const merge = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];
  return { text: cleanModelSummary(split.body), readFiles: merge(details.readFiles, split.readFiles), modifiedFiles: merge(details.modifiedFiles, split.modifiedFiles) };
}
