import { getDB, type AppDB } from './db';
import { guarded } from './errors';

/** Global settings and learned token calibrations: small rows, read often, written rarely. */
export async function getSetting<T>(key: string, fallback: T, db: AppDB = getDB()): Promise<T> {
  const row = await db.settings.get(key);
  return row === undefined ? fallback : (row.value as T);
}

export async function setSetting(key: string, value: unknown, db: AppDB = getDB()): Promise<void> {
  await guarded(() => db.settings.put({ key, value }));
}

export async function getCalibration<T>(model: string, db: AppDB = getDB()): Promise<T | undefined> {
  return (await db.calibration.get(model))?.value as T | undefined;
}

export async function setCalibration(model: string, value: unknown, db: AppDB = getDB()): Promise<void> {
  await guarded(() => db.calibration.put({ model, value }));
}
