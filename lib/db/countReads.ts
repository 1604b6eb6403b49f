import type { DBCore, DBCoreTable, Middleware } from 'dexie';
import type { AppDB } from './db';

/**
 * Counts what a database reads, below Dexie's API (its DBCore layer): read
 * requests and the rows they return, per store. Tests use it to show a cost
 * is per file, not per conversation, without timing anything (tests only;
 * it lives here because only lib/db may speak to Dexie). Install before
 * the database opens.
 */
export interface ReadCounter {
  /** Rows returned by reads (get, getMany, query), per store. */
  rows: Record<string, number>;
  requests: Record<string, number>;
  reset(): void;
}

export function countReads(db: AppDB): ReadCounter {
  const counter: ReadCounter = {
    rows: {},
    requests: {},
    reset() {
      counter.rows = {};
      counter.requests = {};
    },
  };
  const add = (store: string, rows: number) => {
    counter.requests[store] = (counter.requests[store] ?? 0) + 1;
    counter.rows[store] = (counter.rows[store] ?? 0) + rows;
  };
  const middleware: Middleware<DBCore> = {
    stack: 'dbcore',
    name: 'countReads',
    create: (down) => ({
      ...down,
      table: (name): DBCoreTable => {
        const t = down.table(name);
        return {
          ...t,
          get: async (req) => {
            const r: unknown = await t.get(req);
            add(name, r === undefined ? 0 : 1);
            return r;
          },
          getMany: async (req) => {
            const r = await t.getMany(req);
            add(name, r.filter((x) => x !== undefined).length);
            return r;
          },
          query: async (req) => {
            const r = await t.query(req);
            add(name, r.result.length);
            return r;
          },
          openCursor: async (req) => {
            add(name, 0);
            const cursor = await t.openCursor(req);
            if (!cursor) return cursor;
            // Every row the cursor visits (anyOf and between() on compound keys read through cursors).
            return new Proxy(cursor, {
              get: (target, prop) => {
                if (prop === 'start')
                  return (onNext: () => void) =>
                    target.start(() => {
                      counter.rows[name] = (counter.rows[name] ?? 0) + 1;
                      onNext();
                    });
                const value: unknown = Reflect.get(target, prop, target);
                return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
              },
            });
          },
          count: async (req) => {
            add(name, 0);
            return t.count(req);
          },
        };
      },
    }),
  };
  db.use(middleware);
  return counter;
}
