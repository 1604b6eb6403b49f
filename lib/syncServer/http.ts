import { sha256 } from '@noble/hashes/sha2.js';
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
import type { LiveHub } from './hub';
import { SyncStoreError, type SyncStore } from './store';

/**
 * The sync routes' logic, as functions from Request to Response over an
 * injected store and hub. The route files in app/api/sync run the request
 * guard, then one of these. Nothing here reads a session: bodies are
 * ciphertext, ids are opaque.
 */
export interface SyncServer {
  store: SyncStore;
  hub: LiveHub;
}

export type GetServer = () => Promise<SyncServer>;

const STATUS: Record<SyncErrorCode, number> = { invalid: 400, unauthorized: 401, revoked: 403, unknown_space: 404, exists: 409, too_large: 413, unavailable: 503 };

export function syncError(code: SyncErrorCode, message: string): Response {
  return Response.json({ error: message, code }, { status: STATUS[code], headers: { 'cache-control': 'no-store' } });
}

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
      withServer(get, async ({ store }) => {
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
      withServer(get, async ({ store }) => {
        const b = await body(request, joinRequest);
        if ('refused' in b) return b.refused;
        const refused = await spaceAuth(store, request, b.value.spaceId);
        if (refused) return refused;
        await store.addDevice(b.value.spaceId, b.value.device);
        return ok({ spaceId: b.value.spaceId, head: await store.head(b.value.spaceId) });
      }),

    /** POST /api/sync/push */
    push: (request: Request) =>
      withServer(get, async ({ store }) => {
        const who = await deviceAuth(store, request);
        if (who instanceof Response) return who;
        const b = await body(request, pushRequest, MAX_PUSH_BODY_BYTES);
        if ('refused' in b) return b.refused;
        return ok(await store.push(who.spaceId, who.deviceId, b.value.records));
      }),

    /** GET /api/sync/pull?after=N[&limit=N][&session=KEY] */
    pull: (request: Request) =>
      withServer(get, async ({ store }) => {
        const who = await deviceAuth(store, request);
        if (who instanceof Response) return who;
        const q = new URL(request.url).searchParams;
        const after = Number(q.get('after') ?? '0');
        const limit = Number(q.get('limit') ?? String(MAX_PULL_LIMIT));
        const session = q.get('session') ?? undefined;
        if (!Number.isSafeInteger(after) || after < 0) return syncError('invalid', '`after` must be a non-negative integer.');
        if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PULL_LIMIT) return syncError('invalid', `\`limit\` must be between 1 and ${MAX_PULL_LIMIT}.`);
        if (session !== undefined && !/^[A-Za-z0-9_-]{22}$/.test(session)) return syncError('invalid', '`session` must be an opaque session key.');
        return ok(await store.pull(who.spaceId, after, limit, session));
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
     */
    live: (request: Request) =>
      withServer(get, async ({ store, hub }) => {
        const who = await deviceAuth(store, request);
        if (who instanceof Response) return who;
        const encoder = new TextEncoder();
        let cleanup = () => {};
        const stream = new ReadableStream<Uint8Array>({
          start: async (controller) => {
            let closed = false;
            const send = (event: LiveEvent) => {
              if (!closed) controller.enqueue(encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`));
            };
            const close = () => {
              if (closed) return;
              closed = true;
              cleanup();
              try {
                controller.close();
              } catch {
                /* already closed by the client */
              }
            };
            const unsubscribe = await hub.subscribe(who.spaceId, (n) => {
              if ('h' in n) send({ type: 'head', head: n.h });
              else if (n.r === who.deviceId) {
                send({ type: 'revoked' });
                close();
              }
            });
            const heartbeat = setInterval(() => !closed && controller.enqueue(encoder.encode(': keep-alive\n\n')), HEARTBEAT_MS);
            cleanup = () => {
              clearInterval(heartbeat);
              unsubscribe();
            };
            request.signal.addEventListener('abort', close);
            // Subscribed first, then the head: a push between the two is seen either way.
            send({ type: 'head', head: await store.head(who.spaceId) });
          },
          cancel: () => cleanup(),
        });
        return new Response(stream, {
          headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store, no-transform', 'x-accel-buffering': 'no' },
        });
      }),
  };
}

export type SyncHandlers = ReturnType<typeof createSyncHandlers>;
