import { browserSessionStore } from '@/lib/db';
import type { FlowPorts, FormatsPort, Notifier, SearchPort, TokensPort } from '@/lib/flows/ports';
import { getFormatsClient, progressProxy } from '@/workers/formatsClient';
import { getSearchClient } from '@/workers/searchClient';
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

const search: SearchPort = {
  sync: () => getSearchClient().sync(),
  search: (query, opts) => getSearchClient().search(query, opts),
};

export function createBrowserPorts(notify: Notifier): FlowPorts {
  return { store: browserSessionStore, tokens, formats, search, transport: routeTransport, locks: webStreamLocks, notify, saveFile, quota: browserStorageQuota };
}
