// Global, not passed to Dexie as an option: Dexie's live queries only observe the global indexedDB.
import 'fake-indexeddb/auto';
import { AppDB } from '@/lib/db/db';
import { createSessionStore } from '@/lib/db/store';
import { createSyncLocalStore } from '@/lib/db/sync';
import type { SessionStore } from '@/lib/flows/ports';
import { nobleBackend } from '@/lib/sync/crypto/backend';
import { SyncEngine, type EngineOptions } from '@/lib/sync/engine';
import { httpTransport, type FetchLike, type SyncTransport } from '@/lib/sync/transport';
import { createSyncHandlers, type SyncHandlers, type SyncServer } from '@/lib/syncServer/http';
import { createSyncServer } from '@/lib/syncServer/instance';
import { readSyncLimits } from '@/lib/syncServer/limits';
import { openPglite } from '@/lib/syncServer/pglite';
import { migrate } from '@/lib/syncServer/schema';
import type { SqlClient } from '@/lib/syncServer/sql';

/**
 * Devices and a sync server in one process, for unit tests of the protocol:
 * the real route logic (lib/syncServer/http.ts) on an in-memory PGlite, and
 * devices made of the real store (fake-indexeddb, one database each) and the
 * real engine, whose fetch calls the handlers directly. A device can be taken
 * offline, or have its connection cut after the server handled a request.
 */
export interface TestDevice {
  name: string;
  db: AppDB;
  store: SessionStore;
  engine: SyncEngine;
  transport: SyncTransport;
  setOffline(offline: boolean): void;
  /** The next `n` pushes reach the server, which stores them, but the answer is lost on the way back. */
  loseAnswers(n: number): void;
}

export interface SyncHarness {
  sql: SqlClient;
  /** Every request the devices made, with the answer's status and when it came (ms, performance.now). */
  requests: { device: string; path: string; status: number; at: number }[];
  server: SyncServer;
  handlers: SyncHandlers;
  device(name: string, opts?: Partial<EngineOptions>): TestDevice;
  /** Stops and closes the devices made so far (the server stays: tests share it, each in its own space). */
  closeDevices(): Promise<void>;
  close(): Promise<void>;
}

let dbCounter = 0;

/**
 * Limits for the harness's server: the defaults, except that every test
 * creates and joins spaces from one address, more often than any person
 * would; a test of the limits passes its own.
 */
const HARNESS_ENV = { SYNC_RATE_CREATE: 'off', SYNC_RATE_CREATE_TOTAL: 'off', SYNC_RATE_JOIN: 'off', SYNC_RATE_PUSH: 'off', SYNC_RATE_PUSH_BYTES: 'off' };

export async function syncHarness(env: Record<string, string> = {}): Promise<SyncHarness> {
  const sql = await openPglite(null);
  await migrate(sql);
  const server: SyncServer = createSyncServer(sql, readSyncLimits({ ...HARNESS_ENV, ...env }));
  const handlers = createSyncHandlers(async () => server);
  const routes: Record<string, (r: Request) => Promise<Response>> = {
    space: handlers.createSpace,
    join: handlers.join,
    push: handlers.push,
    pull: handlers.pull,
    live: handlers.live,
    devices: handlers.devices,
    revoke: handlers.revoke,
  };
  const devices: TestDevice[] = [];
  const requests: SyncHarness['requests'] = [];

  const harness: SyncHarness = {
    sql,
    requests,
    server,
    handlers,
    device(name, opts = {}) {
      const db = new AppDB(`device-${name}-${++dbCounter}`);
      let offline = false;
      let lose = 0;
      const fetch: FetchLike = async (input, init) => {
        if (offline) throw new TypeError('fetch failed');
        const path = new URL(input).pathname.replace('/api/sync/', '');
        const res = await routes[path]!(new Request(input, init));
        requests.push({ device: name, path, status: res.status, at: performance.now() });
        if (path === 'push' && lose > 0) {
          lose--;
          await res.arrayBuffer();
          throw new TypeError('fetch failed: connection reset');
        }
        return res;
      };
      const transport = httpTransport({ baseUrl: 'http://127.0.0.1:3000', fetch });
      // The pure-JS backend on one device and WebCrypto (Node's) on the other would also work; tests pin one for speed parity.
      const engine = new SyncEngine({ local: createSyncLocalStore(db), transport, backend: opts.backend ?? nobleBackend, retryMs: { min: 20, max: 200 }, statusEveryMs: 0, ...opts });
      const d: TestDevice = {
        name,
        db,
        store: createSessionStore(db),
        engine,
        transport,
        setOffline: (v) => void (offline = v),
        loseAnswers: (n) => void (lose = n),
      };
      devices.push(d);
      return d;
    },
    async closeDevices() {
      for (const d of devices.splice(0)) {
        await d.engine.stop();
        d.db.close();
      }
    },
    async close() {
      await harness.closeDevices();
      await server.hub.close();
      await sql.close();
    },
  };
  return harness;
}
