import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { SqlClient, SqlQueryable } from './sql';

/**
 * Embedded Postgres (PGlite, Postgres compiled to WebAssembly) in this
 * process, its data in `dataDir` (or in memory when null, for tests). One
 * process owns a data directory: this is the single-server mode; scaling out
 * to several app servers needs DATABASE_URL. PGlite serialises queries and
 * transactions itself, and LISTEN/NOTIFY works within the process.
 */
export async function openPglite(dataDir: string | null): Promise<SqlClient> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir ?? undefined);
  const wrap = (q: Pick<PGlite, 'query'>): SqlQueryable => ({
    query: async <R extends object>(text: string, params: readonly unknown[] = []) => (await q.query<R>(text, params as unknown[])).rows,
  });
  return {
    kind: 'pglite',
    ...wrap(db),
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    listen: async (channel, onPayload) => {
      const unlisten = await db.listen(channel, onPayload);
      return () => unlisten();
    },
    close: () => db.close(),
  };
}
