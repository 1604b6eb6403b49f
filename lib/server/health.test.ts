import { describe, expect, it } from 'vitest';
import { healthResponse, PROBE_TIMEOUT_MS, type HealthBody } from './health';

const runtime = (over: { draining?: boolean } = {}) => ({ listenHost: '0.0.0.0', draining: false, startedAt: 1_000, ...over });

describe('the health check', () => {
  it('is 200 with the database kind when the sync database answers', async () => {
    const res = await healthResponse({ runtime: runtime(), now: 61_000, probeSyncDatabase: async () => 'pglite' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as HealthBody;
    expect(body).toMatchObject({ status: 'ok', uptimeS: 60, syncDatabase: { status: 'ok', kind: 'pglite' } });
  });

  it('is 503 when the database fails, and does not repeat what the database said', async () => {
    const res = await healthResponse({
      runtime: runtime(),
      now: 2_000,
      probeSyncDatabase: async () => {
        throw new Error('password authentication failed for user "longctx" at db.internal:5432');
      },
    });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: 'unavailable', uptimeS: 1, syncDatabase: { status: 'unavailable' } });
    expect(text).not.toMatch(/password|longctx|db\.internal/);
  });

  it('does not wait longer than its timeout for a database that hangs', async () => {
    const t0 = Date.now();
    const res = await healthResponse({ runtime: runtime(), now: 0, probeSyncDatabase: () => new Promise(() => {}) });
    expect(res.status).toBe(503);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(PROBE_TIMEOUT_MS - 50);
    expect(Date.now() - t0).toBeLessThan(PROBE_TIMEOUT_MS + 2000);
  });

  it('is 503 "draining" during shutdown, without touching the database', async () => {
    let probed = false;
    const res = await healthResponse({
      runtime: runtime({ draining: true }),
      now: 0,
      probeSyncDatabase: async () => {
        probed = true;
        return 'postgres';
      },
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as HealthBody).status).toBe('draining');
    expect(probed).toBe(false);
  });

  it('works without the launcher (next start), leaving out the uptime', async () => {
    const res = await healthResponse({ runtime: undefined, now: 0, probeSyncDatabase: async () => 'postgres' });
    expect(await res.json()).toEqual({ status: 'ok', syncDatabase: { status: 'ok', kind: 'postgres', latencyMs: expect.any(Number) } });
  });
});
