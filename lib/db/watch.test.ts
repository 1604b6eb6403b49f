import 'fake-indexeddb/auto';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { watchAppSettings } from './appSettings';
import { getDB } from './db';
import { watchBrowserProviders } from './providers';
import { watchSyncStatus } from './sync';
import { observeRows } from './watch';

const db = getDB();
afterAll(() => db.close());
beforeEach(async () => {
  await db.settings.clear();
  await db.syncState.clear();
});

/** Lets committed writes reach their observers and the queries they start finish. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** A watch of one settings row that records each run of its query and each value delivered. */
function watchSetting(key: string) {
  const seen = { runs: 0, values: [] as unknown[] };
  const stop = observeRows(
    db,
    [{ table: db.settings, keys: [key] }],
    async () => {
      seen.runs++;
      return (await db.settings.get(key))?.value;
    },
    (v) => seen.values.push(v),
  );
  return { seen, stop };
}

describe('observeRows', () => {
  it('delivers the row now, then after each put or delete of it', async () => {
    await db.settings.put({ key: 'a', value: 1 });
    const { seen, stop } = watchSetting('a');
    await settle();
    expect(seen.values).toEqual([1]);
    await db.settings.put({ key: 'a', value: 2 });
    await settle();
    await db.settings.delete('a');
    await settle();
    expect(seen.values).toEqual([1, 2, undefined]);
    stop();
  });

  it('does not run its query for writes to other rows, however many', async () => {
    const { seen, stop } = watchSetting('a');
    await settle();
    const runsBefore = seen.runs;
    // An import's staging row, rewritten batch after batch, and a few other rows written together.
    for (let i = 0; i < 20; i++) await db.settings.put({ key: 'import-staging', value: i });
    await db.settings.bulkPut(Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: i })));
    await settle();
    expect(seen.runs).toBe(runsBefore);
    // Dexie reports a bulk write of many rows as a change to the whole table: one more run, not one per row.
    await db.settings.bulkPut(Array.from({ length: 2_000 }, (_, i) => ({ key: `k${i}`, value: i })));
    await settle();
    expect(seen.runs).toBe(runsBefore + 1);
    await db.settings.put({ key: 'a', value: 'now' });
    await settle();
    expect(seen.runs).toBe(runsBefore + 2);
    expect(seen.values.at(-1)).toBe('now');
    stop();
  });

  it('runs again when its table is cleared', async () => {
    await db.settings.put({ key: 'a', value: 1 });
    const { seen, stop } = watchSetting('a');
    await settle();
    await db.settings.clear();
    await settle();
    expect(seen.values).toEqual([1, undefined]);
    stop();
  });

  it('ends on the latest value when writes land while its query runs', async () => {
    const { seen, stop } = watchSetting('a');
    await settle();
    // Three writes committed back to back: the runs they start overlap, the last value delivered is the last written.
    await Promise.all([1, 2, 3].map((v) => db.settings.put({ key: 'a', value: v })));
    await settle();
    expect(seen.values.at(-1)).toBe(3);
    expect(seen.runs).toBeLessThanOrEqual(1 + 3);
    stop();
  });

  it('delivers nothing after unsubscribing', async () => {
    const { seen, stop } = watchSetting('a');
    await settle();
    stop();
    const delivered = seen.values.length;
    await db.settings.put({ key: 'a', value: 'late' });
    await settle();
    expect(seen.values.length).toBe(delivered);
  });

  it('reports a failing query to onError and goes on watching', async () => {
    const errors: unknown[] = [];
    const values: unknown[] = [];
    let fail = true;
    const stop = observeRows(
      db,
      [{ table: db.settings, keys: ['a'] }],
      async () => {
        if (fail) throw new Error('read failed');
        return (await db.settings.get('a'))?.value;
      },
      (v) => values.push(v),
      (e) => errors.push(e),
    );
    await settle();
    expect(errors).toHaveLength(1);
    fail = false;
    await db.settings.put({ key: 'a', value: 'back' });
    await settle();
    expect(values).toEqual(['back']);
    stop();
  });
});

describe('the page’s watches follow their own rows', () => {
  it('app settings: a change arrives, an unrelated settings row does not cause a delivery', async () => {
    const seen: unknown[] = [];
    const stop = watchAppSettings((s) => seen.push(s.compaction), db);
    await settle();
    expect(seen).toHaveLength(1);
    await db.settings.put({ key: 'providers', value: [] });
    await settle();
    expect(seen).toHaveLength(1);
    await db.settings.put({ key: 'app', value: { compaction: { reserveTokens: 12_345 } } });
    await settle();
    expect(seen).toHaveLength(2);
    stop();
  });

  it('providers: a saved list arrives, the app settings row does not cause a delivery', async () => {
    const seen: unknown[] = [];
    const stop = watchBrowserProviders((list) => seen.push(list.length), db);
    await settle();
    await db.settings.put({ key: 'app', value: {} });
    await settle();
    expect(seen).toEqual([0]);
    await db.settings.put({ key: 'clientCredentials', value: { apiKey: 'sk-test', baseUrl: 'http://127.0.0.1:9/v1' } });
    await settle();
    expect(seen).toEqual([0, 1]);
    stop();
  });

  it('sync status: the engine’s write arrives', async () => {
    const seen: string[] = [];
    const stop = watchSyncStatus((s) => seen.push(s.state), db);
    await settle();
    await db.syncState.put({ key: 'status', value: { state: 'error', message: 'offline' } });
    await settle();
    expect(seen).toEqual(['off', 'error']);
    stop();
  });
});
