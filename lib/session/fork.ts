import { newId } from './ids';
import { SessionTree } from './tree';
import type { EntryId, SessionEntry, SessionMeta, SessionSnapshot } from './types';

/**
 * A new session holding the path from the root to `atId`: the same entries
 * with the same ids and parents, so labels, compactions (firstKeptEntryId) and
 * summary revisions on the path keep pointing at the right entries. Labels
 * whose target is off the path are dropped.
 */
export function forkSession(meta: SessionMeta, entries: Iterable<SessionEntry>, atId: EntryId, now = Date.now()): SessionSnapshot {
  const tree = entries instanceof SessionTree ? entries : new SessionTree(entries);
  const path = tree.pathTo(atId);
  if (path.length === 0) throw new Error(`Cannot fork: entry ${atId} is not in this session`);
  const onPath = new Set(path.map((e) => e.id));
  const kept = path.filter((e) => e.type !== 'label' || onPath.has(e.targetId));
  // Dropping a label re-links its child to the label's parent, keeping the chain whole.
  const relinked: SessionEntry[] = [];
  let parent: EntryId | null = null;
  for (const e of kept) {
    relinked.push(e.parentId === parent ? e : { ...e, parentId: parent });
    parent = e.id;
  }
  const { source: _source, ...rest } = meta;
  return {
    meta: { ...rest, id: newId(), title: `Fork of ${meta.title}`, createdAt: now, updatedAt: now, leafId: parent },
    entries: relinked,
  };
}
