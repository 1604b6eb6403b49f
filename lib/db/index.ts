/**
 * The app's storage: the only code that touches IndexedDB. Sessions and
 * entries (sessions.ts), settings, and observers (watch…) that call back when
 * data changes in any tab.
 */
export type { SessionRow } from './schema';
export { browserCredentials } from './providers';
export { watchAppSettings } from './appSettings';
export { watchBrowserProviders } from './providers';
export { browserSessionStore, openDatabase, watchSessionList, watchSessionRow } from './store';
export { watchSyncSpace, watchSyncStatus } from './sync';
export { watchFolders } from './folders';
export type { Unsubscribe } from './watch';
