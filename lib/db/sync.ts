import { Dexie } from 'dexie';
import type { SessionEntry } from '@/lib/session/types';
import { parseHlc } from '@/lib/sync/hlc';
import { OFF_STATUS, type OutboxBatch, type RemoteChange, type SpaceConfig, type SyncLocalStore, type SyncStatus } from '@/lib/sync/ports';
import { getDB, type AppDB } from './db';
import { guarded } from './errors';
import { deleteSessionEntries, readNamedEntries, unpackSession } from './packed';
import { domainMeta, entryRow, sessionRow, toDomainEntry } from './rows';
import type { SessionRow, StoredEntry } from './schema';
import { toMeta } from './sessions';
import { entriesNeedMarks, JOINING_KEY, nextLocalHlc, observeRemoteHlc, SPACE_KEY } from './syncMarks';
import { observe, observeRows, type Unsubscribe } from './watch';

/**
 * Sync's side of IndexedDB: the space this browser belongs to, the checkpoint,
 * the outbox (entries marked `unsynced`, sessions marked `syncDirty`,
 * tombstones), merging what other devices wrote, and the status the UI shows.
 */

const SPACE = SPACE_KEY;
const CHECKPOINT = 'checkpoint';
const STATUS = 'status';
/** Rows marked or unmarked per request when a whole database is (re)queued: bounded memory at any size. */
const MARK_BATCH = 2_000;
/** Packed rows unpacked per transaction before pushing (a packed row holds up to PACKED_PART_ENTRIES entries). */
const UNPACK_BATCH = 20;
/** Title of a session whose entries arrived before its metadata (the metadata follows in the same pull). */
export const PLACEHOLDER_TITLE = 'Syncing…';

async function nextRev(db: AppDB): Promise<number> {
  const rev = ((await db.meta.get('rev'))?.value ?? 0) + 1;
  await db.meta.put({ key: 'rev', value: rev });
  return rev;
}

export async function loadSpace(db: AppDB = getDB()): Promise<SpaceConfig | null> {
  return ((await db.syncState.get(SPACE))?.value as SpaceConfig | undefined) ?? null;
}

/** Joining: everything stored here is queued, whatever it was pushed to before (another space, or none). */
export async function saveSpace(space: SpaceConfig, db: AppDB = getDB()): Promise<void> {
  // Recorded before the marking: an import that writes its entries without marks (syncMarks.ts
  // entriesNeedMarks) has seen neither this nor the space, so it committed before the marking starts.
  // Left behind by a join that failed, it costs imports their marks, nothing else.
  await db.syncState.put({ key: JOINING_KEY, value: Date.now() });
  await markAllForPush(db);
  await db.transaction('rw', db.syncState, async () => {
    await db.syncState.delete(JOINING_KEY);
    await db.syncState.put({ key: SPACE, value: space });
    await db.syncState.put({ key: CHECKPOINT, value: 0 });
    await db.syncState.put({ key: STATUS, value: { ...OFF_STATUS, state: 'syncing' } satisfies SyncStatus });
  });
}

export async function forgetSpace(db: AppDB = getDB()): Promise<void> {
  await db.transaction('rw', db.syncState, async () => {
    await db.syncState.bulkDelete([SPACE, CHECKPOINT, JOINING_KEY]);
    await db.syncState.put({ key: STATUS, value: OFF_STATUS });
  });
}

async function markAllForPush(db: AppDB): Promise<void> {
  let after = -Infinity;
  for (;;) {
    const done = await db.transaction('rw', db.entries, async () => {
      const batch = await db.entries.where(':id').above(after).limit(MARK_BATCH).toArray();
      if (batch.length === 0) return true;
      after = batch.at(-1)!.seq!;
      await db.entries.bulkPut(batch.map((e) => ({ ...e, unsynced: 1 as const })));
      return false;
    });
    if (done) break;
  }
  // Imported sessions still packed become rows, marked (`joining` is recorded, so unpackSession marks them).
  await unpackForPush(db);
  await db.transaction('rw', db.sessions, db.tombstones, db.syncState, async () => {
    const rows = await db.sessions.toArray();
    // Sessions written before v4 have no clock: they get one now, as a change made at their last update.
    for (const r of rows) {
      const { syncedHlc: _pushed, ...rest } = r;
      await db.sessions.put({ ...rest, hlc: r.hlc ?? (await nextLocalHlc(db, r.updatedAt)), syncDirty: 1 });
    }
    await db.tombstones.toCollection().modify({ unsynced: 1 });
  });
}

