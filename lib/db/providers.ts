import { credentialsOf, providerFromLegacyCredentials, readBrowserProviders, type BrowserProvider } from '@/lib/providers/browserProviders';
import type { ClientCredentials } from '@/lib/providers/requests';
import { getDB, type AppDB } from './db';
import { guarded } from './errors';
import { observeRows, type Unsubscribe } from './watch';

/**
 * The providers entered in Settings → Providers, keys included. They stay in
 * this browser and are sent only to this app's own server, with the request
 * that uses them; the server uses them for that request and never logs them.
 * Validated row by row on every read (lib/providers/browserProviders.ts).
 */

const KEY = 'providers';
/** Where earlier versions kept one key and base URL for everything; read as a provider until the list is first saved. */
const LEGACY_KEY = 'clientCredentials';

async function read(db: AppDB): Promise<BrowserProvider[]> {
  const stored = await db.settings.get(KEY);
  if (stored) return readBrowserProviders(stored.value);
  const legacy = (await db.settings.get(LEGACY_KEY))?.value as { apiKey?: unknown; baseUrl?: unknown } | undefined;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const migrated = providerFromLegacyCredentials(legacy ? { apiKey: text(legacy.apiKey), baseUrl: text(legacy.baseUrl) } : undefined, 0);
  return migrated ? [migrated] : [];
}

export async function loadBrowserProviders(db: AppDB = getDB()): Promise<BrowserProvider[]> {
  return db.transaction('r', db.settings, () => read(db));
}

/** Read, change, write in one transaction, so two tabs editing the list do not undo each other. */
async function change(db: AppDB, fn: (list: BrowserProvider[]) => BrowserProvider[]): Promise<void> {
  await guarded(() =>
    db.transaction('rw', db.settings, async () => {
      await db.settings.put({ key: KEY, value: fn(await read(db)) });
      await db.settings.delete(LEGACY_KEY);
    }),
  );
}

/** Adds the provider, or replaces the one with its id. */
export async function saveBrowserProvider(p: BrowserProvider, db: AppDB = getDB()): Promise<void> {
  await change(db, (list) => (list.some((x) => x.id === p.id) ? list.map((x) => (x.id === p.id ? p : x)) : [...list, p]));
}

export async function removeBrowserProvider(id: string, db: AppDB = getDB()): Promise<void> {
  await change(db, (list) => list.filter((x) => x.id !== id));
}

/** What goes along with a request for one of the instance's models; undefined when this browser has no such provider. */
export async function browserCredentials(instance: string, db: AppDB = getDB()): Promise<ClientCredentials | undefined> {
  const p = (await loadBrowserProviders(db)).find((x) => x.id === instance);
  return p ? credentialsOf(p) : undefined;
}

/** The providers entered in this browser, again after every change to their rows (any tab). */
export function watchBrowserProviders(onProviders: (list: BrowserProvider[]) => void, db: AppDB = getDB()): Unsubscribe {
  return observeRows(db, [{ table: db.settings, keys: [KEY, LEGACY_KEY] }], () => loadBrowserProviders(db), onProviders);
}
