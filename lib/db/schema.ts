import type { Dexie } from 'dexie';
import type { SessionEntry, SessionMeta } from '@/lib/session/types';

export const DB_NAME = 'longctx';

/**
 * An entry as stored: the domain entry plus its session and a write revision.
 * `seq` (auto-increment) is the global insertion order, so a session loads in
 * the order it was written; `rev` is bumped on every write of the row, so a tab
 * can ask "what changed since rev N" and apply only that.
 */
export type StoredEntry = SessionEntry & { sessionId: string; seq?: number; rev: number };

export type SessionRow = SessionMeta & {
  entryCount: number;
  rev: number;
  /** Lower-cased title for search. */
  titleLower: string;
};

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
];

export const CURRENT_SCHEMA_VERSION = SCHEMA_VERSIONS[SCHEMA_VERSIONS.length - 1]!.version;
