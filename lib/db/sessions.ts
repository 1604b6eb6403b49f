import type { Transaction } from 'dexie';
import { newId } from '@/lib/session/ids';
import { chars4, countingInput } from '@/lib/tokens/entryText';
import type { EntryId, NewEntry, SessionEntry, SessionMeta, SessionSnapshot, TokenCache } from '@/lib/session/types';
import { sessionContentHash } from './contentHash';
import { getDB, type AppDB } from './db';
import { guarded, StorageError } from './errors';
import { deleteSessionEntries, hasEntry, readEntriesChangedSince, readNamedEntries, readSessionEntries, unpackSession } from './packed';
import { domainEntry, domainMeta, entryRow, sessionRow, toDomainEntry, type MetaFields } from './rows';
import type { SessionRow } from './schema';
import { nextLocalHlc, unsynced } from './syncMarks';

export type Tx = Transaction & { table: AppDB['table'] };

/** Next write revision; must run inside the write transaction so revisions are strictly increasing across tabs. */
export async function nextRev(tx: Tx): Promise<number> {
  const meta = tx.table('meta');
  const cur = (await meta.get('rev'))?.value ?? 0;
  const rev = cur + 1;
  await meta.put({ key: 'rev', value: rev });
  return rev;
}

export function toMeta(row: SessionRow): SessionMeta {
  const { entryCount: _c, rev: _r, titleLower: _t, hlc: _h, syncedHlc: _p, syncDirty: _d, ...meta } = row;
  return meta;
}

// ---------------------------------------------------------------- sessions

export async function createSession(init: Partial<SessionMeta> = {}, db: AppDB = getDB()): Promise<SessionRow> {
  return guarded(() =>
    db.transaction('rw', db.sessions, db.meta, db.syncState, async (tx) => {
      const now = Date.now();
      const { id = newId(), ...fields } = init;
      const meta = { createdAt: now, updatedAt: now, leafId: null, ...fields, title: init.title ?? 'New session' };
      const row: SessionRow = { ...sessionRow(meta, { id, entryCount: 0, rev: await nextRev(tx as Tx) }), hlc: await nextLocalHlc(db, now), syncDirty: 1 };
      await db.sessions.add(row);
      return row;
    }),
  );
}

export async function listSessions(search = '', db: AppDB = getDB()): Promise<SessionRow[]> {
  const q = search.trim().toLowerCase();
  const rows = await db.sessions.orderBy('updatedAt').reverse().toArray();
  return q ? rows.filter((r) => r.titleLower.includes(q)) : rows;
}

export async function getSession(id: string, db: AppDB = getDB()): Promise<SessionRow | undefined> {
  return db.sessions.get(id);
}

export async function updateSession(
  id: string,
  patch: Partial<Pick<SessionMeta, 'title' | 'model' | 'systemPrompt' | 'temperature' | 'maxOutputTokens' | 'compaction' | 'leafId'>>,
  db: AppDB = getDB(),
): Promise<void> {
  await guarded(() =>
    db.transaction('rw', [db.sessions, db.meta, db.entries, db.packedEntries, db.syncState], async (tx) => {
      const row = await db.sessions.get(id);
      if (!row) throw new StorageError('unknown', 'That session no longer exists (deleted in another tab?).');
      if (patch.leafId) {
        if (!(await hasEntry(db, id, patch.leafId))) throw new StorageError('unknown', 'Cannot move to an entry that does not exist in this session.');
      }
      const now = Date.now();
      const next: Partial<SessionRow> = { ...patch, rev: await nextRev(tx as Tx), updatedAt: now, hlc: await nextLocalHlc(db, now), syncDirty: 1 };
      if (patch.title !== undefined) next.titleLower = patch.title.toLowerCase();
      await db.sessions.update(id, next);
    }),
  );
}

export async function renameSession(id: string, title: string, db: AppDB = getDB()): Promise<void> {
  const clean = title.trim() || 'Untitled';
  await updateSession(id, { title: clean }, db);
}

/**
 * Renames the session only if its title is still `expected`, in one
 * transaction: an automatic title never overwrites one the user typed
 * meanwhile (in this tab or another). Resolves with whether it renamed.
 */
