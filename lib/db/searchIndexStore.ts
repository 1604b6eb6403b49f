import { Dexie, type Table } from 'dexie';
import type { IndexStore, PersistedIndex } from '@/lib/search/service';

/**
 * The stored copy of the search index, in a database of its own: it is a
 * cache that can be rebuilt from the sessions at any time, so it stays out of
 * the app's schema and its migrations, and losing it loses nothing.
 */
export const SEARCH_DB_NAME = 'longctx-search';

interface IndexRow extends PersistedIndex {
  key: string;
}

class SearchIndexDB extends Dexie {
  index!: Table<IndexRow, string>;
  constructor(name: string) {
    super(name);
    this.version(1).stores({ index: 'key' });
  }
}

const KEY = 'sessions';

export function dbSearchIndexStore(name = SEARCH_DB_NAME): IndexStore {
  let db: SearchIndexDB | null = null;
  const the = () => (db ??= new SearchIndexDB(name));
  return {
    load: async () => {
      const row = await the().index.get(KEY);
      if (!row) return undefined;
      const { key: _key, ...copy } = row;
      return copy;
    },
    save: async (copy) => {
      await the().index.put({ key: KEY, ...copy });
    },
  };
}
