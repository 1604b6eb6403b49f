import 'fake-indexeddb/auto';
import type { DBCoreTable } from 'dexie';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getDB } from './db';
import type { SessionRow } from './schema';
import { appendEntries, createSession, deleteSession, listSessions, renameSession } from './sessions';
import { watchSessionList } from './store';

// The app's own database (getDB) on fake-indexeddb, with every session row read from storage counted.
let rowsRead = 0;
const db = getDB();
db.use({
  stack: 'dbcore',
  name: 'count-session-reads',
  create: (down) => ({
    ...down,
    table: (name) => {
      const t = down.table(name);
      if (name !== db.sessions.name) return t;
      const counted: DBCoreTable = {
        ...t,
        get: async (req) => {
          const r = await t.get(req);
          if (r) rowsRead++;
          return r;
        },
        getMany: async (req) => {
          const r = await t.getMany(req);
          rowsRead += r.filter(Boolean).length;
          return r;
        },
        query: async (req) => {
          const r = await t.query(req);
          rowsRead += r.result.length;
          return r;
        },
        openCursor: async (req) => {
          const cursor = await t.openCursor(req);
          // A cursor over the table reads rows one by one: count each step.
          if (cursor) {
            const step = cursor.continue.bind(cursor);
            const start = cursor.start.bind(cursor);
            cursor.start = (onNext) => start(() => (rowsRead++, onNext()));
            cursor.continue = step;
          }
          return cursor;
        },
      };
      return counted;
    },
  }),
});

const SESSIONS = 300;
let latest: SessionRow[] = [];
let emitted = 0;
let stop: () => void = () => {};
const next = () => {
  const at = emitted;
  return (until: (rows: SessionRow[]) => boolean) =>
    vi.waitFor(() => {
      if (!(emitted > at && until(latest))) throw new Error('the list did not show the change');
    }, { timeout: 5000, interval: 5 });
};

beforeAll(async () => {
  for (let i = 0; i < SESSIONS; i++) await createSession({ title: i % 10 === 0 ? `Rust lifetimes ${i}` : `Session ${i}`, createdAt: i, updatedAt: 1000 + i });
  stop = watchSessionList('', (rows) => {
    latest = rows;
    emitted++;
  });
  await vi.waitFor(() => {
    if (latest.length !== SESSIONS) throw new Error(`${latest.length} of ${SESSIONS} sessions listed`);
  }, { timeout: 5000 });
});
afterAll(() => stop());

describe('watchSessionList', () => {
  it('lists every session newest first, as listSessions does', async () => {
    expect(latest.map((r) => r.id)).toEqual((await listSessions('', db)).map((r) => r.id));
  });

  it('after a write to one session reads that row only, and the others keep their objects', async () => {
    const target = latest[SESSIONS - 1]!;
    const before = new Map(latest.map((r) => [r.id, r]));
    const changed = next();
    rowsRead = 0;
    await appendEntries(target.id, null, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'hello' }] } }], {}, db);
    await changed((rows) => rows[0]!.id === target.id && rows[0]!.entryCount === 1);
    // The reads appendEntries makes itself and one by the list: not the 300 rows of the whole list.
    expect(rowsRead).toBeLessThanOrEqual(5);
    expect(latest.map((r) => r.id)).toEqual((await listSessions('', db)).map((r) => r.id));
    for (const row of latest.slice(1)) expect(row).toBe(before.get(row.id));
  });

  it('follows renames and deletes, and filters by title', async () => {
    const [a, b] = [latest[5]!, latest[6]!];
    let changed = next();
    rowsRead = 0;
    await renameSession(a.id, 'Renamed for the test', db);
    await changed((rows) => rows.some((r) => r.id === a.id && r.title === 'Renamed for the test'));
    changed = next();
    await deleteSession(b.id, db);
    await changed((rows) => !rows.some((r) => r.id === b.id));
    expect(rowsRead).toBeLessThanOrEqual(10);
    expect(latest).toEqual(await listSessions('', db));

    let found: SessionRow[] = [];
    const off = watchSessionList('  RUST ', (rows) => (found = rows));
    await expect.poll(() => found.length).toBeGreaterThan(0);
    off();
    expect(found.map((r) => r.id)).toEqual((await listSessions('rust', db)).map((r) => r.id));
  });
});
