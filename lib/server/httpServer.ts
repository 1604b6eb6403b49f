import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { logRequest, routeOf } from './requestLog';
import { CLIENT_ADDRESS_HEADER } from './runtime';

/**
 * The HTTP server `npm start` runs Next.js in. Next's own server (`next
 * start`) cannot do four things the app needs when it is exposed:
 *
 * - check access before Next sees the request (lib/access/gate.ts): every
 *   page and route, whoever adds it, without Next's proxy, which would buffer
 *   every POST body whole;
 * - say who the client is: a route handler never sees the socket, so the
 *   sign-in's rate limit would have nothing to count by. The client's
 *   address is written into a request header of ours (any such header a
 *   client sent is removed first);
 * - log each request with its status and duration, which only the code that
 *   sees the response end can know;
 * - stop with a deadline: `next start` waits for every open connection on
 *   SIGTERM, and a sync live stream never closes by itself, so it waited
 *   forever.
 */

export type Handle = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The request as the access check sees it. */
export interface GateInput {
  method: string;
  /** Absolute, on the Host the client named (only the path and query matter to the check). */
  url: string;
  headers: Headers;
}

/** Null to let the request through to Next, or the answer that refuses it. */
export type Gate = (req: GateInput, client: string) => Promise<Response | null>;

export interface AppServerOptions {
  logger: Logger;
  /** Take the client's address from X-Forwarded-For (the last hop: what the proxy in front saw), not the socket. */
  trustProxy: boolean;
  /** Paths whose responses never end by themselves (the sync live stream): closed as soon as shutdown starts. */
  endlessPaths: readonly string[];
  /** The access check, run before Next for every request. */
  gate?: Gate;
  now?: () => number;
}

export interface AppServer {
  server: Server;
  /** Installs the request handler (Next's, once it is prepared). Until then requests get 503. */
  setHandler(handle: Handle): void;
  inFlight(): number;
  /**
   * Stops accepting connections, ends the endless streams, lets the rest
   * finish for up to `graceMs`, then cuts what is left. Requests that arrive
   * meanwhile on open connections get 503 and `Connection: close`.
   */
  drain(graceMs: number): Promise<{ finished: number; cut: number }>;
}

interface Tracked {
  route: string;
  res: ServerResponse;
}

/** `::ffff:192.0.2.1` is the IPv4 client 192.0.2.1 on a dual-stack socket. */
function plainAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const list = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').map((s) => s.trim()).filter(Boolean);
    // Each proxy appends the address it received from; the last entry is the one our own proxy vouches for.
    const last = list.at(-1);
    if (last) return plainAddress(last);
  }
  return plainAddress(req.socket.remoteAddress);
}

function gateInput(req: IncomingMessage): GateInput {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  }
  let url: string;
  try {
    url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`).href;
  } catch {
    // A Host header that is not a host: the path is what the check needs.
    url = new URL(req.url ?? '/', 'http://localhost').href;
  }
  return { method: req.method ?? 'GET', url, headers };
}

async function send(res: ServerResponse, answer: Response): Promise<void> {
  res.statusCode = answer.status;
  answer.headers.forEach((value, key) => res.setHeader(key, value));
  res.end(Buffer.from(await answer.arrayBuffer()));
}

export function createAppServer(opts: AppServerOptions): AppServer {
  const now = opts.now ?? (() => performance.now());
  const inFlight = new Set<Tracked>();
  let handle: Handle | null = null;
  let draining = false;
  let drained: (() => void) | null = null;

  const unavailable = (res: ServerResponse, message: string) => {
    res.statusCode = 503;
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.setHeader('connection', 'close');
    res.setHeader('retry-after', '1');
    res.end(JSON.stringify({ error: message, code: 'unavailable' }));
  };

  const server = createServer((req, res) => {
    const started = now();
    const client = clientAddress(req, opts.trustProxy);
    delete req.headers[CLIENT_ADDRESS_HEADER];
    req.headers[CLIENT_ADDRESS_HEADER] = client;
    const tracked: Tracked = { route: routeOf(req.url), res };
    inFlight.add(tracked);

    res.once('close', () => {
      inFlight.delete(tracked);
      logRequest(opts.logger, {
        method: req.method ?? 'GET',
        route: tracked.route,
        status: res.statusCode,
        durationMs: Math.round(now() - started),
        client,
        aborted: !res.writableFinished,
      });
      if (draining) {
        // A keep-alive connection that just finished its last request would otherwise stay open and hold the close.
        server.closeIdleConnections();
        if (inFlight.size === 0) drained?.();
      }
    });

    if (draining) return unavailable(res, 'This server is shutting down.');
    const next = handle;
    if (!next) return unavailable(res, 'This server is starting.');
    void (async () => {
      const refused = opts.gate ? await opts.gate(gateInput(req), client) : null;
      if (refused) {
        // The body of a refused request is not read: drop the connection's remainder with the answer.
        if (req.headers['content-length'] !== '0' && (req.headers['content-length'] || req.headers['transfer-encoding'])) res.setHeader('connection', 'close');
        return send(res, refused);
      }
      return next(req, res);
    })().catch((err: unknown) => {
      opts.logger.error({ route: tracked.route, err: err instanceof Error ? err.message : String(err) }, 'request handler failed');
      if (!res.headersSent) {
        res.statusCode = 500;
        res.end();
      } else res.destroy();
    });
  });

  return {
    server,
    setHandler(h) {
      handle = h;
    },
    inFlight: () => inFlight.size,
    async drain(graceMs) {
      draining = true;
      const before = inFlight.size;
      server.close();
      server.closeIdleConnections();
      for (const t of inFlight) if (opts.endlessPaths.includes(t.route)) t.res.destroy();
      let timer: ReturnType<typeof setTimeout> | undefined;
      if (inFlight.size > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          timer = setTimeout(resolve, graceMs);
        });
      }
      clearTimeout(timer);
      const cut = inFlight.size;
      for (const t of inFlight) t.res.destroy();
      server.closeAllConnections();
      return { finished: before - cut, cut };
    },
  };
}
