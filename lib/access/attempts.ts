import { RateLimiterMemory, type RateLimiterRes } from 'rate-limiter-flexible';
import { CLIENT_ADDRESS_HEADER, serverRuntime } from '@/lib/server/runtime';

/**
 * Wrong secrets, counted per client: after FAILURES wrong guesses in WINDOW
 * the client is refused for BLOCK, whatever it sends (a right guess included,
 * so a blocked client learns nothing). Sign-in forms and `Authorization:
 * Bearer` count alike, or scripts would be an unlimited way round the form.
 *
 * In memory, per server process: several app servers behind one load balancer
 * each keep their own count, so a client spread across N servers gets N times
 * the guesses. With a passphrase of at least 12 characters that is still far
 * from enough; a shared store would have to be reachable before sign-in, which
 * the sync database is not meant to be.
 */

export const FAILURES = 5;
export const WINDOW_S = 15 * 60;
export const BLOCK_S = 15 * 60;

export interface SignInLimiter {
  /** 0 when the client may try; else how long until it may. */
  retryAfterMs(client: string): Promise<number>;
  failed(client: string): Promise<void>;
  succeeded(client: string): Promise<void>;
}

export function createSignInLimiter(opts: { failures?: number; windowS?: number; blockS?: number } = {}): SignInLimiter {
  const failures = opts.failures ?? FAILURES;
  const limiter = new RateLimiterMemory({ points: failures, duration: opts.windowS ?? WINDOW_S, blockDuration: opts.blockS ?? BLOCK_S });
  return {
    async retryAfterMs(client) {
      const res = await limiter.get(client);
      return res && res.consumedPoints >= failures ? Math.max(1, res.msBeforeNext) : 0;
    },
    async failed(client) {
      // consume() rejects once the client is over the limit, having started its block: that is the point.
      await limiter.consume(client).catch((res: RateLimiterRes | Error) => {
        if (res instanceof Error) throw res;
      });
    },
    async succeeded(client) {
      await limiter.delete(client);
    },
  };
}

const KEY = Symbol.for('longctx.signInLimiter');

/** The process's limiter: the proxy (Bearer) and the sign-in route are separate bundles that must share one count. */
export function processSignInLimiter(): SignInLimiter {
  const g = globalThis as { [KEY]?: SignInLimiter };
  return (g[KEY] ??= createSignInLimiter());
}

/**
 * Who is knocking. The launcher writes the address of the client's socket into
 * a header of its own (having removed any the client sent), or, with
 * LONGCTX_TRUST_PROXY=1, the address the reverse proxy in front reports. Run
 * without the launcher (`next start` directly) nobody vouches for the header,
 * and all clients share one count: safe, if strict.
 */
export function clientKey(headers: Headers): string {
  if (!serverRuntime()) return 'unknown';
  return headers.get(CLIENT_ADDRESS_HEADER) || 'unknown';
}
