import { Dexie, RangeSet, liveQuery, rangesOverlap, type IndexableType, type IntervalTree, type ObservabilitySet, type Table } from 'dexie';

/**
 * Observing the database: the callback runs with the query's result now and
 * again whenever a write (in this tab or another) touches what the query
 * read. Dexie stays in here; the rest of the app sees a plain
 * subscribe/unsubscribe pair.
 */
export type Unsubscribe = () => void;

/**
 * Any query, followed by Dexie's live query, which records the ranges it read.
 * A live query also keeps every key written elsewhere until its own ranges are
 * touched, so one that watches a few rows while a large import commits merges
 * all of the import's keys, on every commit: for the page's few-row watches use
 * `observeRows`.
 */
export function observe<T>(query: () => Promise<T>, onValue: (value: T) => void, onError: (err: unknown) => void = () => {}): Unsubscribe {
  const sub = liveQuery(query).subscribe({ next: onValue, error: onError });
  return () => sub.unsubscribe();
}

/** Rows a watch depends on: their primary keys in one table. */
export interface WatchedRows {
  table: Table;
  keys: readonly IndexableType[];
}

/**
 * A query over a few named rows, run now and again after each committed write
 * (this tab, another tab or a worker) that puts or deletes one of them or
 * clears their table. What other writes touched is looked at once and never
 * kept. Writes that land while the query runs make it run once more after.
 */
export function observeRows<T>(
  db: Dexie,
  rows: readonly WatchedRows[],
  query: () => Promise<T>,
  onValue: (value: T) => void,
  onError: (err: unknown) => void = () => {},
): Unsubscribe {
  const watched = rows.map(({ table, keys }) => {
    const set = new RangeSet();
    for (const k of keys) set.addKey(k);
    const part = `idb://${db.name}/${table.name}/`;
    return { parts: [part, `${part}:dels`], set: set as IntervalTree };
  });
  let closed = false;
  let running = false;
  let again = false;

  const run = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        let value: T;
        try {
          value = await query();
        } catch (err) {
          if (!closed) onError(err);
          continue;
        }
        if (!closed && !again) onValue(value);
      } while (again && !closed);
    } finally {
      running = false;
    }
  };

  const touches = (changed: ObservabilitySet) =>
    watched.some(({ parts, set }) => parts.some((p) => {
      const tree = changed[p];
      return tree !== undefined && rangesOverlap(set, tree);
    }));
  const onMutated = (changed: ObservabilitySet) => {
    if (!closed && touches(changed)) void run();
  };

  Dexie.on('storagemutated', onMutated);
  void run();
  return () => {
    closed = true;
    Dexie.on.storagemutated.unsubscribe(onMutated);
  };
}
