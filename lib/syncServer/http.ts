import { sha256 } from '@noble/hashes/sha2.js';
import { formatBytes } from '@/lib/format/numbers';
import { readJsonBody } from '@/lib/providers/body';
import { equalBytes, fromBase64Url, toBase64Url } from '@/lib/sync/crypto/bytes';
import {
  createSpaceRequest,
  joinRequest,
  MAX_PULL_LIMIT,
  MAX_PUSH_BODY_BYTES,
  parseAuthorization,
  pushRequest,
  revokeRequest,
  type LiveEvent,
  type SyncErrorCode,
} from '@/lib/sync/protocol';
import type { z } from 'zod';
import { clientAddress } from './clientAddress';
import type { LiveHub } from './hub';
import { SyncConfigError, type RateRule, type SyncLimits } from './limits';
import type { LiveSlots } from './liveStreams';
import { pullJson, streamOf } from './pull';
import type { RateLimiter } from './rateLimit';
import { SyncStoreError, type Notice, type SyncStore } from './store';

/**
 * The sync routes' logic, as functions from Request to Response over an
 * injected store and hub. The route files in app/api/sync run the request
 * guard, then one of these. Nothing here reads a session: bodies are
 * ciphertext, ids are opaque.
 */
export interface SyncServer {
  store: SyncStore;
  hub: LiveHub;
  limits: SyncLimits;
  /** Token buckets in the database: shared by every app server. */
  rates: RateLimiter;
  /** This process's live streams. */
  live: LiveSlots;
}

export type GetServer = () => Promise<SyncServer>;

/**
 * 507 Insufficient Storage for a full space: the request is fine and the server is up, but this
 * space cannot store more until something changes on the server. 413 would tell the client to
 * send less at a time (it says so for `too_large`), 429 to wait a moment; neither would help.
 */
const STATUS: Record<SyncErrorCode, number> = {
  invalid: 400,
  unauthorized: 401,
  revoked: 403,
  unknown_space: 404,
  exists: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  quota_exceeded: 507,
};

export function syncError(code: SyncErrorCode, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: message, code }, { status: STATUS[code], headers: { 'cache-control': 'no-store', ...headers } });
}

/** "in 40 seconds", "in 6 minutes", "in about 2 hours". */
function inTime(seconds: number): string {
  if (seconds < 90) return `in ${seconds} second${seconds === 1 ? '' : 's'}`;
  if (seconds < 90 * 60) return `in ${Math.ceil(seconds / 60)} minutes`;
  return `in about ${Math.round(seconds / 3600)} hour${Math.round(seconds / 3600) === 1 ? '' : 's'}`;
}

/** "10 per hour", "120 per minute", "256 MB per hour": a rule as the refusal states it. */
function perPeriod(rule: RateRule, unit: (n: number) => string): string {
  for (const [name, s] of [['second', 1], ['minute', 60], ['hour', 3600], ['day', 86_400]] as const) {
    const n = rule.perSecond * s;
    if (n >= 1 && Math.abs(n - Math.round(n)) < 1e-6) return `${unit(Math.round(n))} per ${name}`;
  }
  return `${unit(Math.round(rule.perSecond * 3600))} per hour`;
}

const times = (n: number) => `${n}`;

/**
 * Takes from each bucket in turn; the first that refuses answers 429 with
 * Retry-After and the limit in words. Buckets with no rule (off) are skipped.
 */
async function rateLimited(server: SyncServer, checks: { key: string; rule: RateRule | null; cost?: number; what: string; unit?: (n: number) => string }[]): Promise<Response | null> {
  for (const c of checks) {
    if (!c.rule) continue;
    const verdict = await server.rates.take(c.key, c.rule, c.cost);
    if (!verdict.ok) {
      return syncError('rate_limited', `${c.what}: at most ${perPeriod(c.rule, c.unit ?? times)}. Try again ${inTime(verdict.retryAfterS)}.`, {
        'retry-after': String(verdict.retryAfterS),
      });
    }
  }
  return null;
}

const addressOf = (server: SyncServer, request: Request) => clientAddress(request.headers.get('x-forwarded-for'), server.limits.forwardedHops);

