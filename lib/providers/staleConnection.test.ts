import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { retryStaleConnection } from './staleConnection';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/**
 * A server that resets the connection of the first `resets` requests without
 * answering, as a connection closed for idleness looks to the client that has
 * just sent a request on it, and answers the others.
 */
async function flakyServer(resets: number): Promise<{ url: string; received: () => number }> {
  let received = 0;
  server = createServer((req, res) => {
    received++;
    req.resume();
    if (received <= resets) {
      req.socket.resetAndDestroy();
      return;
    }
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`, received: () => received };
}

/** Node's fetch, on loopback only: the retry is about how fetch behaves on a real socket. */
const loopback: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init);

const post = (body: BodyInit, signal?: AbortSignal): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body, signal });

describe('a request that dies on a stale pooled connection', () => {
  it('is sent once more on a fresh connection when the connection was reset before any response', async () => {
    const srv = await flakyServer(1);
    // Without the retry the reset reaches the caller: the load test's "read ECONNRESET".
    await expect(loopback(srv.url, post('{"model":"m"}'))).rejects.toThrow(/fetch failed/);
    const again = await flakyServer(1);
    const res = await retryStaleConnection(loopback)(again.url, post('{"model":"m"}'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(again.received()).toBe(2);
  });

  it('is retried once only: a server that keeps resetting is reported', async () => {
    const srv = await flakyServer(5);
    await expect(retryStaleConnection(loopback)(srv.url, post('{"model":"m"}'))).rejects.toThrow(/fetch failed/);
    expect(srv.received()).toBe(2);
  });

  it('is not retried when the body cannot be sent again, or the caller aborted', async () => {
    const srv = await flakyServer(5);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"model":"m"}'));
        c.close();
      },
    });
    await expect(retryStaleConnection(loopback)(srv.url, { ...post(stream), duplex: 'half' } as RequestInit)).rejects.toThrow(/fetch failed/);
    expect(srv.received()).toBe(1);
    const abort = new AbortController();
    // The user stopped the reply while the first attempt was failing.
    const aborting: typeof loopback = async (input, init) => {
      try {
        return await loopback(input, init);
      } finally {
        abort.abort();
      }
    };
    await expect(retryStaleConnection(aborting)(srv.url, post('{"model":"m"}', abort.signal))).rejects.toThrow(/fetch failed/);
    expect(srv.received()).toBe(2);
  });

  it('leaves other failures alone: nothing listening is reported at once', async () => {
    const srv = await flakyServer(0);
    const url = srv.url;
    server!.closeAllConnections();
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    let calls = 0;
    const counting: typeof loopback = (input, init) => {
      calls++;
      return loopback(input, init);
    };
    await expect(retryStaleConnection(counting)(url, post('{}'))).rejects.toThrow(/fetch failed/);
    expect(calls).toBe(1);
  });
});
