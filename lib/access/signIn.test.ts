import { describe, expect, it } from 'vitest';
import { createSignInLimiter } from './attempts';
import { gateRequest } from './gate';
import { readAccessPolicy } from './policy';
import { handleSignIn, handleSignOut, type SignInDeps } from './signIn';

const SECRET = 'correct horse battery staple';
const NOW = Date.UTC(2026, 10, 28, 12, 0, 0);
const APP = 'http://192.168.1.20:3000';

function deps(over: Partial<SignInDeps> = {}): SignInDeps {
  const env = { LONGCTX_ACCESS_SECRET: SECRET };
  return { env, policy: readAccessPolicy(env, '0.0.0.0'), limiter: createSignInLimiter(), client: '192.0.2.7', now: NOW, ...over };
}

/** What the sign-in page's form sends from a browser. */
function form(fields: Record<string, string>, headers: Record<string, string> = {}): Request {
  return new Request(`${APP}/api/access`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: APP, 'sec-fetch-site': 'same-origin', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

function json(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${APP}/api/access`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const cookieOf = (res: Response) => /longctx_access=([^;]*)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? null;

/** Whether a cookie from this response gets through the gate to a model route. */
async function opensTheApp(res: Response, d: SignInDeps): Promise<boolean> {
  const token = cookieOf(res);
  if (!token) return false;
  const refused = await gateRequest({ method: 'POST', url: `${APP}/api/chat`, headers: new Headers({ cookie: `longctx_access=${token}` }) }, { policy: d.policy, now: d.now, limiter: d.limiter, client: d.client });
  return refused === null;
}

describe('signing in with the form', () => {
  it('sets a cookie that opens the app, and goes where the user was going', async () => {
    const d = deps();
    const res = await handleSignIn(form({ secret: SECRET, next: '/?join=word%20list' }), d);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/?join=word%20list');
    expect(res.headers.get('set-cookie')).toMatch(/^longctx_access=v1\.\d+\.[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000$/);
    expect(res.headers.get('set-cookie')).not.toContain(SECRET);
    expect(await opensTheApp(res, d)).toBe(true);
  });

  it('sends a wrong passphrase back to the page with no cookie', async () => {
    const res = await handleSignIn(form({ secret: 'not it at all', next: '/' }), deps());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/signin?error=wrong');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('never redirects off the site', async () => {
    const res = await handleSignIn(form({ secret: SECRET, next: '//evil.example/steal' }), deps());
    expect(res.headers.get('location')).toBe('/');
  });

  it('marks the cookie Secure when the browser came over https (directly or through a TLS proxy)', async () => {
    const res = await handleSignIn(form({ secret: SECRET }, { 'x-forwarded-proto': 'https' }), deps());
    expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('refuses a form posted from another site', async () => {
    const res = await handleSignIn(form({ secret: SECRET }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }), deps());
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a host name that is not this server’s (DNS rebinding)', async () => {
    const req = new Request('http://attacker.example:3000/api/access', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ secret: SECRET }) });
    expect((await handleSignIn(req, deps())).status).toBe(403);
  });
});

describe('signing in from a script', () => {
  it('answers JSON with the cookie', async () => {
    const d = deps();
    const res = await handleSignIn(json({ secret: SECRET }), d);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ signedIn: true, expiresInS: 2_592_000 });
    expect(await opensTheApp(res, d)).toBe(true);
    const wrong = await handleSignIn(json({ secret: 'nope nope nope' }), d);
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { code: string }).code).toBe('wrong_secret');
  });

  it('rejects bodies that are not a secret, and large ones without reading them whole', async () => {
    expect((await handleSignIn(json({ password: SECRET }), deps())).status).toBe(400);
    expect((await handleSignIn(json({ secret: 'x'.repeat(10_000) }), deps())).status).toBe(400);
    const text = new Request(`${APP}/api/access`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: SECRET });
    expect((await handleSignIn(text, deps())).status).toBe(415);
  });
});

describe('the rate limit', () => {
  it('blocks a client after five wrong passphrases, even when the sixth is right, and not other clients', async () => {
    const d = deps();
    for (let i = 0; i < 5; i++) expect((await handleSignIn(json({ secret: `guess number ${i}` }), d)).status).toBe(401);
    const blocked = await handleSignIn(json({ secret: SECRET }), d);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(blocked.headers.get('set-cookie')).toBeNull();
    // The form tells the user how long to wait.
    const page = await handleSignIn(form({ secret: SECRET }), d);
    expect(new URL(page.headers.get('location')!, APP).searchParams.get('error')).toBe('wait');
    // Another device on the network signs in as usual.
    expect((await handleSignIn(json({ secret: SECRET }), { ...d, client: '192.0.2.99' })).status).toBe(200);
  });

  it('forgets the count after a successful sign-in', async () => {
    const d = deps();
    for (let i = 0; i < 4; i++) await handleSignIn(json({ secret: `guess ${i} wrong` }), d);
    expect((await handleSignIn(json({ secret: SECRET }), d)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await handleSignIn(json({ secret: `guess ${i} again` }), d)).status).toBe(401);
  });
});

describe('when there is nothing to sign in to', () => {
  it('on loopback, says so and sets no cookie', async () => {
    const env = {};
    const res = await handleSignIn(json({ secret: 'anything at all' }), deps({ env, policy: readAccessPolicy(env, '127.0.0.1') }));
    expect(await res.json()).toEqual({ signedIn: true, required: false });
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});

describe('signing out', () => {
  it('clears the cookie', async () => {
    const res = handleSignOut(new Request(`${APP}/api/access`, { method: 'DELETE' }), { env: {} });
    expect(res.headers.get('set-cookie')).toBe('longctx_access=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
  });
});

describe('the form under the app’s no-referrer policy', () => {
  it('is accepted with Origin "null" when the browser says it is same-origin, and refused otherwise', async () => {
    const own = await handleSignIn(form({ secret: SECRET }, { origin: 'null', 'sec-fetch-site': 'same-origin' }), deps());
    expect(own.status).toBe(303);
    expect(own.headers.get('set-cookie')).not.toBeNull();
    // A sandboxed frame or a file: page has an opaque origin too, but the browser calls it cross-site.
    const opaque = await handleSignIn(form({ secret: SECRET }, { origin: 'null', 'sec-fetch-site': 'cross-site' }), deps());
    expect(opaque.status).toBe(403);
    const noSite = new Request(`${APP}/api/access`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null' }, body: `secret=${encodeURIComponent(SECRET)}` });
    expect((await handleSignIn(noSite, deps())).status).toBe(403);
  });
});
