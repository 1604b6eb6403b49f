import { randomBytes as bulkRandom } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nobleBackend } from '@/lib/sync/crypto/backend';
import { fromBase64Url, randomBytes, toBase64Url } from '@/lib/sync/crypto/bytes';
import { authVerifierOf, deriveSpaceKeys } from '@/lib/sync/crypto/keys';
import { deviceAuthorization, pullResponse, spaceAuthorization } from '@/lib/sync/protocol';
import { createSyncHandlers, type SyncHandlers, type SyncServer } from './http';
import { createSyncServer, openSyncServer } from './instance';
import { readSyncLimits } from './limits';
import { openPglite } from './pglite';
import { migrate } from './schema';
import type { SqlClient } from './sql';

/**
 * The routes' logic with its limits, on PGlite: what a client is told when it
 * asks too often (429 and Retry-After), when its space is full (507), and how
 * pulls and live streams are bounded. Every server here is started with the
 * limits under test and nothing else changed from the defaults.
 */

// One database for the file (opening PGlite takes seconds); each test's server has its own limits,
// and the buckets are emptied between tests so that one test's requests do not count in the next.
let db: SqlClient;
beforeAll(async () => {
  db = await openPglite(null);
  await migrate(db);
}, 60_000);
afterAll(() => db?.close());
const opened: SyncServer[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.hub.close();
  await db.query('DELETE FROM sync_rate_limits');
});

async function server(env: Record<string, string>): Promise<{ server: SyncServer; handlers: SyncHandlers }> {
  const s = createSyncServer(db, readSyncLimits(env));
  opened.push(s);
  return { server: s, handlers: createSyncHandlers(async () => s) };
}

