import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresBinDir, startPostgres } from '@/lib/testing/postgresServer';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';
import { createRateLimiter } from './rateLimit';
import { migrate } from './schema';
import type { SqlClient } from './sql';

/**
 * The token buckets on both databases. On Postgres, two clients with pools of
 * their own stand for two app servers: the buckets are the database's, so
 * they share them.
 */
const backends: { name: string; skip?: boolean; open: () => Promise<{ a: SqlClient; b: SqlClient; done: () => Promise<void> }> }[] = [
  {
    name: 'PGlite',
    open: async () => {
      const db = await openPglite(null);
      return { a: db, b: db, done: () => db.close() };
    },
  },
  {
    name: 'Postgres',
    skip: postgresBinDir() === null,
    open: async () => {
      const pg = await startPostgres();
      const [a, b] = [await openPostgres(pg.url), await openPostgres(pg.url)];
      return { a, b, done: async () => (await a.close(), await b.close(), await pg.stop()) };
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`rate limits on ${backend.name}`, () => {
    let a: SqlClient;
    let b: SqlClient;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ a, b, done } = await backend.open());
      await migrate(a);
    }, 60_000);
    afterAll(() => done?.());

    it('lets the capacity through at once, then refuses with the time until a token is back; other keys are apart', async () => {
      const limiter = createRateLimiter(a);
      const rule = { capacity: 3, perSecond: 3 / 3600 }; // 3 per hour
      const verdicts = [];
      for (let i = 0; i < 5; i++) verdicts.push(await limiter.take('create:192.0.2.1', rule));
      expect(verdicts.slice(0, 3)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
      expect(verdicts[3]).toMatchObject({ ok: false });
      // One token every 20 minutes; a refusal takes nothing, so the wait does not grow with retries.
      for (const v of verdicts.slice(3)) expect((v as { retryAfterS: number }).retryAfterS).toBeGreaterThan(1190);
      for (const v of verdicts.slice(3)) expect((v as { retryAfterS: number }).retryAfterS).toBeLessThanOrEqual(1200);
      expect(await limiter.take('create:192.0.2.2', rule)).toEqual({ ok: true });
    });

    it('weighs a take by its cost (bytes), and never refuses forever a cost above the capacity', async () => {
      const limiter = createRateLimiter(a);
      const rule = { capacity: 1000, perSecond: 1000 / 3600 };
      expect(await limiter.take('bytes:x', rule, 600)).toEqual({ ok: true });
      const refused = await limiter.take('bytes:x', rule, 600);
      // 200 bytes short at 1000 per hour: 12 minutes.
      expect(refused).toMatchObject({ ok: false });
      expect((refused as { retryAfterS: number }).retryAfterS).toBeGreaterThan(700);
      expect((refused as { retryAfterS: number }).retryAfterS).toBeLessThanOrEqual(720);
      expect(await limiter.take('bytes:y', rule, 5000)).toEqual({ ok: true });
    });

    it('fills up again with time', async () => {
      const limiter = createRateLimiter(a);
      // One token a second: slow enough that a third take right after two is refused however busy the database is.
      const rule = { capacity: 2, perSecond: 1 };
      expect([await limiter.take('refill', rule), await limiter.take('refill', rule)]).toEqual([{ ok: true }, { ok: true }]);
      expect(await limiter.take('refill', rule)).toMatchObject({ ok: false, retryAfterS: 1 });
      await expect.poll(() => limiter.take('refill', rule), { timeout: 5000, interval: 20 }).toEqual({ ok: true });
    });

    it('holds across app servers: 40 takes racing from two of them on a bucket of 10 let exactly 10 through', async () => {
      const servers = [createRateLimiter(a), createRateLimiter(b)];
      const rule = { capacity: 10, perSecond: 10 / 3600 };
      const verdicts = await Promise.all(Array.from({ length: 40 }, (_, i) => servers[i % 2]!.take('join:203.0.113.9', rule)));
      expect(verdicts.filter((v) => v.ok)).toHaveLength(10);
    });
  });
}
