import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { onServerShutdown } from '@/lib/server/runtime';
import { createSyncHandlers, type SyncServer } from './http';
import { createLiveHub } from './hub';
import { readSyncLimits, type SyncLimits } from './limits';
import { createLiveSlots } from './liveStreams';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';
import { createRateLimiter } from './rateLimit';
import { migrate } from './schema';
import type { SqlClient } from './sql';
import { createSyncStore } from './store';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where the sync server keeps its data: the Postgres at DATABASE_URL, or else
 * an embedded PGlite database under LONGCTX_DATA_DIR (default `.data`, next to
 * where the server was started), in `pglite/`.
 */
export function describeStorage(env: Env): { kind: 'postgres'; url: string } | { kind: 'pglite'; dir: string } {
  const url = env.DATABASE_URL?.trim();
  if (url) return { kind: 'postgres', url };
  // A folder chosen at run time: the build must not trace (and bundle) the whole project for it.
  return { kind: 'pglite', dir: join(resolve(/*turbopackIgnore: true*/ env.LONGCTX_DATA_DIR?.trim() || '.data'), 'pglite') };
}

/** The server's parts over an open, migrated database. */
export function createSyncServer(db: SqlClient, limits: SyncLimits): SyncServer {
  return { store: createSyncStore(db, limits.quota), hub: createLiveHub(db), limits, rates: createRateLimiter(db), live: createLiveSlots(limits.live) };
}

/** The sync server as this process runs it: the routes' parts, plus what the health check and shutdown need. */
export interface OpenSyncServer extends SyncServer {
  kind: SqlClient['kind'];
  /** One round trip to the database; rejects when it does not answer. */
  ping(): Promise<void>;
  /** Stops the live fan-out and closes the database (PGlite writes its files and lets go of the directory). */
  close(): Promise<void>;
}

export async function openSyncServer(env: Env): Promise<OpenSyncServer> {
  // First: a limit that does not parse is reported before anything is opened.
  const limits = readSyncLimits(env);
  const where = describeStorage(env);
  let db: SqlClient;
  if (where.kind === 'postgres') db = await openPostgres(where.url);
  else {
    claimDataDir(where.dir);
    db = await openPglite(where.dir);
  }
  await migrate(db);
  const server = createSyncServer(db, limits);
  return {
    ...server,
    kind: db.kind,
    ping: async () => void (await db.query('SELECT 1')),
    close: async () => {
      await server.hub.close().catch(() => {});
      await db.close();
    },
  };
}

/**
 * PGlite is one process's database: two processes writing one data directory
 * would corrupt it. A pid file claims the directory; a second server is told
 * to use DATABASE_URL instead.
 */
function claimDataDir(dir: string) {
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, 'longctx-server.pid');
  if (existsSync(lock)) {
    const pid = Number(readFileSync(lock, 'utf8'));
    if (pid && pid !== process.pid && alive(pid)) {
      throw new Error(`the embedded database in ${dir} is in use by another app server (pid ${pid}). Run several app servers on one Postgres with DATABASE_URL.`);
    }
  }
  writeFileSync(lock, String(process.pid), { flag: 'w' });
  process.once('exit', () => {
    try {
      if (readFileSync(lock, 'utf8') === String(process.pid)) rmSync(lock);
    } catch {
      /* already gone */
    }
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// One server per process, kept on globalThis so that Next's module copies (and dev reloads) share it.
const KEY = Symbol.for('longctx.syncServer');
type Holder = { [KEY]?: Promise<OpenSyncServer> };

/**
 * The process's sync server, opened on first use; a failed open is retried on
 * the next request. Once open, it is closed when the server shuts down
 * (lib/server/launch.ts), so the embedded database is released before exit.
 */
export function processSyncServer(env: Env): Promise<OpenSyncServer> {
  const g = globalThis as Holder;
  if (!g[KEY]) {
    const opening = openSyncServer(env);
    g[KEY] = opening.catch((err: unknown) => {
      delete g[KEY];
      throw err;
    });
    void opening.then(
      (server) =>
        onServerShutdown('sync database', async () => {
          delete g[KEY];
          await server.close();
        }),
      () => {},
    );
  }
  return g[KEY];
}

/** The handlers the route files call, over the process's server. */
export function syncHandlers(env: Env) {
  return createSyncHandlers(() => processSyncServer(env));
}
