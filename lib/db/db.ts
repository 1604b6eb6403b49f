import { Dexie, type Table } from 'dexie';
import { CURRENT_SCHEMA_VERSION, DB_NAME, SCHEMA_VERSIONS, type CalibrationRow, type MetaRow, type SessionRow, type SettingRow, type StoredEntry } from './schema';

export class AppDB extends Dexie {
  sessions!: Table<SessionRow, string>;
  entries!: Table<StoredEntry, number>;
  settings!: Table<SettingRow, string>;
  calibration!: Table<CalibrationRow, string>;
  meta!: Table<MetaRow, string>;

  constructor(name = DB_NAME, upTo = CURRENT_SCHEMA_VERSION, options?: ConstructorParameters<typeof Dexie>[1]) {
    super(name, options);
    for (const v of SCHEMA_VERSIONS) {
      if (v.version > upTo) break;
      const declared = this.version(v.version).stores(v.stores);
      if (v.upgrade) declared.upgrade(v.upgrade);
    }
  }
}

let instance: AppDB | null = null;

/** The app's database. One per page; tests construct their own AppDB. */
export function getDB(): AppDB {
  if (!instance) instance = new AppDB();
  return instance;
}
