import { browserSessionStore } from '@/lib/db';
import { addFolder, listFolders, removeFolder, updateFolder } from '@/lib/db/folders';
import { browserFolderAccess } from './folderAccess';
import type { FlowPorts, FormatsPort, Notifier, ProbesPort, SearchPort, TokensPort } from '@/lib/flows/ports';
import type { SyncService } from '@/lib/sync/service';
import { onFormatsWorker, progressProxy, runningFormatsClient } from '@/workers/formatsClient';
import { getSearchClient } from '@/workers/searchClient';
import { getSyncClient } from '@/workers/syncClient';
import { getTokensClient } from '@/workers/tokensClient';
import { webStreamLocks } from './locks';
import { routeTransport } from './routeTransport';
import { saveFile } from './saveFile';
import { browserStorageQuota } from './storageQuota';

/**
 * The flows' ports in a browser tab: IndexedDB, the three workers, the app's
 * own routes, Web Locks, file downloads. The workers start on first use, not
 * here: this also runs while the server renders the page, where there are none.
 */
const tokens = new Proxy({} as TokensPort, {
  get: (_target, method: string) => (...args: unknown[]) => (getTokensClient() as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!(...args),
});

/** An import of a file this big stops the formats worker when done (formatsClient.ts); a folder of small files keeps it. */
const BIG_IMPORT_BYTES = 8 * 1024 * 1024;

const formats: FormatsPort = {
  importFileToStore: (file, fileName, opts, onProgress) => onFormatsWorker((w) => w.importFileToStore(file, fileName, opts, onProgress ? progressProxy(onProgress) : undefined), file.size >= BIG_IMPORT_BYTES),
  cancelImport: async (importId) => runningFormatsClient()?.cancelImport(importId),
  exportSession: (snapshot, kind) => onFormatsWorker((w) => w.exportSession(snapshot, kind)),
  exportAll: (snapshots) => onFormatsWorker((w) => w.exportAll(snapshots), true),
};

/** Summary probes run on the formats worker (workers/formats.worker.ts says why). */
const probes: ProbesPort = {
  report: (span, summary) => onFormatsWorker((w) => w.probeReport(span, summary)),
};

/** The sync worker, started by the first call (FlowsProvider makes one when the page loads). */
const sync: SyncService = {
  create: (name) => getSyncClient().create(name),
  join: (words, name) => getSyncClient().join(words, name),
  leave: () => getSyncClient().leave(),
  devices: () => getSyncClient().devices(),
  revoke: (id) => getSyncClient().revoke(id),
  kick: () => getSyncClient().kick(),
};

const search: SearchPort = {
  sync: () => getSearchClient().sync(),
  search: (query, opts) => getSearchClient().search(query, opts),
};

const folders: NonNullable<FlowPorts['folders']> = {
  access: browserFolderAccess,
  store: { list: () => listFolders(), add: (name, handle) => addFolder(name, handle), update: (id, patch) => updateFolder(id, patch), remove: (id) => removeFolder(id) },
};

export function createBrowserPorts(notify: Notifier): FlowPorts {
  return { store: browserSessionStore, tokens, formats, search, transport: routeTransport, locks: webStreamLocks, notify, saveFile, quota: browserStorageQuota, sync, probes, folders };
}
