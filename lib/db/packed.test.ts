import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { exportJsonl } from '@/lib/formats/export/jsonl';
import { importText } from '@/lib/formats/import';
import { searchableText } from '@/lib/search/documents';
import { createSearchService } from '@/lib/search/service';
import type { NewEntry, SessionEntry } from '@/lib/session/types';
import { formatHlc } from '@/lib/sync/hlc';
import type { SpaceConfig } from '@/lib/sync/ports';
import { generateSession } from '@/lib/testing/generate';
import { readFixture } from '@/lib/testing/fixtures';
import { chars4, countingInput } from '@/lib/tokens/entryText';
import { AppDB } from './db';
import { importFileToStore } from './importFile';
import { countStoredEntries, PACKED_PART_ENTRIES } from './packed';
import { dbSearchSource } from './searchSource';
import {
  appendEntries,
  deleteSession,
  entriesChangedSince,
  exportAllSnapshots,
  exportSnapshot,
  getEntries,
  getSession,
  importSnapshots,
  loadSession,
  setEntryTokens,
  setLeaf,
  updateEntry,
} from './sessions';
import { applyRemote, outbox, saveSpace } from './sync';
import { JOINING_KEY } from './syncMarks';

/**
 * A file import stores each session's entries packed (packed.ts). Every
 * operation must see and leave a packed session exactly as the same session
 * stored as entry rows (what `importSnapshots` writes): new entries follow the
 * packed ones, rewrites and sync marking unpack first. Each test imports the
 * same real file twice, through the file import (packed) and as rows, and
 * compares.
 */

let n = 0;
const open = () => new AppDB(`packed-${n++}`, undefined, { indexedDB: new IDBFactory(), IDBKeyRange });
const space: SpaceConfig = { spaceId: 's1', words: 'w', deviceId: 'd1', deviceToken: 't', deviceName: 'test', joinedAt: 1 };
const user = (id: string, text: string): NewEntry => ({ id, timestamp: 1_766_000_000_000, type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } });

/** `text` imported as a file into one database (packed) and as rows into another: the ids of each session in both. */
async function importedBothWays(text: string, fileName: string) {
  const packedDb = open();
  const rowsDb = open();
  const result = await importFileToStore(new File([text], fileName), fileName, { importedAt: 1 }, undefined, undefined, packedDb);
  const read = importText(text, { fileName, importedAt: 1 });
  const reference = await importSnapshots(read.sessions, { fileName }, rowsDb);
  expect(result.imported).toHaveLength(read.sessions.length);
  const pairs = result.imported.map((r, i) => ({ packed: r.id, rows: reference.imported[i]!.id, snap: read.sessions[i]! }));
  return { packedDb, rowsDb, pairs };
}

const chatGpt = () => importedBothWays(readFixture('chatgptExport'), 'conversations.json');

async function packedRowsOf(db: AppDB, sessionId: string) {
  return (await db.packedEntries.toArray()).filter((p) => p.sessionId === sessionId);
}

