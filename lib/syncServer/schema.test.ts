import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite } from './pglite';
import { migrate } from './schema';
import type { SqlClient } from './sql';
import { createSyncStore } from './store';

describe('schema migrations', () => {
  let db: SqlClient;
  beforeAll(async () => {
    db = await openPglite(null);
  }, 60_000);
  afterAll(() => db?.close());

  it('upgrading a database written before quotas counts what its spaces already hold, and stores bodies out of line uncompressed', async () => {
    await migrate(db, 1);
    await db.query("INSERT INTO sync_spaces (space_id, auth_verifier, next_seq) VALUES ('s1', 'v', 4), ('s2', 'v', 1)");
    await db.query("INSERT INTO sync_devices (device_id, space_id, token_verifier, name) VALUES ('d1', 's1', 'v', '\\x00')");
    for (const [seq, kind, key, size] of [
      [1, 'entry', 'e1', 1000],
      [2, 'entry', 'e2', 3000],
      [3, 'session', 'k1', 500],
    ] as const) {
      await db.query("INSERT INTO sync_records (space_id, seq, kind, record_key, session_key, hlc, body, device_id) VALUES ('s1', $1, $2, $3, 'k1', $4, $5, 'd1')", [
        seq,
        kind,
        key,
        kind === 'session' ? '000000000000001:0000:x' : null,
        new Uint8Array(size).fill(7),
      ]);
    }
    await migrate(db);
    await migrate(db); // and again, as a second app server starting later would: nothing changes
    const store = createSyncStore(db);
    expect(await store.usage('s1')).toEqual({ bytes: 4500, records: 3, devices: 1 });
    expect(await store.usage('s2')).toEqual({ bytes: 0, records: 0, devices: 0 });
    const storage = await db.query<{ attstorage: string }>("SELECT attstorage FROM pg_attribute WHERE attrelid = 'sync_records'::regclass AND attname = 'body'");
    expect(storage[0]!.attstorage).toBe('e');
    expect(await db.query('SELECT bucket FROM sync_rate_limits')).toEqual([]);
  });
});
