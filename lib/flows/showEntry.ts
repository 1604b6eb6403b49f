import type { EntryId } from '@/lib/session/types';
import { moveLeaf } from './branch';
import type { SessionHandle } from './session';

/**
 * Brings an entry into the conversation on screen (a search result opened):
 * when it is on another branch than the one shown, the session moves to the
 * newest leaf below it, as switching to a sibling branch does. Resolves with
 * whether the entry exists (it may have been deleted since it was found).
 */
export async function showEntry(s: SessionHandle, entryId: EntryId): Promise<boolean> {
  const { tree, leafId } = s.live.getSnapshot();
  if (!tree.has(entryId)) return false;
  const onPath = leafId !== null && (leafId === entryId || tree.isAncestor(entryId, leafId));
  if (!onPath) await moveLeaf(s, tree.newestLeafUnder(entryId));
  return true;
}