const ok = (body: unknown) => Response.json(body, { headers: { 'cache-control': 'no-store' } });

/** Heartbeats keep proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_MS = 20_000;

const verifierOf = (secret: string) => toBase64Url(sha256(fromBase64Url(secret)));
const sameVerifier = (a: string, b: string) => equalBytes(fromBase64Url(a), fromBase64Url(b));

async function withServer(get: GetServer, fn: (s: SyncServer) => Promise<Response>): Promise<Response> {
  let server: SyncServer;
  try {
    server = await get();
  } catch (err) {
    if (err instanceof SyncConfigError) return syncError('unavailable', `The sync server is misconfigured: ${err.message}`);
    return syncError('unavailable', `The sync database is not available: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return await fn(server);
  } catch (err) {
    if (err instanceof SyncStoreError) return syncError(err.code, err.message);
    return syncError('unavailable', 'The sync database failed to answer; try again.');
  }
}

async function body<T extends z.ZodType>(request: Request, schema: T, maxBytes = 64 * 1024): Promise<{ value: z.infer<T> } | { refused: Response }> {
  const read = await readJsonBody(request, maxBytes);
  if (!read.ok) return { refused: syncError(read.status === 413 ? 'too_large' : 'invalid', read.message) };
  const parsed = schema.safeParse(read.value);
  if (!parsed.success) return { refused: syncError('invalid', `Invalid request: ${parsed.error.issues[0]?.path.join('.') || 'body'}: ${parsed.error.issues[0]?.message}`) };
  return { value: parsed.data };
}

/** Proves knowledge of the sync code: the Authorization header's space key hashes to the space's verifier. */
async function spaceAuth(store: SyncStore, request: Request, spaceId: string): Promise<Response | null> {
  const cred = parseAuthorization(request.headers.get('authorization'));
  if (!cred || cred.kind !== 'space' || cred.spaceId !== spaceId) return syncError('unauthorized', 'Missing or malformed space credentials.');
  const stored = await store.spaceVerifier(spaceId);
  if (stored === null) return syncError('unknown_space', 'No sync space matches this code. Check the words, or create a new space.');
  if (!sameVerifier(stored, verifierOf(cred.secret))) return syncError('unauthorized', 'This code does not open that sync space.');
  return null;
}

/** The device behind the request, or the refusal. A removed device is told so, with its own code. */
async function deviceAuth(store: SyncStore, request: Request): Promise<{ deviceId: string; spaceId: string } | Response> {
  const cred = parseAuthorization(request.headers.get('authorization'));
  if (!cred || cred.kind !== 'device') return syncError('unauthorized', 'Missing or malformed device credentials.');
  const device = await store.device(cred.deviceId);
  if (!device || !sameVerifier(device.tokenVerifier, verifierOf(cred.secret))) return syncError('unauthorized', 'This device is not registered in a sync space.');
  if (device.revoked) return syncError('revoked', 'This device was removed from the sync space.');
  void store.touchDevice(cred.deviceId).catch(() => {});
  return { deviceId: cred.deviceId, spaceId: device.spaceId };
}