export async function retitleSession(id: string, expected: string, title: string, db: AppDB = getDB()): Promise<boolean> {
  const clean = title.trim();
  if (!clean) return false;
  return guarded(() =>
    db.transaction('rw', db.sessions, db.meta, async (tx) => {
      const row = await db.sessions.get(id);
      if (!row || row.title !== expected) return false;
      await db.sessions.update(id, { title: clean, titleLower: clean.toLowerCase(), rev: await nextRev(tx as Tx), updatedAt: Date.now() });
      return true;
    }),
  );
}

export async function setLeaf(id: string, leafId: EntryId | null, db: AppDB = getDB()): Promise<void> {
  await updateSession(id, { leafId }, db);
}

/**
 * Deletes the session and all its entries in one transaction, and leaves a
 * tombstone: the deletion travels to the other devices of a sync space and
 * wins over any older change to the session there.
 */
export async function deleteSession(id: string, db: AppDB = getDB()): Promise<void> {
  await guarded(() =>
    db.transaction('rw', [db.sessions, db.entries, db.packedEntries, db.tombstones, db.syncState, db.pendingSummaries], async () => {
      await deleteSessionEntries(db, id);
      await db.sessions.delete(id);
      await db.pendingSummaries.delete(id);
      await db.tombstones.put({ sessionId: id, hlc: await nextLocalHlc(db), unsynced: 1 });
    }),
  );
}

// ---------------------------------------------------------------- entries

export async function loadSession(id: string, db: AppDB = getDB()): Promise<{ row: SessionRow; entries: SessionEntry[] } | null> {
  return guarded(() =>
    db.transaction('r', db.sessions, db.entries, db.packedEntries, async () => {
      const row = await db.sessions.get(id);
      if (!row) return null;
      return { row, entries: await readSessionEntries(db, id) };
    }),
  );
}

/**
 * Entries of a session written (added or updated) after revision `rev`, for
 * live sync between tabs: parents before children (insertion order), and the
 * newest revision among them.
 */
export async function entriesChangedSince(id: string, rev: number, db: AppDB = getDB()): Promise<{ entries: SessionEntry[]; rev: number }> {
  // One transaction: an unpack between reading the packed rows and the entry rows would show its entries twice or not at all.
  return db.transaction('r', db.entries, db.packedEntries, () => readEntriesChangedSince(db, id, rev));
}

/** The named entries of a session, those that exist, in no particular order. */
export async function getEntries(sessionId: string, ids: readonly EntryId[], db: AppDB = getDB()): Promise<SessionEntry[]> {
  if (ids.length === 0) return [];
  return db.transaction('r', db.entries, db.packedEntries, () => readNamedEntries(db, sessionId, ids));
}

export interface AppendOptions {
  /** Move the session's leaf to the last appended entry (default true). */
  moveLeaf?: boolean;
}

/**
 * Appends entries as a chain under `parentId` in one transaction and returns
 * them with ids and timestamps. The parent is given explicitly (the writer's
 * view of the leaf), never read from the session row: two tabs appending to
 * the same leaf produce siblings, and neither write is lost.
 */
export async function appendEntries(
  sessionId: string,
  parentId: EntryId | null,
  entries: NewEntry[],
  opts: AppendOptions = {},
  db: AppDB = getDB(),
): Promise<SessionEntry[]> {
  if (entries.length === 0) return [];
  return guarded(() =>
    db.transaction('rw', [db.sessions, db.entries, db.packedEntries, db.meta, db.syncState], async (tx) => {
      const row = await db.sessions.get(sessionId);
      if (!row) throw new StorageError('unknown', 'That session no longer exists (deleted in another tab?).');
      // New entries are rows, after an imported session's packed ones (packed.ts): nothing to unpack.
      if (parentId !== null) {
        if (!(await hasEntry(db, sessionId, parentId))) throw new StorageError('unknown', 'Cannot append: the entry it follows is missing from this session.');
      }
      const rev = await nextRev(tx as Tx);
      const now = Date.now();
      let parent = parentId;
      const created: SessionEntry[] = [];
      for (const e of entries) {
        const entry = domainEntry({ ...e, id: e.id ?? newId(), parentId: parent, timestamp: e.timestamp ?? now } as SessionEntry);
        created.push(entry);
        parent = entry.id;
      }
      await db.entries.bulkAdd(created.map((e) => unsynced(entryRow(e, sessionId, rev))));
      const patch: Partial<SessionRow> = { updatedAt: now, entryCount: row.entryCount + created.length, rev, hlc: await nextLocalHlc(db, now), syncDirty: 1 };
      if (opts.moveLeaf !== false) patch.leafId = parent;
      await db.sessions.update(sessionId, patch);
      return created;
    }),
  );
}

