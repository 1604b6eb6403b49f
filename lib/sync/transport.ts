import {
  devicesResponse,
  pullResponse,
  pushResponse,
  type DeviceInfo,
  type DeviceRegistration,
  type LiveEvent,
  type PullResponse,
  type PushRecord,
  type PushResponse,
  type SyncErrorCode,
} from './protocol';

/**
 * The sync routes of the app's own server, over an injected `fetch` (the
 * worker's, or in tests one that calls the route handlers directly). Counts
 * the bytes it sends and receives, which is what the benchmark reports.
 */

/** The server answered with an error: `code` says which (protocol.ts). */
export class SyncHttpError extends Error {
  override name = 'SyncHttpError';
  constructor(
    readonly code: SyncErrorCode | 'http',
    readonly status: number,
    message: string,
    /** How long the server asked to wait (Retry-After), when it did. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

/** Retry-After in seconds or as an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** No answer at all: offline, the server down or restarting. */
export class SyncOfflineError extends Error {
  override name = 'SyncOfflineError';
}

export interface SyncTransport {
  createSpace(body: { spaceId: string; authVerifier: string; device: DeviceRegistration }, authorization: string): Promise<void>;
  join(body: { spaceId: string; device: DeviceRegistration }, authorization: string): Promise<void>;
  push(records: PushRecord[], authorization: string): Promise<PushResponse>;
  pull(after: number, limit: number, authorization: string, sessionKey?: string): Promise<PullResponse>;
  devices(authorization: string): Promise<DeviceInfo[]>;
  revoke(deviceId: string, authorization: string): Promise<void>;
  /** Reads the live stream until it ends (resolves) or fails (rejects); `signal` closes it. */
  live(authorization: string, signal: AbortSignal, onEvent: (e: LiveEvent) => void): Promise<void>;
  readonly traffic: { sent: number; received: number };
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export function httpTransport(opts: { baseUrl: string; fetch: FetchLike }): SyncTransport {
  const traffic = { sent: 0, received: 0 };
  const url = (path: string) => `${opts.baseUrl.replace(/\/$/, '')}/api/sync/${path}`;

  async function send(path: string, init: RequestInit): Promise<Response> {
    try {
      return await opts.fetch(url(path), { ...init, cache: 'no-store' });
    } catch (err) {
      if ((err as Error)?.name === 'AbortError') throw err;
      throw new SyncOfflineError('The sync server cannot be reached.');
    }
  }

  async function json(path: string, authorization: string, body?: unknown): Promise<unknown> {
    const text = body === undefined ? undefined : JSON.stringify(body);
    if (text) traffic.sent += text.length;
    const res = await send(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization, ...(text ? { 'content-type': 'application/json' } : {}) },
      ...(text ? { body: text } : {}),
    });
    let answer: string;
    try {
      answer = await res.text();
    } catch {
      throw new SyncOfflineError('The connection to the sync server broke.');
    }
    traffic.received += answer.length;
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(answer);
    } catch {
      /* handled below */
    }
    if (!res.ok) {
      const e = parsed as { error?: unknown; code?: unknown } | null;
      // A proxy or a restarting server answers 502/503/504 without our body: that is "unreachable", not an error to show.
      if (!e || typeof e.error !== 'string') {
        if (res.status >= 502 && res.status <= 504) throw new SyncOfflineError('The sync server is not answering.');
        throw new SyncHttpError('http', res.status, `The sync server answered ${res.status}.`);
      }
      throw new SyncHttpError(typeof e.code === 'string' ? (e.code as SyncErrorCode) : 'http', res.status, e.error, retryAfterMs(res.headers.get('retry-after')));
    }
    if (parsed === null) throw new SyncHttpError('http', res.status, 'The sync server sent something that is not JSON.');
    return parsed;
  }

  return {
    traffic,
    createSpace: async (body, authorization) => void (await json('space', authorization, body)),
    join: async (body, authorization) => void (await json('join', authorization, body)),
    push: async (records, authorization) => pushResponse.parse(await json('push', authorization, { records })),
    pull: async (after, limit, authorization, sessionKey) =>
      pullResponse.parse(await json(`pull?after=${after}&limit=${limit}${sessionKey ? `&session=${encodeURIComponent(sessionKey)}` : ''}`, authorization)),
    devices: async (authorization) => devicesResponse.parse(await json('devices', authorization)).devices,
    revoke: async (deviceId, authorization) => void (await json('revoke', authorization, { deviceId })),

    async live(authorization, signal, onEvent) {
      const res = await send('live', { headers: { authorization, accept: 'text/event-stream' }, signal });
      if (!res.ok || !res.body) {
        const body = (await res.json().catch(() => null)) as { error?: string; code?: SyncErrorCode } | null;
        if (!body?.error && res.status >= 502) throw new SyncOfflineError('The sync server is not answering.');
        throw new SyncHttpError(body?.code ?? 'http', res.status, body?.error ?? `The live stream answered ${res.status}.`, retryAfterMs(res.headers.get('retry-after')));
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          traffic.received += value.length;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).trim())
              .join('\n');
            if (!data) continue; // a comment: the heartbeat
            try {
              onEvent(JSON.parse(data) as LiveEvent);
            } catch {
              /* not ours */
            }
          }
        }
      } catch (err) {
        if (signal.aborted) return;
        throw new SyncOfflineError(`The live stream broke: ${(err as Error)?.message ?? err}`);
      } finally {
        reader.releaseLock();
      }
    },
  };
}
