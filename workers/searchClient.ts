/**
 * Main-thread side of the search worker, started on first use. Imports only
 * the API's type, so MiniSearch and the index stay off the main thread.
 */
import { wrap, type Remote } from 'comlink';
import type { SearchService } from '@/lib/search/service';

let client: Remote<SearchService> | null = null;

export function getSearchClient(): Remote<SearchService> {
  if (client) return client;
  const worker = new Worker(new URL('./search.worker.ts', import.meta.url), { type: 'module', name: 'search' });
  client = wrap<SearchService>(worker);
  return client;
}
