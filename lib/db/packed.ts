import { Dexie } from 'dexie';
import type { SessionEntry } from '@/lib/session/types';
import type { AppDB } from './db';
import { entryRow, toDomainEntry } from './rows';
import type { PackedRow, StoredEntry } from './schema';
import { entriesNeedMarks } from './syncMarks';

/**
 * Imported sessions' entries, packed: a session written by a file import is
 * stored as a few rows of many entries each (`packedEntries`), not one row per
 * entry. In Chromium every row written costs the browser process about as much
 * as its indexes and key do, whatever its size: writing a 100 MB ChatGPT export
 * as 50,672 entry rows took 8–10 s of its CPU, as 2,469 packed rows 1.1–1.4 s
 * (docs/benchmarks.md). The import is the only writer of packed rows.
 *
 * One rule, applied by every function of lib/db that touches entries: a
 * session's entries are its packed entries (all written by its import, before
 * the session was visible), in order, followed by its entry rows by `seq`
 * (everything written since).
 * - Reads read both places (`readSessionEntries` and its kin).
 * - New entries (appends, entries from another device) are rows, so they
 *   follow the packed ones: the order holds without touching the packed rows.
 * - Rewriting an existing entry (a reply still streaming, token caches) and
 *   marking entries for sync, which records each entry as pushed, take rows:
 *   the session is unpacked first, in the same transaction (`unpackSession`).
 * - Deleting a session deletes both (`deleteSessionEntries`).
 * So reading and continuing an imported conversation never rewrites it; the
 * first token caches of an opened one do, once. No flag on the session row
 * says a session is packed: an import's sessions have no row until it
 * commits, and the packed store's own key answers as fast as a flag would.
 */

/** Entries per packed row: a conversation of any length is written, read and unpacked in bounded pieces. */
export const PACKED_PART_ENTRIES = 1_000;

/** Rows queued per request when a session is unpacked. */
const UNPACK_CHUNK = 500;

/** The packed rows of one session's entries (domain fields only, as `entryRow` keeps them). */
export function packedRows(sessionId: string, entries: readonly SessionEntry[], rev: number): PackedRow[] {
  const rows: PackedRow[] = [];
  for (let i = 0, part = 0; i < entries.length; i += PACKED_PART_ENTRIES, part++) {
    rows.push({ sessionId, part, rev, entries: entries.slice(i, i + PACKED_PART_ENTRIES) });
  }
  return rows;
}

const ofSession = (db: AppDB, sessionId: string) => db.packedEntries.where('[sessionId+part]').between([sessionId, Dexie.minKey], [sessionId, Dexie.maxKey]);
const rowsOfSession = (db: AppDB, sessionId: string) => db.entries.where('[sessionId+seq]').between([sessionId, Dexie.minKey], [sessionId, Dexie.maxKey]);

/** A session's packed rows, in order (none once it is unpacked). */
export function readPacked(db: AppDB, sessionId: string): Promise<PackedRow[]> {
  return ofSession(db, sessionId).toArray();
}

/** Every entry of a session, in stored order, from wherever it is. Call inside a transaction over both stores. */
export async function readSessionEntries(db: AppDB, sessionId: string): Promise<SessionEntry[]> {
  const packed = await readPacked(db, sessionId);
  const rows = await rowsOfSession(db, sessionId).toArray();
  return [...packed.flatMap((p) => p.entries), ...rows.map(toDomainEntry)];
}

/** Entries written after revision `rev`, oldest write first (see sessions.ts entriesChangedSince). Inside a transaction over both stores. */
export async function readEntriesChangedSince(db: AppDB, sessionId: string, rev: number): Promise<{ entries: SessionEntry[]; rev: number }> {
  const packed = (await readPacked(db, sessionId)).filter((p) => p.rev > rev);
  const changed = await db.entries.where('[sessionId+rev]').between([sessionId, rev + 1], [sessionId, Dexie.maxKey]).toArray();
  changed.sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
  const newest = [...packed, ...changed].reduce((m, x) => Math.max(m, x.rev), rev);
  return { entries: [...packed.flatMap((p) => p.entries), ...changed.map(toDomainEntry)], rev: newest };
}

/** The named entries of a session that exist, in no particular order. Inside a transaction over both stores. */
export async function readNamedEntries(db: AppDB, sessionId: string, ids: readonly string[]): Promise<SessionEntry[]> {
  const rows = (await db.entries.where('[sessionId+id]').anyOf(ids.map((id) => [sessionId, id])).toArray()).map(toDomainEntry);
  const packed = await readPacked(db, sessionId);
  if (packed.length === 0) return rows;
  const wanted = new Set(ids);
  return [...rows, ...packed.flatMap((p) => p.entries.filter((e) => wanted.has(e.id)))];
}

/** Whether the session holds the entry. Inside a transaction over both stores. */
export async function hasEntry(db: AppDB, sessionId: string, entryId: string): Promise<boolean> {
  if ((await db.entries.where('[sessionId+id]').equals([sessionId, entryId]).count()) > 0) return true;
  return (await readPacked(db, sessionId)).some((p) => p.entries.some((e) => e.id === entryId));
}

/**
 * Turns a packed session into entry rows only, in the same order: its packed
 * entries, then the rows written since, which are written again after them
 * (with new keys, their revisions and marks kept). The packed entries keep
 * their revision: unpacking changes no content, so no tab re-reads them. Must
 * run inside the caller's write transaction, with `packedEntries`, the entries
 * store and `syncState` in its scope: the unpacked entries are marked for sync
 * when this browser is in a sync space or joining one (syncMarks.ts), as the
 * import would have marked them. Does nothing to a session that is not packed.
 * Resolves with the number of entries unpacked.
 */
export async function unpackSession(db: AppDB, sessionId: string): Promise<number> {
  const packed = await readPacked(db, sessionId);
  if (packed.length === 0) return 0;
  const mark = await entriesNeedMarks(db);
  const rows: StoredEntry[] = [];
  for (const p of packed) {
    for (const e of p.entries) {
      const row = entryRow(e, sessionId, p.rev);
      if (mark) row.unsynced = 1;
      rows.push(row);
    }
  }
  const since = await rowsOfSession(db, sessionId).toArray();
  if (since.length > 0) await db.entries.bulkDelete(since.map((r) => r.seq!));
  const all = [...rows, ...since.map(({ seq: _old, ...row }) => row)];
  // In bounded pieces, one after the other in the same transaction: each row is serialised on the
  // calling thread when it is queued, and this runs on the page (the first token caches of an opened
  // session), where 10,000 rows queued at once would be one long task.
  for (let i = 0; i < all.length; i += UNPACK_CHUNK) await db.entries.bulkAdd(all.slice(i, i + UNPACK_CHUNK));
  await ofSession(db, sessionId).delete();
  return rows.length;
}

/** Deletes every entry of a session, packed or not. Inside a transaction over both stores. */
export async function deleteSessionEntries(db: AppDB, sessionId: string): Promise<void> {
  await rowsOfSession(db, sessionId).delete();
  await ofSession(db, sessionId).delete();
}

/** Entries stored in the whole database, packed or not (what benchmarks and tests count). */
export async function countStoredEntries(db: AppDB): Promise<number> {
  let packed = 0;
  await db.packedEntries.each((p) => (packed += p.entries.length));
  return packed + (await db.entries.count());
}
