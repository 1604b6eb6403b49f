import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { AppDB } from '@/lib/db/db';
import { dbSearchIndexStore } from '@/lib/db/searchIndexStore';
import { dbSearchSource } from '@/lib/db/searchSource';
import { createSessionStore } from '@/lib/db/store';
import { importText } from '@/lib/formats';
import type { SessionEntry, SessionSnapshot } from '@/lib/session/types';
import { readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { searchableText } from './documents';
import { createSearchService, INDEX_FORMAT, type IndexStore } from './service';

let n = 0;
function setup() {
  const name = `search-test-${++n}-${Math.random().toString(36).slice(2)}`;
  const db = new AppDB(name);
  return { name, db, store: createSessionStore(db), search: createSearchService(dbSearchSource(db)) };
}

const FIXTURES: FixtureName[] = ['piV1', 'chatgptExport', 'claudeLog'];

async function importFixtures(store: ReturnType<typeof createSessionStore>) {
  const snapshots = FIXTURES.flatMap((f) => importText(readFixture(f)).sessions);
  const { imported } = await store.importSnapshots(snapshots);
  return snapshots.map((snap, i) => ({ snap, id: imported[i]!.id }));
}

const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}]{3,}/gu) ?? []);

/**
 * Words of the imported data that occur in exactly one entry and in no
 * title: a search for one of them has exactly one right answer.
 */
function uniqueWords(sessions: { snap: SessionSnapshot; id: string }[]) {
  const where = new Map<string, { sessionId: string; entry: SessionEntry }[]>();
  const titles = new Set(sessions.flatMap((s) => [...words(s.snap.meta.title)]));
  for (const { snap, id } of sessions)
    for (const entry of snap.entries)
      for (const w of words(searchableText(entry))) where.set(w, [...(where.get(w) ?? []), { sessionId: id, entry }]);
  return [...where].filter(([w, at]) => at.length === 1 && !titles.has(w)).map(([word, [at]]) => ({ word, ...at! }));
}

