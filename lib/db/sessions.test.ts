import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { Dexie } from 'dexie';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import type { NewEntry, SessionSnapshot } from '@/lib/session/types';
import { readChatGpt } from '@/lib/formats/readers/chatgpt';
import { readFixture } from '@/lib/testing/fixtures';
import { CURRENT_SCHEMA_VERSION } from './schema';
import { AppDB } from './db';
import { StorageError } from './errors';
import { importFileToStore } from './importFile';
import {
  appendEntries,
  createSession,
  deleteSession,
  entriesChangedSince,
  exportSnapshot,
  importSnapshots,
  listSessions,
  loadSession,
  renameSession,
  setEntryTokens,
  setLeaf,
  updateEntry,
} from './sessions';

let factory: IDBFactory;
const open = (name = 'test', upTo?: number) => new AppDB(name, upTo, { indexedDB: factory, IDBKeyRange });
const user = (text: string): NewEntry => ({ type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } });
const assistant = (text: string): NewEntry => ({ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text }] } });

beforeEach(() => {
  factory = new IDBFactory();
});

describe('session store', () => {
  it('creates, lists, searches, renames and deletes sessions', async () => {
    const db = open();
    const a = await createSession({ title: 'Rust lifetimes' }, db);
    await createSession({ title: 'Dinner plans' }, db);
    expect((await listSessions('', db)).map((s) => s.title)).toEqual(['Dinner plans', 'Rust lifetimes']);
    expect((await listSessions('rust', db)).map((s) => s.id)).toEqual([a.id]);
    await renameSession(a.id, '  Borrow checker  ', db);
    expect((await listSessions('borrow', db))[0]!.title).toBe('Borrow checker');
    await appendEntries(a.id, null, [user('hi')], {}, db);
    await deleteSession(a.id, db);
    expect(await loadSession(a.id, db)).toBeNull();
    expect(await db.entries.count()).toBe(0);
  });

  it('appends chains, moves the leaf, and keeps edits as siblings (nothing overwritten)', async () => {
    const db = open();
    const s = await createSession({}, db);
    const [u1, a1] = await appendEntries(s.id, null, [user('q1'), assistant('r1')], {}, db);
    const [u2] = await appendEntries(s.id, a1!.id, [user('q2')], {}, db);
    // "Edit" q2: a new sibling under a1.
    const [u2b] = await appendEntries(s.id, a1!.id, [user('q2 edited')], {}, db);
    const loaded = (await loadSession(s.id, db))!;
    expect(loaded.row.leafId).toBe(u2b!.id);
    expect(loaded.row.entryCount).toBe(4);
    const tree = new SessionTree(loaded.entries);
    expect(tree.children(a1!.id).map((e) => e.id)).toEqual([u2!.id, u2b!.id]);
    expect(tree.pathTo(loaded.row.leafId).map((e) => e.id)).toEqual([u1!.id, a1!.id, u2b!.id]);
    await setLeaf(s.id, u2!.id, db);
    expect((await loadSession(s.id, db))!.row.leafId).toBe(u2!.id);
  });

  it('two writers appending to the same leaf produce siblings, both persisted', async () => {
    const dbA = open('shared');
    const dbB = open('shared'); // a second connection, as a second tab has
    const s = await createSession({}, dbA);
    const [root] = await appendEntries(s.id, null, [user('start')], {}, dbA);
    await Promise.all([
      appendEntries(s.id, root!.id, [assistant('from tab A')], {}, dbA),
      appendEntries(s.id, root!.id, [assistant('from tab B')], {}, dbB),
    ]);
    const loaded = (await loadSession(s.id, dbA))!;
    const tree = new SessionTree(loaded.entries);
    expect(tree.children(root!.id)).toHaveLength(2);
    expect(loaded.row.entryCount).toBe(3);
  });

  it('rejects appends under a missing parent and leaves the session unchanged', async () => {
    const db = open();
    const s = await createSession({}, db);
    await appendEntries(s.id, null, [user('q1')], {}, db);
    await expect(appendEntries(s.id, 'nope', [user('x')], {}, db)).rejects.toBeInstanceOf(StorageError);
    expect((await loadSession(s.id, db))!.entries).toHaveLength(1);
  });

  it('reports changes since a revision, including in-place streaming updates', async () => {
    const db = open();
    const s = await createSession({}, db);
    const [u] = await appendEntries(s.id, null, [user('q')], {}, db);
    const rev = (await db.sessions.get(s.id))!.rev;
    const [a] = await appendEntries(s.id, u!.id, [{ type: 'message', message: { role: 'assistant', content: [], status: 'streaming' } }], {}, db);
    await updateEntry(s.id, a!.id, (e) => (e.type === 'message' && e.message.role === 'assistant' ? { ...e, message: { ...e.message, content: [{ type: 'text', text: 'partial' }] } } : e), db);
    const changed = await entriesChangedSince(s.id, rev, db);
    expect(changed.entries.map((e) => e.id)).toEqual([a!.id]);
    expect(changed.rev).toBe((await db.sessions.get(s.id))!.rev);
    expect(changed.entries[0]).not.toHaveProperty('seq');
    const ctx = buildSessionContext((await loadSession(s.id, db))!.entries, a!.id);
    expect(ctx.items).toHaveLength(2);
  });

  it('imports whole files atomically and flags duplicates instead of copying silently', async () => {
    const db = open();
    const snap = (title: string, hash: string, badParent = false): SessionSnapshot => ({
      meta: { id: `imp-${title}`, title, createdAt: 1, updatedAt: 2, leafId: 'e2', source: { format: 'native', hash } },
      entries: [
        { id: 'e1', parentId: null, timestamp: 1, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } },
        { id: badParent ? 'e1' : 'e2', parentId: 'e1', timestamp: 2, type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'yo' }] } },
      ],
    });
    const first = await importSnapshots([snap('one', 'h1')], {}, db);
    expect(first.imported).toHaveLength(1);
    const again = await importSnapshots([snap('one', 'h1')], {}, db);
    expect(again.imported).toHaveLength(0);
    expect(again.duplicates).toEqual([{ index: 0, title: 'one', existingId: first.imported[0]!.id }]);
    // A file whose second session is broken (duplicate entry id) imports nothing at all.
    await expect(importSnapshots([snap('two', 'h2'), snap('three', 'h3', true)], {}, db)).rejects.toBeInstanceOf(StorageError);
    expect((await listSessions('', db)).map((s) => s.title)).toEqual(['one']);
    const exported = await exportSnapshot(first.imported[0]!.id, db);
    expect(exported!.entries).toEqual(snap('one', 'h1').entries);
  });

  it('surfaces a quota error as a clear StorageError and loses no earlier data', async () => {
    const db = open();
    const s = await createSession({}, db);
    await appendEntries(s.id, null, [user('kept')], {}, db);
    const realBulkAdd = db.entries.bulkAdd.bind(db.entries);
    db.entries.bulkAdd = (() => Promise.reject(new Dexie.QuotaExceededError('quota'))) as unknown as typeof db.entries.bulkAdd;
    const err = await appendEntries(s.id, (await loadSession(s.id, db))!.row.leafId, [user('lost')], {}, db).catch((e: unknown) => e);
    db.entries.bulkAdd = realBulkAdd;
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).kind).toBe('quota');
    expect((err as StorageError).message).toMatch(/storage is full/i);
    const loaded = (await loadSession(s.id, db))!;
    expect(loaded.entries).toHaveLength(1);
    expect(loaded.row.entryCount).toBe(1);
  });
});

