import { readdirSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccessPolicy } from '@/lib/access/policy';
import { accessGate } from '@/lib/server/accessGate';
import { createAppServer, type AppServer } from '@/lib/server/httpServer';
import { config as proxyConfig } from '@/proxy';

/**
 * Every route under app/api, found on disk (so a route someone adds next
 * month is in this list without anyone editing it), with every method it
 * exports, must be refused without the secret when the server is exposed,
 * and reached with it. Checked against the server `npm start` runs in front
 * of Next (lib/server/httpServer.ts with the access gate launch.ts installs),
 * over real HTTP; Next itself is a stand-in that records what reached it.
 */

const API = fileURLToPath(new URL('.', import.meta.url));
const SECRET = 'correct horse battery staple';
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const PUBLIC = new Set(['/api/health', '/api/access']);

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return routeFiles(p);
    return name === 'route.ts' ? [p] : [];
  });
}

interface Route {
  path: string;
  methods: string[];
}

async function discover(): Promise<Route[]> {
  const routes: Route[] = [];
  for (const file of routeFiles(API)) {
    const dir = relative(API, file).replace(/\/?route\.ts$/, '');
    // Dynamic segments get a sample value.
    const path = `/api/${dir}`.replace(/\[\.{3}[^\]]+\]/g, 'a/b').replace(/\[[^\]]+\]/g, 'sample');
    const mod = (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
    routes.push({ path, methods: METHODS.filter((m) => typeof mod[m] === 'function') });
  }
  return routes;
}

interface Running {
  app: AppServer;
  base: string;
  reached: string[];
}

async function serve(env: Record<string, string>, listenHost: string): Promise<Running> {
  const reached: string[] = [];
  const policy = readAccessPolicy(env, listenHost);
  // Each test speaks for clients of its own (X-Forwarded-For), so wrong secrets in one do not block another.
  const app = createAppServer({ logger: pino({ level: 'silent' }), trustProxy: true, endlessPaths: [], gate: policy.required ? accessGate(policy) : undefined });
  app.setHandler(async (req, res) => {
    reached.push(`${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`);
    req.resume();
    res.end('reached');
  });
  await new Promise<void>((r) => app.server.listen(0, '127.0.0.1', r));
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, reached };
}

async function stop(r: Running) {
  r.app.server.closeAllConnections();
  await new Promise((done) => r.app.server.close(done));
}

let routes: Route[];
let exposed: Running;
let clientNo = 0;
const client = () => ({ 'x-forwarded-for': `198.51.100.${++clientNo}` });

function call(base: string, method: string, path: string, headers: Record<string, string> = {}) {
  const body = method === 'POST' || method === 'PUT' || method === 'PATCH' ? '{}' : undefined;
  return fetch(`${base}${path}`, { method, headers: { ...client(), ...(body ? { 'content-type': 'application/json' } : {}), ...headers }, body, redirect: 'manual' });
}

beforeAll(async () => {
  routes = await discover();
  exposed = await serve({ LONGCTX_ACCESS_SECRET: SECRET }, '0.0.0.0');
});

afterAll(async () => {
  await stop(exposed);
});

describe('every API route on an exposed server', () => {
  it('is found on disk, the sync routes among them', () => {
    const paths = routes.map((r) => r.path);
    expect(paths).toEqual(expect.arrayContaining(['/api/chat', '/api/summarize', '/api/models', '/api/health', '/api/access', '/api/sync/push', '/api/sync/pull', '/api/sync/live']));
    expect(routes.every((r) => r.methods.length > 0)).toBe(true);
  });

  it('refuses every method without the secret, before Next sees it, except the health check and the sign-in', async () => {
    let refused = 0;
    for (const r of routes) {
      for (const m of r.methods) {
        exposed.reached.length = 0;
        const res = await call(exposed.base, m, r.path);
        if (PUBLIC.has(r.path)) {
          expect(await res.text(), `${m} ${r.path}`).toBe('reached');
          continue;
        }
        expect(res.status, `${m} ${r.path}`).toBe(401);
        if (m !== 'HEAD') expect(((await res.json()) as { code: string }).code).toBe('sign_in_required');
        expect(exposed.reached, `${m} ${r.path}`).toEqual([]);
        refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual(10);
  });

  it('lets the right Bearer secret through, and not a wrong one', async () => {
    exposed.reached.length = 0;
    expect((await call(exposed.base, 'POST', '/api/chat', { authorization: 'Bearer correct horse battery stapler' })).status).toBe(401);
    expect(exposed.reached).toEqual([]);
    const ok = await call(exposed.base, 'POST', '/api/chat', { authorization: `Bearer ${SECRET}` });
    expect(await ok.text()).toBe('reached');
    expect(exposed.reached).toEqual(['POST /api/chat']);
  });

  it('sends pages to the sign-in page; serves that page and the build’s static files', async () => {
    const home = await call(exposed.base, 'GET', '/?join=a%20b');
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toBe('/signin?next=%2F%3Fjoin%3Da%2520b');
    for (const open of ['/signin', '/signin?next=%2F', '/_next/static/chunks/app.js', '/serwist/sw.js', '/manifest.webmanifest', '/icons/icon-192.png', '/icon.svg']) {
      expect(await (await call(exposed.base, 'GET', open)).text(), open).toBe('reached');
    }
    // …and nothing that merely starts like them.
    for (const closed of ['/_next/data/x.json', '/signin/x', '/api/healthz', '/icons', '/serwist']) expect((await call(exposed.base, 'GET', closed)).status, closed).not.toBe(200);
  });
});

describe('the same routes on loopback, with no secret', () => {
  it('reach Next as before', async () => {
    const local = await serve({}, '127.0.0.1');
    try {
      for (const r of routes) for (const m of r.methods) expect(await (await call(local.base, m, r.path)).text(), `${m} ${r.path}`).toBe('reached');
    } finally {
      await stop(local);
    }
  });
});

describe('Next’s proxy', () => {
  it('does not run for API routes: it would buffer every POST body whole, cut at 10 MB', () => {
    const matcher = new RegExp(`^${proxyConfig.matcher[0]}$`);
    for (const r of ['/api/chat', '/api/sync/push', '/api/anything-added-later']) expect(matcher.test(r), r).toBe(false);
    expect(matcher.test('/')).toBe(true);
  });
});
