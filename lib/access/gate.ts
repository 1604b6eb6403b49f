import type { SignInLimiter } from './attempts';
import { ACCESS_SECRET_ENV, type AccessPolicy } from './policy';
import { ACCESS_COOKIE, constantTimeEqual, readCookie, verifyAccessToken } from './token';

/**
 * The access check every request passes first: the server `npm start` runs
 * (lib/server/httpServer.ts) calls it before handing a request to Next, for
 * pages and every route under /api, including routes added later, since
 * nothing has to opt in. Open without the secret: the health check (load
 * balancers call it), the sign-in endpoint and page, and the build's static
 * files (the app's code and artwork, which the sign-in page needs too).
 *
 * Not in proxy.ts: Next buffers the whole body of every POST a proxy matches
 * (and cuts it at 10 MB), which would undo the routes' streaming body limits
 * and break 32 MB chat requests. Not marked `import 'server-only'`: the
 * launcher loads it in plain Node, where that package throws; the lint
 * boundaries keep it off the browser side instead.
 */

export const SIGN_IN_PAGE = '/signin';
export const SIGN_IN_ROUTE = '/api/access';
export const HEALTH_ROUTE = '/api/health';
export const PUBLIC_PATHS: readonly string[] = [HEALTH_ROUTE, SIGN_IN_ROUTE, SIGN_IN_PAGE];
/** The build's static files, the web app manifest and icons, and the service worker: code and artwork, no data. */
const PUBLIC_FILES = /^\/(?:_next\/static\/|_next\/image(?:$|\?)|icons\/|serwist\/|(?:icon\.svg|favicon\.ico|apple-icon\.png|manifest\.webmanifest)$)/;

export function isPublicPath(pathname: string): boolean {
  return PUBLIC_PATHS.includes(pathname) || PUBLIC_FILES.test(pathname);
}

/** `sign_in_required`, not the sync protocol's `unauthorized`: a sync client must not take it for a revoked device. */
export const SIGN_IN_REQUIRED = 'sign_in_required';

export interface GateContext {
  policy: AccessPolicy;
  now: number;
  limiter: SignInLimiter;
  /** Who is asking, for counting wrong secrets (attempts.ts clientKey). */
  client: string;
}

export interface GateRequest {
  method: string;
  url: string;
  headers: Headers;
}

const noStore = { 'cache-control': 'no-store' };

function refusal(status: 401 | 429 | 503, message: string, extra: Record<string, string> = {}): Response {
  const body = { kind: 'forbidden', status, code: status === 401 ? SIGN_IN_REQUIRED : status === 429 ? 'rate_limited' : 'unavailable', message, error: message };
  return Response.json(body, { status, headers: { ...noStore, ...extra } });
}

/**
 * The sign-in page's address with these parameters, as a path: a Location
 * relative to the request. Next builds a handler's request.url from the
 * address it listens on (http://0.0.0.0:3000), not from what the browser
 * asked for, so an absolute URL made from it would send the browser away.
 */
export function signInLocation(params: Record<string, string> = {}): string {
  const query = new URLSearchParams(Object.entries(params).filter(([k, v]) => v && !(k === 'next' && v === '/'))).toString();
  return query ? `${SIGN_IN_PAGE}?${query}` : SIGN_IN_PAGE;
}

/** Where to go after signing in: a path on this site, never another site (`//evil.example`, `/\evil.example`). */
export function safeNextPath(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\') || /[\u0000-\u001f]/.test(value)) return '/';
  return value;
}

function bearerOf(headers: Headers): string | null {
  const m = /^Bearer\s+(.+)$/i.exec(headers.get('authorization') ?? '');
  return m ? m[1]!.trim() : null;
}

const isPage = (method: string, path: string) => (method === 'GET' || method === 'HEAD') && !path.startsWith('/api/') && path !== '/api';

/** Null to let the request through, or the answer that refuses it. */
export async function gateRequest(request: GateRequest, ctx: GateContext): Promise<Response | null> {
  const { policy } = ctx;
  if (!policy.required) return null;
  const url = new URL(request.url);
  if (isPublicPath(url.pathname)) return null;

  // Reached only when the launcher was bypassed (`next start` directly): it refuses to start like this.
  if (!policy.secret || policy.problem) {
    return refusal(503, policy.problem ?? `This server is reachable from other machines but has no access secret: set ${ACCESS_SECRET_ENV} and restart it.`);
  }

  const bearer = bearerOf(request.headers);
  if (bearer !== null) {
    const wait = await ctx.limiter.retryAfterMs(ctx.client);
    if (wait > 0) return refusal(429, 'Too many wrong secrets from this address; try again later.', { 'retry-after': String(Math.ceil(wait / 1000)) });
    if (constantTimeEqual(bearer, policy.secret)) return null;
    await ctx.limiter.failed(ctx.client);
    return refusal(401, 'The access secret in the Authorization header is wrong.', { 'www-authenticate': 'Bearer realm="longctx"' });
  }

  const token = readCookie(request.headers.get('cookie'), ACCESS_COOKIE);
  if (token && verifyAccessToken(token, policy.secret, ctx.now)) return null;

  if (isPage(request.method, url.pathname)) {
    const next = safeNextPath(url.pathname + url.search);
    return new Response(null, { status: 303, headers: { location: signInLocation({ next }), ...noStore } });
  }
  return refusal(
    401,
    `Sign in first: open this server in a browser and enter its access passphrase, or send Authorization: Bearer <${ACCESS_SECRET_ENV}>.`,
    { 'www-authenticate': 'Bearer realm="longctx"' },
  );
}