export async function checkpoint(db: AppDB = getDB()): Promise<number> {
  return ((await db.syncState.get(CHECKPOINT))?.value as number | undefined) ?? 0;
}

/** A reply still streaming is not history yet: it is pushed once final. */
const isStreaming = (e: SessionEntry) => e.type === 'message' && e.message.role === 'assistant' && e.message.status === 'streaming';

/**
 * Imports store a session's entries packed (packed.ts), in a sync space too: the outbox pushes entries
 * one by one and records each as pushed, which only rows can carry, so before the outbox is read the
 * packed sessions become rows, marked for pushing, here in the sync worker and in bounded transactions
 * rather than in the import. Sessions still being imported (no session row yet) wait for their commit.
 * Resolves with the number of entries unpacked.
 */
export async function unpackForPush(db: AppDB = getDB()): Promise<number> {
  let unpacked = 0;
  // Packed rows are keyed [sessionId, part]: the walk goes by session id, past the sessions it leaves packed.
  let after = '';
  for (;;) {
    const step = await db.transaction('rw', [db.sessions, db.entries, db.packedEntries, db.syncState], async () => {
      if (!(await entriesNeedMarks(db))) return null;
      const keys = (await db.packedEntries.where(':id').above([after, Dexie.maxKey]).limit(UNPACK_BATCH).primaryKeys()) as [string, number][];
      if (keys.length === 0) return null;
      let n = 0;
      for (const id of new Set(keys.map(([sessionId]) => sessionId))) {
        after = id;
        if (await db.sessions.get(id)) n += await unpackSession(db, id);
      }
      return n;
    });
    if (step === null) return unpacked;
    unpacked += step;
  }
}

export async function outbox(limits: { maxRecords: number; maxBytes: number }, db: AppDB = getDB()): Promise<OutboxBatch> {
  await unpackForPush(db);
  return db.transaction('r', db.sessions, db.entries, db.tombstones, async () => {
    const batch: OutboxBatch = { sessions: [], entries: [] };
    let bytes = 0;
    let records = 0;
    // Metadata first, so a device that pulls this batch learns of a session before its entries.
    const tombs = await db.tombstones.where('unsynced').equals(1).limit(limits.maxRecords).toArray();
    for (const t of tombs) batch.sessions.push({ sessionId: t.sessionId, hlc: t.hlc, meta: null });
    records += tombs.length;
    if (records < limits.maxRecords) {
      const dirty = await db.sessions.where('syncDirty').equals(1).toArray();
      for (const row of dirty) {
        if (records >= limits.maxRecords) break;
        if (!row.hlc || row.hlc === row.syncedHlc) continue;
        batch.sessions.push({ sessionId: row.id, hlc: row.hlc, meta: domainMeta(toMeta(row)) });
        records++;
      }
    }
    // Entries in insertion order (parents before children); the sparse index holds only unpushed ones.
    let offset = 0;
    // Entries of a file still being imported have no session row until the import commits (importStaging.ts), and may never get one.
    const hasRow = new Map<string, boolean>();
    while (records < limits.maxRecords && bytes < limits.maxBytes) {
      const page = await db.entries.where('unsynced').equals(1).offset(offset).limit(500).toArray();
      if (page.length === 0) break;
      offset += page.length;
      for (const id of new Set(page.map((e) => e.sessionId))) if (!hasRow.has(id)) hasRow.set(id, (await db.sessions.get(id)) !== undefined);
      for (const stored of page) {
        if (!hasRow.get(stored.sessionId)) continue;
        const entry = toDomainEntry(stored);
        if (isStreaming(entry)) continue;
        bytes += approxBytes(entry);
        batch.entries.push({ sessionId: stored.sessionId, entry, localKey: stored.seq! });
        if (++records >= limits.maxRecords || bytes >= limits.maxBytes) break;
      }
    }
    return batch;
  });
}

/** Cheap size estimate: base64 images dominate when present, text otherwise. */
function approxBytes(e: SessionEntry): number {
  return JSON.stringify(e).length;
}

