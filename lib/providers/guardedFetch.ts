import { checkClientBaseUrl, forbiddenReason, type BaseUrlPolicy } from './urlPolicy';

/** The fetch signature the AI SDK providers accept. */
export type FetchLike = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

export class ForbiddenDestinationError extends Error {
  readonly url: string;
  constructor(url: string, reason: string) {
    super(`Refused to contact ${url}: ${reason}`);
    this.name = 'ForbiddenDestinationError';
    this.url = url;
  }
}

function urlOf(input: RequestInfo | URL): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return input.url;
}

/**
 * Defence in depth under the URL policy: the route already checked the base
 * URL, but the provider packages build further URLs from it and may fetch
 * others (redirects, downloads). Every request goes through here:
 *
 * - `trust: 'server'` (URLs from the environment): only the never-allowed
 *   destinations are refused; the operator chose the host.
 * - `trust: 'client'` (a base URL from the browser): every request URL must
 *   pass the same policy the base URL passed.
 *
 * Redirects are not followed. A provider API has no reason to redirect, and a
 * followed redirect would carry the request (and its Authorization header) to
 * a host nobody checked.
 *
 * The name "localhost" is never handed to a resolver: the policy lets it
 * through as this machine, so this machine it must be, whatever /etc/hosts or
 * DNS would say. It is sent to 127.0.0.1, and to ::1 when nothing listens
 * there (the request never left, so sending it again is safe). Fetch does not
 * let us keep "localhost" in the Host header; local model servers accept the
 * address as well. Over https the server's certificate must then name the
 * address (mkcert's "localhost 127.0.0.1 ::1" certificates do).
 */
export function createGuardedFetch(baseFetch: FetchLike, opts: { trust: 'server' } | { trust: 'client'; policy: BaseUrlPolicy }): FetchLike {
  return async (input, init) => {
    const url = urlOf(input);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new ForbiddenDestinationError(url, 'not a valid URL');
    }
    const hostname = parsed.hostname;
    if (opts.trust === 'client') {
      const check = checkClientBaseUrl(url, opts.policy);
      if (!check.ok) throw new ForbiddenDestinationError(url, check.reason);
    } else {
      const reason = forbiddenReason(hostname);
      if (reason) throw new ForbiddenDestinationError(url, reason);
    }
    const guardedInit: RequestInit = { ...init, redirect: 'manual' };
    if (hostname !== 'localhost') return baseFetch(input, guardedInit);
    try {
      return await baseFetch(retarget(input, parsed, '127.0.0.1'), guardedInit);
    } catch (e) {
      if (!connectionRefused(e) || !replayable(input, init)) throw e;
      return baseFetch(retarget(input, parsed, '[::1]'), guardedInit);
    }
  };
}

function retarget(input: RequestInfo | URL, url: URL, address: string): RequestInfo {
  const to = new URL(url.href);
  to.hostname = address;
  return typeof input === 'string' || input instanceof URL ? to.href : new Request(to.href, input);
}

function connectionRefused(e: unknown): boolean {
  for (let cur = e, i = 0; cur && typeof cur === 'object' && i < 4; cur = (cur as { cause?: unknown }).cause, i++) {
    if ((cur as { code?: unknown }).code === 'ECONNREFUSED') return true;
  }
  return false;
}

/** A body that can be sent a second time (the providers send strings). */
function replayable(input: RequestInfo | URL, init: RequestInit | undefined): boolean {
  if (typeof input !== 'string' && !(input instanceof URL) && input.body) return false;
  return !(init?.body instanceof ReadableStream);
}