const URL_BASE = 'http://127.0.0.1:3000/api/sync';
const post = (path: string, authorization: string, body: unknown, from = '192.0.2.1') =>
  new Request(`${URL_BASE}/${path}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json', 'x-forwarded-for': from }, body: JSON.stringify(body) });
const get = (path: string, authorization: string, signal?: AbortSignal) => new Request(`${URL_BASE}/${path}`, { headers: { authorization, 'x-forwarded-for': '192.0.2.1' }, signal });

async function registration() {
  const token = toBase64Url(randomBytes(32));
  return { token, device: { id: toBase64Url(randomBytes(16)), tokenVerifier: await authVerifierOf(fromBase64Url(token), nobleBackend), name: 'AAAA' } };
}

/** A new space with one device, created from `from`; the answer, and the device's credentials when it was created. */
async function create(h: SyncHandlers, from = '192.0.2.1') {
  const keys = await deriveSpaceKeys(randomBytes(16), nobleBackend);
  const spaceAuth = spaceAuthorization(keys.spaceId, toBase64Url(keys.authKey));
  const { token, device } = await registration();
  const res = await h.createSpace(post('space', spaceAuth, { spaceId: keys.spaceId, authVerifier: await authVerifierOf(keys.authKey, nobleBackend), device }, from));
  return { res, spaceId: keys.spaceId, spaceAuth, auth: deviceAuthorization(device.id, token) };
}

const entries = (n: number, bytes: number) => {
  const sessionKey = toBase64Url(randomBytes(16));
  return Array.from({ length: n }, () => ({ kind: 'entry', key: toBase64Url(randomBytes(16)), sessionKey, body: bulkRandom(bytes).toString('base64url') }));
};

describe('rate limits answer 429 with Retry-After and the limit in words', () => {
  it('space creations, per address and for everyone together', async () => {
    const { handlers } = await server({ SYNC_RATE_CREATE: '3/h', SYNC_RATE_CREATE_TOTAL: '5/h' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await create(handlers)).res.status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = (await create(handlers)).res;
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1100); // one creation every 20 minutes
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', error: expect.stringMatching(/^Too many sync spaces were created from this address: at most 3 per hour\. Try again in 20 minutes\.$/) });
    // Another address has its own allowance, until the server-wide one runs out.
    expect((await create(handlers, '198.51.100.7')).res.status).toBe(200);
    expect((await create(handlers, '198.51.100.8')).res.status).toBe(200);
    const total = (await create(handlers, '198.51.100.9')).res;
    expect(total.status).toBe(429);
    expect((await total.json()).error).toMatch(/Too many sync spaces are being created on this server/);
  });

  it('joins, counted right or wrong: wrong codes get 401 until the limit, then 429', async () => {
    const { handlers } = await server({ SYNC_RATE_JOIN: '5/h' });
    const space = await create(handlers);
    const statuses = [];
    for (let i = 0; i < 8; i++) {
      const wrong = spaceAuthorization(space.spaceId, toBase64Url(randomBytes(32)));
      statuses.push((await handlers.join(post('join', wrong, { spaceId: space.spaceId, device: (await registration()).device }))).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // Even the right code waits now, from this address: the limit cannot tell a guess from a typo.
    const right = await handlers.join(post('join', space.spaceAuth, { spaceId: space.spaceId, device: (await registration()).device }));
    expect(right.status).toBe(429);
  });

  it('pushes per device, and bytes pushed per address', async () => {
    const { handlers } = await server({ SYNC_RATE_PUSH: '3/min', SYNC_RATE_PUSH_BYTES: '1m/h' });
    const a = await create(handlers);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await handlers.push(post('push', a.auth, { records: entries(1, 1000) }))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    // Another device from another address: its own pushes, until it has sent a megabyte in the hour.
    const b = await create(handlers, '203.0.113.5');
    expect((await handlers.push(post('push', b.auth, { records: entries(2, 400_000) }, '203.0.113.5'))).status).toBe(200);
    const tooMuch = await handlers.push(post('push', b.auth, { records: entries(1, 400_000) }, '203.0.113.5'));
    expect(tooMuch.status).toBe(429);
    expect((await tooMuch.json()).error).toMatch(/^Too much data pushed from this address: at most 1\.0 MB per hour\./);
  });

  it('none of it when the limits are off', async () => {
    const { handlers } = await server({ SYNC_RATE_CREATE: 'off', SYNC_RATE_CREATE_TOTAL: 'off' });
    const statuses = new Set<number>();
    for (let i = 0; i < 15; i++) statuses.add((await create(handlers)).res.status);
    expect([...statuses]).toEqual([200]);
  });
});

describe('quotas answer 507 with what is full', () => {
  it('a push that would pass the space’s bytes, and a device past its devices', async () => {
    const { handlers } = await server({ SYNC_QUOTA_BYTES: '1m', SYNC_QUOTA_DEVICES: '1' });
    const a = await create(handlers);
    expect((await handlers.push(post('push', a.auth, { records: entries(1, 700_000) }))).status).toBe(200);
    const full = await handlers.push(post('push', a.auth, { records: entries(1, 700_000) }));
    expect(full.status).toBe(507);
    expect(await full.json()).toMatchObject({ code: 'quota_exceeded', error: expect.stringMatching(/This sync space is full.*SYNC_QUOTA_BYTES/) });
    const join = await handlers.join(post('join', a.spaceAuth, { spaceId: a.spaceId, device: (await registration()).device }));
    expect(join.status).toBe(507);
    expect((await join.json()).error).toMatch(/already has 1 devices/);
  });

  it('a limit that does not parse stops the server with the variable named', async () => {
    const handlers = createSyncHandlers(() => openSyncServer({ SYNC_QUOTA_BYTES: 'lots' }));
    const res = await handlers.devices(get('devices', 'Device x.y'));
    expect(res.status).toBe(503);
    expect((await res.json()).error).toMatch(/misconfigured: SYNC_QUOTA_BYTES=lots is not a size/);
  });
});

describe('pull pages are capped by bytes and streamed', () => {
  it('a page holds records up to the cap, a larger one alone, and the JSON is the protocol’s', async () => {
    const { handlers } = await server({ SYNC_PULL_PAGE_BYTES: '256k' });
    const a = await create(handlers);
    for (const bytes of [100_000, 100_000, 100_000, 600_000, 10]) expect((await handlers.push(post('push', a.auth, { records: entries(1, bytes) }))).status).toBe(200);
    const pages: number[][] = [];
    let after = 0;
    for (;;) {
      const res = await handlers.pull(get(`pull?after=${after}&limit=1000`, a.auth));
      expect(res.headers.get('content-type')).toBe('application/json');
      const page = pullResponse.parse(await res.json());
      pages.push(page.records.map((r) => fromBase64Url(r.body).length));
      after = page.checkpoint;
      if (!page.more) break;
    }
    expect(pages).toEqual([[100_000, 100_000], [100_000], [600_000], [10]]);
  });
});

describe('live streams', () => {
  /** Opens a stream; resolves with the response and a reader of its text. */
  async function open(h: SyncHandlers, auth: string) {
    const ctl = new AbortController();
    const res = await h.live(get('live', auth, ctl.signal));
    const reader = res.ok ? res.body?.pipeThrough(new TextDecoderStream()).getReader() : undefined;
    return { res, reader, ctl };
  }

  /** Reads until the stream ends; the text and how long it lasted. */
  async function readToEnd(reader: ReadableStreamDefaultReader<string>) {
    const t = performance.now();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, ms: performance.now() - t };
      text += value;
    }
  }

  it('are capped per device and per server (429 and Retry-After), and a closed one gives its place back', async () => {
    const { server: s, handlers } = await server({ SYNC_LIVE_PER_DEVICE: '2', SYNC_LIVE_PER_SERVER: '3' });
    const a = await create(handlers);
    const b = await create(handlers);
    const first = await open(handlers, a.auth);
    const second = await open(handlers, a.auth);
    expect([first.res.status, second.res.status]).toEqual([200, 200]);
    const third = await open(handlers, a.auth);
    expect(third.res.status).toBe(429);
    expect(third.res.headers.get('retry-after')).toBe('60');
    expect((await third.res.json()).error).toMatch(/already has 2 live streams open/);
    const onB = await open(handlers, b.auth);
    expect(onB.res.status).toBe(200);
    const fourth = await open(handlers, b.auth);
    expect(fourth.res.status).toBe(429);
    expect((await fourth.res.json()).error).toMatch(/as many live streams open as it allows/);
    expect(s.live.open()).toBe(3);
    // A reader that goes away (cancels) releases its slot.
    await first.reader!.cancel();
    await expect.poll(() => s.live.open()).toBe(2);
    const again = await open(handlers, a.auth);
    expect(again.res.status).toBe(200);
    for (const x of [second, onB, again]) await x.reader!.cancel();
    await expect.poll(() => s.live.open()).toBe(0);
  });

  it('ends a stream after its lifetime, and one that carried no event for the idle time', async () => {
    const { server: s, handlers } = await server({ SYNC_LIVE_MAX_AGE: '600ms', SYNC_LIVE_IDLE: '1h' });
    const a = await create(handlers);
    const aged = await readToEnd((await open(handlers, a.auth)).reader!);
    expect(aged.text).toMatch(/^event: head\n/);
    expect(aged.ms).toBeGreaterThanOrEqual(500); // 90–100 % of the lifetime
    expect(s.live.open()).toBe(0);

    const idle = await server({ SYNC_LIVE_MAX_AGE: '1h', SYNC_LIVE_IDLE: '400ms' });
    const b = await create(idle.handlers);
    const stream = await open(idle.handlers, b.auth);
    const ended = readToEnd(stream.reader!);
    // Events keep it open: pushes every 200 ms for a second, then nothing.
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 200));
      expect((await idle.handlers.push(post('push', b.auth, { records: entries(1, 10) }))).status).toBe(200);
    }
    const { text, ms } = await ended;
    expect(text.match(/event: head/g)).toHaveLength(6);
    expect(ms).toBeGreaterThanOrEqual(1000 + 350);
    expect(idle.server.live.open()).toBe(0);
  });
});