export function createSyncHandlers(get: GetServer) {
  return {
    /** POST /api/sync/space */
    createSpace: (request: Request) =>
      withServer(get, async (server) => {
        const { store, limits } = server;
        // Before anything else: a refused creation costs one statement.
        const limited = await rateLimited(server, [
          { key: `create:${addressOf(server, request)}`, rule: limits.rate.create, what: 'Too many sync spaces were created from this address' },
          { key: 'create:*', rule: limits.rate.createTotal, what: 'Too many sync spaces are being created on this server' },
        ]);
        if (limited) return limited;
        const b = await body(request, createSpaceRequest);
        if ('refused' in b) return b.refused;
        const cred = parseAuthorization(request.headers.get('authorization'));
        // The verifier sent must be that of the key presented, or a client could create a space it cannot open.
        if (!cred || cred.kind !== 'space' || cred.spaceId !== b.value.spaceId || !sameVerifier(verifierOf(cred.secret), b.value.authVerifier)) {
          return syncError('unauthorized', 'The space credentials do not match the space being created.');
        }
        await store.createSpace(b.value.spaceId, b.value.authVerifier, b.value.device);
        return ok({ spaceId: b.value.spaceId, head: 0 });
      }),

    /** POST /api/sync/join */
    join: (request: Request) =>
      withServer(get, async (server) => {
        const { store, limits } = server;
        // Counted whether the code is right or not: guessing is what it slows down.
        const limited = await rateLimited(server, [{ key: `join:${addressOf(server, request)}`, rule: limits.rate.join, what: 'Too many attempts to join a sync space from this address' }]);
        if (limited) return limited;
        const b = await body(request, joinRequest);
        if ('refused' in b) return b.refused;
        const refused = await spaceAuth(store, request, b.value.spaceId);
        if (refused) return refused;
        await store.addDevice(b.value.spaceId, b.value.device);
        return ok({ spaceId: b.value.spaceId, head: await store.head(b.value.spaceId) });
      }),

    /** POST /api/sync/push */
    push: (request: Request) =>
      withServer(get, async (server) => {
        const { store, limits } = server;
        // Authenticated first: the per-device bucket is the device's own, which nobody else can drain.
        const who = await deviceAuth(store, request);
        if (who instanceof Response) return who;
        const perDevice = await rateLimited(server, [{ key: `push:${who.deviceId}`, rule: limits.rate.push, what: 'Too many pushes from this device' }]);
        if (perDevice) return perDevice;
        const b = await body(request, pushRequest, MAX_PUSH_BODY_BYTES);
        if ('refused' in b) return b.refused;
        const bytes = b.value.records.reduce((n, r) => n + Math.floor((r.body.length * 3) / 4), 0);
        const perAddress = await rateLimited(server, [
          { key: `push-bytes:${addressOf(server, request)}`, rule: limits.rate.pushBytes, cost: bytes, what: 'Too much data pushed from this address', unit: formatBytes },
        ]);
        if (perAddress) return perAddress;
        return ok(await store.push(who.spaceId, who.deviceId, b.value.records));
      }),

    /** GET /api/sync/pull?after=N[&limit=N][&session=KEY] */
    pull: (request: Request) =>
      withServer(get, async ({ store, limits }) => {
        const who = await deviceAuth(store, request);
        if (who instanceof Response) return who;
        const q = new URL(request.url).searchParams;
        const after = Number(q.get('after') ?? '0');
        const limit = Number(q.get('limit') ?? String(MAX_PULL_LIMIT));
        const session = q.get('session') ?? undefined;
        if (!Number.isSafeInteger(after) || after < 0) return syncError('invalid', '`after` must be a non-negative integer.');
        if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PULL_LIMIT) return syncError('invalid', `\`limit\` must be between 1 and ${MAX_PULL_LIMIT}.`);
        if (session !== undefined && !/^[A-Za-z0-9_-]{22}$/.test(session)) return syncError('invalid', '`session` must be an opaque session key.');
        // The page is listed before the answer starts (a failure here is still a proper error); its bodies are then
        // streamed from the database to the socket, a chunk at a time (pull.ts).
        const page = await store.pullPage(who.spaceId, after, { limit, maxBytes: limits.pullPageBytes, sessionKey: session });
        return new Response(streamOf(pullJson(store, who.spaceId, after, page)), {
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
        });
      }),

    /** GET /api/sync/devices */
    devices: (request: Request) =>
      withServer(get, async ({ store }) => {
        const who = await deviceAuth(store, request);
        if (who instanceof Response) return who;
        return ok({ devices: await store.listDevices(who.spaceId) });
      }),

    /** POST /api/sync/revoke: any device of the space may remove any device, itself included (leaving). */
    revoke: (request: Request) =>
      withServer(get, async ({ store }) => {
        const who = await deviceAuth(store, request);
        if (who instanceof Response) return who;
        const b = await body(request, revokeRequest);
        if ('refused' in b) return b.refused;
        if (!(await store.revokeDevice(who.spaceId, b.value.deviceId))) return syncError('invalid', 'That device is not in this sync space.');
        return ok({ revoked: b.value.deviceId });
      }),

    /**
     * GET /api/sync/live: server-sent events over a streamed response, read with
     * fetch (EventSource cannot send an Authorization header). The first event is
     * the current head; then one per change of the space, from any app server.
     *
     * Bounded: a device may hold SYNC_LIVE_PER_DEVICE streams on this server and
     * the server SYNC_LIVE_PER_SERVER in all (more are refused with 429); a
     * stream ends after SYNC_LIVE_MAX_AGE (less up to a tenth, so streams opened
     * together do not all reconnect together), or once it has carried no event
     * for SYNC_LIVE_IDLE. A device that is still there reconnects at once and
     * pulls, so nothing is missed; one that is gone no longer holds a slot.
     */
    live: (request: Request) =>
      withServer(get, async ({ store, hub, limits, live }) => {
        const who = await deviceAuth(store, request);
        if (who instanceof Response) return who;
        const slot = live.take(who.deviceId);
        if ('refused' in slot) {
          return slot.refused === 'device'
            ? syncError('rate_limited', `This device already has ${limits.live.perDevice} live streams open on this server (SYNC_LIVE_PER_DEVICE). Try again in a minute.`, { 'retry-after': '60' })
            : syncError('rate_limited', 'This server has as many live streams open as it allows (SYNC_LIVE_PER_SERVER). Try again in a minute.', { 'retry-after': '60' });
        }
        const stream = liveStream({
          subscribe: (fn) => hub.subscribe(who.spaceId, fn),
          head: () => store.head(who.spaceId),
          deviceId: who.deviceId,
          limits: limits.live,
          release: slot.release,
          aborted: request.signal,
        });
        return new Response(stream, {
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store, no-transform', 'x-accel-buffering': 'no' },
        });
      }),
  };
}

