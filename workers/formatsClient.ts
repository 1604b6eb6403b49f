/**
 * Main-thread side of the import/export worker. Importing only the API type
 * keeps the parsers and the markdown renderer out of the main bundle.
 *
 * The worker starts with the first call and stops once a big job (an import,
 * an export of everything) has finished and nothing else runs on it: such a
 * job leaves the worker's heap full of the file's garbage, which V8 gives back
 * slowly, and the tab would otherwise keep it while it goes on to open the
 * imported session (another worker, the tokenizer's, starting as the import
 * ends). The renderer's peak during a 100 MB ChatGPT import, above the empty
 * app: 1.46-1.77x the file with the worker kept, 1.09-1.32x with it stopped
 * (three runs each, docs/benchmarks.md). Small jobs (one session's export,
 * each file of a folder of small ones) keep it running: starting it costs more
 * than they do.
 */
import { proxy, wrap, type Remote } from 'comlink';
import type { StoredImportService } from '@/lib/db/importFile';
import type { FormatsService } from '@/lib/formats/service';
import type { ProbeService } from '@/lib/compaction/probes/report';

export type FormatsWorkerApi = FormatsService & StoredImportService & ProbeService;

let worker: Worker | null = null;
let client: Remote<FormatsWorkerApi> | null = null;
/** Calls running on the worker. */
let running = 0;
/** A big job finished while others ran: the last one to finish stops the worker. */
let stopWhenIdle = false;

function started(): Remote<FormatsWorkerApi> {
  if (client) return client;
  worker = new Worker(new URL('./formats.worker.ts', import.meta.url), { type: 'module', name: 'formats' });
  client = wrap<FormatsWorkerApi>(worker);
  return client;
}

/** Runs one call on the worker (started if need be); `big`: stop the worker once it and every other call are done. */
export async function onFormatsWorker<T>(call: (api: Remote<FormatsWorkerApi>) => Promise<T>, big = false): Promise<T> {
  const api = started();
  running++;
  try {
    return await call(api);
  } finally {
    running--;
    if (big) stopWhenIdle = true;
    if (stopWhenIdle && running === 0) {
      stopWhenIdle = false;
      worker?.terminate();
      worker = null;
      client = null;
    }
  }
}

/** The running worker, if any (cancelling an import must not start one). */
export function runningFormatsClient(): Remote<FormatsWorkerApi> | null {
  return client;
}

/** Wraps a progress callback so comlink passes it by reference into the worker. */
export function progressProxy<T extends (...args: never[]) => void>(fn: T): T {
  return proxy(fn);
}
