export { AppDB, getDB, setDB } from './db';
export { StorageError, toStorageError, type StorageErrorKind } from './errors';
export type { SessionRow, StoredEntry } from './schema';
export * from './sessions';
export * from './settings';
