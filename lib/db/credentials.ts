import type { ClientCredentials } from '@/lib/providers/requests';
import { getDB, type AppDB } from './db';
import { getSetting, setSetting } from './settings';

/**
 * A key or base URL the user typed in Settings stays in this browser
 * (IndexedDB) and is sent only to this app's own server, with the request that
 * needs it; the server uses it for that request and never logs it.
 */

const KEY = 'clientCredentials';

export async function loadClientCredentials(db: AppDB = getDB()): Promise<ClientCredentials | undefined> {
  const c = await getSetting<ClientCredentials | null>(KEY, null, db).catch(() => null);
  if (!c || (!c.apiKey && !c.baseUrl)) return undefined;
  return { ...(typeof c.apiKey === 'string' && c.apiKey ? { apiKey: c.apiKey } : {}), ...(typeof c.baseUrl === 'string' && c.baseUrl ? { baseUrl: c.baseUrl } : {}) };
}

export async function saveClientCredentials(c: ClientCredentials, db: AppDB = getDB()): Promise<void> {
  await setSetting(KEY, { ...(c.apiKey ? { apiKey: c.apiKey } : {}), ...(c.baseUrl ? { baseUrl: c.baseUrl } : {}) }, db);
}
