import { browserSessionStore } from '@/lib/db';
import type { FlowPorts, FormatsPort, Notifier, SearchPort, TokensPort } from '@/lib/flows/ports';
import type { SyncService } from '@/lib/sync/service';
import { getFormatsClient, progressProxy } from '@/workers/formatsClient';
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

const formats: FormatsPort = {
  importFile: (file, fileName, onProgress) => getFormatsClient().importFile(file, fileName, onProgress ? progressProxy(onProgress) : undefined),
  exportSession: (snapshot, kind) => getFormatsClient().exportSession(snapshot, kind),
  exportAll: (snapshots) => getFormatsClient().exportAll(snapshots),
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

export function createBrowserPorts(notify: Notifier): FlowPorts {
  return { store: browserSessionStore, tokens, formats, search, transport: routeTransport, locks: webStreamLocks, notify, saveFile, quota: browserStorageQuota, sync };
}