/**
 * Rewrites one entry in place. Only for the two things that are not history:
 * the reply a tab is still streaming (content grows, then a final status) and
 * the token cache. Everything else is append-only.
 */
export async function updateEntry(
  sessionId: string,
  entryId: EntryId,
  update: (e: SessionEntry) => SessionEntry,
  db: AppDB = getDB(),
): Promise<SessionEntry> {
  return guarded(() =>
    db.transaction('rw', [db.entries, db.packedEntries, db.meta, db.sessions, db.syncState], async (tx) => {
      const find = () => db.entries.where('[sessionId+id]').equals([sessionId, entryId]).first();
      // Rewritten content takes a row: an entry still packed (imported) is unpacked with its session first.
      const stored = (await find()) ?? ((await unpackSession(db, sessionId)) > 0 ? await find() : undefined);
      if (!stored) throw new StorageError('unknown', 'The entry being updated no longer exists.');
      // The content changes, so a token cache counted for the old content is dropped (recounted later).
      const { tokens: _stale, ...updated } = update(toDomainEntry(stored));
      const next = domainEntry(updated as SessionEntry);
      if (next.id !== entryId || next.parentId !== stored.parentId) throw new Error('updateEntry may not move an entry');
      const rev = await nextRev(tx as Tx);
      // Only replies still streaming are rewritten, and sync does not push those until they are final.
      await db.entries.put(unsynced(entryRow(next, sessionId, rev, stored.seq)));
      await db.sessions.update(sessionId, { rev, updatedAt: Date.now(), syncDirty: 1 });
      return next;
    }),
  );
}

/** Token caches written per transaction: the first open of a 10,000-entry session hands over 10,000 at once. */
const TOKEN_CACHE_CHUNK = 500;

/**
 * Stores token caches computed by the worker, a chunk per transaction, so no
 * single write holds the page for long. A token cache is not content: the
 * entries keep their write revision, or the next append would make every tab
 * re-read every entry whose cache was written (`entriesChangedSince`), the
 * whole session after a first open. Another tab that lacks a cache counts it
 * itself. Chunks are independent: a cache is only ever a shortcut. A session an
 * import left packed is unpacked by the first chunk (packed.ts): caches come
 * a few at a time as the user moves around the tree, and rewriting a packed row
 * of 1,000 entries on the page thread for each few would cost more than one unpack.
 */
export async function setEntryTokens(
  sessionId: string,
  tokens: ReadonlyArray<{ id: EntryId; tokens: TokenCache }>,
  db: AppDB = getDB(),
): Promise<void> {
  for (let i = 0; i < tokens.length; i += TOKEN_CACHE_CHUNK) {
    const chunk = tokens.slice(i, i + TOKEN_CACHE_CHUNK);
    await guarded(() =>
      db.transaction('rw', [db.entries, db.packedEntries, db.syncState], async () => {
        await unpackSession(db, sessionId);
        const byId = new Map(chunk.map((t) => [t.id, t.tokens]));
        // One indexed read for the chunk.
        const stored = await db.entries.where('[sessionId+id]').anyOf(chunk.map((t) => [sessionId, t.id])).toArray();
        // A cache counted for an earlier state of a reply (still streaming then) must not stick to its final text:
        // its chars/4 figure no longer matches, and the entry is left to be counted again.
        const current = stored.filter((e) => byId.get(e.id)!.chars4 === chars4(countingInput(e)));
        await db.entries.bulkPut(current.map((e) => ({ ...e, tokens: byId.get(e.id)! })));
      }),
    );
  }
}

// ---------------------------------------------------------------- import

export interface ImportSnapshotsOptions {
  /** Store sessions even when the same ones were imported before (the user asked for a copy). */
  allowDuplicates?: boolean;
  /**
   * Set when the snapshots were read from a file. A session from it that has
   * no source hash (the app's own exports) is then given one over its content,
   * so importing the same file again is noticed as for every other format.
   */
  fileName?: string;
}

