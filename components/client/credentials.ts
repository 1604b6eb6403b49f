'use client';

import { getSetting, setSetting } from '@/lib/db';

/**
 * A key or base URL the user typed in Settings. It stays in this browser
 * (IndexedDB) and is sent only to this app's own server, with the request that
 * needs it; the server uses it for that request and never logs it.
 */
export interface ClientCredentials {
  apiKey?: string;
  baseUrl?: string;
}

const KEY = 'clientCredentials';

export async function clientCredentials(): Promise<ClientCredentials | undefined> {
  const c = await getSetting<ClientCredentials | null>(KEY, null).catch(() => null);
  if (!c || (!c.apiKey && !c.baseUrl)) return undefined;
  return c;
}

export async function saveClientCredentials(c: ClientCredentials): Promise<void> {
  await setSetting(KEY, c);
}