export async function markPushed(batch: OutboxBatch, db: AppDB = getDB()): Promise<void> {
  await guarded(() =>
    db.transaction('rw', db.sessions, db.entries, db.tombstones, async () => {
      const touched = new Set<string>();
      if (batch.entries.length) {
        const stored = (await db.entries.bulkGet(batch.entries.map((e) => e.localKey ?? -1))).filter((r): r is StoredEntry => r !== undefined);
        await db.entries.bulkPut(stored.map(({ unsynced: _u, ...row }) => row as StoredEntry));
        for (const e of batch.entries) touched.add(e.sessionId);
      }
      for (const s of batch.sessions) {
        if (s.meta === null) {
          const t = await db.tombstones.get(s.sessionId);
          if (t && t.hlc === s.hlc) await db.tombstones.put({ sessionId: t.sessionId, hlc: t.hlc });
          continue;
        }
        const row = await db.sessions.get(s.sessionId);
        if (row) await db.sessions.update(s.sessionId, { syncedHlc: s.hlc });
        touched.add(s.sessionId);
      }
      for (const id of touched) await settleDirty(db, id);
    }),
  );
}

/** Clears a session's dirty mark once the server has its newest metadata and every entry. */
async function settleDirty(db: AppDB, sessionId: string): Promise<void> {
  const row = await db.sessions.get(sessionId);
  if (!row || row.syncDirty !== 1) return;
  if (row.hlc && row.hlc !== row.syncedHlc) return;
  const left = await db.entries.where('[sessionId+unsynced]').equals([sessionId, 1]).count();
  if (left === 0) await db.sessions.update(sessionId, { syncDirty: undefined });
}

export async function pendingCount(db: AppDB = getDB()): Promise<number> {
  return db.transaction('r', [db.sessions, db.entries, db.packedEntries, db.tombstones], async () => {
    const entries = await db.entries.where('unsynced').equals(1).count();
    const dirty = await db.sessions.where('syncDirty').equals(1).toArray();
    const metas = dirty.filter((r) => r.hlc && r.hlc !== r.syncedHlc).length;
    // Imported entries still packed are pushed too, once the outbox has unpacked them (unpackForPush).
    const packedIds = [...new Set(((await db.packedEntries.orderBy(':id').primaryKeys()) as [string, number][]).map(([id]) => id))];
    const packed = (await db.sessions.bulkGet(packedIds)).reduce((sum, row) => sum + (row?.entryCount ?? 0), 0);
    return entries + packed + metas + (await db.tombstones.where('unsynced').equals(1).count());
  });
}

export async function applyRemote(changes: RemoteChange[], newCheckpoint: number | null, db: AppDB = getDB()): Promise<{ revived: string[] }> {
  return guarded(() =>
    db.transaction('rw', [db.sessions, db.entries, db.packedEntries, db.meta, db.tombstones, db.syncState], async () => {
      const rev = await nextRev(db);
      const revived: string[] = [];
      // Sessions first: a page may hold a session's metadata after its entries.
      for (const c of changes) if (c.kind === 'session') await applySession(db, c, rev, revived);
      const bySession = new Map<string, SessionEntry[]>();
      for (const c of changes) if (c.kind === 'entry') bySession.set(c.sessionId, [...(bySession.get(c.sessionId) ?? []), c.entry]);
      for (const [sessionId, entries] of bySession) await addEntries(db, sessionId, entries, rev);
      if (newCheckpoint !== null) await db.syncState.put({ key: CHECKPOINT, value: newCheckpoint });
      return { revived };
    }),
  );
}

async function applySession(db: AppDB, c: Extract<RemoteChange, { kind: 'session' }>, rev: number, revived: string[]): Promise<void> {
  const row = await db.sessions.get(c.sessionId);
  const tomb = await db.tombstones.get(c.sessionId);
  const local = [row?.hlc ?? '', tomb?.hlc ?? ''].reduce((a, b) => (a > b ? a : b));
  // Last writer wins: an older or equal clock changes nothing here (our own newer change is, or will be, pushed).
  if (c.hlc <= local) return;
  await observeRemoteHlc(db, parseHlc(c.hlc));
  if (c.meta === null) {
    if (row) {
      await deleteSessionEntries(db, c.sessionId);
      await db.sessions.delete(c.sessionId);
    }
    await db.tombstones.put({ sessionId: c.sessionId, hlc: c.hlc });
    return;
  }
  if (tomb) {
    await db.tombstones.delete(c.sessionId);
    if (!row) revived.push(c.sessionId);
  }
  const entryCount = row?.entryCount ?? 0;
  const next: SessionRow = { ...sessionRow(c.meta, { id: c.sessionId, entryCount, rev }), hlc: c.hlc, syncedHlc: c.hlc };
  // Our own entries that are still unpushed keep the session marked.
  if (row && (await db.entries.where('[sessionId+unsynced]').equals([c.sessionId, 1]).count()) > 0) next.syncDirty = 1;
  await db.sessions.put(next);
}

