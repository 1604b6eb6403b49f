import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The proof of a sign-in that a browser keeps: `v1.<issued at, s>.<MAC>`, the
 * MAC an HMAC-SHA256 of the first two parts under a key derived from the
 * access secret. The cookie never holds the secret itself, so a cookie that
 * leaks (a backup, a shared profile) gives away one browser's access for at
 * most MAX_AGE, not the passphrase; changing the secret signs everyone out.
 * Stateless: every app server with the same secret accepts every other's
 * cookies, so any number of them can sit behind one load balancer.
 */

export const ACCESS_COOKIE = 'longctx_access';
/** How long a sign-in lasts: thirty days, then the browser asks again. */
export const ACCESS_MAX_AGE_S = 30 * 24 * 60 * 60;
/** Issued-at times this far in the future are accepted (clocks of several servers drift a little). */
const CLOCK_SKEW_S = 5 * 60;

function tokenKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('longctx access cookie v1').digest();
}

function mac(secret: string, payload: string): string {
  return createHmac('sha256', tokenKey(secret)).update(payload).digest('base64url');
}

export function mintAccessToken(secret: string, nowMs: number): string {
  const payload = `v1.${Math.floor(nowMs / 1000)}`;
  return `${payload}.${mac(secret, payload)}`;
}

/** Same length or not, in time that does not depend on where two strings differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  // Hashing first gives equal lengths, so timingSafeEqual never throws and the length of the secret does not show either.
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export function verifyAccessToken(token: string, secret: string, nowMs: number): boolean {
  const m = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return false;
  const issued = Number(m[1]);
  const now = Math.floor(nowMs / 1000);
  const fresh = issued <= now + CLOCK_SKEW_S && now - issued <= ACCESS_MAX_AGE_S;
  // The MAC is compared whether or not the token is fresh: the answer takes the same time either way.
  const valid = constantTimeEqual(mac(secret, `v1.${m[1]}`), m[2]!);
  return valid && fresh;
}

/** The value of one cookie in a Cookie header, or null. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * The Set-Cookie value for a sign-in (or, with `token: null`, a sign-out).
 * HttpOnly: no script on the page can read it, so an injection that slipped
 * past the markdown sanitizer and the CSP still could not carry it away.
 * SameSite=Lax: sent when the user opens a link to the app, not with requests
 * other sites make; the routes' own origin checks refuse those anyway. Secure
 * whenever the app is reached over https, so the browser never sends it over
 * plain http after that.
 */
export function accessCookie(token: string | null, secure: boolean): string {
  const parts = [`${ACCESS_COOKIE}=${token ?? ''}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${token ? ACCESS_MAX_AGE_S : 0}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * Whether the browser reached the app over https: the request's own URL, or
 * the scheme a TLS-terminating proxy in front reports. A forged header can
 * only make the client's own cookie stricter, never weaker.
 */
export function reachedOverHttps(request: { url: string; headers: Headers }): boolean {
  if (request.url.startsWith('https:')) return true;
  const forwarded = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  if (forwarded === 'https') return true;
  return request.headers.get('origin')?.startsWith('https:') ?? false;
}
