import type { FetchLike } from './guardedFetch';

/**
 * One retry for a request that died on a pooled connection before any
 * response came back.
 *
 * Fetch keeps connections to a provider open between requests and closes an
 * idle one a little before the server says it will (the Keep-Alive hint).
 * When the server process is busy that margin is not enough: the client's
 * timer runs late, it sends the next request on a connection the server has
 * just closed, and the request fails with ECONNRESET ("other side closed")
 * without ever reaching a handler. The route load test hit this about once in
 * 300 streams on a busy machine. Fetch itself retries such failures only for
 * idempotent methods; a completion is a POST, so it is retried here, once, on
 * a fresh connection, and only when there was no response at all, the body can
 * be sent again (the providers send JSON text) and the caller has not aborted.
 * Any other failure (refused, DNS, TLS, a timeout, an HTTP error) is reported
 * as it is.
 */

const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

function resetCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && RESET_CODES.has(code)) return code;
  }
  return undefined;
}

function replayable(init: RequestInit | undefined): boolean {
  const body = init?.body;
  return body === undefined || body === null || typeof body === 'string' || body instanceof URLSearchParams || body instanceof ArrayBuffer || ArrayBuffer.isView(body);
}

export function retryStaleConnection(baseFetch: FetchLike): FetchLike {
  return async (input, init) => {
    try {
      return await baseFetch(input, init);
    } catch (err) {
      // A Request object's body is a stream that the first attempt consumed.
      if (!resetCode(err) || input instanceof Request || !replayable(init) || init?.signal?.aborted) throw err;
      return baseFetch(input, init);
    }
  };
}
