import type { PendingSummary } from '@/lib/compaction/pending';
import { getDB, type AppDB } from './db';
import { guarded } from './errors';
import { observeRows, type Unsubscribe } from './watch';

/**
 * Summaries waiting for the user (review before apply), one per session.
 * Every change is one transaction, so two tabs never both apply or both
 * store one: storing keeps a draft already there, and taking one removes it
 * only if it is still the one named.
 */

export async function getPendingSummary(sessionId: string, db: AppDB = getDB()): Promise<PendingSummary | undefined> {
  return guarded(() => db.pendingSummaries.get(sessionId));
}

/** Stores the draft unless the session has one already; resolves with the one stored. */
export async function offerPendingSummary(p: PendingSummary, db: AppDB = getDB()): Promise<PendingSummary> {
  return guarded(() =>
    db.transaction('rw', db.pendingSummaries, async () => {
      const there = await db.pendingSummaries.get(p.sessionId);
      if (there) return there;
      await db.pendingSummaries.put(p);
      return p;
    }),
  );
}

/** Changes the draft's text if it is still the one named; resolves with whether it was. */
export async function updatePendingSummary(sessionId: string, id: string, patch: Pick<PendingSummary, 'entry' | 'edited'>, db: AppDB = getDB()): Promise<boolean> {
  return guarded(() =>
    db.transaction('rw', db.pendingSummaries, async () => {
      const there = await db.pendingSummaries.get(sessionId);
      if (there?.entry.id !== id) return false;
      await db.pendingSummaries.put({ ...there, ...patch, entry: { ...patch.entry, id } });
      return true;
    }),
  );
}

/** Removes the draft if it is still the one named (any, without `id`); resolves with it, so exactly one caller gets it. */
export async function takePendingSummary(sessionId: string, id?: string, db: AppDB = getDB()): Promise<PendingSummary | undefined> {
  return guarded(() =>
    db.transaction('rw', db.pendingSummaries, async () => {
      const there = await db.pendingSummaries.get(sessionId);
      if (!there || (id !== undefined && there.entry.id !== id)) return undefined;
      await db.pendingSummaries.delete(sessionId);
      return there;
    }),
  );
}

/** The session's draft now and after every change to it, in any tab. */
export function watchPendingSummary(sessionId: string, onValue: (p: PendingSummary | undefined) => void, onError: (err: unknown) => void, db: AppDB = getDB()): Unsubscribe {
  return observeRows(db, [{ table: db.pendingSummaries, keys: [sessionId] }], () => db.pendingSummaries.get(sessionId), onValue, onError);
}
