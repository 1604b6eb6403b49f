import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { Dexie } from 'dexie';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import type { NewEntry, SessionSnapshot } from '@/lib/session/types';
import { AppDB } from './db';
import { StorageError } from './errors';
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
    expect(again.duplicates).toEqual([{ title: 'one', existingId: first.imported[0]!.id }]);
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
