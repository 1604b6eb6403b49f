/**
 * Main-thread side of the token worker: a typed comlink proxy, one worker per
 * tab. Imports only the API's type, so no tokenizer code reaches the main
 * bundle. Every method returns a promise.
 *
 *   const tokens = getTokensClient();
 *   const { figure, computed } = await tokens.loadPath(sessionId, path, { model });
 *   await setEntryTokens(sessionId, computed);  // persist, never count again
 */
import { wrap, type Remote } from 'comlink';
import type { TokensService } from '@/lib/sessionTokens/service';

export type TokensClient = Remote<TokensService>;

let worker: Worker | null = null;
let client: TokensClient | null = null;

export function getTokensClient(): TokensClient {
  if (client) return client;
  if (typeof Worker === 'undefined') throw new Error('The token worker needs a browser (Web Worker) environment');
  worker = new Worker(new URL('./tokens.worker.ts', import.meta.url), { type: 'module', name: 'tokens' });
  client = wrap<TokensService>(worker);
  return client;
}
