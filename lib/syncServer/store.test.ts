import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64Url } from '@/lib/sync/crypto/bytes';
import type { PushRecord } from '@/lib/sync/protocol';
import { postgresBinDir, startPostgres } from '@/lib/testing/postgresServer';
import { createLiveHub } from './hub';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';
import { migrate } from './schema';
import type { SqlClient } from './sql';
import { CHANNEL, createSyncStore, type Notice } from './store';

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
        const page = await store.pull(id(1), after, 2);
        all.push(...page.records.map((r) => r.seq));
        after = page.checkpoint;
        if (!page.more) break;
      }
      expect(all).toHaveLength(4);
      expect(all).toEqual([...all].sort((a, b) => a - b));
      expect((await store.pull(id(1), after, 10)).records).toEqual([]);
    });

    it('keeps the session record with the latest clock and gives it a new seq', async () => {
      const store = createSyncStore(db);
      await store.createSpace(id(2), verifier(2), device(2));
      await store.push(id(2), device(2).id, [meta(1, hlc(200), 2)]);
      const older = await store.push(id(2), device(2).id, [meta(1, hlc(100), 1)]);
      expect(older.stored).toBe(0);
      const { records: before } = await store.pull(id(2), 0, 10);
      expect(before.map((r) => r.body)).toEqual([toBase64Url(Uint8Array.of(2))]);
      await store.push(id(2), device(2).id, [meta(1, hlc(300), 3)]);
      const { records } = await store.pull(id(2), before[0]!.seq, 10);
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
          const page = await store.pull(id(3), seen, 1000);
          for (const r of page.records) got.add(r.key);
          seen = page.checkpoint;
        }
        const rest = await store.pull(id(3), seen, 1000);
        for (const r of rest.records) got.add(r.key);
        return got;
      })();
      await Promise.all(Array.from({ length: 8 }, (_, w) => (async () => {
        for (let k = 0; k < 10; k++) await store.push(id(3), device(3).id, Array.from({ length: 5 }, (_, j) => entry(10_000 + w * 100 + k * 5 + j)));
      })()));
      reading = false;
      const got = await reader;
      const everything = (await store.pull(id(3), 0, 1000)).records;
      expect(everything).toHaveLength(400);
      expect(everything.filter((r) => !got.has(r.key))).toEqual([]);
    });

    it('keeps spaces apart, and reports a revoked device and unknown spaces', async () => {
      const store = createSyncStore(db);
      await store.createSpace(id(4), verifier(4), device(4));
      await store.addDevice(id(4), device(5));
      await expect(store.createSpace(id(4), verifier(4), device(6))).rejects.toMatchObject({ code: 'exists' });
      await expect(store.push(id(99), device(4).id, [entry(1)])).rejects.toMatchObject({ code: 'unknown_space' });
      expect((await store.pull(id(4), 0, 10)).records).toEqual([]);
      expect(await store.revokeDevice(id(4), device(5).id)).toBe(true);
      expect(await store.revokeDevice(id(1), device(5).id)).toBe(false);
      expect((await store.device(device(5).id))?.revoked).toBe(true);
      const list = await store.listDevices(id(4));
      expect(new Map(list.map((d) => [d.id, d.revoked]))).toEqual(new Map([[device(4).id, false], [device(5).id, true]]));
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
