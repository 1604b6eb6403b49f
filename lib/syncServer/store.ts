import { fromBase64Url, toBase64Url } from '@/lib/sync/crypto/bytes';
import type { DeviceInfo, DeviceRegistration, PulledRecord, PushRecord } from '@/lib/sync/protocol';
import type { SqlClient, SqlQueryable } from './sql';

/**
 * The sync server's queries: spaces, devices, pushes and pulls. Every
 * statement is plain SQL that PGlite and Postgres run alike.
 */

/** The NOTIFY channel; payloads are JSON `{ s: spaceId, h: head }` or `{ s, r: revokedDeviceId }`. */
export const CHANNEL = 'longctx_sync';

export type Notice = { s: string; h: number } | { s: string; r: string };

export class SyncStoreError extends Error {
  constructor(
    readonly code: 'exists' | 'unknown_space',
    message: string,
  ) {
    super(message);
  }
}

export interface DeviceAuth {
  spaceId: string;
  tokenVerifier: string;
  revoked: boolean;
}

export interface SyncStore {
  readonly db: SqlClient;
  createSpace(spaceId: string, authVerifier: string, device: DeviceRegistration): Promise<void>;
  /** The space's auth verifier, or null when there is no such space. */
  spaceVerifier(spaceId: string): Promise<string | null>;
  addDevice(spaceId: string, device: DeviceRegistration): Promise<void>;
  device(deviceId: string): Promise<DeviceAuth | null>;
  /** Records that the device was seen, at most once a minute (a write per request would be wasteful). */
  touchDevice(deviceId: string): Promise<void>;
  listDevices(spaceId: string): Promise<DeviceInfo[]>;
  /** False when the device is not in the space. */
  revokeDevice(spaceId: string, deviceId: string): Promise<boolean>;
  push(spaceId: string, deviceId: string, records: readonly PushRecord[]): Promise<{ stored: number; head: number }>;
  pull(spaceId: string, after: number, limit: number, sessionKey?: string): Promise<{ records: PulledRecord[]; checkpoint: number; head: number; more: boolean }>;
  head(spaceId: string): Promise<number>;
}

/** Rows per INSERT statement: well under Postgres's 65,535 parameters at 8 per row. */
const INSERT_ROWS = 500;