async function addEntries(db: AppDB, sessionId: string, entries: SessionEntry[], rev: number): Promise<void> {
  let row = await db.sessions.get(sessionId);
  if (!row) {
    // Deleted here, and the deletion is newer than these entries' session: they are dropped with it.
    if (await db.tombstones.get(sessionId)) return;
    const first = entries[0]!;
    // The metadata is on its way (it may have moved to a later seq since these entries were pushed);
    // an empty clock loses to any real one, so it replaces this placeholder on arrival.
    row = { ...sessionRow({ title: PLACEHOLDER_TITLE, createdAt: first.timestamp, updatedAt: first.timestamp, leafId: null }, { id: sessionId, entryCount: 0, rev }), hlc: '' };
    await db.sessions.add(row);
  }
  // Rows, after the session's packed entries if it has any (packed.ts).
  const existing = new Set((await readNamedEntries(db, sessionId, entries.map((e) => e.id))).map((e) => e.id));
  const fresh: StoredEntry[] = [];
  for (const e of entries) {
    if (existing.has(e.id)) continue; // set union: a stored entry is never rewritten
    existing.add(e.id);
    fresh.push(entryRow(e, sessionId, rev));
  }
  if (fresh.length === 0) return;
  await db.entries.bulkAdd(fresh);
  await db.sessions.update(sessionId, { entryCount: row.entryCount + fresh.length, rev });
}

export async function readStatus(db: AppDB = getDB()): Promise<SyncStatus> {
  return { ...OFF_STATUS, ...(((await db.syncState.get(STATUS))?.value as Partial<SyncStatus> | undefined) ?? {}) };
}

export async function writeStatus(status: SyncStatus, db: AppDB = getDB()): Promise<void> {
  await db.syncState.put({ key: STATUS, value: status });
}

/** The sync status, again after every change (the engine writes it from its worker). */
export function watchSyncStatus(onStatus: (s: SyncStatus) => void, db?: AppDB): Unsubscribe {
  const d = db ?? getDB();
  return observeRows(d, [{ table: d.syncState, keys: [STATUS] }], () => readStatus(d), onStatus);
}

/** The space this browser is in (null when none), again after every change. */
export function watchSyncSpace(onSpace: (s: { spaceId: string; words: string; deviceId: string; deviceName: string } | null) => void, db?: AppDB): Unsubscribe {
  const d = db ?? getDB();
  return observeRows(
    d,
    [{ table: d.syncState, keys: [SPACE] }],
    async () => {
      const s = await loadSpace(d);
      return s ? { spaceId: s.spaceId, words: s.words, deviceId: s.deviceId, deviceName: s.deviceName } : null;
    },
    onSpace,
  );
}

export function createSyncLocalStore(db?: AppDB): SyncLocalStore {
  const the = () => db ?? getDB();
  return {
    loadSpace: () => loadSpace(the()),
    saveSpace: (s) => saveSpace(s, the()),
    forgetSpace: () => forgetSpace(the()),
    checkpoint: () => checkpoint(the()),
    outbox: (limits) => outbox(limits, the()),
    markPushed: (b) => markPushed(b, the()),
    pendingCount: () => pendingCount(the()),
    applyRemote: (changes, cp) => applyRemote(changes, cp, the()),
    readStatus: () => readStatus(the()),
    writeStatus: (s) => writeStatus(s, the()),
    watchOutbox: (onChange) =>
      observe(
        async () => {
          const d = the();
          return [
            (await loadSpace(d))?.deviceId ?? '',
            await d.entries.where('unsynced').equals(1).count(),
            await d.sessions.where('syncDirty').equals(1).count(),
            await d.tombstones.where('unsynced').equals(1).count(),
          ].join();
        },
        () => onChange(),
      ),
  };
}
