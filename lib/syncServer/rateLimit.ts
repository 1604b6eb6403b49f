import type { RateRule } from './limits';
import type { SqlQueryable } from './sql';

/**
 * Token buckets kept in the database (`sync_rate_limits`), so that every app
 * server in front of one Postgres draws from the same bucket: a client that
 * the load balancer spreads over three servers gets the same allowance as one
 * that talks to one. One statement per check, atomic under concurrency (the
 * row is locked by the upsert), with the database's clock, so app servers
 * whose clocks differ still agree.
 */
export type RateVerdict = { ok: true } | { ok: false; retryAfterS: number };

export interface RateLimiter {
  /** Takes `cost` from the bucket `key` under `rule`; refused (taking nothing) when it does not hold that much. */
  take(key: string, rule: RateRule, cost?: number): Promise<RateVerdict>;
}

/** Buckets that have been full again for this long are deleted (an absent bucket is a full one). */
const SWEEP_EVERY_MS = 10 * 60_000;

export function createRateLimiter(db: SqlQueryable, now: () => number = Date.now): RateLimiter {
  let lastSweep = 0;
  return {
    async take(key, rule, cost = 1) {
      // A request that costs more than the bucket holds would never pass: it takes the whole bucket instead.
      const need = Math.min(cost, rule.capacity);
      // `refill`: the tokens after the time since the last take was added back, capped at the capacity.
      const refill = 'least($2::float8, b.tokens + greatest(0, extract(epoch FROM now() - b.at)) * $4::float8)';
      const rows = await db.query<{ tokens: number; allowed: boolean }>(
        `INSERT INTO sync_rate_limits AS b (bucket, tokens, at, full_at, allowed)
         VALUES ($1, $2::float8 - $3::float8, now(), now() + make_interval(secs => $3::float8 / $4::float8), true)
         ON CONFLICT (bucket) DO UPDATE SET
           allowed = ${refill} >= $3::float8,
           tokens = CASE WHEN ${refill} >= $3::float8 THEN ${refill} - $3::float8 ELSE ${refill} END,
           full_at = now() + make_interval(secs => ($2::float8 - CASE WHEN ${refill} >= $3::float8 THEN ${refill} - $3::float8 ELSE ${refill} END) / $4::float8),
           at = now()
         RETURNING tokens, allowed`,
        [key, rule.capacity, need, rule.perSecond],
      );
      const row = rows[0]!;
      if (now() - lastSweep > SWEEP_EVERY_MS) {
        lastSweep = now();
        void db.query('DELETE FROM sync_rate_limits WHERE full_at < now()').catch(() => {});
      }
      if (row.allowed) return { ok: true };
      return { ok: false, retryAfterS: Math.max(1, Math.ceil((need - Number(row.tokens)) / rule.perSecond)) };
    },
  };
}
