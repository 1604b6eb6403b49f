import { formatBytes, formatCount } from '@/lib/format/numbers';
import { fromBase64Url, toBase64Url } from '@/lib/sync/crypto/bytes';
import type { DeviceInfo, DeviceRegistration, PushRecord, RecordKind } from '@/lib/sync/protocol';
import type { SyncLimits } from './limits';
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
    readonly code: 'exists' | 'unknown_space' | 'quota_exceeded',
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

/** A record of a pull page, its body not read yet (bodies are streamed: see pull.ts). */
export interface PageRecord {
  seq: number;
  kind: RecordKind;
  key: string;
  sessionKey: string;
  hlc: string | null;
  device: string;
  /** Bytes of its body. */
  size: number;
}

export type Quota = SyncLimits['quota'];
const NO_QUOTA: Quota = { bytes: Infinity, records: Infinity, devices: Infinity };

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
  /** Stores a batch in one transaction; refuses it whole (quota_exceeded) when the space would hold more than its quota. */
  push(spaceId: string, deviceId: string, records: readonly PushRecord[]): Promise<{ stored: number; head: number }>;
  /**
   * The records of one pull page, without their bodies: at most `limit`, and
   * as many as fit in `maxBytes` of bodies (always at least one, however large).
   */
  pullPage(spaceId: string, after: number, opts: { limit: number; maxBytes: number; sessionKey?: string }): Promise<{ records: PageRecord[]; more: boolean }>;
  /** The bodies of these records, by seq; a record replaced since the page was read is missing. */
  bodies(spaceId: string, seqs: readonly number[]): Promise<Map<number, Uint8Array>>;
  /** `length` bytes of one record's body from `offset`, read from the database in place; null when the record was replaced. */
  bodySlice(spaceId: string, seq: number, offset: number, length: number): Promise<Uint8Array | null>;
  /** What the space holds, as its quota counts it. */
  usage(spaceId: string): Promise<{ bytes: number; records: number; devices: number }>;
  head(spaceId: string): Promise<number>;
}

/** Rows per INSERT statement: well under Postgres's 65,535 parameters at 8 per row. */
const INSERT_ROWS = 500;

const asBytes = (v: Uint8Array) => (v instanceof Uint8Array ? v : new Uint8Array(v as ArrayBuffer));

const full = (what: string, has: string, quota: string, variable: string) =>
  new SyncStoreError('quota_exceeded', `This sync space is full: it would hold ${has} ${what}, and the server allows ${quota} per space (${variable}).`);

