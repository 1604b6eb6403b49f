import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromBase64Url, toBase64Url } from '@/lib/sync/crypto/bytes';
import { pullResponse, type PushRecord } from '@/lib/sync/protocol';
import { postgresBinDir, startPostgres } from '@/lib/testing/postgresServer';
import { createLiveHub } from './hub';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';
import { migrate } from './schema';
import type { SqlClient } from './sql';
import { BODY_CHUNK_BYTES, pullJson } from './pull';
import { CHANNEL, createSyncStore, type Notice, type SyncStore } from './store';

/**
 * One suite, two databases: the embedded PGlite and a real Postgres server
 * (Debian's, started for the run). The same schema and queries must behave
 * the same on both.
 */
/** A distinct 16-byte id per number (base64url, 22 characters, as opaque ids are). */
const id = (n: number) => toBase64Url(Uint8Array.from({ length: 16 }, (_, i) => (i < 4 ? (n >>> (8 * i)) & 255 : i)));
const verifier = (n: number) => toBase64Url(Uint8Array.from({ length: 32 }, (_, i) => (n + i) & 255));
const device = (n: number) => ({ id: id(1000 + n), tokenVerifier: verifier(n), name: 'AAAA' });
const entry = (n: number, session = 1): PushRecord => ({ kind: 'entry', key: id(n), sessionKey: id(500 + session), body: toBase64Url(Uint8Array.of(n & 255, 1, 2)) });
const meta = (session: number, hlc: string, byte: number): PushRecord => ({ kind: 'session', key: id(500 + session), sessionKey: id(500 + session), hlc, body: toBase64Url(Uint8Array.of(byte)) });
const hlc = (wall: number) => `${String(wall).padStart(15, '0')}:0000:dev`;

/** A pull page as a device receives it: listed, streamed as JSON by the route's own code, parsed. */
async function pull(store: SyncStore, spaceId: string, after: number, limit: number, sessionKey?: string, maxBytes = 16 * 1024 * 1024) {
  const page = await store.pullPage(spaceId, after, { limit, maxBytes, sessionKey });
  const pieces: Uint8Array[] = [];
  for await (const piece of pullJson(store, spaceId, after, page)) pieces.push(piece);
  return pullResponse.parse(JSON.parse(Buffer.concat(pieces).toString('utf8')));
}

