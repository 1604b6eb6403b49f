import { liveQuery } from 'dexie';

/**
 * Observing the database: the callback runs with the query's result now and
 * again whenever a write (in this tab or another) touches what the query
 * read. Dexie's live queries stay in here; the rest of the app sees a plain
 * subscribe/unsubscribe pair.
 */
export type Unsubscribe = () => void;

export function observe<T>(query: () => Promise<T>, onValue: (value: T) => void, onError: (err: unknown) => void = () => {}): Unsubscribe {
  const sub = liveQuery(query).subscribe({ next: onValue, error: onError });
  return () => sub.unsubscribe();
}
