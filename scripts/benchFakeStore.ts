// Global, as in lib/testing/flowPorts.ts: Dexie finds the fake through the global indexedDB.
import 'fake-indexeddb/auto';
import { AppDB } from '@/lib/db/db';
import { createSessionStore } from '@/lib/db/store';
import type { SessionStore } from '@/lib/flows/ports';

/** The app's real store on an in-memory IndexedDB, for the folder-import bench (loaded only by the child that uses it). */
export function fakeIndexedDbStore(): SessionStore {
  return createSessionStore(new AppDB(`bench-folder-${Date.now()}`));
}
