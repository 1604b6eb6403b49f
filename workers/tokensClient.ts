/**
 * Main-thread side of the token worker: a typed comlink proxy, one worker per
 * tab. Imports only the API's type, so no tokenizer code reaches the main
 * bundle. Every method returns a promise.
 *
 *   const tokens = getTokensClient();
 *   const { figure, computed } = await tokens.loadPath(sessionId, path, { model });
 *   await setEntryTokens(sessionId, computed);  // persist, never count again
 */
import { wrap, releaseProxy, type Remote } from 'comlink';
import type { SessionEntry, TokenCache } from '@/lib/session/types';
import { countEntriesInBatches } from './countBatches';
import type { TokensApi } from './tokens.api';

export type TokensClient = Remote<TokensApi>;
export type { ContextBreakdown, CutResult, PathUpdate, SessionTokenOptions } from './tokens.api';

let worker: Worker | null = null;
let client: TokensClient | null = null;

export function getTokensClient(): TokensClient {
  if (client) return client;
  if (typeof Worker === 'undefined') throw new Error('The token worker needs a browser (Web Worker) environment');
  worker = new Worker(new URL('./tokens.worker.ts', import.meta.url), { type: 'module', name: 'tokens' });
  client = wrap<TokensApi>(worker);
  return client;
}

/** Stops the worker (tests, hot reload); the next getTokensClient starts a new one. */
export function terminateTokensClient(): void {
  client?.[releaseProxy]();
  worker?.terminate();
  client = null;
  worker = null;
}

/**
 * Token caches for many entries (import, uncached sessions): batched, with
 * only their text crossing to the worker. Persist the result with setEntryTokens.
 */
export function countEntriesOffThread(entries: readonly SessionEntry[], opts: { cl100k?: boolean } = {}): Promise<TokenCache[]> {
  return countEntriesInBatches(getTokensClient(), entries, opts);
}
