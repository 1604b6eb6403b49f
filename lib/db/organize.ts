import { applyOrganize, projectOf, type OrganizeChange } from '@/lib/session/organize';
import type { SessionSnapshot } from '@/lib/session/types';
import { getDB, type AppDB } from './db';
import { guarded } from './errors';
import { deleteSessionEntries } from './packed';
import type { SessionRow } from './schema';
import { nextRev, exportSnapshot, type Tx } from './sessions';
import { nextLocalHlc } from './syncMarks';

/**
 * Organising many sessions at once (the list's bulk actions): one transaction
 * for all of them. Organising is metadata, so it takes a clock and syncs
 * last-writer-wins like a rename; it is not use, so it leaves `updatedAt`
 * (the list's order and its date groups) as it was.
 */

const ORGANIZED = ['project', 'tags', 'archived', 'pinned'] as const;

/** Applies `change` to the sessions; resolves with how many changed (the others are not written). */
export async function organizeSessions(ids: readonly string[], change: OrganizeChange, db: AppDB = getDB()): Promise<number> {
  if (ids.length === 0) return 0;
  return guarded(() =>
    db.transaction('rw', [db.sessions, db.meta, db.syncState], async (tx) => {
      const rows = (await db.sessions.bulkGet([...ids])).filter((r): r is SessionRow => r !== undefined);
      const changed: SessionRow[] = [];
      let rev: number | undefined;
      for (const row of rows) {
        const next = applyOrganize(row, change);
        if (!next) continue;
        rev ??= await nextRev(tx as Tx);
        const out: SessionRow = { ...row };
        for (const k of ORGANIZED) delete out[k];
        changed.push({ ...out, ...next, rev, hlc: await nextLocalHlc(db), syncDirty: 1 });
      }
      await db.sessions.bulkPut(changed);
      return changed.length;
    }),
  );
}

/** Moves every session of project `from` to `to` (the project renamed); resolves with how many moved. */
export async function renameProject(from: string, to: string, db: AppDB = getDB()): Promise<number> {
  const ids = (await db.sessions.toArray()).filter((r) => projectOf(r) === from).map((r) => r.id);
  return organizeSessions(ids, { project: to }, db);
}

/** Deletes the sessions and their entries in one transaction, each leaving a tombstone for sync (as deleteSession does). */
export async function deleteSessions(ids: readonly string[], db: AppDB = getDB()): Promise<number> {
  return guarded(() =>
    db.transaction('rw', [db.sessions, db.entries, db.packedEntries, db.tombstones, db.syncState], async () => {
      let n = 0;
      for (const id of ids) {
        if (!(await db.sessions.get(id))) continue;
        await deleteSessionEntries(db, id);
        await db.sessions.delete(id);
        await db.tombstones.put({ sessionId: id, hlc: await nextLocalHlc(db), unsynced: 1 });
        n++;
      }
      return n;
    }),
  );
}

/** The named sessions whole, in the order given (those that exist). */
export async function exportSnapshots(ids: readonly string[], db: AppDB = getDB()): Promise<SessionSnapshot[]> {
  const out: SessionSnapshot[] = [];
  for (const id of ids) {
    const s = await exportSnapshot(id, db);
    if (s) out.push(s);
  }
  return out;
}
