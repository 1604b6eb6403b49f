import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { PendingSummary } from '@/lib/compaction/pending';
import { AppDB } from './db';
import { getPendingSummary, offerPendingSummary, takePendingSummary, updatePendingSummary, watchPendingSummary } from './pendingSummaries';
import { createSession, deleteSession, getSession } from './sessions';
import { CURRENT_SCHEMA_VERSION } from './schema';

const factory = new IDBFactory();
let n = 0;
const open = (name = `pending-${++n}`, upTo?: number) => new AppDB(name, upTo, { indexedDB: factory, IDBKeyRange });

function draft(sessionId: string, id: string, summary = '## Goal\nx'): PendingSummary {
  return {
    sessionId,
    entry: { id, type: 'compaction', summary, firstKeptEntryId: 'u3', tokensBefore: 900, tokensAfter: 300, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } },
    keepsNothing: false,
    preparedAt: 'a4',
    basedOn: null,
    createdAt: 1,
  };
}

describe('pending summaries (review before apply)', () => {
  it('one per session: a second draft does not replace the first, and only the draft named is changed or taken', async () => {
    const db = open();
    expect(await offerPendingSummary(draft('s', 'd1'), db)).toMatchObject({ entry: { id: 'd1' } });
    expect(await offerPendingSummary(draft('s', 'd2'), db)).toMatchObject({ entry: { id: 'd1' } });
    expect(await offerPendingSummary(draft('t', 'd3'), db)).toMatchObject({ entry: { id: 'd3' } });

    expect(await updatePendingSummary('s', 'd2', { entry: draft('s', 'd2', 'other').entry, edited: true }, db)).toBe(false);
    expect(await updatePendingSummary('s', 'd1', { entry: draft('s', 'd1', 'mine').entry, edited: true }, db)).toBe(true);
    expect(await getPendingSummary('s', db)).toMatchObject({ edited: true, entry: { id: 'd1', summary: 'mine' } });

    expect(await takePendingSummary('s', 'd2', db)).toBeUndefined();
    const [a, b] = await Promise.all([takePendingSummary('s', 'd1', db), takePendingSummary('s', 'd1', db)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await getPendingSummary('s', db)).toBeUndefined();
    expect(await getPendingSummary('t', db)).toBeDefined();
  });

  it('another tab watching sees a draft arrive and go', async () => {
    const db = open();
    const seen: (string | undefined)[] = [];
    const stop = watchPendingSummary('s', (p) => seen.push(p?.entry.id), () => {}, db);
    await expect.poll(() => seen).toEqual([undefined]);
    await offerPendingSummary(draft('s', 'd1'), db);
    await expect.poll(() => seen.at(-1)).toBe('d1');
    await takePendingSummary('s', undefined, db);
    await expect.poll(() => seen.at(-1)).toBeUndefined();
    stop();
  });

  it('goes with its session', async () => {
    const db = open();
    const row = await createSession({}, db);
    await offerPendingSummary(draft(row.id, 'd1'), db);
    await deleteSession(row.id, db);
    expect(await getSession(row.id, db)).toBeUndefined();
    expect(await getPendingSummary(row.id, db)).toBeUndefined();
  });

  it('a v5 database opens at the current version with its data, and an empty store for drafts', async () => {
    const name = `pending-upgrade-${++n}`;
    const v5 = open(name, 5);
    await v5.open();
    await v5.table('settings').put({ key: 'k', value: 7 });
    v5.close();
    const db = open(name);
    await db.open();
    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    expect((await db.settings.get('k'))!.value).toBe(7);
    expect(await db.pendingSummaries.count()).toBe(0);
  });
});