export function createSyncStore(db: SqlClient): SyncStore {
  const notify = (tx: SqlQueryable, notice: Notice) => tx.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(notice)]);

  const head = async (q: SqlQueryable, spaceId: string) => {
    const rows = await q.query<{ next_seq: number | string }>('SELECT next_seq FROM sync_spaces WHERE space_id = $1', [spaceId]);
    if (!rows[0]) throw new SyncStoreError('unknown_space', 'No sync space with this id.');
    return Number(rows[0].next_seq) - 1;
  };

  const insertDevice = (tx: SqlQueryable, spaceId: string, d: DeviceRegistration) =>
    tx.query('INSERT INTO sync_devices (device_id, space_id, token_verifier, name) VALUES ($1, $2, $3, $4) ON CONFLICT (device_id) DO NOTHING RETURNING device_id', [
      d.id,
      spaceId,
      d.tokenVerifier,
      fromBase64Url(d.name),
    ]);

  return {
    db,

    async createSpace(spaceId, authVerifier, device) {
      await db.transaction(async (tx) => {
        const made = await tx.query('INSERT INTO sync_spaces (space_id, auth_verifier) VALUES ($1, $2) ON CONFLICT (space_id) DO NOTHING RETURNING space_id', [spaceId, authVerifier]);
        if (made.length === 0) throw new SyncStoreError('exists', 'A sync space with this code already exists.');
        if ((await insertDevice(tx, spaceId, device)).length === 0) throw new SyncStoreError('exists', 'This device id is taken.');
      });
    },

    async spaceVerifier(spaceId) {
      const rows = await db.query<{ auth_verifier: string }>('SELECT auth_verifier FROM sync_spaces WHERE space_id = $1', [spaceId]);
      return rows[0]?.auth_verifier ?? null;
    },

    async addDevice(spaceId, device) {
      if ((await insertDevice(db, spaceId, device)).length === 0) throw new SyncStoreError('exists', 'This device id is taken.');
    },

    async device(deviceId) {
      const rows = await db.query<{ space_id: string; token_verifier: string; revoked: boolean }>(
        'SELECT space_id, token_verifier, revoked_at IS NOT NULL AS revoked FROM sync_devices WHERE device_id = $1',
        [deviceId],
      );
      const r = rows[0];
      return r ? { spaceId: r.space_id, tokenVerifier: r.token_verifier, revoked: r.revoked } : null;
    },

    async touchDevice(deviceId) {
      await db.query("UPDATE sync_devices SET last_seen_at = now() WHERE device_id = $1 AND (last_seen_at IS NULL OR last_seen_at < now() - interval '1 minute')", [deviceId]);
    },

    async listDevices(spaceId) {
      const rows = await db.query<{ device_id: string; name: Uint8Array; created: number; seen: number | null; revoked: boolean }>(
        `SELECT device_id, name, (extract(epoch FROM created_at) * 1000)::float8 AS created,
                (extract(epoch FROM last_seen_at) * 1000)::float8 AS seen, revoked_at IS NOT NULL AS revoked
           FROM sync_devices WHERE space_id = $1 ORDER BY created_at, device_id`,
        [spaceId],
      );
      return rows.map((r) => ({ id: r.device_id, name: toBase64Url(r.name), createdAt: Math.round(r.created), lastSeenAt: r.seen === null ? null : Math.round(r.seen), revoked: r.revoked }));
    },

    async revokeDevice(spaceId, deviceId) {
      return db.transaction(async (tx) => {
        const rows = await tx.query('UPDATE sync_devices SET revoked_at = coalesce(revoked_at, now()) WHERE space_id = $1 AND device_id = $2 RETURNING device_id', [spaceId, deviceId]);
        if (rows.length) await notify(tx, { s: spaceId, r: deviceId });
        return rows.length > 0;
      });
    },

    async push(spaceId, deviceId, input) {
      // A batch may name a record twice (a retried push merged with new work): keep one per key,
      // the latest clock for sessions, else ON CONFLICT would refuse to touch a row twice.
      const byKey = new Map<string, PushRecord>();
      for (const r of input) {
        const k = `${r.kind}:${r.key}`;
        const prev = byKey.get(k);
        if (!prev || (r.hlc !== undefined && prev.hlc !== undefined && r.hlc > prev.hlc)) byKey.set(k, r);
      }
      const records = [...byKey.values()];
      return db.transaction(async (tx) => {
        // The lock that makes sequence numbers safe to read by checkpoint: until this transaction
        // commits, no other push to the space can take a number, so N+1 never commits before N.
        const locked = await tx.query<{ next_seq: number | string }>('SELECT next_seq FROM sync_spaces WHERE space_id = $1 FOR UPDATE', [spaceId]);
        if (!locked[0]) throw new SyncStoreError('unknown_space', 'No sync space with this id.');
        let next = Number(locked[0].next_seq);
        let stored = 0;
        let last = 0;
        for (let i = 0; i < records.length; i += INSERT_ROWS) {
          const slice = records.slice(i, i + INSERT_ROWS);
          const params: unknown[] = [];
          const values = slice.map((r, j) => {
            params.push(spaceId, next + j, r.kind, r.key, r.sessionKey, r.hlc ?? null, fromBase64Url(r.body), deviceId);
            const b = j * 8;
            return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}, $${b + 8})`;
          });
          // Entries are immutable: a second push of one changes nothing. A session record replaces
          // the stored one only when its clock is later (last writer wins), and takes a new seq.
          const rows = await tx.query<{ seq: number | string }>(
            `INSERT INTO sync_records (space_id, seq, kind, record_key, session_key, hlc, body, device_id)
             VALUES ${values.join(', ')}
             ON CONFLICT (space_id, kind, record_key) DO UPDATE
               SET seq = EXCLUDED.seq, hlc = EXCLUDED.hlc, body = EXCLUDED.body, device_id = EXCLUDED.device_id
               WHERE sync_records.kind = 'session' AND EXCLUDED.hlc > sync_records.hlc
             RETURNING seq`,
            params,
          );
          stored += rows.length;
          for (const r of rows) last = Math.max(last, Number(r.seq));
          next += slice.length;
        }
        // Numbers of records that changed nothing are skipped, not reused: gaps are harmless, readers only need order.
        // The head is the last number handed out, so it may name a gap.
        await tx.query('UPDATE sync_spaces SET next_seq = $2 WHERE space_id = $1', [spaceId, next]);
        // Delivered at commit, to every app server listening: their live streams tell their devices to pull.
        if (stored) await notify(tx, { s: spaceId, h: last });
        return { stored, head: next - 1 };
      });
    },

    async pull(spaceId, after, limit, sessionKey) {
      const rows = await db.query<{ seq: number | string; kind: 'entry' | 'session'; record_key: string; session_key: string; hlc: string | null; body: Uint8Array; device_id: string }>(
        `SELECT seq, kind, record_key, session_key, hlc, body, device_id FROM sync_records
          WHERE space_id = $1 AND seq > $2 ${sessionKey ? 'AND session_key = $4' : ''}
          ORDER BY seq LIMIT $3`,
        sessionKey ? [spaceId, after, limit, sessionKey] : [spaceId, after, limit],
      );
      // Read after the page, so the head is never behind it (a push may commit in between).
      const h = await head(db, spaceId);
      const records: PulledRecord[] = rows.map((r) => ({ seq: Number(r.seq), kind: r.kind, key: r.record_key, sessionKey: r.session_key, hlc: r.hlc, body: toBase64Url(r.body), device: r.device_id }));
      return { records, checkpoint: records.at(-1)?.seq ?? after, head: h, more: records.length === limit };
    },

    head: (spaceId) => head(db, spaceId),
  };
}
