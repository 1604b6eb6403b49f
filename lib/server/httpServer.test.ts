import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppServer, type AppServer, type Handle } from './httpServer';
import { CLIENT_ADDRESS_HEADER } from './runtime';

/** Log lines as the server wrote them, parsed. */
function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  let raw = '';
  const dest = new Writable({
    write(chunk: Buffer, _enc, cb) {
      raw += chunk.toString();
      for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino({ level: 'info' }, dest), lines, raw: () => raw };
}

/** A stand-in for Next's handler: a few behaviours chosen by path. */
const handler: Handle = async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/client') {
    res.end(String(req.headers[CLIENT_ADDRESS_HEADER]));
  } else if (url.pathname === '/slow') {
    await new Promise((r) => setTimeout(r, Number(url.searchParams.get('ms'))));
    res.end('done');
  } else if (url.pathname === '/api/sync/live') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(': hello\n\n');
    // Never ends by itself, like the sync live stream.
  } else if (url.pathname === '/boom') {
    throw new Error('handler failed');
  } else {
    req.resume();
    res.statusCode = url.pathname === '/missing' ? 404 : 200;
    res.end('ok');
  }
};

let app: AppServer | undefined;

async function start(opts: { trustProxy?: boolean } = {}) {
  const log = memoryLogger();
  app = createAppServer({ logger: log.logger, trustProxy: opts.trustProxy ?? false, endlessPaths: ['/api/sync/live'] });
  app.setHandler(handler);
  await new Promise<void>((r) => app!.server.listen(0, '127.0.0.1', r));
  const port = (app.server.address() as AddressInfo).port;
  return { ...log, port, app };
}

afterEach(async () => {
  if (app?.server.listening) {
    app.server.closeAllConnections();
    await new Promise((r) => app!.server.close(r));
  }
  app = undefined;
});

interface Answer {
  status: number;
  body: string;
  /** The response ended cleanly (false: the connection was cut). */
  complete: boolean;
  res: IncomingMessage | null;
}

function call(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string; onResponse?: (res: IncomingMessage) => void } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers, agent: false }, (res) => {
      opts.onResponse?.(res);
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, complete: res.complete, res }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body, complete: false, res }));
    });
    req.on('error', () => resolve({ status: 0, body: '', complete: false, res: null }));
    req.end(opts.body);
  });
}