export function createSyncStore(db: SqlClient, quota: Quota = NO_QUOTA): SyncStore {
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
      await db.transaction(async (tx) => {
        // The space's row is the lock: two devices joining at once are counted one after the other.
        const space = await tx.query('SELECT 1 FROM sync_spaces WHERE space_id = $1 FOR UPDATE', [spaceId]);
        if (!space[0]) throw new SyncStoreError('unknown_space', 'No sync space with this id.');
        if (quota.devices < Infinity) {
          const rows = await tx.query<{ n: number | string }>('SELECT count(*) AS n FROM sync_devices WHERE space_id = $1 AND revoked_at IS NULL', [spaceId]);
          const n = Number(rows[0]!.n);
          if (n >= quota.devices) {
            throw new SyncStoreError(
              'quota_exceeded',
              `This sync space already has ${formatCount(n)} devices, the most the server allows (SYNC_QUOTA_DEVICES). Remove one in Settings → Sync on another device, then join again.`,
            );
          }
        }
        if ((await insertDevice(tx, spaceId, device)).length === 0) throw new SyncStoreError('exists', 'This device id is taken.');
      });
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
        // It also serialises the space's quota counters.
        const locked = await tx.query<{ next_seq: number | string; bytes: number | string; records: number | string }>(
          'SELECT next_seq, bytes, records FROM sync_spaces WHERE space_id = $1 FOR UPDATE',
          [spaceId],
        );
        if (!locked[0]) throw new SyncStoreError('unknown_space', 'No sync space with this id.');
        let next = Number(locked[0].next_seq);
        let stored = 0;
        let last = 0;
        // What the space holds afterwards: a replaced session record gives back the size of the one it replaces.
        let bytes = Number(locked[0].bytes);
        let count = Number(locked[0].records);
        const sessionKeys = records.filter((r) => r.kind === 'session').map((r) => r.key);
        const replaced = new Map<string, number>();
        if (sessionKeys.length) {
          const rows = await tx.query<{ record_key: string; size: number | string }>(
            "SELECT record_key, octet_length(body) AS size FROM sync_records WHERE space_id = $1 AND kind = 'session' AND record_key = ANY($2::text[])",
            [spaceId, sessionKeys],
          );
          for (const r of rows) replaced.set(r.record_key, Number(r.size));
        }
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
          const rows = await tx.query<{ seq: number | string; kind: RecordKind; record_key: string; size: number | string }>(
            `INSERT INTO sync_records (space_id, seq, kind, record_key, session_key, hlc, body, device_id)
             VALUES ${values.join(', ')}
             ON CONFLICT (space_id, kind, record_key) DO UPDATE
               SET seq = EXCLUDED.seq, hlc = EXCLUDED.hlc, body = EXCLUDED.body, device_id = EXCLUDED.device_id
               WHERE sync_records.kind = 'session' AND EXCLUDED.hlc > sync_records.hlc
             RETURNING seq, kind, record_key, octet_length(body) AS size`,
            params,
          );
          stored += rows.length;
          for (const r of rows) {
            last = Math.max(last, Number(r.seq));
            const before = r.kind === 'session' ? replaced.get(r.record_key) : undefined;
            bytes += Number(r.size) - (before ?? 0);
            if (before === undefined) count++;
          }
          next += slice.length;
        }
        // Checked after the writes, which know what was new: a retried batch of records the space
        // already holds adds nothing and passes even when the space is full. Refused, it rolls back whole.
        if (bytes > quota.bytes) throw full('bytes', formatBytes(bytes), formatBytes(quota.bytes), 'SYNC_QUOTA_BYTES');
        if (count > quota.records) throw full('records', formatCount(count), `${formatCount(quota.records)} records`, 'SYNC_QUOTA_RECORDS');
        // Numbers of records that changed nothing are skipped, not reused: gaps are harmless, readers only need order.
        // The head is the last number handed out, so it may name a gap.
        await tx.query('UPDATE sync_spaces SET next_seq = $2, bytes = $3, records = $4 WHERE space_id = $1', [spaceId, next, bytes, count]);
        // Delivered at commit, to every app server listening: their live streams tell their devices to pull.
        if (stored) await notify(tx, { s: spaceId, h: last });
        return { stored, head: next - 1 };
      });
    },

    async pullPage(spaceId, after, { limit, maxBytes, sessionKey }) {
      // Sizes come from the stored value's header (octet_length does not read an out-of-line body).
      const rows = await db.query<{ seq: number | string; kind: RecordKind; record_key: string; session_key: string; hlc: string | null; device_id: string; size: number | string }>(
        `SELECT seq, kind, record_key, session_key, hlc, device_id, octet_length(body) AS size FROM sync_records
          WHERE space_id = $1 AND seq > $2 ${sessionKey ? 'AND session_key = $4' : ''}
          ORDER BY seq LIMIT $3`,
        sessionKey ? [spaceId, after, limit, sessionKey] : [spaceId, after, limit],
      );
      const records: PageRecord[] = [];
      let bytes = 0;
      for (const r of rows) {
        const size = Number(r.size);
        if (records.length > 0 && bytes + size > maxBytes) break;
        bytes += size;
        records.push({ seq: Number(r.seq), kind: r.kind, key: r.record_key, sessionKey: r.session_key, hlc: r.hlc, device: r.device_id, size });
      }
      return { records, more: records.length < rows.length || rows.length === limit };
    },

    async bodies(spaceId, seqs) {
      const rows = await db.query<{ seq: number | string; body: Uint8Array }>('SELECT seq, body FROM sync_records WHERE space_id = $1 AND seq = ANY($2::bigint[])', [spaceId, seqs]);
      return new Map(rows.map((r) => [Number(r.seq), asBytes(r.body)]));
    },

    async bodySlice(spaceId, seq, offset, length) {
      // substring() of an uncompressed out-of-line value reads only the chunks it needs (schema: STORAGE EXTERNAL).
      const rows = await db.query<{ part: Uint8Array }>('SELECT substring(body FROM $3::int FOR $4::int) AS part FROM sync_records WHERE space_id = $1 AND seq = $2', [
        spaceId,
        seq,
        offset + 1,
        length,
      ]);
      return rows[0] ? asBytes(rows[0].part) : null;
    },

    async usage(spaceId) {
      const rows = await db.query<{ bytes: number | string; records: number | string; devices: number | string }>(
        'SELECT bytes, records, (SELECT count(*) FROM sync_devices d WHERE d.space_id = s.space_id AND d.revoked_at IS NULL) AS devices FROM sync_spaces s WHERE space_id = $1',
        [spaceId],
      );
      if (!rows[0]) throw new SyncStoreError('unknown_space', 'No sync space with this id.');
      return { bytes: Number(rows[0].bytes), records: Number(rows[0].records), devices: Number(rows[0].devices) };
    },

    head: (spaceId) => head(db, spaceId),
  };
}
