import { JSON_REQUIRED, isJsonContentType } from '@/lib/providers/body';
import { jsonError } from '@/lib/providers/errors';

/**
 * Who may drive the model routes. They spend the operator's keys, so only this
 * app's own pages (and non-browser clients the operator runs) may call them.
 *
 * Three holes this closes:
 *
 * - Cross-site requests. A page on any other origin can send a "simple" POST
 *   (Content-Type text/plain, mode no-cors) without a CORS preflight; it cannot
 *   read the answer, but the model call is made and paid for. So a POST body
 *   must be application/json (which no cross-origin page can send without a
 *   preflight we never grant), and browsers' own statements about where a
 *   request comes from are checked: `Origin`, when present, must be this app's
 *   origin, and `Sec-Fetch-Site`, when present, must be `same-origin` (or
 *   `none`: the user typed the URL). Browsers send Origin on every POST, so a
 *   POST with neither header is not a browser page: curl, a script, a test.
 *   Such a client can claim whatever it likes anyway; it is not what CSRF
 *   defences are about, and it may pass.
 *
 * - DNS rebinding. An attacker's domain that first resolves to their server and
 *   then to this one (127.0.0.1, a LAN address) makes their page same-origin
 *   with us as far as the browser knows. What gives it away is the Host header:
 *   it carries the attacker's name. So the Host must be a literal IP address
 *   (rebinding needs a name), `localhost` (browsers resolve it to this
 *   machine themselves), or a name the operator listed in ALLOWED_HOSTS (the
 *   names a reverse proxy serves the app under).
 *
 * X-Forwarded-Host is not consulted: any client can send it, so it could only
 * loosen the check for whoever forges it. A proxy in front must pass the Host
 * through (Caddy does; nginx needs `proxy_set_header Host $host`), and its
 * name be listed. Origin is compared with the Host by name and port, not by
 * scheme: behind a TLS-terminating proxy the app itself is reached over http.
 */

export type Env = Readonly<Record<string, string | undefined>>;

export interface GuardPolicy {
  /** Host names from ALLOWED_HOSTS, lowercased, without port or trailing dot. */
  allowedHosts: readonly string[];
}

export interface Refusal {
  status: 403 | 415;
  kind: 'forbidden' | 'invalid_request';
  message: string;
}

/**
 * `json-post`: a POST whose body is JSON (the model routes). `form-post`: the
 * same checks, but an HTML form's body is accepted too (the sign-in page works
 * without scripts). `get`: a read, which only needs the Host check.
 */
export type RouteKind = 'json-post' | 'form-post' | 'get';

const FORM_OR_JSON_REQUIRED = 'Request body must be JSON (Content-Type: application/json) or a form (application/x-www-form-urlencoded).';

export function isFormContentType(value: string | null): boolean {
  return /^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(value ?? '');
}

export function readGuardPolicy(env: Env): GuardPolicy {
  const allowedHosts: string[] = [];
  for (const item of (env.ALLOWED_HOSTS ?? '').split(/[\s,]+/)) {
    if (!item) continue;
    const name = hostnameOf(item);
    if (name) allowedHosts.push(name);
  }
  return { allowedHosts };
}

/**
 * A Host value ("name:port", "[::1]:3000") as the URL parser canonicalises it:
 * lowercase, punycode, numeric IPv4 spellings made dotted. Null when it is not
 * a bare host (it has userinfo, a path, spaces) or does not parse.
 */
function parseHost(value: string): URL | null {
  if (!value || /[\s/@?#\\]/.test(value)) return null;
  try {
    return new URL(`http://${value}`);
  } catch {
    return null;
  }
}

function hostnameOf(value: string): string | null {
  const url = parseHost(value);
  return url ? url.hostname.replace(/\.+$/, '') : null;
}

function isIpLiteral(hostname: string): boolean {
  return hostname.startsWith('[') || /^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname);
}

function hostAllowed(hostname: string, policy: GuardPolicy): boolean {
  return isIpLiteral(hostname) || hostname === 'localhost' || policy.allowedHosts.includes(hostname.replace(/\.+$/, ''));
}

const defaultPort = (protocol: string) => (protocol === 'https:' ? '443' : '80');

/** Whether the Origin names the same host and port the request was sent to. */
function sameOrigin(origin: string, host: URL): boolean {
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file: pages) and anything unparsable
  }
  if (o.protocol !== 'http:' && o.protocol !== 'https:') return false;
  return o.hostname === host.hostname && (o.port || defaultPort(o.protocol)) === (host.port || defaultPort(o.protocol));
}

/** The request as the guard sees it: its method and headers, and the URL for when no Host header came. */
export interface RequestFacts {
  method: string;
  url: string;
  headers: Headers;
}

export function checkRequest(req: RequestFacts, route: RouteKind, policy: GuardPolicy): Refusal | null {
  const rawHost = req.headers.get('host') ?? safeUrlHost(req.url);
  const host = rawHost ? parseHost(rawHost) : null;
  if (!host) return forbidden(`The Host header ${rawHost ? `"${rawHost}" ` : ''}is not a host name.`);
  if (!hostAllowed(host.hostname, policy)) {
    return forbidden(`This server does not answer to the name "${host.hostname}". If that is its name, add it to ALLOWED_HOSTS on the server.`);
  }
  if (route === 'get') return null;

  const origin = req.headers.get('origin');
  // A form posted from our own page under Referrer-Policy: no-referrer (next.config.mjs) carries `Origin: null`;
  // the browser's own Sec-Fetch-Site, which no page can set, still says where it came from.
  const ownForm = route === 'form-post' && origin === 'null' && req.headers.get('sec-fetch-site') === 'same-origin';
  if (origin !== null && !ownForm && !sameOrigin(origin, host)) {
    return forbidden(`Cross-site request refused: a page from ${origin} may not use this app's model routes.`);
  }
  const site = req.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') {
    return forbidden(`Cross-site request refused: the browser says it comes from a ${site} page.`);
  }
  const type = req.headers.get('content-type');
  if (route === 'form-post') return isJsonContentType(type) || isFormContentType(type) ? null : { status: 415, kind: 'invalid_request', message: FORM_OR_JSON_REQUIRED };
  if (!isJsonContentType(type)) return { status: 415, kind: 'invalid_request', message: JSON_REQUIRED };
  return null;
}

function forbidden(message: string): Refusal {
  return { status: 403, kind: 'forbidden', message };
}

function safeUrlHost(url: string): string | null {
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

/** For route handlers: null to go on, or the refusal as a JSON error response. */
export function guardRequest(request: Request, route: RouteKind, env: Env): Response | null {
  const refusal = checkRequest(request, route, readGuardPolicy(env));
  return refusal ? jsonError(refusal.status, { kind: refusal.kind, status: refusal.status, message: refusal.message }) : null;
}