const backends: { name: string; open: () => Promise<{ db: SqlClient; done: () => Promise<void> }>; skip?: boolean }[] = [
  { name: 'PGlite', open: async () => { const db = await openPglite(null); return { db, done: () => db.close() }; } },
  {
    name: 'Postgres',
    skip: postgresBinDir() === null,
    open: async () => {
      const pg = await startPostgres();
      const db = await openPostgres(pg.url);
      return { db, done: async () => { await db.close(); await pg.stop(); } };
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`sync store on ${backend.name}`, () => {
    let db: SqlClient;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ db, done } = await backend.open());
      await migrate(db);
      await migrate(db); // a second app server starting later runs it again: nothing happens
    }, 60_000);
    afterAll(() => done?.());

    it('numbers pushes per space, ignores a re-pushed entry, and pages pulls by checkpoint', async () => {
      const store = createSyncStore(db);
      await store.createSpace(id(1), verifier(1), device(1));
      const first = await store.push(id(1), device(1).id, [entry(1), entry(2), entry(3)]);
      expect(first).toEqual({ stored: 3, head: 3 });
      // The same entries again (a retry after a lost answer), plus one new: only the new one is stored.
      const again = await store.push(id(1), device(1).id, [entry(2), entry(3), entry(4), entry(4)]);
      expect(again.stored).toBe(1);
      const all: number[] = [];
      let after = 0;
      for (;;) {
        const page = await pull(store, id(1), after, 2);
        all.push(...page.records.map((r) => r.seq));
        after = page.checkpoint;
        if (!page.more) break;
      }
      expect(all).toHaveLength(4);
      expect(all).toEqual([...all].sort((a, b) => a - b));
      expect((await pull(store, id(1), after, 10)).records).toEqual([]);
    });

    it('keeps the session record with the latest clock and gives it a new seq', async () => {
      const store = createSyncStore(db);
      await store.createSpace(id(2), verifier(2), device(2));
      await store.push(id(2), device(2).id, [meta(1, hlc(200), 2)]);
      const older = await store.push(id(2), device(2).id, [meta(1, hlc(100), 1)]);
      expect(older.stored).toBe(0);
      const { records: before } = await pull(store, id(2), 0, 10);
      expect(before.map((r) => r.body)).toEqual([toBase64Url(Uint8Array.of(2))]);
      await store.push(id(2), device(2).id, [meta(1, hlc(300), 3)]);
      const { records } = await pull(store, id(2), before[0]!.seq, 10);
      expect(records.map((r) => [r.body, r.hlc])).toEqual([[toBase64Url(Uint8Array.of(3)), hlc(300)]]);
    });

    it('never lets a reader see seq N+1 before N, with pushes racing on one space', async () => {
      const store = createSyncStore(db);
      await store.createSpace(id(3), verifier(3), device(3));
      let seen = 0;
      let reading = true;
      // A reader that keeps a checkpoint: anything that commits below it later would be lost to it.
      const reader = (async () => {
        const got = new Set<string>();
        while (reading) {
          const page = await pull(store, id(3), seen, 1000);
          for (const r of page.records) got.add(r.key);
          seen = page.checkpoint;
        }
        const rest = await pull(store, id(3), seen, 1000);
        for (const r of rest.records) got.add(r.key);
        return got;
      })();
      await Promise.all(Array.from({ length: 8 }, (_, w) => (async () => {
        for (let k = 0; k < 10; k++) await store.push(id(3), device(3).id, Array.from({ length: 5 }, (_, j) => entry(10_000 + w * 100 + k * 5 + j)));
      })()));
      reading = false;
      const got = await reader;
      const everything = (await pull(store, id(3), 0, 1000)).records;
      expect(everything).toHaveLength(400);
      expect(everything.filter((r) => !got.has(r.key))).toEqual([]);
    });

    it('keeps spaces apart, and reports a revoked device and unknown spaces', async () => {
      const store = createSyncStore(db);
      await store.createSpace(id(4), verifier(4), device(4));
      await store.addDevice(id(4), device(5));
      await expect(store.createSpace(id(4), verifier(4), device(6))).rejects.toMatchObject({ code: 'exists' });
      await expect(store.push(id(99), device(4).id, [entry(1)])).rejects.toMatchObject({ code: 'unknown_space' });
      expect((await pull(store, id(4), 0, 10)).records).toEqual([]);
      expect(await store.revokeDevice(id(4), device(5).id)).toBe(true);
      expect(await store.revokeDevice(id(1), device(5).id)).toBe(false);
      expect((await store.device(device(5).id))?.revoked).toBe(true);
      const list = await store.listDevices(id(4));
      expect(new Map(list.map((d) => [d.id, d.revoked]))).toEqual(new Map([[device(4).id, false], [device(5).id, true]]));
    });

    it('caps a pull page by bytes, sends a record larger than the cap alone, and reads bodies a chunk at a time', async () => {
      const store = createSyncStore(db);
      await store.createSpace(id(10), verifier(10), device(10));
      const sizes = [100_000, 100_000, 2_500_000, 100_000, 900_000, 50, 300_000, 300_000];
      const pushed = sizes.map((n, i) => ({ kind: 'entry' as const, key: id(2000 + i), sessionKey: id(510), body: randomBytes(n).toString('base64url') }));
      for (const r of pushed) await store.push(id(10), device(10).id, [r]);
      // Every database read of bodies, measured: none may hold more than one chunk, whatever the page.
      let largestRead = 0;
      const measured: SyncStore = {
        ...store,
        bodies: async (space, seqs) => {
          const m = await store.bodies(space, seqs);
          largestRead = Math.max(largestRead, [...m.values()].reduce((n, b) => n + b.length, 0));
          return m;
        },
        bodySlice: async (space, seq, offset, length) => {
          const part = await store.bodySlice(space, seq, offset, length);
          largestRead = Math.max(largestRead, part?.length ?? 0);
          return part;
        },
      };
      const cap = 1024 * 1024;
      const pages: { sizes: number[]; more: boolean }[] = [];
      const bodies: string[] = [];
      let after = 0;
      for (;;) {
        const page = await pull(measured, id(10), after, 1000, undefined, cap);
        pages.push({ sizes: page.records.map((r) => fromBase64Url(r.body).length), more: page.more });
        bodies.push(...page.records.map((r) => r.body));
        after = page.checkpoint;
        if (!page.more) break;
      }
      // Everything arrived, in order, byte for byte.
      expect(bodies).toEqual(pushed.map((r) => r.body));
      for (const p of pages) if (p.sizes.length > 1) expect(p.sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(cap);
      expect(pages.find((p) => p.sizes.includes(2_500_000))?.sizes).toEqual([2_500_000]);
      expect(pages.length).toBeGreaterThanOrEqual(4);
      expect(pages.slice(0, -1).every((p) => p.more)).toBe(true);
      expect(largestRead).toBeGreaterThan(0);
      expect(largestRead).toBeLessThanOrEqual(BODY_CHUNK_BYTES);
    });

    it('leaves out a session record replaced after its page was listed: its new version comes on a later page', async () => {
      const store = createSyncStore(db);
      await store.createSpace(id(11), verifier(11), device(11));
      await store.push(id(11), device(11).id, [entry(1, 11), meta(11, hlc(100), 1), entry(2, 11)]);
      const page = await store.pullPage(id(11), 0, { limit: 10, maxBytes: 1e9 });
      await store.push(id(11), device(11).id, [meta(11, hlc(200), 2)]);
      const pieces: Uint8Array[] = [];
      for await (const piece of pullJson(store, id(11), 0, page)) pieces.push(piece);
      const first = pullResponse.parse(JSON.parse(Buffer.concat(pieces).toString('utf8')));
      expect(first.records.map((r) => r.kind)).toEqual(['entry', 'entry']);
      expect(first.checkpoint).toBe(3);
      const next = await pull(store, id(11), first.checkpoint, 10);
      expect(next.records.map((r) => [r.kind, r.body])).toEqual([['session', toBase64Url(Uint8Array.of(2))]]);
    });

    it('keeps each space within its quota of bytes, records and devices; a refused push changes nothing', async () => {
      const store = createSyncStore(db, { bytes: 10_000, records: 5, devices: 2 });
      const sized = (n: number, bytes: number): PushRecord => ({ kind: 'entry', key: id(3000 + n), sessionKey: id(512), body: toBase64Url(new Uint8Array(bytes).fill(n)) });
      const session = (wall: number, bytes: number): PushRecord => ({ kind: 'session', key: id(512), sessionKey: id(512), hlc: hlc(wall), body: toBase64Url(new Uint8Array(bytes)) });
      await store.createSpace(id(12), verifier(12), device(12));
      await store.push(id(12), device(12).id, [sized(1, 1000), sized(2, 1000), sized(3, 1000)]);
      expect(await store.usage(id(12))).toEqual({ bytes: 3000, records: 3, devices: 1 });
      await store.push(id(12), device(12).id, [sized(1, 1000), sized(2, 1000)]); // a retry: nothing new
      await store.push(id(12), device(12).id, [session(100, 500)]);
      expect(await store.usage(id(12))).toEqual({ bytes: 3500, records: 4, devices: 1 });
      // A later clock replaces the session record: its size replaces the old one's, the count stays.
      await store.push(id(12), device(12).id, [session(200, 800)]);
      expect(await store.usage(id(12))).toEqual({ bytes: 3800, records: 4, devices: 1 });
      const head = await store.head(id(12));
      await expect(store.push(id(12), device(12).id, [sized(4, 10), sized(5, 10)])).rejects.toMatchObject({ code: 'quota_exceeded', message: expect.stringMatching(/SYNC_QUOTA_RECORDS/) });
      await expect(store.push(id(12), device(12).id, [sized(6, 7000)])).rejects.toMatchObject({ code: 'quota_exceeded', message: expect.stringMatching(/full.*SYNC_QUOTA_BYTES/) });
      expect(await store.usage(id(12))).toEqual({ bytes: 3800, records: 4, devices: 1 });
      expect(await store.head(id(12))).toBe(head);
      expect((await pull(store, id(12), 0, 100)).records).toHaveLength(4);
      // A batch that fits still passes, and a retry of stored records passes even when the space is full.
      await store.push(id(12), device(12).id, [sized(7, 100)]);
      await expect(store.push(id(12), device(12).id, [sized(8, 100)])).rejects.toMatchObject({ code: 'quota_exceeded' });
      expect(await store.push(id(12), device(12).id, [sized(7, 100), sized(1, 1000)])).toMatchObject({ stored: 0 });

      await store.addDevice(id(12), device(13));
      await expect(store.addDevice(id(12), device(14))).rejects.toMatchObject({ code: 'quota_exceeded', message: expect.stringMatching(/already has 2 devices/) });
      // A removed device frees its place.
      await store.revokeDevice(id(12), device(13).id);
      await store.addDevice(id(12), device(14));
      expect((await store.usage(id(12))).devices).toBe(2);
    });

    it('notifies listeners at commit with the new head, through the hub', async () => {
      const store = createSyncStore(db);
      const hub = createLiveHub(db);
      await store.createSpace(id(6), verifier(6), device(7));
      const heard: Notice[] = [];
      const stop = await hub.subscribe(id(6), (n) => heard.push(n));
      const { head } = await store.push(id(6), device(7).id, [entry(7, 6)]);
      await expect.poll(() => heard).toEqual([{ s: id(6), h: head }]);
      stop();
      await hub.close();
      expect(CHANNEL).toBe('longctx_sync');
    });
  });
}
