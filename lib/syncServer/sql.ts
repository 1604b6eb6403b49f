/**
 * The one interface the sync server's queries run on. Two implementations:
 * embedded PGlite (pglite.ts, the default) and a Postgres server through `pg`
 * (postgres.ts, when DATABASE_URL is set). Both speak the same SQL; the query
 * layer (store.ts) does not know which it has.
 */
export interface SqlQueryable {
  /** Positional parameters ($1, $2…); bytea as Uint8Array both ways. */
  query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]>;
}

export interface SqlClient extends SqlQueryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction (BEGIN … COMMIT, ROLLBACK on a throw). */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /** Calls back with every NOTIFY payload on `channel`; resolves with a function that stops listening. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
