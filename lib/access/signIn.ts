import 'server-only';
import { readCappedBytes } from '@/lib/http/cappedBody';
import { guardRequest, isFormContentType, type Env } from '@/lib/http/requestGuard';
import type { SignInLimiter } from './attempts';
import { safeNextPath, signInLocation } from './gate';
import type { AccessPolicy } from './policy';
import { ACCESS_MAX_AGE_S, accessCookie, constantTimeEqual, mintAccessToken, reachedOverHttps } from './token';

/**
 * POST /api/access: sign in with the access secret; DELETE: sign out.
 *
 * Two callers. The sign-in page posts an HTML form (it works without scripts,
 * on any phone) and gets redirects: on to where the user was going, or back to
 * the page with what went wrong. A script posts JSON `{ "secret": "…" }` and
 * gets JSON, with the cookie to send from then on (or it sends
 * `Authorization: Bearer` on every request instead and never calls this).
 */

export interface SignInDeps {
  env: Env;
  policy: AccessPolicy;
  limiter: SignInLimiter;
  client: string;
  now: number;
}

/** A passphrase and a path fit in far less; the cap keeps a flood of bytes from being read. */
const MAX_BODY_BYTES = 4096;

const noStore = { 'cache-control': 'no-store' };

async function readCapped(request: Request): Promise<string | null> {
  if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return null;
  if (!request.body) return '';
  const bytes = await readCappedBytes(request.body, MAX_BODY_BYTES);
  return bytes && new TextDecoder().decode(bytes);
}

function readFields(text: string, form: boolean): { secret: string; next: string | null } | null {
  if (form) {
    const params = new URLSearchParams(text);
    return { secret: params.get('secret') ?? '', next: params.get('next') };
  }
  try {
    const j = JSON.parse(text) as { secret?: unknown; next?: unknown } | null;
    if (!j || typeof j.secret !== 'string') return null;
    return { secret: j.secret, next: typeof j.next === 'string' ? j.next : null };
  } catch {
    return null;
  }
}

/** Redirects are relative: see signInLocation for why request.url cannot be trusted to name this site. */
function backToPage(params: Record<string, string>): Response {
  return new Response(null, { status: 303, headers: { location: signInLocation(params), ...noStore } });
}

export async function handleSignIn(request: Request, deps: SignInDeps): Promise<Response> {
  const refused = guardRequest(request, 'form-post', deps.env);
  if (refused) return refused;
  const form = isFormContentType(request.headers.get('content-type'));
  const text = await readCapped(request);
  const fields = text === null ? null : readFields(text, form);
  if (!fields) {
    if (form) return backToPage({ error: 'invalid' });
    return Response.json({ error: 'Expected a JSON body {"secret": "…"} of at most 4 KB.', code: 'invalid' }, { status: 400, headers: noStore });
  }
  const next = safeNextPath(fields.next);
  const secure = reachedOverHttps(request);

  if (!deps.policy.required) {
    // Nothing to sign in to: this server is open to whoever reaches it (loopback, or the operator's opt-out).
    return form ? new Response(null, { status: 303, headers: { location: next, ...noStore } }) : Response.json({ signedIn: true, required: false }, { headers: noStore });
  }
  if (!deps.policy.secret || deps.policy.problem) {
    return Response.json({ error: 'This server has no usable access secret; its operator must set one.', code: 'unavailable' }, { status: 503, headers: noStore });
  }

  const wait = await deps.limiter.retryAfterMs(deps.client);
  if (wait > 0) {
    const seconds = Math.ceil(wait / 1000);
    if (form) return backToPage({ error: 'wait', retry: String(seconds), next });
    return Response.json({ error: `Too many wrong passphrases from this address; try again in ${seconds} s.`, code: 'rate_limited' }, { status: 429, headers: { ...noStore, 'retry-after': String(seconds) } });
  }

  if (!constantTimeEqual(fields.secret, deps.policy.secret)) {
    await deps.limiter.failed(deps.client);
    if (form) return backToPage({ error: 'wrong', next });
    return Response.json({ error: 'That is not the access secret.', code: 'wrong_secret' }, { status: 401, headers: noStore });
  }

  await deps.limiter.succeeded(deps.client);
  const cookie = accessCookie(mintAccessToken(deps.policy.secret, deps.now), secure);
  if (form) return new Response(null, { status: 303, headers: { location: next, 'set-cookie': cookie, ...noStore } });
  return Response.json({ signedIn: true, expiresInS: ACCESS_MAX_AGE_S }, { headers: { 'set-cookie': cookie, ...noStore } });
}

/** Forgets this browser's sign-in. */
export function handleSignOut(request: Request, deps: Pick<SignInDeps, 'env'>): Response {
  const refused = guardRequest(request, 'get', deps.env);
  if (refused) return refused;
  // A DELETE from another site needs a CORS preflight, which this app never grants.
  return Response.json({ signedIn: false }, { headers: { 'set-cookie': accessCookie(null, reachedOverHttps(request)), ...noStore } });
}
