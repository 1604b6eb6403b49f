import type { SessionTree } from '@/lib/session/tree';
import type { EntryId, SessionEntry } from '@/lib/session/types';

export interface CollectedBranch {
  /** Entries of the abandoned branch, oldest first: from just below the common ancestor down to the old leaf. */
  entries: SessionEntry[];
  /** Deepest entry shared by the old leaf and the target; null when they share no root. */
  commonAncestorId: EntryId | null;
  oldLeafId: EntryId;
  targetId: EntryId;
}

/**
 * What the user leaves behind when moving from `oldLeafId` to `targetId`:
 * the entries from the old leaf back to, not including, their common
 * ancestor. Moving to an ancestor of the old leaf abandons everything below
 * that ancestor; moving further down the same line abandons nothing.
 */
export function collectBranchEntries(tree: SessionTree, oldLeafId: EntryId, targetId: EntryId): CollectedBranch {
  if (!tree.has(oldLeafId)) throw new Error(`Unknown old leaf ${oldLeafId}`);
  if (!tree.has(targetId)) throw new Error(`Unknown target ${targetId}`);
  const commonAncestorId = tree.commonAncestor(oldLeafId, targetId);
  const entries: SessionEntry[] = [];
  const seen = new Set<EntryId>();
  let cur = tree.get(oldLeafId);
  while (cur && cur.id !== commonAncestorId) {
    if (seen.has(cur.id)) throw new Error(`Cycle in session tree at ${cur.id}`);
    seen.add(cur.id);
    entries.push(cur);
    cur = cur.parentId ? tree.get(cur.parentId) : undefined;
  }
  entries.reverse();
  return { entries, commonAncestorId, oldLeafId, targetId };
}
