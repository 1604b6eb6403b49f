/**
 * Main-thread side of the sync worker: a typed comlink proxy, one worker per
 * tab, started on first use. Starting it is what starts background sync.
 */
import { wrap, type Remote } from 'comlink';
import type { SyncService } from '@/lib/sync/service';

let client: Remote<SyncService> | null = null;

export function getSyncClient(): Remote<SyncService> {
  if (client) return client;
  if (typeof Worker === 'undefined') throw new Error('Sync needs a browser (Web Worker) environment');
  client = wrap<SyncService>(new Worker(new URL('./sync.worker.ts', import.meta.url), { type: 'module', name: 'sync' }));
  return client;
}