/** Waits until the predicate holds (no fixed sleeps). */
async function until(pred: () => boolean, timeoutMs = 5000) {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const requestLines = (lines: Record<string, unknown>[]) => lines.filter((l) => l.msg === 'request');

describe('request logs', () => {
  it('write one JSON line per request: method, route, status, duration, client', async () => {
    const s = await start();
    await call(s.port, '/missing?x=1');
    await call(s.port, '/anything', { method: 'POST', body: '{}' });
    await until(() => requestLines(s.lines).length === 2);
    const [a, b] = requestLines(s.lines);
    expect(a).toMatchObject({ level: 30, msg: 'request', method: 'GET', route: '/missing', status: 404, client: '127.0.0.1' });
    expect(b).toMatchObject({ method: 'POST', route: '/anything', status: 200, client: '127.0.0.1' });
    expect(typeof a!.durationMs).toBe('number');
    // Nothing but these fields: a line built from named values cannot carry a header or a body by accident.
    const allowed = new Set(['client', 'durationMs', 'level', 'method', 'msg', 'pid', 'hostname', 'route', 'status', 'time']);
    for (const line of [a!, b!]) expect(Object.keys(line).filter((k) => !allowed.has(k))).toEqual([]);
  });

  it('never contain keys, cookies, query strings or bodies', async () => {
    const s = await start();
    await call(s.port, '/api/sync/pull?after=0&session=QUERYSECRETQUERYSECRET', {
      headers: { cookie: 'longctx_access=COOKIESECRET', authorization: 'Bearer BEARERSECRET', 'x-api-key': 'sk-HEADERSECRET' },
    });
    await call(s.port, '/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client: { apiKey: 'sk-BODYSECRET' } }) });
    await until(() => requestLines(s.lines).length === 2);
    for (const secret of ['QUERYSECRET', 'COOKIESECRET', 'BEARERSECRET', 'HEADERSECRET', 'BODYSECRET']) expect(s.raw()).not.toContain(secret);
    expect(requestLines(s.lines)[0]!.route).toBe('/api/sync/pull');
  });

  it('cut a very long path, and log a failing handler as a 500 at error level', async () => {
    const s = await start();
    await call(s.port, `/${'a'.repeat(5000)}`);
    const boom = await call(s.port, '/boom');
    expect(boom.status).toBe(500);
    await until(() => requestLines(s.lines).length === 2);
    expect((requestLines(s.lines)[0]!.route as string).length).toBeLessThanOrEqual(201);
    expect(requestLines(s.lines)[1]).toMatchObject({ route: '/boom', status: 500, level: 50 });
  });
});

describe('the client address the app sees', () => {
  it('is the socket’s, whatever the client claims', async () => {
    const s = await start();
    expect((await call(s.port, '/client', { headers: { [CLIENT_ADDRESS_HEADER]: '6.6.6.6', 'x-forwarded-for': '7.7.7.7' } })).body).toBe('127.0.0.1');
  });

  it('is the last X-Forwarded-For hop when the operator trusts the proxy in front', async () => {
    const s = await start({ trustProxy: true });
    expect((await call(s.port, '/client', { headers: { 'x-forwarded-for': '6.6.6.6, 203.0.113.9' } })).body).toBe('203.0.113.9');
    expect((await call(s.port, '/client')).body).toBe('127.0.0.1');
  });
});

describe('draining on shutdown', () => {
  it('closes live streams at once, lets requests in flight finish, then stops listening', async () => {
    const s = await start();
    let liveOpen = false;
    const live = call(s.port, '/api/sync/live', { onResponse: () => (liveOpen = true) });
    const slow = call(s.port, '/slow?ms=400');
    await until(() => liveOpen && s.app.inFlight() === 2);
    const t0 = Date.now();
    const drained = s.app.drain(10_000);
    const liveAnswer = await live;
    expect(liveAnswer.complete).toBe(false);
    expect(Date.now() - t0).toBeLessThan(300);
    const slowAnswer = await slow;
    expect(slowAnswer).toMatchObject({ status: 200, body: 'done', complete: true });
    expect(await drained).toEqual({ finished: 2, cut: 0 });
    expect(Date.now() - t0).toBeLessThan(5000);
    // No new connections.
    const refused = await new Promise<boolean>((resolve) => {
      const sock = connect(s.port, '127.0.0.1');
      sock.on('connect', () => {
        sock.destroy();
        resolve(false);
      });
      sock.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });

  it('cuts what is still running at the deadline', async () => {
    const s = await start();
    const slow = call(s.port, '/slow?ms=20000');
    await until(() => s.app.inFlight() === 1);
    const t0 = Date.now();
    expect(await s.app.drain(200)).toEqual({ finished: 0, cut: 1 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect((await slow).complete).toBe(false);
  });

  it('answers 503 to a request that arrives on an open connection meanwhile', async () => {
    const s = await start();
    const sock = connect(s.port, '127.0.0.1');
    let received = '';
    sock.setEncoding('utf8');
    sock.on('data', (c: string) => (received += c));
    await new Promise((r) => sock.on('connect', r));
    // Two requests on one keep-alive connection, the second sent while the first is still running.
    sock.write('GET /slow?ms=300 HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => s.app.inFlight() === 1);
    const drained = s.app.drain(5000);
    sock.write('GET /anything HTTP/1.1\r\nHost: x\r\n\r\n');
    await drained;
    await until(() => received.includes('shutting down') || sock.destroyed);
    sock.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 200/);
    expect(received).toContain('HTTP/1.1 503');
    expect(received.toLowerCase()).toContain('connection: close');
  });
});
