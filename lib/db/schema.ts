import type { Dexie } from 'dexie';
import type { SessionEntry, SessionMeta } from '@/lib/session/types';

export const DB_NAME = 'longctx';

/**
 * An entry as stored: the domain entry plus its session and a write revision.
 * `seq` (auto-increment) is the global insertion order, so a session loads in
 * the order it was written; `rev` is bumped on every write of the row, so a tab
 * can ask "what changed since rev N" and apply only that.
 */
export type StoredEntry = SessionEntry & {
  sessionId: string;
  seq?: number;
  rev: number;
  /** 1 while the entry has not reached the sync server (indexed; absent once pushed, or for entries that came from it). */
  unsynced?: 1;
};

/**
 * Part of an imported session's entries, packed into one row (packed.ts): the
 * entries in stored order, domain fields only, written at revision `rev`.
 * Keyed by [sessionId+part], parts numbered from 0.
 */
export interface PackedRow {
  sessionId: string;
  part: number;
  rev: number;
  entries: SessionEntry[];
}

export type SessionRow = SessionMeta & {
  entryCount: number;
  rev: number;
  /** Lower-cased title for search. */
  titleLower: string;
  /** Hybrid logical clock of the last change to the session's metadata (lib/sync/hlc.ts): last writer wins between devices. */
  hlc?: string;
  /** The clock of the metadata the sync server last accepted from (or sent to) this device. */
  syncedHlc?: string;
  /** 1 while the session has anything the sync server has not got: its metadata or any of its entries. */
  syncDirty?: 1;
};

/** A deleted session, remembered so that the deletion reaches other devices and wins over older edits. */
export interface TombstoneRow {
  sessionId: string;
  hlc: string;
  unsynced?: 1;
}

/** Sync's own state (the space, the checkpoint, the clock, the status): local to this browser, never synced. */
export interface SyncStateRow {
  key: string;
  value: unknown;
}

/**
 * A folder the user picked to keep current (the File System Access API, Chromium): its handle,
 * which IndexedDB stores as it is, and what each of its files was when last read, so a check
 * reads only the files that changed.
 */
export interface FolderRow {
  id: string;
  name: string;
  /** A FileSystemDirectoryHandle; typed loosely here, only lib/browser uses it. */
  handle: unknown;
  addedAt: number;
  checkedAt?: number;
  /** Check when the app's window gets the focus back. */
  onFocus?: boolean;
  /** Path inside the folder → size and last-modified time when it was last imported. */
  seen: Record<string, { size: number; modified: number }>;
}

export interface SettingRow {
  key: string;
  value: unknown;
}

export interface CalibrationRow {
  model: string;
  value: unknown;
}

export interface MetaRow {
  key: string;
  value: number;
}

/**
 * Every schema version the app has shipped, oldest first. A version is never
 * edited once released; a change adds a new one with an upgrade function, so a
 * database written by any earlier version opens and migrates. Tests build a
 * database with an old version's stores to prove it.
 */
export interface SchemaVersion {
  version: number;
  stores: Record<string, string | null>;
  upgrade?: Parameters<ReturnType<Dexie['version']>['upgrade']>[0];
}

/**
 * The store that holds entries since v3, which re-created it under this name:
 * IndexedDB resets an auto-increment key generator only with a new store
 * (clear() keeps it), and v2 could leave the generator exhausted so that every
 * later write failed. It stored a file's own `"seq"` on import, and
 * `"seq": 1e300` pushes the generator past 2^53; deleting the row does not undo that.
 */
export const ENTRIES_STORE = 'entryRows';

/** The store of imported sessions' packed entries (since v5). */
export const PACKED_STORE = 'packedEntries';

/** Name of the entries store in schema `version`. */
export function entriesStoreAt(version: number): string {
  return version >= 3 ? ENTRIES_STORE : 'entries';
}

/** Rows copied per request when entries move to a new store: bounded memory for a database of any size. */
const COPY_BATCH = 2_000;

