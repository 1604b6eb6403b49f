import { Dexie, type Table } from 'dexie';
import type { PendingSummary } from '@/lib/compaction/pending';
import { CURRENT_SCHEMA_VERSION, DB_NAME, entriesStoreAt, SCHEMA_VERSIONS, type CalibrationRow, type FolderRow, type MetaRow, type PackedRow, type SessionRow, type SettingRow, type StoredEntry, type SyncStateRow, type TombstoneRow } from './schema';

export class AppDB extends Dexie {
  sessions!: Table<SessionRow, string>;
  settings!: Table<SettingRow, string>;
  calibration!: Table<CalibrationRow, string>;
  meta!: Table<MetaRow, string>;
  tombstones!: Table<TombstoneRow, string>;
  syncState!: Table<SyncStateRow, string>;
  /** Imported sessions' entries, packed (packed.ts); since v5. */
  packedEntries!: Table<PackedRow, [string, number]>;
  /** Folders kept current (since v6). */
  folders!: Table<FolderRow, string>;
  /** Summaries waiting for the user to apply them, one per session (review before apply); since v7. */
  pendingSummaries!: Table<PendingSummary, string>;
  private readonly entriesStore: string;

  constructor(name = DB_NAME, upTo = CURRENT_SCHEMA_VERSION, options?: ConstructorParameters<typeof Dexie>[1]) {
    super(name, options);
    this.entriesStore = entriesStoreAt(upTo);
    for (const v of SCHEMA_VERSIONS) {
      if (v.version > upTo) break;
      const declared = this.version(v.version).stores(v.stores);
      if (v.upgrade) declared.upgrade(v.upgrade);
    }
  }

  /** The entries table, under the store name of the schema version declared (tests open old versions). */
  get entries(): Table<StoredEntry, number> {
    return this.table(this.entriesStore);
  }
}

let instance: AppDB | null = null;

/** The app's database. One per page; tests construct their own AppDB. */
export function getDB(): AppDB {
  if (!instance) instance = new AppDB();
  return instance;
}
