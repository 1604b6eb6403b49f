import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { config, proxy } from '@/proxy';
import { setServerRuntime } from '@/lib/server/runtime';

/**
 * Every route under app/api, found on disk (so a route someone adds next
 * month is in this list without anyone editing it), with every method it
 * exports, must refuse a caller without the secret when the server is
 * exposed, and let one with it through. Checked against proxy.ts itself:
 * its matcher must cover the path, and its function must refuse.
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

const matcher = new RegExp(`^${config.matcher[0]}$`);

function request(method: string, path: string, headers: Record<string, string> = {}): NextRequest {
  return new NextRequest(`http://192.168.1.20:3000${path}`, { method, headers });
}

let routes: Route[];

beforeAll(async () => {
  vi.stubEnv('LONGCTX_ACCESS_SECRET', SECRET);
  vi.stubEnv('LONGCTX_INSECURE_NO_ACCESS_SECRET', '');
  // What the launcher records when it listens on every interface.
  setServerRuntime({ listenHost: '0.0.0.0', draining: false, startedAt: Date.now() });
  routes = await discover();
});

afterAll(() => {
  setServerRuntime(undefined);
  vi.unstubAllEnvs();
});

describe('every API route on an exposed server', () => {
  it('is found on disk, the sync routes among them', () => {
    const paths = routes.map((r) => r.path);
    expect(paths).toEqual(expect.arrayContaining(['/api/chat', '/api/summarize', '/api/models', '/api/health', '/api/access', '/api/sync/push', '/api/sync/pull', '/api/sync/live']));
    expect(routes.every((r) => r.methods.length > 0)).toBe(true);
  });

  it('is covered by the proxy’s matcher', () => {
    for (const r of routes) expect(matcher.test(r.path), r.path).toBe(true);
    // What the matcher leaves out is the build's static files, and nothing under /api.
    expect(matcher.test('/_next/static/chunks/app.js')).toBe(false);
    expect(matcher.test('/serwist/sw.js')).toBe(false);
    expect(matcher.test('/')).toBe(true);
    expect(matcher.test('/signin')).toBe(true);
  });

  it('refuses every method without the secret, except the health check and the sign-in', async () => {
    let refused = 0;
    for (const r of routes) {
      for (const m of r.methods) {
        const res = await proxy(request(m, r.path, m === 'POST' ? { 'content-type': 'application/json' } : {}));
        if (PUBLIC.has(r.path)) {
          expect(res.headers.get('x-middleware-next'), `${m} ${r.path}`).toBe('1');
          continue;
        }
        expect(res.status, `${m} ${r.path}`).toBe(401);
        expect(((await res.json()) as { code: string }).code).toBe('sign_in_required');
        refused++;
      }
    }
    expect(refused).toBeGreaterThanOrEqual(10);
  });

  it('refuses a wrong Bearer secret and lets the right one through', async () => {
    const r = routes.find((x) => x.path === '/api/chat')!;
    expect((await proxy(request('POST', r.path, { authorization: 'Bearer correct horse battery stapler' }))).status).toBe(401);
    const ok = await proxy(request('POST', r.path, { authorization: `Bearer ${SECRET}` }));
    expect(ok.headers.get('x-middleware-next')).toBe('1');
  });

  it('sends the app page to the sign-in page and serves that page', async () => {
    const home = await proxy(request('GET', '/'));
    expect(home.status).toBe(303);
    expect(home.headers.get('location')).toMatch(/\/signin$/);
    const signin = await proxy(request('GET', '/signin'));
    expect(signin.headers.get('x-middleware-next')).toBe('1');
    expect(signin.headers.get('content-security-policy')).toContain("script-src 'self' 'nonce-");
  });
});

describe('the same routes on loopback', () => {
  it('need no sign-in', async () => {
    vi.stubEnv('LONGCTX_ACCESS_SECRET', '');
    setServerRuntime({ listenHost: '127.0.0.1', draining: false, startedAt: Date.now() });
    try {
      for (const r of routes) for (const m of r.methods) expect((await proxy(request(m, r.path))).headers.get('x-middleware-next'), `${m} ${r.path}`).toBe('1');
    } finally {
      vi.stubEnv('LONGCTX_ACCESS_SECRET', SECRET);
      setServerRuntime({ listenHost: '0.0.0.0', draining: false, startedAt: Date.now() });
    }
  });
});