describe('schema migration', () => {
  it('opens a database written by schema v1 and migrates it with nothing lost', async () => {
    const v1 = open('legacy', 1);
    await v1.open();
    await v1.table('sessions').add({ id: 's1', title: 'Old Session', createdAt: 1, updatedAt: 5, leafId: 'b' });
    await v1.table('entries').bulkAdd([
      { sessionId: 's1', id: 'a', parentId: null, timestamp: 1, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'old q' }] } },
      { sessionId: 's1', id: 'b', parentId: 'a', timestamp: 2, type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'old a' }] } },
    ]);
    v1.close();

    const current = open('legacy');
    const rows = await listSessions('old', current);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.entryCount).toBe(2);
    const loaded = (await loadSession('s1', current))!;
    expect(buildSessionContext(loaded.entries, loaded.row.leafId).items).toHaveLength(2);
    // The migrated session takes new writes.
    await appendEntries('s1', 'b', [user('new q')], {}, current);
    expect((await loadSession('s1', current))!.entries).toHaveLength(3);
  });

  /**
   * A v2 database as the v2 code left it after importing a file whose last
   * entry carried `"seq": 1e300`: the entries' key generator is exhausted, so
   * every later write fails. Returns the entry ids in stored order.
   */
  async function poisonedV2(name: string): Promise<{ order: string[]; importedId: string; madeHereId: string }> {
    const v2 = open(name, 2);
    await v2.open();
    const [conv] = readChatGpt(readFixture('chatgptTree')).sessions;
    const t = (title: string) => ({ title, titleLower: title.toLowerCase(), rev: 1 });
    await v2.table('sessions').bulkAdd([
      { id: 'here', createdAt: 1, updatedAt: 2, leafId: null, entryCount: 2, ...t('Made here') },
      { ...conv!.meta, id: 'imported', entryCount: conv!.entries.length, ...t(conv!.meta.title) },
    ]);
    await v2.table('entries').bulkAdd([
      { id: 'h1', parentId: null, timestamp: 1, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'before' }] }, sessionId: 'here', rev: 1 },
      { id: 'h2', parentId: 'h1', timestamp: 2, type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'reply' }] }, sessionId: 'here', rev: 1 },
    ]);
    // What v2's importSnapshots stored: the file's entries spread into rows, the last one's "seq" included.
    await v2.table('entries').bulkAdd(conv!.entries.map((e, i) => ({ ...e, sessionId: 'imported', rev: 1, ...(i === conv!.entries.length - 1 ? { seq: 1e300 } : {}) })));
    await expect(v2.table('entries').add({ id: 'h3', parentId: 'h2', timestamp: 3, type: 'message', message: { role: 'user', content: [] }, sessionId: 'here', rev: 2 })).rejects.toThrow();
    const order = (await v2.table('entries').toArray()).map((e: { id: string }) => e.id);
    v2.close();
    return { order, importedId: 'imported', madeHereId: 'here' };
  }

  it('recovers a database whose entry key generator an imported "seq" exhausted: every entry kept in order, writes work', async () => {
    const { order, importedId, madeHereId } = await poisonedV2('poisoned');
    const db = open('poisoned');
    expect((await db.entries.toArray()).map((e) => e.id)).toEqual(order);
    await appendEntries(madeHereId, 'h2', [user('after the recovery')], {}, db);
    const here = (await loadSession(madeHereId, db))!;
    expect(here.entries.map((e) => e.id).slice(0, 2)).toEqual(['h1', 'h2']);
    expect(here.entries).toHaveLength(3);
    const imported = (await loadSession(importedId, db))!;
    expect(imported.entries.map((e) => e.id)).toEqual(order.filter((id) => id !== 'h1' && id !== 'h2'));
    expect(new SessionTree(imported.entries).pathTo(imported.row.leafId).length).toBeGreaterThan(0);
    await appendEntries(importedId, imported.row.leafId, [user('the imported one continues')], {}, db);
    expect((await loadSession(importedId, db))!.entries).toHaveLength(order.length - 1);
  });

  it('recovers even after the poisoned session was deleted (the generator stays exhausted)', async () => {
    const { importedId, madeHereId } = await poisonedV2('deleted');
    // What the v2 app did (today's functions write stores v2 lacks): delete the session's rows, and its next write still failed.
    const v2 = open('deleted', 2);
    const rows = (await v2.table('entries').toArray()) as { seq: number; sessionId: string }[];
    await v2.table('entries').bulkDelete(rows.filter((r) => r.sessionId === importedId).map((r) => r.seq));
    await v2.table('sessions').delete(importedId);
    await expect(v2.table('entries').add({ id: 'h4', parentId: 'h2', timestamp: 4, type: 'message', message: { role: 'user', content: [] }, sessionId: madeHereId, rev: 3 })).rejects.toThrow();
    v2.close();
    const db = open('deleted');
    await appendEntries(madeHereId, 'h2', [user('unstuck')], {}, db);
    expect((await loadSession(madeHereId, db))!.entries.map((e) => e.id).slice(0, 2)).toEqual(['h1', 'h2']);
  });
});

