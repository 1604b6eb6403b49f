import type { SqlClient } from './sql';

/**
 * The sync server's schema, one list of migrations for PGlite and Postgres
 * alike. A migration is never edited once shipped; a change appends one.
 * They run under a transaction-scoped advisory lock, so app servers starting
 * together against one database migrate it once.
 */
const MIGRATIONS: string[] = [
  `
  CREATE TABLE sync_spaces (
    space_id      text PRIMARY KEY,
    -- SHA-256 of the auth key derived from the sync code; the code itself never reaches the server.
    auth_verifier text NOT NULL,
    -- The next sequence number to hand out. Pushes lock this row (SELECT … FOR UPDATE) for their
    -- whole transaction, so a space's pushes commit one after another, in sequence order.
    next_seq      bigint NOT NULL DEFAULT 1,
    created_at    timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE sync_devices (
    device_id      text PRIMARY KEY,
    space_id       text NOT NULL REFERENCES sync_spaces(space_id) ON DELETE CASCADE,
    token_verifier text NOT NULL,
    name           bytea NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    last_seen_at   timestamptz,
    revoked_at     timestamptz
  );
  CREATE INDEX sync_devices_space ON sync_devices (space_id);
  -- One row per entry (immutable, inserted once) and one per session (its newest metadata,
  -- replaced when a push carries a later HLC, and given a new seq then so readers see it again).
  CREATE TABLE sync_records (
    space_id    text NOT NULL REFERENCES sync_spaces(space_id) ON DELETE CASCADE,
    seq         bigint NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('entry', 'session')),
    record_key  text NOT NULL,
    session_key text NOT NULL,
    hlc         text COLLATE "C",
    body        bytea NOT NULL,
    device_id   text NOT NULL,
    PRIMARY KEY (space_id, seq),
    UNIQUE (space_id, kind, record_key)
  );
  CREATE INDEX sync_records_session ON sync_records (space_id, session_key, seq);
  `,
  `
  -- Quotas: what each space holds, kept by the pushes (under the lock they already take) so that
  -- checking a quota reads one row instead of summing a space's records.
  ALTER TABLE sync_spaces ADD COLUMN bytes bigint NOT NULL DEFAULT 0;
  ALTER TABLE sync_spaces ADD COLUMN records bigint NOT NULL DEFAULT 0;
  UPDATE sync_spaces s SET bytes = t.bytes, records = t.records
    FROM (SELECT space_id, sum(octet_length(body)) AS bytes, count(*) AS records FROM sync_records GROUP BY space_id) t
   WHERE t.space_id = s.space_id;
  -- Bodies are ciphertext: compressing them is wasted work, and uncompressed out-of-line values can
  -- be read in slices (substring) without loading the whole value, which is how pulls stream them.
  ALTER TABLE sync_records ALTER COLUMN body SET STORAGE EXTERNAL;
  -- Rate limits shared by every app server: one token bucket per key (lib/syncServer/rateLimit.ts).
  CREATE TABLE sync_rate_limits (
    bucket  text PRIMARY KEY,
    tokens  float8 NOT NULL,
    at      timestamptz NOT NULL,
    -- When the bucket will be full again: from then on the row means nothing and may be deleted.
    full_at timestamptz NOT NULL,
    allowed boolean NOT NULL
  );
  CREATE INDEX sync_rate_limits_full_at ON sync_rate_limits (full_at);
  `,
];

/** Brings the database to the newest schema (or to version `upTo`: tests start from an older one). */
export async function migrate(db: SqlClient, upTo = MIGRATIONS.length): Promise<void> {
  await db.transaction(async (tx) => {
    // Any constant: it only has to be the same in every app server.
    await tx.query('SELECT pg_advisory_xact_lock(7316021)');
    await tx.query('CREATE TABLE IF NOT EXISTS sync_schema (version integer NOT NULL)');
    const rows = await tx.query<{ version: number }>('SELECT version FROM sync_schema');
    let version = rows[0]?.version ?? 0;
    if (rows.length === 0) await tx.query('INSERT INTO sync_schema (version) VALUES (0)');
    for (; version < Math.min(upTo, MIGRATIONS.length); version++) {
      for (const statement of MIGRATIONS[version]!.split(/;\s*$/m).map((s) => s.trim()).filter(Boolean)) await tx.query(statement);
      await tx.query('UPDATE sync_schema SET version = $1', [version + 1]);
    }
  });
}
