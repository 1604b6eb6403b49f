import { newId } from '@/lib/session/ids';
import { getDB, type AppDB } from './db';
import { guarded } from './errors';
import type { FolderRow } from './schema';
import { observe, type Unsubscribe } from './watch';

/**
 * Folders the user picked to keep current (File System Access API): the
 * handle, which IndexedDB stores as it is so the next visit can ask for the
 * same folder again, and what each file was when it was last read. Local to
 * this browser: a handle means nothing on another device, so folders are
 * neither exported nor synced.
 */

export type { FolderRow };

export async function listFolders(db: AppDB = getDB()): Promise<FolderRow[]> {
  return (await db.folders.toArray()).sort((a, b) => a.addedAt - b.addedAt);
}

export async function addFolder(name: string, handle: unknown, now = Date.now(), db: AppDB = getDB()): Promise<FolderRow> {
  const row: FolderRow = { id: newId(), name, handle, addedAt: now, seen: {} };
  await guarded(() => db.folders.add(row));
  return row;
}

export async function updateFolder(id: string, patch: Partial<Pick<FolderRow, 'name' | 'checkedAt' | 'onFocus' | 'seen'>>, db: AppDB = getDB()): Promise<void> {
  await guarded(() => db.folders.update(id, patch));
}

export async function removeFolder(id: string, db: AppDB = getDB()): Promise<void> {
  await guarded(() => db.folders.delete(id));
}

/** The kept folders (without their handles and file lists), again after every change. */
export function watchFolders(onRows: (rows: { id: string; name: string; checkedAt?: number; onFocus?: boolean }[]) => void, db?: AppDB): Unsubscribe {
  const d = db ?? getDB();
  // A handful of rows in their own table: a live query over all of them is cheap.
  return observe(
    async () => (await listFolders(d)).map(({ id, name, checkedAt, onFocus }) => ({ id, name, ...(checkedAt !== undefined ? { checkedAt } : {}), ...(onFocus ? { onFocus } : {}) })),
    onRows,
  );
}
