import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { readChatGpt } from '@/lib/formats/readers/chatgpt';
import { chatGptExportChunks } from '@/lib/testing/generateChatGpt';
import type { SpaceConfig } from '@/lib/sync/ports';
import { AppDB } from './db';
import { importFileToStore } from './importFile';
import { StagedImport } from './importStaging';
import { countStoredEntries } from './packed';
import { markPushed, outbox, pendingCount, saveSpace } from './sync';

/**
 * Imports store entries packed and unmarked, in a sync space too (a row per
 * entry costs the browser several times the CPU). What sync needs is that every
 * imported entry reaches the outbox: joining unpacks and marks everything
 * stored, and in a space the outbox unpacks and marks what an import packed
 * before it reads (sync.ts unpackForPush), skipping imports not yet committed.
 */

let n = 0;
const open = () => new AppDB(`import-sync-${n++}`, undefined, { indexedDB: new IDBFactory(), IDBKeyRange });
const space: SpaceConfig = { spaceId: 's1', words: 'w', deviceId: 'd1', deviceToken: 't', deviceName: 'test', joinedAt: 1 };
const exportText = (conversations: number, seed = 3) => [...chatGptExportChunks({ seed, conversations })].join('');
const exportFile = (conversations: number) => new File([exportText(conversations)], 'conversations.json');
const marked = async (db: AppDB) => db.entries.where('unsynced').equals(1).count();
const everything = { maxRecords: 1_000_000, maxBytes: 1e12 };

describe('sync marks on imported entries', () => {
  it('outside a sync space an import writes no marks; joining afterwards queues every entry it stored', async () => {
    const db = open();
    const result = await importFileToStore(exportFile(8), 'conversations.json', {}, undefined, undefined, db);
    const entries = await countStoredEntries(db);
    expect(result.imported).toHaveLength(8);
    expect(entries).toBeGreaterThan(8);
    expect(await marked(db)).toBe(0);

    await saveSpace(space, db);
    // Packed by the import, the entries are rows now: the outbox records each as pushed.
    expect(await db.entries.count()).toBe(entries);
    expect(await marked(db)).toBe(entries);
    const queued = await outbox({ maxRecords: 100_000, maxBytes: 1e9 }, db);
    expect(queued.entries).toHaveLength(entries);
    expect(await pendingCount(db)).toBeGreaterThanOrEqual(entries);
  });

  it('in a sync space an import stores packed; every entry is pending, and the outbox hands each over once', async () => {
    const db = open();
    await saveSpace(space, db);
    await importFileToStore(exportFile(5), 'conversations.json', {}, undefined, undefined, db);
    const entries = await countStoredEntries(db);
    expect(entries).toBeGreaterThan(5);
    expect(await db.entries.count()).toBe(0);
    // Five session records and every entry.
    expect(await pendingCount(db)).toBe(entries + 5);

    const queued = await outbox(everything, db);
    expect(queued.entries).toHaveLength(entries);
    expect(new Set(queued.entries.map((e) => e.entry.id)).size).toBe(entries);
    expect(await db.packedEntries.count()).toBe(0);
    expect(await marked(db)).toBe(entries);
    await markPushed(queued, db);
    expect(await pendingCount(db)).toBe(0);
    expect((await outbox(everything, db)).entries).toHaveLength(0);
  });

  it('in a sync space the outbox leaves an import that has not committed alone, and takes it once it has', async () => {
    const db = open();
    await saveSpace(space, db);
    const sessions = readChatGpt(exportText(6, 5), { fileName: 'conversations.json' }).sessions;
    const total = sessions.reduce((a, s) => a + s.entries.length, 0);
    const staged = new StagedImport({ fileName: 'conversations.json', batchEntries: 1 }, db);
    await staged.add(sessions);
    // Written, packed, with no session row yet: nothing of it is pending or handed over.
    expect(await pendingCount(db)).toBe(0);
    expect((await outbox(everything, db)).entries).toHaveLength(0);
    expect(await pendingCount(db)).toBe(0);
    expect(await countStoredEntries(db)).toBe(total);
    await staged.commit();
    const queued = await outbox(everything, db);
    expect(queued.entries).toHaveLength(total);
  });

  it.each([0, 1, 2, 3, 5, 8])('an import racing a join (the join starts after %i batches) leaves no entry unqueued', async (after) => {
    const db = open();
    // One transaction per conversation, so import batches land before, during and after the join's steps.
    const sessions = readChatGpt(exportText(30, 11), { fileName: 'conversations.json' }).sessions;
    let join: Promise<void> | null = after === 0 ? saveSpace(space, db) : null;
    const staged = new StagedImport(
      {
        fileName: 'conversations.json',
        batchEntries: 1,
        onStored: (stored) => {
          if (stored === after && !join) join = saveSpace(space, db);
        },
      },
      db,
    );
    await staged.add(sessions);
    const outcome = await staged.commit();
    await join;
    expect(outcome.imported).toHaveLength(30);
    const entries = await countStoredEntries(db);
    expect(entries).toBe(sessions.reduce((a, s) => a + s.entries.length, 0));
    const queued = await outbox(everything, db);
    expect(new Set(queued.entries.map((e) => e.entry.id)).size).toBe(entries);
    expect(await db.entries.count()).toBe(entries);
    expect(await marked(db)).toBe(entries);
  });
});
