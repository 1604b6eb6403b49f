import { describe, expect, it } from 'vitest';
import { createSignInLimiter } from './attempts';
import { gateRequest, safeNextPath, type GateContext } from './gate';
import { readAccessPolicy } from './policy';
import { mintAccessToken } from './token';

const SECRET = 'correct horse battery staple';
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);

function ctx(env: Record<string, string> = { LONGCTX_ACCESS_SECRET: SECRET }, host = '0.0.0.0'): GateContext {
  return { policy: readAccessPolicy(env, host), now: NOW, limiter: createSignInLimiter(), client: '192.0.2.7' };
}

function req(path: string, init: { method?: string; headers?: Record<string, string> } = {}) {
  return { method: init.method ?? 'GET', url: `http://192.168.1.20:3000${path}`, headers: new Headers(init.headers ?? {}) };
}

const cookie = (token: string) => ({ cookie: `theme=dark; longctx_access=${token}` });

describe('the access gate on an exposed server', () => {
  it('refuses API routes without the secret with 401 JSON that names the way in', async () => {
    const c = ctx();
    for (const [method, path] of [
      ['POST', '/api/chat'],
      ['GET', '/api/models'],
      ['POST', '/api/sync/push'],
      ['GET', '/api/sync/live'],
      ['GET', '/api/some-route-added-next-year'],
    ] as const) {
      const res = await gateRequest(req(path, { method }), c);
      expect(res?.status, `${method} ${path}`).toBe(401);
      const body = (await res!.json()) as { code: string; kind: string; message: string };
      expect(body.code).toBe('sign_in_required');
      expect(body.kind).toBe('forbidden');
      expect(body.message).toContain('Authorization: Bearer');
      expect(res!.headers.get('www-authenticate')).toBe('Bearer realm="longctx"');
    }
  });

  it('sends pages to the sign-in page, remembering where the user was going', async () => {
    const home = await gateRequest(req('/'), ctx());
    expect(home?.status).toBe(303);
    // A path: the request's URL names whatever Host the client sent.
    expect(home!.headers.get('location')).toBe('/signin');
    const deep = await gateRequest(req('/?join=abc%20def'), ctx());
    expect(new URL(deep!.headers.get('location')!, 'http://x').searchParams.get('next')).toBe('/?join=abc%20def');
    // A POST to a page (a server action) is not a navigation: refused, not redirected.
    expect((await gateRequest(req('/', { method: 'POST' }), ctx()))?.status).toBe(401);
  });

  it('lets the health check, the sign-in endpoint and the sign-in page through', async () => {
    for (const p of ['/api/health', '/api/access', '/signin', '/signin?next=%2F']) expect(await gateRequest(req(p, { method: p === '/api/access' ? 'POST' : 'GET' }), ctx())).toBeNull();
    // …and nothing that only looks like them.
    for (const p of ['/api/health/x', '/api/accessx', '/signin/x', '/api/access/../chat', '/_next/data/x.json', '/icons', '/_next/staticx']) expect(await gateRequest(req(p), ctx()), p).not.toBeNull();
    // The build's static files, the manifest, icons and the service worker: the app's code and artwork.
    for (const p of ['/_next/static/chunks/a.js', '/_next/image?url=%2Ficon.svg&w=64&q=75', '/icons/icon-192.png', '/serwist/sw.js', '/icon.svg', '/favicon.ico', '/apple-icon.png', '/manifest.webmanifest']) {
      expect(await gateRequest(req(p), ctx()), p).toBeNull();
    }
  });

  it('lets a valid sign-in cookie through, and no other', async () => {
    const c = ctx();
    expect(await gateRequest(req('/api/chat', { method: 'POST', headers: cookie(mintAccessToken(SECRET, NOW)) }), c)).toBeNull();
    expect(await gateRequest(req('/', { headers: cookie(mintAccessToken(SECRET, NOW)) }), c)).toBeNull();
    expect((await gateRequest(req('/api/chat', { method: 'POST', headers: cookie(mintAccessToken('another secret entirely', NOW)) }), c))?.status).toBe(401);
    // The secret itself in the cookie is not a token.
    expect((await gateRequest(req('/api/chat', { method: 'POST', headers: cookie(SECRET) }), c))?.status).toBe(401);
  });

  it('takes the secret as a Bearer token, and counts wrong ones against the client', async () => {
    const c = ctx();
    expect(await gateRequest(req('/api/models', { headers: { authorization: `Bearer ${SECRET}` } }), c)).toBeNull();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await gateRequest(req('/api/models', { headers: { authorization: 'Bearer guess' } }), c))!.status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    // Blocked means blocked: the right secret from the same client gets 429 too, so guessing learns nothing.
    const blocked = await gateRequest(req('/api/models', { headers: { authorization: `Bearer ${SECRET}` } }), c);
    expect(blocked?.status).toBe(429);
    expect(Number(blocked!.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another client is not affected.
    expect(await gateRequest(req('/api/models', { headers: { authorization: `Bearer ${SECRET}` } }), { ...c, client: '192.0.2.8' })).toBeNull();
  });

  it('does not read the sync protocol’s credentials as an attempt', async () => {
    const c = ctx();
    for (let i = 0; i < 8; i++) {
      const res = await gateRequest(req('/api/sync/pull', { headers: { authorization: 'Device AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' } }), c);
      expect(res?.status).toBe(401);
    }
    const token = mintAccessToken(SECRET, NOW);
    expect(await gateRequest(req('/api/sync/pull', { headers: { ...cookie(token), authorization: 'Device AAAAAAAAAAAAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' } }), c)).toBeNull();
  });

  it('fails closed when exposed with no usable secret (the launcher was bypassed)', async () => {
    const res = await gateRequest(req('/api/chat', { method: 'POST' }), ctx({}, '0.0.0.0'));
    expect(res?.status).toBe(503);
    expect(((await res!.json()) as { message: string }).message).toContain('LONGCTX_ACCESS_SECRET');
    expect((await gateRequest(req('/'), ctx({ LONGCTX_ACCESS_SECRET: 'short' }, '0.0.0.0')))?.status).toBe(503);
  });

  it('stays out of the way on loopback, and when the operator opted out', async () => {
    expect(await gateRequest(req('/api/chat', { method: 'POST' }), ctx({}, '127.0.0.1'))).toBeNull();
    expect(await gateRequest(req('/'), ctx({ LONGCTX_INSECURE_NO_ACCESS_SECRET: '1' }, '0.0.0.0'))).toBeNull();
  });
});

describe('where to go after signing in', () => {
  it('keeps paths on this site and nothing else', () => {
    expect(safeNextPath('/?join=a')).toBe('/?join=a');
    for (const bad of ['//evil.example/', '/\\evil.example', 'https://evil.example/', 'evil', '', null, '/\nSet-Cookie: x']) expect(safeNextPath(bad)).toBe('/');
  });
});
