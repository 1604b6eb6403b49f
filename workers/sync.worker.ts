/**
 * The sync worker: the engine (lib/sync/engine.ts) over this browser's
 * IndexedDB (lib/db/sync.ts) and fetch to the app's own /api/sync routes, off
 * the main thread so that encrypting a large history never blocks the page.
 * Every tab has one; a Web Lock lets one of them run the background loops
 * (pushing, pulling, the live stream) while the others only answer the page.
 * Without Web Locks (an insecure context: http on a LAN address) each tab
 * runs them: every step is idempotent, so that costs requests, not data.
 */
import { expose } from 'comlink';
import { createSyncLocalStore } from '@/lib/db/sync';
import { SyncEngine } from '@/lib/sync/engine';
import type { SyncService } from '@/lib/sync/service';
import { httpTransport } from '@/lib/sync/transport';

const engine = new SyncEngine({ local: createSyncLocalStore(), transport: httpTransport({ baseUrl: self.location.origin, fetch: (input, init) => fetch(input, init) }) });

const locks = (self.navigator as Navigator & { locks?: LockManager }).locks;
if (locks) void locks.request('longctx-sync-engine', () => new Promise<never>(() => engine.start()));
else engine.start();
self.addEventListener('online', () => engine.kick());

const service: SyncService = {
  create: (name) => engine.create(name),
  join: (words, name) => engine.join(words, name),
  leave: () => engine.leave(),
  devices: () => engine.devices(),
  revoke: (id) => engine.revoke(id),
  kick: async () => engine.kick(),
};
expose(service);
