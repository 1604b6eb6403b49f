/**
 * Main-thread side of the import/export worker. Importing only the API type
 * keeps the parsers and the markdown renderer out of the main bundle.
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { StoredImportService } from '@/lib/db/importFile';
import type { FormatsService } from '@/lib/formats/service';

export type FormatsWorkerApi = FormatsService & StoredImportService;

let client: Remote<FormatsWorkerApi> | null = null;

export function getFormatsClient(): Remote<FormatsWorkerApi> {
  if (client) return client;
  const worker = new Worker(new URL('./formats.worker.ts', import.meta.url), { type: 'module', name: 'formats' });
  client = wrap<FormatsWorkerApi>(worker);
  return client;
}

/** Wraps a progress callback so comlink passes it by reference into the worker. */
export function progressProxy<T extends (...args: never[]) => void>(fn: T): T {
  return proxy(fn);
}
