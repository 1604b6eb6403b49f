import type { SearchSource } from '@/lib/search/service';
import { getDB, type AppDB } from './db';
import { entriesChangedSince, getEntries, listSessions } from './sessions';

/**
 * The search index's view of storage. The search worker opens the database
 * itself: entries go from IndexedDB into the index without crossing to the
 * page and back.
 */
export function dbSearchSource(db?: AppDB): SearchSource {
  const the = () => db ?? getDB();
  return {
    listSessions: () => listSessions('', the()),
    entriesChangedSince: (id, rev) => entriesChangedSince(id, rev, the()),
    getEntries: (id, ids) => getEntries(id, ids, the()),
  };
}