export const SCHEMA_VERSIONS: SchemaVersion[] = [
  {
    version: 1,
    stores: {
      sessions: 'id, updatedAt',
      entries: '++seq, &[sessionId+id], [sessionId+seq]',
      settings: 'key',
    },
  },
  {
    // v2: write revisions (live sync between tabs), title search, token calibration, counters.
    version: 2,
    stores: {
      sessions: 'id, updatedAt, titleLower, source.hash',
      entries: '++seq, &[sessionId+id], [sessionId+seq], [sessionId+rev]',
      settings: 'key',
      calibration: 'model',
      meta: 'key',
    },
    upgrade: async (tx) => {
      // Revisions start at 1 for everything that existed: tabs opened after the
      // upgrade load whole sessions anyway, so only the order of later writes matters.
      await tx.table('meta').put({ key: 'rev', value: 1 });
      await tx
        .table('sessions')
        .toCollection()
        .modify((s: Record<string, unknown>) => {
          s.rev = 1;
          s.titleLower = String(s.title ?? '').toLowerCase();
          if (typeof s.entryCount !== 'number') s.entryCount = 0;
        });
      await tx
        .table('entries')
        .toCollection()
        .modify((e: Record<string, unknown>) => {
          e.rev = 1;
        });
      // v1 stored no entry counts; derive them so the session list is right after the upgrade.
      const counts = new Map<string, number>();
      await tx
        .table('entries')
        .each((e: { sessionId: string }) => counts.set(e.sessionId, (counts.get(e.sessionId) ?? 0) + 1));
      for (const [id, n] of counts) await tx.table('sessions').update(id, { entryCount: n });
    },
  },
  {
    // v3: entries move to a fresh store with a fresh key generator (see ENTRIES_STORE), renumbered
    // in their stored order, so every session keeps its order and so does the whole.
    version: 3,
    stores: {
      sessions: 'id, updatedAt, titleLower, source.hash',
      entries: null,
      [ENTRIES_STORE]: '++seq, &[sessionId+id], [sessionId+seq], [sessionId+rev]',
      settings: 'key',
      calibration: 'model',
      meta: 'key',
    },
    upgrade: async (tx) => {
      // The old store is still readable here: Dexie deletes it after this function.
      const from = tx.table('entries');
      const to = tx.table(ENTRIES_STORE);
      let after = -Infinity;
      for (;;) {
        const batch = (await from.where(':id').above(after).limit(COPY_BATCH).toArray()) as { seq: number }[];
        if (batch.length === 0) break;
        after = batch[batch.length - 1]!.seq;
        // Without their old keys the rows get 1, 2, 3… in the same order.
        await to.bulkAdd(batch.map(({ seq: _old, ...row }) => row));
      }
    },
  },
  {
    // v4: sync. Sparse indexes over the outbox (entries not yet pushed, sessions with something to push),
    // tombstones of deleted sessions, and sync's own state. Nothing to migrate: existing data is marked
    // for pushing when the device joins a space (lib/db/sync.ts markAllForPush), not before.
    version: 4,
    stores: {
      sessions: 'id, updatedAt, titleLower, source.hash, syncDirty',
      [ENTRIES_STORE]: '++seq, &[sessionId+id], [sessionId+seq], [sessionId+rev], unsynced, [sessionId+unsynced]',
      settings: 'key',
      calibration: 'model',
      meta: 'key',
      tombstones: 'sessionId, unsynced',
      syncState: 'key',
    },
  },
  {
    // v5: imports write a session's entries packed, a few rows per session (lib/db/packed.ts): in
    // Chromium each row written costs the browser process about the same whatever its size, so a
    // 100 MB export as 50,000 entry rows was bound to 6–10 MB/s. Keyed by session and part, no other
    // index: packed rows are only ever read whole, per session. Nothing to migrate: entries already
    // stored stay rows, which every reader still reads.
    version: 5,
    stores: {
      sessions: 'id, updatedAt, titleLower, source.hash, syncDirty',
      [ENTRIES_STORE]: '++seq, &[sessionId+id], [sessionId+seq], [sessionId+rev], unsynced, [sessionId+unsynced]',
      [PACKED_STORE]: '[sessionId+part]',
      settings: 'key',
      calibration: 'model',
      meta: 'key',
      tombstones: 'sessionId, unsynced',
      syncState: 'key',
    },
  },
  {
    // v6: organising sessions and keeping imports current. Sessions are found by the tool and id they
    // were imported from (a grown transcript updates its session, lib/formats/reimport.ts); picked
    // folders are remembered with their handles. Project, tags, archive and pins are session fields
    // read from the in-memory list, so they need no index.
    version: 6,
    stores: {
      sessions: 'id, updatedAt, titleLower, source.hash, syncDirty, [source.format+source.originalId]',
      [ENTRIES_STORE]: '++seq, &[sessionId+id], [sessionId+seq], [sessionId+rev], unsynced, [sessionId+unsynced]',
      [PACKED_STORE]: '[sessionId+part]',
      settings: 'key',
      calibration: 'model',
      meta: 'key',
      tombstones: 'sessionId, unsynced',
      syncState: 'key',
      folders: 'id',
    },
    upgrade: async (tx) => {
      // A Claude Code sub-agent's file was known by the main conversation's id, which its lines carry; its
      // own id now adds the agent (claudeCode.ts), so a later copy of either file finds its own session.
      // Its file is named agent-<agent id>.jsonl by Claude Code.
      await tx
        .table('sessions')
        .toCollection()
        .modify((s: { source?: { format?: string; fileName?: string; originalId?: string } }) => {
          const src = s.source;
          const agent = src?.format === 'claude-code' && src.originalId && !src.originalId.includes(':agent-') ? /(?:^|[^\w])agent-([\w-]+)\.jsonl$/.exec(src.fileName ?? '') : null;
          if (agent && src) src.originalId = `${src.originalId}:agent-${agent[1]}`;
        });
    },
  },
  {
    // v7: a summary prepared by automatic compaction and waiting for the user (review before apply), one per
    // session, keyed by it. A store of its own, not an entry: a draft is not part of the conversation, so it must
    // not reach the tree, exports or other devices. Nothing to migrate.
    version: 7,
    stores: {
      sessions: 'id, updatedAt, titleLower, source.hash, syncDirty, [source.format+source.originalId]',
      [ENTRIES_STORE]: '++seq, &[sessionId+id], [sessionId+seq], [sessionId+rev], unsynced, [sessionId+unsynced]',
      [PACKED_STORE]: '[sessionId+part]',
      settings: 'key',
      calibration: 'model',
      meta: 'key',
      tombstones: 'sessionId, unsynced',
      syncState: 'key',
      folders: 'id',
      pendingSummaries: 'sessionId',
    },
  },
];

export const CURRENT_SCHEMA_VERSION = SCHEMA_VERSIONS[SCHEMA_VERSIONS.length - 1]!.version;