describe('search service', () => {
  it('finds words in message bodies across all sessions, and names the session, the entry and a snippet with the match', async () => {
    const { store, search } = setup();
    const sessions = await importFixtures(store);
    const report = await search.sync();
    expect(report.sessions).toBe(sessions.length);
    const indexable = sessions.reduce((sum, s) => sum + s.snap.entries.filter((e) => searchableText(e) !== '').length, 0);
    expect(report.documents).toBe(indexable + sessions.length);

    const candidates = uniqueWords(sessions).filter((c) => c.word.length >= 8);
    // One from each fixture's sessions, as far as they have any.
    const picked = sessions.flatMap((s) => candidates.filter((c) => c.sessionId === s.id).slice(0, 2));
    expect(picked.length).toBeGreaterThanOrEqual(4);
    for (const c of picked) {
      const { hits } = await search.search(c.word);
      const hit = hits.find((h) => h.entryId === c.entry.id);
      expect(hit, c.word).toBeDefined();
      // Longer words allow one typo, so a neighbour may rank too; the exact word ranks first.
      expect(hits[0]!.entryId).toBe(c.entry.id);
      const session = sessions.find((s) => s.id === c.sessionId)!;
      expect(hit!.sessionTitle).toBe(session.snap.meta.title);
      expect(hit!.sessionId).toBe(c.sessionId);
      expect(hit!.snippet.match.toLowerCase()).toBe(c.word);
      expect(searchableText(c.entry).replace(/\s+/g, ' ')).toContain(hit!.snippet.match);
    }
  });

  it('combines words with AND and matches prefixes of the last word typed', async () => {
    const { store, search } = setup();
    const sessions = await importFixtures(store);
    const [a] = uniqueWords(sessions).filter((c) => c.word.length >= 9);
    const { hits } = await search.search(a!.word.slice(0, 6));
    expect(hits.map((h) => h.entryId)).toContain(a!.entry.id);
    // Every word must match: with one found nowhere, nothing is.
    const nowhere = 'qxzvjw';
    expect((await search.search(nowhere)).hits).toEqual([]);
    expect((await search.search(`${a!.word} ${nowhere}`)).hits).toEqual([]);
    // Two words of the same entry find it.
    const other = [...words(searchableText(a!.entry))].find((w) => w.length >= 6 && w !== a!.word)!;
    expect((await search.search(`${other} ${a!.word}`)).hits[0]!.entryId).toBe(a!.entry.id);
  });

  it('matches session titles', async () => {
    const { store, search } = setup();
    const sessions = await importFixtures(store);
    const title = sessions[1]!.snap.meta.title;
    const { hits } = await search.search(title);
    expect(hits[0]).toMatchObject({ sessionId: sessions[1]!.id, entryId: null, kind: 'title', sessionTitle: title });
  });

  it('leaves tool results and hidden reasoning out of the index', async () => {
    const { store, search } = setup();
    const sessions = await importFixtures(store);
    const toolOnly = new Map<string, SessionEntry>();
    for (const { snap } of sessions)
      for (const e of snap.entries)
        if (e.type === 'message' && e.message.role === 'toolResult')
          for (const p of e.message.content) if (p.type === 'text') for (const w of words(p.text)) if (w.length >= 10) toolOnly.set(w, e);
    const everywhere = new Set(sessions.flatMap((s) => s.snap.entries.flatMap((e) => [...words(searchableText(e))])));
    const inToolsOnly = [...toolOnly.keys()].filter((w) => !everywhere.has(w) && ![...everywhere].some((x) => x.startsWith(w)));
    expect(inToolsOnly.length).toBeGreaterThan(0);
    for (const w of inToolsOnly.slice(0, 5)) expect((await search.search(w)).hits.filter((h) => h.entryId === toolOnly.get(w)!.id)).toEqual([]);
  });

  it('keeps up with appends, in-place updates, renames, deletions and another tab’s writes', async () => {
    const { name, store, search } = setup();
    await importFixtures(store);
    await search.sync();

    const row = await store.createSession();
    const [user] = await store.appendEntries(row.id, null, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'Where do quokkas sleep?' }] } }]);
    expect((await search.search('quokkas')).hits.map((h) => h.entryId)).toEqual([user!.id]);

    // A streamed reply is rewritten in place: the index follows its final text.
    const [reply] = await store.appendEntries(row.id, user!.id, [{ type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'Under shrubs' }], status: 'streaming' } }]);
    await search.sync();
    await store.updateEntry(row.id, reply!.id, (e) => ({ ...e, message: { role: 'assistant', content: [{ type: 'text', text: 'In burrows, mostly.' }], status: 'complete' } }) as SessionEntry);
    expect((await search.search('shrubs')).hits).toEqual([]);
    expect((await search.search('burrows')).hits.map((h) => h.entryId)).toEqual([reply!.id]);

    await store.renameSession(row.id, 'Marsupial questions');
    expect((await search.search('marsupial')).hits).toMatchObject([{ sessionId: row.id, kind: 'title' }]);
    // Found by a message as well as by the title: listed once, at the message.
    await store.renameSession(row.id, 'Quokkas');
    expect((await search.search('quokkas')).hits).toMatchObject([{ sessionId: row.id, entryId: user!.id }]);

    // Another tab: its own connection to the same database.
    const other = createSessionStore(new AppDB(name));
    const [theirs] = await other.appendEntries(row.id, reply!.id, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'And wombats?' }] } }]);
    expect((await search.search('wombats')).hits.map((h) => h.entryId)).toEqual([theirs!.id]);

    await other.deleteSession(row.id);
    for (const q of ['quokkas', 'burrows', 'wombats', 'marsupial']) expect((await search.search(q)).hits, q).toEqual([]);
  });

  it('syncs once for searches asked while a sync runs, and reads only the sessions that changed', async () => {
    const { store, search } = setup();
    const sessions = await importFixtures(store);
    const first = search.sync();
    const [a, b] = await Promise.all([search.search('session'), search.search('session')]);
    expect((await first).sessionsRead).toBe(sessions.length);
    expect(a.total).toBe(b.total);
    await store.appendEntries(sessions[0]!.id, sessions[0]!.snap.meta.leafId, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'one more' }] } }]);
    expect(await search.sync()).toMatchObject({ sessionsRead: 1, entriesChanged: 1 });
    expect(await search.sync()).toMatchObject({ sessionsRead: 0, entriesChanged: 0 });
  });

  describe('the stored copy', () => {
    /** A service as the worker makes it, storing after any change without waiting. */
    function withStore(db: AppDB, store: IndexStore) {
      return createSearchService(dbSearchSource(db), { store, storeAfterChanges: 1, storeDelayMs: 0 });
    }
    const storedSessions = async (store: IndexStore) => (await store.load())?.sessions.length ?? 0;
    const waitStored = async (store: IndexStore, sessions: number) => {
      for (let i = 0; i < 200 && (await storedSessions(store)) !== sessions; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await storedSessions(store)).toBe(sessions);
    };

    it('is stored after a build and read back by the next load, which then reads nothing and finds the same', async () => {
      const { db, store } = setup();
      const sessions = await importFixtures(store);
      const indexStore = dbSearchIndexStore(`search-copy-${++n}`);
      const first = withStore(db, indexStore);
      expect(await first.sync()).toMatchObject({ loaded: false, sessionsRead: sessions.length });
      await waitStored(indexStore, sessions.length);

      const [c] = uniqueWords(sessions).filter((x) => x.word.length >= 8);
      const before = await first.search(c!.word);
      const next = withStore(db, indexStore);
      expect(await next.sync()).toMatchObject({ loaded: true, sessionsRead: 0, sessions: sessions.length });
      expect(await next.search(c!.word)).toEqual(before);
    });

    it('catches up with what changed after it was stored: new messages, deleted sessions', async () => {
      const { db, store } = setup();
      const sessions = await importFixtures(store);
      const indexStore = dbSearchIndexStore(`search-copy-${++n}`);
      await withStore(db, indexStore).sync();
      await waitStored(indexStore, sessions.length);

      const [kept, gone] = sessions;
      await store.appendEntries(kept!.id, kept!.snap.meta.leafId, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'What about numbats?' }] } }]);
      await store.deleteSession(gone!.id);
      const goneWord = uniqueWords(sessions).find((x) => x.sessionId === gone!.id && x.word.length >= 8)!.word;

      const next = withStore(db, indexStore);
      expect(await next.sync()).toMatchObject({ loaded: true, sessionsRead: 1, entriesChanged: 1, sessions: sessions.length - 1 });
      expect((await next.search('numbats')).hits).toMatchObject([{ sessionId: kept!.id }]);
      expect((await next.search(goneWord)).hits.filter((h) => h.sessionId === gone!.id)).toEqual([]);
    });

    it('in another format, or unreadable, is rebuilt from the sessions', async () => {
      const { db, store } = setup();
      const sessions = await importFixtures(store);
      const [c] = uniqueWords(sessions).filter((x) => x.word.length >= 8);
      for (const copy of [
        { format: INDEX_FORMAT + 1, index: '{}', sessions: [] },
        { format: INDEX_FORMAT, index: 'not json', sessions: [] },
      ]) {
        const indexStore: IndexStore = { load: async () => copy, save: async () => {} };
        const next = createSearchService(dbSearchSource(db), { store: indexStore });
        expect(await next.sync()).toMatchObject({ loaded: false, sessionsRead: sessions.length });
        expect((await next.search(c!.word)).hits[0]!.entryId).toBe(c!.entry.id);
      }
    });
  });
});
