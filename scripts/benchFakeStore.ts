// Global, as in lib/testing/flowPorts.ts: Dexie finds the fake through the global indexedDB.
import 'fake-indexeddb/auto';
import { AppDB } from '@/lib/db/db';
import { createSessionStore } from '@/lib/db/store';
import type { SessionStore } from '@/lib/flows/ports';

/** An empty app database on an in-memory IndexedDB, for the import benches (loaded only by the children that use it). */
export function fakeIndexedDb(name = 'bench'): AppDB {
  return new AppDB(`${name}-${Date.now()}`);
}

/** The app's real store on an in-memory IndexedDB. */
export function fakeIndexedDbStore(db = fakeIndexedDb('bench-folder')): SessionStore {
  return createSessionStore(db);
}