describe('schema v4 to v5 (packed imports)', () => {
  it('opens a v4 database with its entry rows and sync state, and a file imported afterwards is packed beside them', async () => {
    const v4 = open('v4', 4);
    await v4.open();
    const [conv] = readChatGpt(readFixture('chatgptTree')).sessions;
    const title = conv!.meta.title;
    await v4.table('sessions').add({ ...conv!.meta, id: 'old', entryCount: conv!.entries.length, title, titleLower: title.toLowerCase(), rev: 3, hlc: '000000000000001:0000:n', syncDirty: 1 });
    await v4.table('entryRows').bulkAdd(conv!.entries.map((e) => ({ ...e, sessionId: 'old', rev: 3, unsynced: 1 })));
    await v4.table('syncState').put({ key: 'checkpoint', value: 42 });
    v4.close();

    const db = open('v4');
    await db.open();
    expect(db.verno).toBe(CURRENT_SCHEMA_VERSION);
    expect((await loadSession('old', db))!.entries).toStrictEqual(conv!.entries);
    expect((await db.syncState.get('checkpoint'))!.value).toBe(42);
    expect(await db.entries.where('[sessionId+unsynced]').equals(['old', 1]).count()).toBe(conv!.entries.length);

    const text = readFixture('chatgptExport');
    const { imported } = await importFileToStore(new File([text], 'conversations.json'), 'conversations.json', {}, undefined, undefined, db);
    expect(imported).toHaveLength(2);
    expect(await db.packedEntries.count()).toBe(2);
    const read = readChatGpt(text).sessions;
    for (const [i, r] of imported.entries()) expect((await loadSession(r.id, db))!.entries).toStrictEqual(read[i]!.entries);
    await appendEntries('old', conv!.meta.leafId, [user('after the upgrade')], {}, db);
    expect((await loadSession('old', db))!.entries).toHaveLength(conv!.entries.length + 1);
  });
});

