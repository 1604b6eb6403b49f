/**
 * Main-thread side of the import/export worker. Importing only the API type
 * keeps the parsers and the markdown renderer out of the main bundle.
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { FormatsService, ProgressFn } from '@/lib/formats/service';


let client: Remote<FormatsService> | null = null;

export function getFormatsClient(): Remote<FormatsService> {
  if (client) return client;
  const worker = new Worker(new URL('./formats.worker.ts', import.meta.url), { type: 'module', name: 'formats' });
  client = wrap<FormatsService>(worker);
  return client;
}

/** Wraps a progress callback so comlink passes it by reference into the worker. */
export function progressProxy(fn: ProgressFn): ProgressFn {
  return proxy(fn);
}
