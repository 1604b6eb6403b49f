import pg from 'pg';
import type { SqlClient, SqlQueryable } from './sql';

/**
 * A Postgres server through node-postgres: a pool for queries and
 * transactions, and one dedicated connection per process for LISTEN (a pooled
 * connection would be handed to other queries and miss notifications). The
 * listening connection reconnects on its own after an error.
 */
export async function openPostgres(url: string, opts: { max?: number } = {}): Promise<SqlClient> {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10 });
  // An idle client that errors (the server restarted) must not crash the process; the pool drops it.
  pool.on('error', () => {});
  // int8 (sequence numbers) as numbers: they stay far below 2^53.
  const types = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) };
  const run =
    (q: pg.Pool | pg.PoolClient): SqlQueryable['query'] =>
    async <R extends object>(text: string, params: readonly unknown[] = []) =>
      (await q.query<R>({ text, values: params.map(toPg), types } as pg.QueryConfig)).rows;
  // Checked now so a wrong DATABASE_URL is reported at start, not at the first sync.
  await pool.query('SELECT 1');
  return {
    kind: 'postgres',
    query: run(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const out = await fn({ query: run(client) });
        await client.query('COMMIT');
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    listen: (channel, onPayload) => listenWithReconnect(url, channel, onPayload),
    close: () => pool.end(),
  };
}

const toPg = (v: unknown) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v);

async function listenWithReconnect(url: string, channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => {
      if (n.channel === channel && n.payload !== undefined) onPayload(n.payload);
    });
    c.on('error', () => {
      if (stopped) return;
      client = null;
      c.end().catch(() => {});
      // Whatever was notified while disconnected is not lost: clients pull by checkpoint when their stream reconnects.
      setTimeout(() => void connect().catch(() => {}), 1000).unref();
    });
    await c.connect();
    await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    client = c;
  };
  await connect();
  return async () => {
    stopped = true;
    await client?.end().catch(() => {});
  };
}