describe('packed imports', () => {
  it('a ChatGPT export is stored as one packed row per conversation, with no entry rows', async () => {
    const { packedDb, pairs } = await chatGpt();
    expect(await packedDb.entries.count()).toBe(0);
    for (const { packed, snap } of pairs) {
      const rows = await packedRowsOf(packedDb, packed);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.entries.map((e) => e.id)).toEqual(snap.entries.map((e) => e.id));
      expect((await getSession(packed, packedDb))!.entryCount).toBe(snap.entries.length);
    }
    expect(await countStoredEntries(packedDb)).toBe(pairs.reduce((a, p) => a + p.snap.entries.length, 0));
  });

  it('a packed session loads, exports and answers "changed since" and "these entries" exactly as rows do', async () => {
    const { packedDb, rowsDb, pairs } = await chatGpt();
    expect(await packedDb.entries.count()).toBe(0);
    for (const { packed, rows, snap } of pairs) {
      const a = (await loadSession(packed, packedDb))!;
      const b = (await loadSession(rows, rowsDb))!;
      expect(a.entries).toStrictEqual(b.entries);
      expect(a.entries).toStrictEqual(snap.entries);
      expect(a.row.leafId).toBe(b.row.leafId);
      expect((await exportSnapshot(packed, packedDb))!.entries).toStrictEqual((await exportSnapshot(rows, rowsDb))!.entries);
      // Everything is newer than revision 0; nothing is newer than the session's own revision.
      expect((await entriesChangedSince(packed, 0, packedDb)).entries).toStrictEqual((await entriesChangedSince(rows, 0, rowsDb)).entries);
      const rev = (await getSession(packed, packedDb))!.rev;
      expect(await entriesChangedSince(packed, rev, packedDb)).toEqual({ entries: [], rev });
      const some = [snap.entries[0]!.id, snap.entries.at(-1)!.id, 'not-an-entry'];
      const byId = (es: SessionEntry[]) => [...es].sort((x, y) => x.id.localeCompare(y.id));
      expect(byId(await getEntries(packed, some, packedDb))).toStrictEqual(byId(await getEntries(rows, some, rowsDb)));
    }
    const all = await exportAllSnapshots(packedDb);
    expect(all.map((s) => s.entries.length).sort()).toEqual(pairs.map((p) => p.snap.entries.length).sort());
  });

  it('search finds the same entries in packed sessions as in rows', async () => {
    const { packedDb, rowsDb, pairs } = await chatGpt();
    const packedSearch = createSearchService(dbSearchSource(packedDb));
    const rowsSearch = createSearchService(dbSearchSource(rowsDb));
    const a = await packedSearch.sync();
    const b = await rowsSearch.sync();
    expect(a.documents).toBe(b.documents);
    expect(a.documents).toBeGreaterThan(pairs.length);
    // Long words of the conversations' text, a few from each.
    const words = pairs.flatMap((p) => [...new Set(p.snap.entries.flatMap((e) => searchableText(e).match(/\p{L}{9,}/gu) ?? []))].slice(0, 5));
    expect(words.length).toBeGreaterThanOrEqual(6);
    const where = (hits: { sessionId: string; entryId: string | null }[], side: 'packed' | 'rows') => hits.map((h) => [pairs.findIndex((p) => p[side] === h.sessionId), h.entryId]);
    for (const w of words) {
      const found = (await packedSearch.search(w)).hits;
      expect(found.length, w).toBeGreaterThan(0);
      expect(where(found, 'packed'), w).toEqual(where((await rowsSearch.search(w)).hits, 'rows'));
    }
  });

  it('moving the leaf and appending keep a session packed: new entries are rows after the packed ones, read as rows would be', async () => {
    const { packedDb, rowsDb, pairs } = await chatGpt();
    const { packed, rows, snap } = pairs[0]!;
    const earlier = snap.entries.find((e) => e.parentId !== null && e.type === 'message')!;
    await setLeaf(packed, earlier.id, packedDb);
    await setLeaf(rows, earlier.id, rowsDb);
    await expect(setLeaf(packed, 'not-an-entry', packedDb)).rejects.toThrow(/does not exist/);
    await expect(appendEntries(packed, 'not-an-entry', [user('x', 'lost')], {}, packedDb)).rejects.toThrow(/missing/);

    const rev = (await getSession(packed, packedDb))!.rev;
    await appendEntries(packed, earlier.id, [user('n1', 'a new question on an older branch')], {}, packedDb);
    await appendEntries(rows, earlier.id, [user('n1', 'a new question on an older branch')], {}, rowsDb);
    expect(await packedRowsOf(packedDb, packed)).toHaveLength(1);
    expect(await packedDb.entries.count()).toBe(1);
    const a = (await loadSession(packed, packedDb))!;
    expect(a.entries).toStrictEqual((await loadSession(rows, rowsDb))!.entries);
    expect(a.row.leafId).toBe('n1');
    expect(a.row.entryCount).toBe(snap.entries.length + 1);
    // A tab that had the session reads only the new entry.
    expect((await entriesChangedSince(packed, rev, packedDb)).entries.map((e) => e.id)).toEqual(['n1']);
  });

  it('a reply streamed into a packed session lands as in rows; token caches unpack it and land as in rows', async () => {
    const { packedDb, rowsDb, pairs } = await chatGpt();
    const reply: NewEntry = { id: 'r1', timestamp: 1_766_000_000_000, type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'Stream' }], status: 'streaming' } };
    for (const [db, id] of [[packedDb, pairs[0]!.packed], [rowsDb, pairs[0]!.rows]] as const) {
      const leaf = (await getSession(id, db))!.leafId;
      await appendEntries(id, leaf, [reply], {}, db);
      await updateEntry(id, 'r1', (e) => (e.type === 'message' ? { ...e, message: { ...e.message, content: [{ type: 'text', text: 'Streamed whole' }], status: 'complete' } } : e), db);
    }
    expect(await packedRowsOf(packedDb, pairs[0]!.packed)).toHaveLength(1);
    expect((await loadSession(pairs[0]!.packed, packedDb))!.entries).toStrictEqual((await loadSession(pairs[0]!.rows, rowsDb))!.entries);

    // Token caches as the worker hands them over, the reply's among them; one counted for text the entry no longer has.
    const { packed, rows } = pairs[0]!;
    const entries = (await loadSession(packed, packedDb))!.entries;
    const caches = entries.map((e, i) => ({ id: e.id, tokens: { v: 1, o200k: 7, chars4: chars4(countingInput(e)) + (i === 1 ? 1 : 0) } }));
    const rev = (await getSession(packed, packedDb))!.rev;
    await setEntryTokens(packed, caches, packedDb);
    await setEntryTokens(rows, caches, rowsDb);
    expect(await packedRowsOf(packedDb, packed)).toEqual([]);
    const a = (await loadSession(packed, packedDb))!.entries;
    expect(a.filter((e) => e.tokens?.o200k === 7)).toHaveLength(entries.length - 1);
    expect(a[1]!.tokens).toBeUndefined();
    expect(a).toStrictEqual((await loadSession(rows, rowsDb))!.entries);
    // Neither unpacking nor a cache is content: no tab re-reads the session for them.
    expect((await entriesChangedSince(packed, rev, packedDb)).entries).toEqual([]);
  });

  it('rewriting an imported entry unpacks its session first, keeping the order of what was written since', async () => {
    const { packedDb, rowsDb, pairs } = await chatGpt();
    const { packed, rows, snap } = pairs[0]!;
    const target = snap.entries.find((e) => e.type === 'message' && e.message.role === 'assistant')!;
    for (const [db, id] of [[packedDb, packed], [rowsDb, rows]] as const) {
      await appendEntries(id, snap.meta.leafId, [user('n1', 'written after the import')], {}, db);
      await updateEntry(id, target.id, (e) => (e.type === 'message' ? { ...e, message: { ...e.message, content: [{ type: 'text', text: 'rewritten' }] } } : e), db);
    }
    expect(await packedRowsOf(packedDb, packed)).toEqual([]);
    const a = (await loadSession(packed, packedDb))!.entries;
    expect(a).toStrictEqual((await loadSession(rows, rowsDb))!.entries);
    expect(a.map((e) => e.id)).toEqual([...snap.entries.map((e) => e.id), 'n1']);
    // The other conversation stays packed.
    expect(await packedRowsOf(packedDb, pairs[1]!.packed)).toHaveLength(1);
  });

  it('deleting a packed session, here or on another device, deletes its entries and leaves the others', async () => {
    const { packedDb, pairs } = await chatGpt();
    await deleteSession(pairs[0]!.packed, packedDb);
    expect(await packedRowsOf(packedDb, pairs[0]!.packed)).toEqual([]);
    expect(await loadSession(pairs[0]!.packed, packedDb)).toBeNull();
    expect(await countStoredEntries(packedDb)).toBe(pairs[1]!.snap.entries.length);
    expect((await loadSession(pairs[1]!.packed, packedDb))!.entries).toStrictEqual(pairs[1]!.snap.entries);

    // A deletion from another device, later than the session's last change here.
    const later = formatHlc({ wall: Date.now() + 60_000, counter: 0, node: 'phone' });
    await applyRemote([{ kind: 'session', sessionId: pairs[1]!.packed, hlc: later, meta: null }], null, packedDb);
    expect(await loadSession(pairs[1]!.packed, packedDb)).toBeNull();
    expect(await countStoredEntries(packedDb)).toBe(0);
  });

  it('joining a sync space queues every entry of packed sessions, and of what was written since, as it does rows', async () => {
    const { packedDb, rowsDb, pairs } = await chatGpt();
    for (const [db, side] of [[packedDb, 'packed'], [rowsDb, 'rows']] as const) {
      const { snap } = pairs[0]!;
      await appendEntries(pairs[0]![side], snap.meta.leafId, [user('n1', 'before joining')], {}, db);
      await appendEntries(pairs[0]![side], 'n1', [user('n2', 'and its follow-up')], {}, db);
      await saveSpace(space, db);
    }
    expect(await packedDb.packedEntries.count()).toBe(0);
    // Per session in stored order (parents before children); sessions may come in any order.
    const queued = async (db: AppDB, side: 'packed' | 'rows') =>
      (await outbox({ maxRecords: 100_000, maxBytes: 1e9 }, db)).entries
        .map((e) => [pairs.findIndex((p) => p[side] === e.sessionId), e.entry] as const)
        .sort((x, y) => x[0] - y[0]);
    const a = await queued(packedDb, 'packed');
    expect(a).toHaveLength(pairs.reduce((s, p) => s + p.snap.entries.length, 0) + 2);
    expect(a).toStrictEqual(await queued(rowsDb, 'rows'));
    expect((await loadSession(pairs[0]!.packed, packedDb))!.entries).toStrictEqual((await loadSession(pairs[0]!.rows, rowsDb))!.entries);
  });

  it('a session unpacked while a join is under way has every entry marked for pushing', async () => {
    const { packedDb, pairs } = await chatGpt();
    await packedDb.syncState.put({ key: JOINING_KEY, value: Date.now() });
    const { packed, snap } = pairs[0]!;
    await updateEntry(packed, snap.entries[1]!.id, (e) => e, packedDb);
    expect(await packedRowsOf(packedDb, packed)).toEqual([]);
    expect(await packedDb.entries.where('[sessionId+unsynced]').equals([packed, 1]).count()).toBe(snap.entries.length);
  });

  it('entries from another device for a packed session are added after its own', async () => {
    const { packedDb, pairs } = await chatGpt();
    const { packed, snap } = pairs[0]!;
    const remote: SessionEntry = { id: 'remote-1', parentId: snap.meta.leafId, timestamp: 1_766_000_000_000, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'from the phone' }] } };
    await applyRemote([{ kind: 'entry', sessionId: packed, entry: remote }, { kind: 'entry', sessionId: packed, entry: snap.entries[0]! }], null, packedDb);
    // The one it already has is not added again.
    expect(await packedDb.entries.count()).toBe(1);
    expect((await loadSession(packed, packedDb))!.entries).toStrictEqual([...snap.entries, remote]);
  });

  it(`a conversation longer than ${PACKED_PART_ENTRIES} entries is packed in parts that read back in order`, async () => {
    const { entries, leafId } = generateSession({ seed: 5, entries: 2 * PACKED_PART_ENTRIES + 500 });
    const file = exportJsonl({ meta: { id: 'long', title: 'A long one', createdAt: 1, updatedAt: 2, leafId }, entries });
    const { packedDb, rowsDb, pairs } = await importedBothWays(file, 'long.jsonl');
    const { packed, rows } = pairs[0]!;
    expect((await packedRowsOf(packedDb, packed)).map((p) => [p.part, p.entries.length])).toEqual([
      [0, PACKED_PART_ENTRIES],
      [1, PACKED_PART_ENTRIES],
      [2, 500],
    ]);
    expect((await loadSession(packed, packedDb))!.entries).toStrictEqual((await loadSession(rows, rowsDb))!.entries);
    await appendEntries(packed, leafId, [user('after', 'one more')], {}, packedDb);
    const ids = [...entries.map((e) => e.id), 'after'];
    expect((await loadSession(packed, packedDb))!.entries.map((e) => e.id)).toEqual(ids);
    await saveSpace(space, packedDb);
    expect(await packedDb.packedEntries.count()).toBe(0);
    expect((await loadSession(packed, packedDb))!.entries.map((e) => e.id)).toEqual(ids);
  });
});