describe('import duplicates across multi-conversation files', () => {
  it('recognises each conversation of a file imported twice', async () => {
    const db = new AppDB('multi', undefined, { indexedDB: new IDBFactory(), IDBKeyRange });
    const conv = (originalId: string): SessionSnapshot => ({
      meta: { id: `s-${originalId}`, title: originalId, createdAt: 1, updatedAt: 1, leafId: 'e1', source: { format: 'chatgpt', hash: 'file-hash', originalId } },
      entries: [{ id: 'e1', parentId: null, timestamp: 1, type: 'message', message: { role: 'user', content: [{ type: 'text', text: originalId }] } }],
    });
    expect((await importSnapshots([conv('a'), conv('b')], {}, db)).imported).toHaveLength(2);
    const again = await importSnapshots([conv('a'), conv('b')], {}, db);
    expect(again.imported).toHaveLength(0);
    expect(again.duplicates.map((d) => d.title)).toEqual(['a', 'b']);
  });
});

describe('token caches', () => {
  it('stores a cache only if it was counted for the entry as it is now', async () => {
    const db = new AppDB('tokens', undefined, { indexedDB: new IDBFactory(), IDBKeyRange });
    const s = await createSession({}, db);
    const [u] = await appendEntries(s.id, null, [user('hello world, this is a test')], {}, db);
    const [a] = await appendEntries(s.id, u!.id, [assistant('par')], {}, db);
    // The reply grew after the worker counted "par".
    await updateEntry(s.id, a!.id, (e) => (e.type === 'message' ? { ...e, message: { role: 'assistant', content: [{ type: 'text', text: 'partial reply, now much longer than before' }] } } : e), db);
    await setEntryTokens(
      s.id,
      [
        { id: u!.id, tokens: { v: 1, o200k: 11, chars4: Math.ceil('hello world, this is a test'.length / 4) } },
        { id: a!.id, tokens: { v: 1, o200k: 5, chars4: 1 } },
      ],
      db,
    );
    const loaded = (await loadSession(s.id, db))!;
    expect(loaded.entries.find((e) => e.id === u!.id)!.tokens?.o200k).toBe(11);
    expect(loaded.entries.find((e) => e.id === a!.id)!.tokens).toBeUndefined();
  });
});
