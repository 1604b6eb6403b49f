// Live queries need the global indexedDB (Dexie looks for it), so this suite uses it, with a database per test.
import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { LiveSession } from '@/lib/flows/liveSession';
import { chars4, countingInput } from '@/lib/tokens/entryText';
import type { NewEntry, SessionEntry } from '@/lib/session/types';
import { generateSession } from '@/lib/testing/generate';
import { countReads } from './countReads';
import { AppDB } from './db';
import { appendEntries, createSession, setEntryTokens } from './sessions';
import { createSessionStore } from './store';

const user = (text: string): NewEntry => ({ type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } });

/** A token cache as the worker makes one: counted for the entry as it is. */
const cacheFor = (e: SessionEntry) => ({ id: e.id, tokens: { v: 1 as const, o200k: 7, chars4: chars4(countingInput(e)) } });

async function whenReady(live: LiveSession, check: (s: ReturnType<LiveSession['getSnapshot']>) => boolean): Promise<void> {
  await vi.waitFor(() => expect(check(live.getSnapshot())).toBe(true), { timeout: 5_000, interval: 5 });
}

describe('token caches and live sessions', () => {
  it('after the caches of a whole session are written, the next append (this tab, or after a reload) reads only the new entry', async () => {
    const db = new AppDB(`token-cache-${Math.random()}`);
    const reads = countReads(db);
    const store = createSessionStore(db);
    const s = await createSession({ title: 'long' }, db);
    const { entries } = generateSession({ seed: 4, entries: 400 });
    // Stored as the app stores them: appended under their parents, the leaf at the end of the path.
    const stored: SessionEntry[] = [];
    for (const e of entries) stored.push(...(await appendEntries(s.id, e.parentId, [e], {}, db)));

    const live = new LiveSession(s.id, store);
    const stop = live.subscribe(() => {});
    await whenReady(live, (st) => st.status === 'ready' && st.tree.size === 400);
    // The first open: the worker counts every entry and the caches go back to storage.
    await setEntryTokens(s.id, stored.map(cacheFor), db);

    reads.reset();
    const leaf = live.getSnapshot().leafId;
    const [added] = await appendEntries(s.id, leaf, [user('one more question')], {}, db);
    await whenReady(live, (st) => st.tree.has(added!.id));
    // The append checks its parent; the live session fetches the one entry written since.
    expect(reads.rows.entryRows).toBeLessThanOrEqual(2);
    stop();

    // A reload: a fresh load, then an append.
    const again = new LiveSession(s.id, store);
    const stop2 = again.subscribe(() => {});
    await whenReady(again, (st) => st.status === 'ready' && st.tree.size === 401);
    reads.reset();
    const [next] = await appendEntries(s.id, added!.id, [user('and another')], {}, db);
    await whenReady(again, (st) => st.tree.has(next!.id));
    expect(reads.rows.entryRows).toBeLessThanOrEqual(2);
    stop2();
    // The caches were stored.
    expect((await db.entries.where('[sessionId+id]').equals([s.id, stored[10]!.id]).first())!.tokens?.o200k).toBe(7);
  });

  it('writes the caches of a big session in bounded transactions, not one long one', async () => {
    const db = new AppDB(`token-chunks-${Math.random()}`);
    const s = await createSession({}, db);
    const { entries } = generateSession({ seed: 5, entries: 1_200 });
    const stored = await appendEntries(s.id, null, entries.map(({ id: _i, parentId: _p, timestamp: _t, ...e }) => e as NewEntry), {}, db);
    const transaction = vi.spyOn(db, 'transaction');
    await setEntryTokens(s.id, stored.map(cacheFor), db);
    expect(transaction.mock.calls.length).toBeGreaterThanOrEqual(3);
    expect(await db.entries.filter((e) => e.tokens?.o200k === 7).count()).toBe(1_200);
  });
});
