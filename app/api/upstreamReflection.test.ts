import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setServerRuntime } from '@/lib/server/runtime';
import { setServerDepsForTesting } from './_lib/serverDeps';
import { POST as chatPOST } from './chat/route';
import { POST as modelsPOST } from './models/route';

/**
 * The attack of the issue, against the real route handlers: a provider typed
 * into the browser with a base URL on this machine (allowed by the default
 * ALLOW_CLIENT_BASE_URLS=loopback) points the server at another local
 * service. Nothing that service answers may come back (a config dump with
 * `db_password=hunter2` did), and the error must not tell a closed port from
 * one where something that is not HTTP listens (a database).
 */

const SECRET_TEXT = 'db_password=hunter2';

let leakyText: HttpServer;
let leakyJson: HttpServer;
let leakyOk: HttpServer;
let notHttp: TcpServer;
let closed: number;

const portOf = (s: HttpServer | TcpServer) => (s.address() as AddressInfo).port;

async function listen<S extends HttpServer | TcpServer>(s: S): Promise<S> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return s;
}

beforeAll(async () => {
  leakyText = await listen(createHttpServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`config error: ${SECRET_TEXT}\n`)));
  // A JSON body, in a framework's shape rather than a provider's.
  leakyJson = await listen(createHttpServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: SECRET_TEXT }))));
  // 200 with a page that is not an API answer.
  leakyOk = await listen(createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${SECRET_TEXT}</body></html>`)));
  // What a Postgres server does with an HTTP request: an error message of its own protocol, then it hangs up.
  notHttp = await listen(
    createTcpServer((sock) => {
      sock.once('data', () => sock.end(Buffer.from(`E\0\0\0\x50SFATAL\0C08P01\0Minvalid startup packet layout: ${SECRET_TEXT}\0\0`, 'latin1')));
      sock.on('error', () => {});
    }),
  );
  const gone = await listen(createTcpServer());
  closed = portOf(gone);
  await new Promise<void>((r) => gone.close(() => r()));
});

afterAll(async () => {
  for (const s of [leakyText, leakyJson, leakyOk, notHttp]) await new Promise((r) => s.close(r));
});

afterEach(() => {
  setServerDepsForTesting();
  setServerRuntime(undefined);
});

const APP = 'http://localhost:3000';
const post = (path: string, body: unknown) => new Request(`${APP}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The state and error Settings → Providers would show for a server at this port. */
async function listing(port: number): Promise<{ raw: string; state: string; error?: string }> {
  const res = await modelsPOST(post('/api/models', { provider: 'compat', instance: 'p1', label: 'Local box', baseUrl: `http://127.0.0.1:${port}/v1` }));
  const raw = await res.text();
  const { provider } = JSON.parse(raw) as { provider: { state: string; error?: string } };
  return { raw, state: provider.state, error: provider.error };
}

/** The error a chat with that server ends in, and everything the stream carried. */
async function chat(port: number): Promise<{ raw: string; message: string }> {
  const res = await chatPOST(post('/api/chat', { model: 'compat@p1:any', context: [{ kind: 'message', entryId: 'u1', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } }], client: { instance: 'p1', label: 'Local box', baseUrl: `http://127.0.0.1:${port}/v1` } }));
  const raw = await res.text();
  const chunk = raw
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => JSON.parse(e.slice(6)) as { type: string; errorText?: string })
    .find((c) => c.type === 'error');
  return { raw, message: chunk ? (JSON.parse(chunk.errorText!) as { message: string }).message : `no error chunk in ${raw.slice(0, 200)}` };
}

describe('a browser-entered provider pointed at another local service (loopback policy)', () => {
  it('never brings back what the service said', async () => {
    setServerDepsForTesting({ env: { OLLAMA_BASE_URL: 'off' }, log: () => {} });
    for (const port of [portOf(leakyText), portOf(leakyJson), portOf(leakyOk), portOf(notHttp)]) {
      const l = await listing(port);
      const c = await chat(port);
      expect(l.raw).not.toContain('hunter2');
      expect(c.raw).not.toContain('hunter2');
      expect(l.state).toBe('unreachable');
    }
  });

  it('describes an HTTP answer of the wrong shape by its status only', async () => {
    setServerDepsForTesting({ env: { OLLAMA_BASE_URL: 'off' }, log: () => {} });
    expect((await listing(portOf(leakyText))).error).toBe('The server at this address did not answer like an OpenAI-compatible API (HTTP 500). Check the base URL.');
    expect((await chat(portOf(leakyText))).message).toBe('The server at this address did not answer like an OpenAI-compatible API (HTTP 500). Check the base URL.');
    expect((await listing(portOf(leakyJson))).error).toBe('The server at this address did not answer like an OpenAI-compatible API (HTTP 404). Check the base URL.');
    expect((await listing(portOf(leakyOk))).error).toBe('The server at this address did not answer like an OpenAI-compatible API. Check the base URL.');
  });

  it('says the same for a closed port and for a service that does not speak HTTP', async () => {
    setServerDepsForTesting({ env: { OLLAMA_BASE_URL: 'off' }, log: () => {} });
    const closedListing = await listing(closed);
    const notHttpListing = await listing(portOf(notHttp));
    expect(closedListing.error).toBe('Could not reach Local box at this address.');
    expect(notHttpListing.error).toBe(closedListing.error);
    const closedChat = await chat(closed);
    const notHttpChat = await chat(portOf(notHttp));
    expect(closedChat.message).toBe('Could not reach Local box at this address.');
    expect(notHttpChat.message).toBe(closedChat.message);
  });
});

describe('the same provider on an exposed server', () => {
  it('is not called at all: base URLs from the browser default to none', async () => {
    setServerRuntime({ listenHost: '0.0.0.0', draining: false, startedAt: Date.now() });
    setServerDepsForTesting({ env: { OLLAMA_BASE_URL: 'off', LONGCTX_ACCESS_SECRET: 'correct horse battery staple' }, log: () => {} });
    let called = false;
    leakyText.once('request', () => (called = true));
    const l = await listing(portOf(leakyText));
    expect(l.state).toBe('refused');
    expect(l.error).toMatch(/ALLOW_CLIENT_BASE_URLS=none/);
    const c = await chatPOST(post('/api/chat', { model: 'compat@p1:any', context: [{ kind: 'message', entryId: 'u1', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } }], client: { instance: 'p1', label: 'Local box', baseUrl: `http://127.0.0.1:${portOf(leakyText)}/v1` } }));
    expect(c.status).toBe(400);
    expect(called).toBe(false);
  });

  it('keeps the operator’s explicit policy', async () => {
    setServerRuntime({ listenHost: '0.0.0.0', draining: false, startedAt: Date.now() });
    setServerDepsForTesting({ env: { OLLAMA_BASE_URL: 'off', ALLOW_CLIENT_BASE_URLS: 'loopback' }, log: () => {} });
    expect((await listing(portOf(leakyText))).state).toBe('unreachable');
  });
});