export type SyncHandlers = ReturnType<typeof createSyncHandlers>;

/**
 * One live stream: events as the hub hears them, a heartbeat comment, and the
 * end of the stream after its lifetime or its idle time. Whatever way it ends
 * (those, the client leaving, a failure while opening), the subscription, the
 * timers and the slot are given back once.
 */
function liveStream(o: {
  subscribe: (fn: (n: Notice) => void) => Promise<() => void>;
  head: () => Promise<number>;
  deviceId: string;
  limits: SyncLimits['live'];
  release: () => void;
  aborted: AbortSignal;
}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let ended = false;
  const held: (() => void)[] = [o.release];
  const end = () => {
    if (ended) return;
    ended = true;
    for (const free of held.splice(0)) free();
  };
  return new ReadableStream<Uint8Array>({
    start: async (controller) => {
      let idle: ReturnType<typeof setTimeout> | undefined;
      const close = () => {
        if (ended) return;
        end();
        try {
          controller.close();
        } catch {
          /* already closed by the client */
        }
      };
      const write = (text: string) => {
        if (!ended) controller.enqueue(encoder.encode(text));
      };
      const send = (event: LiveEvent) => {
        write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
        clearTimeout(idle);
        if (!ended) idle = setTimeout(close, o.limits.idleMs);
      };
      try {
        const unsubscribe = await o.subscribe((n) => {
          if ('h' in n) send({ type: 'head', head: n.h });
          else if (n.r === o.deviceId) {
            send({ type: 'revoked' });
            close();
          }
        });
        held.push(unsubscribe);
        // The client left while we subscribed: give it back now.
        if (ended) return unsubscribe();
        const heartbeat = setInterval(() => write(': keep-alive\n\n'), HEARTBEAT_MS);
        const lifetime = setTimeout(close, o.limits.maxAgeMs * (0.9 + 0.1 * Math.random()));
        held.push(() => (clearInterval(heartbeat), clearTimeout(lifetime), clearTimeout(idle)));
        o.aborted.addEventListener('abort', close);
        // Subscribed first, then the head: a push between the two is seen either way.
        send({ type: 'head', head: await o.head() });
      } catch (err) {
        // The hub or the database failed before the stream got going.
        end();
        controller.error(err);
      }
    },
    cancel: end,
  });
}