export interface ImportOutcome {
  imported: SessionRow[];
  /** Snapshots skipped because a session from the same source content already exists; `index` is the snapshot's position. */
  duplicates: { index: number; title: string; existingId: string }[];
  /** Sessions stored already that the file continues: `entries` appended (`messages` of them messages), on a branch of their own when the user went on chatting here. */
  updated?: { index: number; id: string; title: string; entries: number; messages: number; onBranch: boolean }[];
  /** Sessions stored already whose earlier part changed in the file: imported as these new sessions (also in `imported`), and why. */
  copies?: { index: number; id: string; title: string; reason: string }[];
}

interface Prepared {
  meta: MetaFields;
  entries: SessionEntry[];
}

/** The snapshot as it will be stored, before any storage-owned field is given: domain fields only. */
export function prepareImport(snap: SessionSnapshot, fileName: string | undefined): Prepared {
  const meta = domainMeta(snap.meta);
  const entries = snap.entries.map(domainEntry);
  if (fileName !== undefined && !meta.source?.hash) {
    const hash = sessionContentHash(meta, entries);
    const originalId = meta.source?.originalId ?? snap.meta.id;
    meta.source = meta.source ? { ...meta.source, hash, originalId } : { format: 'native', fileName, hash, originalId };
  }
  return { meta, entries };
}

/** What makes two imported sessions the same: one file (hash) and one conversation in it (originalId). */
export const sameSourceKey = (source: SessionMeta['source']): string | undefined => (source?.hash ? `${source.hash}\n${source.originalId ?? ''}` : undefined);

/**
 * Writes whole sessions, all in one transaction: either every session of the
 * file lands or none does. Rows are built from the snapshots' domain fields
 * (rows.ts), and every session gets a fresh id: nothing storage owns is taken
 * from a file. A snapshot whose source matches an existing session is reported
 * as a duplicate instead of silently copied, unless `allowDuplicates` is set.
 */
export async function importSnapshots(snapshots: SessionSnapshot[], opts: ImportSnapshotsOptions = {}, db: AppDB = getDB()): Promise<ImportOutcome> {
  return guarded(() => {
    // Before the transaction opens: building rows and hashing is CPU work that no request waits on.
    const prepared = snapshots.map((s) => prepareImport(s, opts.fileName));
    return db.transaction('rw', db.sessions, db.entries, db.meta, db.syncState, async (tx) => {
      const outcome: ImportOutcome = { imported: [], duplicates: [] };
      const rev = await nextRev(tx as Tx);
      const hlc = await nextLocalHlc(db);
      // One lookup for the whole file: a ChatGPT export's 1,400 conversations all share its hash.
      const seen = new Map<string, string>();
      if (!opts.allowDuplicates) {
        const hashes = [...new Set(prepared.flatMap((p) => (p.meta.source?.hash ? [p.meta.source.hash] : [])))];
        const existing = hashes.length ? await db.sessions.where('source.hash').anyOf(hashes).toArray() : [];
        for (const r of existing) seen.set(sameSourceKey(r.source)!, r.id);
      }
      for (const [index, p] of prepared.entries()) {
        const key = sameSourceKey(p.meta.source);
        const existingId = key === undefined || opts.allowDuplicates ? undefined : seen.get(key);
        if (existingId !== undefined) {
          outcome.duplicates.push({ index, title: p.meta.title, existingId });
          continue;
        }
        const row: SessionRow = { ...sessionRow(p.meta, { id: newId(), entryCount: p.entries.length, rev }), hlc, syncDirty: 1 };
        await db.sessions.add(row);
        await db.entries.bulkAdd(p.entries.map((e) => unsynced(entryRow(e, row.id, rev))));
        outcome.imported.push(row);
        if (key !== undefined) seen.set(key, row.id);
      }
      return outcome;
    });
  });
}

export async function exportSnapshot(id: string, db: AppDB = getDB()): Promise<SessionSnapshot | null> {
  const loaded = await loadSession(id, db);
  return loaded ? { meta: toMeta(loaded.row), entries: loaded.entries } : null;
}

export async function exportAllSnapshots(db: AppDB = getDB()): Promise<SessionSnapshot[]> {
  const rows = await db.sessions.orderBy('updatedAt').toArray();
  const out: SessionSnapshot[] = [];
  for (const r of rows) {
    const s = await exportSnapshot(r.id, db);
    if (s) out.push(s);
  }
  return out;
}
