import { mergeAppSettings, readAppSettings, type AppSettings } from '@/lib/settings/appSettings';
import { getDB, type AppDB } from './db';
import { getSetting, setSetting } from './settings';
import { observeRows, type Unsubscribe } from './watch';

/** The global settings row: validated field by field on every read (lib/settings). */
const APP_KEY = 'app';
const LAST_BACKUP_KEY = 'lastBackupAt';

export async function loadAppSettings(db: AppDB = getDB()): Promise<AppSettings> {
  return readAppSettings(await getSetting<unknown>(APP_KEY, undefined, db));
}

export async function saveAppSettings(patch: Partial<AppSettings>, db: AppDB = getDB()): Promise<void> {
  await setSetting(APP_KEY, mergeAppSettings(await loadAppSettings(db), patch), db);
}

export async function getLastBackupAt(db: AppDB = getDB()): Promise<number | null> {
  const v = await getSetting<unknown>(LAST_BACKUP_KEY, null, db);
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

export async function setLastBackupAt(at: number, db: AppDB = getDB()): Promise<void> {
  await setSetting(LAST_BACKUP_KEY, at, db);
}

/** The global settings, validated, again after every change to their row (any tab). */
export function watchAppSettings(onSettings: (s: AppSettings) => void, db: AppDB = getDB()): Unsubscribe {
  return observeRows(db, [{ table: db.settings, keys: [APP_KEY] }], () => loadAppSettings(db), onSettings);
}
