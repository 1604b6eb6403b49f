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
 */
export function createGuardedFetch(baseFetch: FetchLike, opts: { trust: 'server' } | { trust: 'client'; policy: BaseUrlPolicy }): FetchLike {
  return async (input, init) => {
    const url = urlOf(input);
    let hostname: string;
    try {
      hostname = new URL(url).hostname;
    } catch {
      throw new ForbiddenDestinationError(url, 'not a valid URL');
    }
    if (opts.trust === 'client') {
      const check = checkClientBaseUrl(url, opts.policy);
      if (!check.ok) throw new ForbiddenDestinationError(url, check.reason);
    } else {
      const reason = forbiddenReason(hostname);
      if (reason) throw new ForbiddenDestinationError(url, reason);
    }
    return baseFetch(input, { ...init, redirect: 'manual' });
  };
}
