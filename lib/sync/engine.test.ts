// First: Dexie captures the global indexedDB when it loads.
import 'fake-indexeddb/auto';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSpace, readStatus } from '@/lib/db/sync';
import { createStoredImportService } from '@/lib/db/importFile';
import { importText } from '@/lib/formats';
import { SessionTree } from '@/lib/session/tree';
import type { SessionEntry } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { generateSession } from '@/lib/testing/generate';
import { syncHarness, type SyncHarness, type TestDevice } from '@/lib/testing/syncHarness';
import { webCryptoBackend } from './crypto/backend';
import { codeToWords, newSyncCode } from './crypto/code';
import { SyncHttpError } from './transport';

const user = (text: string) => ({ type: 'message' as const, message: { role: 'user' as const, content: [{ type: 'text' as const, text }] } });

/** What a device holds: every session's title, leaf and entries (ids and parents), by session id. */
async function contents(d: TestDevice) {
  const out: Record<string, { title: string; entries: string[] }> = {};
  for (const row of await d.store.listSessions()) {
    const loaded = (await d.store.loadSession(row.id))!;
    out[row.id] = { title: row.title, entries: loaded.entries.map((e) => `${e.id}<${e.parentId}`).sort() };
  }
  return out;
}

async function importPi(d: TestDevice) {
  const { sessions } = importText(readFixture('piV1'), { fileName: 'pi.jsonl' });
  const { imported } = await d.store.importSnapshots(sessions, { fileName: 'pi.jsonl' });
  return imported[0]!;
}

let h: SyncHarness;
beforeAll(async () => {
  h = await syncHarness();
}, 60_000);
afterEach(() => h.closeDevices());
afterAll(() => h.close());

describe('sync between two devices (real store, real route logic on PGlite)', () => {
  it('B joins A’s space and gets A’s sessions: same titles, entries, parents and leaf', async () => {
    const a = h.device('A');
    const b = h.device('B');
    const pi = await importPi(a);
    const { words } = await a.engine.create('Laptop');
    await a.engine.syncNow();
    await b.engine.join(words, 'Phone');
    await b.engine.syncNow();
    expect(await contents(b)).toEqual(await contents(a));
    const onB = (await b.store.loadSession(pi.id))!;
    expect(onB.row.leafId).toBe(pi.leafId);
    expect(onB.entries.length).toBe(pi.entryCount);
    expect((await readStatus(b.db)).state).toBe('synced');
    // Nothing left to push on either side, and the per-session "not synced" mark is gone.
    expect((await a.store.listSessions()).every((r) => !(r as { syncDirty?: 1 }).syncDirty)).toBe(true);
  });

  it('appends made offline on both devices under the same leaf end up as siblings on both, nothing lost', async () => {
    const a = h.device('A');
    const b = h.device('B');
    const s = await a.store.createSession({ title: 'Shared' });
    const [root] = await a.store.appendEntries(s.id, null, [user('hello')]);
    const { words } = await a.engine.create('A');
    await a.engine.syncNow();
    await b.engine.join(words, 'B');
    await b.engine.syncNow();

    a.setOffline(true);
    b.setOffline(true);
    const fromA = await a.store.appendEntries(s.id, root!.id, [user('A offline 1'), user('A offline 2')]);
    const fromB = await b.store.appendEntries(s.id, root!.id, [user('B offline')]);
    await expect(a.engine.syncNow()).rejects.toThrow(/cannot be reached/);
    a.setOffline(false);
    b.setOffline(false);
    await a.engine.syncNow();
    await b.engine.syncNow();
    await a.engine.syncNow();

    for (const d of [a, b]) {
      const tree = new SessionTree((await d.store.loadSession(s.id))!.entries);
      expect(tree.children(root!.id).map((e: SessionEntry) => e.id).sort()).toEqual([fromA[0]!.id, fromB[0]!.id].sort());
      expect(tree.get(fromA[1]!.id)?.parentId).toBe(fromA[0]!.id);
    }
    expect(await contents(a)).toEqual(await contents(b));
    // Metadata converged too: both show the leaf of whichever wrote last.
    expect((await a.store.getSession(s.id))!.leafId).toBe((await b.store.getSession(s.id))!.leafId);
  });

  it('a push whose answer is lost (server killed after the commit) is retried without duplicates or loss', async () => {
    const a = h.device('A');
    const b = h.device('B');
    await importPi(a);
    const { words } = await a.engine.create('A');
    a.loseAnswers(1);
    await expect(a.engine.syncNow()).rejects.toThrow();
    await a.engine.syncNow();
    const spaceId = (await loadSpace(a.db))!.spaceId;
    const rows = await h.sql.query<{ n: number; distinct_keys: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT record_key)::int AS distinct_keys FROM sync_records WHERE kind = 'entry' AND space_id = $1",
      [spaceId],
    );
    expect(rows[0]!.n).toBe(rows[0]!.distinct_keys);
    expect(rows[0]!.n).toBe((await a.store.listSessions())[0]!.entryCount);
    await b.engine.join(words, 'B');
    await b.engine.syncNow();
    expect(await contents(b)).toEqual(await contents(a));
  });

  it('a wrong sync code is refused with a clear error and nothing is stored or merged', async () => {
    const a = h.device('A');
    const b = h.device('B');
    await importPi(a);
    await a.engine.create('A');
    await a.engine.syncNow();
    const other = codeToWords(newSyncCode());
    await expect(b.engine.join(other, 'B')).rejects.toMatchObject({ code: 'unknown_space', message: expect.stringMatching(/No sync space matches this code/) });
    await expect(b.engine.join('abandon ability able', 'B')).rejects.toThrow(/has 12 words/);
    expect(await loadSpace(b.db)).toBeNull();
    expect(await b.store.listSessions()).toEqual([]);
  });

  it('a record whose ciphertext was changed on the server is refused and counted, never shown', async () => {
    const a = h.device('A');
    const b = h.device('B');
    const s = await a.store.createSession({ title: 'Secret plans' });
    const [good, bad] = await a.store.appendEntries(s.id, null, [user('kept'), user('tampered with')]);
    const { words } = await a.engine.create('A');
    await a.engine.syncNow();
    // Flip the bits of one byte of the second entry's ciphertext, as a compromised server or disk
    // could. (Writing a fixed value would leave the record intact whenever the byte already held it.)
    const key = await (await import('./crypto/keys')).deriveSpaceKeys((await import('./crypto/code')).wordsToCode(words)).then((k) => k.entryKey(s.id, bad!.id));
    await h.sql.query("UPDATE sync_records SET body = set_byte(body, 29, get_byte(body, 29) # 255) WHERE record_key = $1", [key]);
    await b.engine.join(words, 'B');
    await b.engine.syncNow();
    const onB = (await b.store.loadSession(s.id))!;
    expect(onB.entries.map((e) => e.id)).toEqual([good!.id]);
    expect((await readStatus(b.db)).rejected).toBe(1);
    // The server never had the title or the text in the clear.
    const bodies = await h.sql.query<{ body: Uint8Array }>('SELECT body FROM sync_records WHERE space_id = $1', [(await loadSpace(a.db))!.spaceId]);
    expect(bodies.some((r) => Buffer.from(r.body).includes('Secret plans') || Buffer.from(r.body).includes('kept'))).toBe(false);
  });

  it('deleting a session on A removes it on B; a rename made later elsewhere brings it back with its entries', async () => {
    const a = h.device('A');
    const b = h.device('B');
    const c = h.device('C');
    const s = await a.store.createSession({ title: 'To delete' });
    await a.store.appendEntries(s.id, null, [user('one'), user('two')]);
    const { words } = await a.engine.create('A');
    await a.engine.syncNow();
    for (const d of [b, c]) {
      await d.engine.join(words, d.name);
      await d.engine.syncNow();
    }
    await a.store.deleteSession(s.id);
    await a.engine.syncNow();
    await b.engine.syncNow();
    expect(await b.store.getSession(s.id)).toBeUndefined();
    expect((await b.store.listSessions()).map((r) => r.title)).toEqual([]);

    // C was offline and renamed it after the deletion: last writer wins, the session returns everywhere, whole.
    c.setOffline(true);
    await new Promise((r) => setTimeout(r, 5));
    await c.store.renameSession(s.id, 'Kept after all');
    c.setOffline(false);
    await c.engine.syncNow();
    await b.engine.syncNow();
    const back = (await b.store.loadSession(s.id))!;
    expect(back.row.title).toBe('Kept after all');
    expect(back.entries).toHaveLength(2);
  });

  it('metadata merges last-writer-wins by clock: both devices end with the later rename', async () => {
    const a = h.device('A');
    const b = h.device('B');
    const s = await a.store.createSession({ title: 'Original' });
    const { words } = await a.engine.create('A');
    await a.engine.syncNow();
    await b.engine.join(words, 'B');
    await b.engine.syncNow();
    await a.store.renameSession(s.id, 'Earlier rename');
    await new Promise((r) => setTimeout(r, 5));
    await b.store.renameSession(s.id, 'Later rename');
    await b.engine.syncNow();
    await a.engine.syncNow();
    await b.engine.syncNow();
    expect((await a.store.getSession(s.id))!.title).toBe('Later rename');
    expect((await b.store.getSession(s.id))!.title).toBe('Later rename');
  });

  it('projects, tags, archive and pins travel with the metadata, last writer wins; a re-import’s new entries follow', async () => {
    const a = h.device('A');
    const b = h.device('B');
    const s = await a.store.createSession({ title: 'Organised' });
    await a.store.appendEntries(s.id, null, [user('one')]);
    const { words } = await a.engine.create('A');
    await a.engine.syncNow();
    await b.engine.join(words, 'B');
    await b.engine.syncNow();
    await a.store.organizeSessions([s.id], { project: 'Research', addTags: ['keep', 'ui'], pinned: true, archived: true });
    await a.engine.syncNow();
    await b.engine.syncNow();
    expect(await b.store.getSession(s.id)).toMatchObject({ project: 'Research', tags: ['keep', 'ui'], pinned: true, archived: true });
    // B unarchives later: B's clock wins on both.
    await new Promise((r) => setTimeout(r, 5));
    await b.store.organizeSessions([s.id], { archived: false, removeTags: ['ui'] });
    await b.engine.syncNow();
    await a.engine.syncNow();
    for (const d of [a, b]) {
      const row = (await d.store.getSession(s.id))!;
      expect(row.archived).toBeUndefined();
      expect(row.tags).toEqual(['keep']);
      expect(row.pinned).toBe(true);
    }
    // A file imported on A, then imported again grown: B gets the session and then its new entries.
    const text = readFixture('piSession');
    const lines = text.split('\n');
    const formats = createStoredImportService(a.db);
    const first = await formats.importFileToStore(new File([lines.slice(0, 100).join('\n') + '\n'], 'pi.jsonl'), 'pi.jsonl');
    await a.engine.syncNow();
    await b.engine.syncNow();
    const id = first.imported[0]!.id;
    const before = (await b.store.loadSession(id))!.entries.length;
    const again = await formats.importFileToStore(new File([text], 'pi.jsonl'), 'pi.jsonl');
    expect(again.updated).toHaveLength(1);
    await a.engine.syncNow();
    await b.engine.syncNow();
    const onB = (await b.store.loadSession(id))!;
    expect(onB.entries.length).toBe(before + again.updated[0]!.entries);
    expect(onB.row.leafId).toBe((await a.store.getSession(id))!.leafId);
  });

  it('a revoked device is cut off at its next request and told why; its sessions stay', async () => {
    const a = h.device('A');
    const b = h.device('B');
    await a.store.createSession({ title: 'Mine' });
    const { words } = await a.engine.create('A');
    await a.engine.syncNow();
    await b.engine.join(words, 'B');
    await b.engine.syncNow();
    const listed = await a.engine.devices();
    expect(listed.map((d) => [d.name, d.current, d.revoked])).toEqual([
      ['A', true, false],
      ['B', false, false],
    ]);
    await a.engine.revoke(listed[1]!.id);
    await b.store.createSession({ title: 'After removal' });
    await expect(b.engine.syncNow()).rejects.toBeInstanceOf(SyncHttpError);
    b.engine.start(); // the loop turns the refusal into the status the UI shows
    await expect.poll(async () => (await readStatus(b.db)).message).toMatch(/removed from the sync space/);
    expect(await loadSpace(b.db)).toBeNull();
    expect((await b.store.listSessions()).map((r) => r.title).sort()).toEqual(['After removal', 'Mine']);
  });

  it('after leaving, a running device syncs again as soon as it creates (or joins) another space', async () => {
    const a = h.device('A');
    const b = h.device('B');
    await a.store.createSession({ title: 'Survives leaving' });
    a.engine.start();
    await a.engine.create('A');
    await a.engine.leave();
    expect(await loadSpace(a.db)).toBeNull();
    const { words } = await a.engine.create('A again');
    // No syncNow: the background loop must be running again and push on its own.
    await expect.poll(async () => readStatus(a.db), { timeout: 10_000 }).toMatchObject({ state: 'synced', pending: 0 });
    await b.engine.join(words, 'B');
    await b.engine.syncNow();
    expect((await b.store.listSessions()).map((r) => r.title)).toEqual(['Survives leaving']);
  });

  it('live: with both engines running, an append on A reaches B through the live stream, long before a poll', async () => {
    const a = h.device('A', { pollMs: 3_600_000 });
    const b = h.device('B', { pollMs: 3_600_000, backend: webCryptoBackend(crypto.subtle) });
    const s = await a.store.createSession({ title: 'Live' });
    const { words } = await a.engine.create('A');
    await b.engine.join(words, 'B');
    a.engine.start();
    b.engine.start();
    await expect.poll(async () => (await b.store.getSession(s.id))?.title, { timeout: 5000 }).toBe('Live');
    // Polling is an hour apart: only the live stream can bring it. Its latency is in the sync benchmark.
    const [e] = await a.store.appendEntries(s.id, null, [user('are you there?')]);
    await expect.poll(async () => (await b.store.loadSession(s.id))?.entries.map((x) => x.id), { timeout: 5000, interval: 20 }).toEqual([e!.id]);
  });

  it('first sync of a 10,000-entry history: every entry arrives, in order, with the right tree', async () => {
    const a = h.device('A', { backend: webCryptoBackend(crypto.subtle) });
    const b = h.device('B', { backend: webCryptoBackend(crypto.subtle) });
    const gen = generateSession({ seed: 16, entries: 10_000, compactEvery: 400 });
    const { imported } = await a.store.importSnapshots([{ meta: { id: 'x', title: 'Big', createdAt: 1, updatedAt: 1, leafId: gen.leafId }, entries: gen.entries }]);
    const { words } = await a.engine.create('A');
    await a.engine.syncNow();
    await b.engine.join(words, 'B');
    await b.engine.syncNow();
    const onB = (await b.store.loadSession(imported[0]!.id))!;
    expect(onB.entries).toHaveLength(10_000);
    expect(new SessionTree(onB.entries).pathTo(onB.row.leafId).map((e) => e.id)).toEqual(gen.entries.map((e) => e.id));
  }, 120_000);
});

describe('sync under the server’s limits (real route logic with the limits under test)', () => {
  const appendMany = async (d: TestDevice, title: string, n: number) => {
    const s = await d.store.createSession({ title });
    await d.store.appendEntries(s.id, null, Array.from({ length: n }, (_, i) => user(`${title} ${i}`)));
    return s;
  };

  it('pull pages cut short by bytes: the device asks again until it has everything, a record larger than a page included', async () => {
    const lh = await syncHarness({ SYNC_PULL_PAGE_BYTES: '64k' });
    try {
      const a = lh.device('A');
      const b = lh.device('B');
      const s = await a.store.createSession({ title: 'Large entries' });
      // Base64 of random bytes deflates only to its 6 bits a character: each entry seals to about 30 KB, one to about 150 KB (more than a page).
      const texts = Array.from({ length: 12 }, (_, i) => randomBytes(i === 5 ? 150_000 : 30_000).toString('base64'));
      const added = await a.store.appendEntries(s.id, null, texts.map((t) => user(t)));
      const { words } = await a.engine.create('A');
      await a.engine.syncNow();
      await b.engine.join(words, 'B');
      await b.engine.syncNow();
      expect((await b.store.loadSession(s.id))!.entries.map((e) => e.id)).toEqual(added.map((e) => e.id));
      const pulls = lh.requests.filter((r) => r.device === 'B' && r.path === 'pull');
      expect(pulls.length).toBeGreaterThanOrEqual(7);
    } finally {
      await lh.close();
    }
  }, 60_000);

  it('a device pushing faster than the server allows waits as long as it is told, says why, and finishes', async () => {
    const lh = await syncHarness({ SYNC_RATE_PUSH: '2/s' });
    try {
      const a = lh.device('A', { batch: { maxRecords: 10, maxBytes: 1_000_000 } });
      await appendMany(a, 'Many small pushes', 60);
      a.engine.start();
      await a.engine.create('A');
      await expect.poll(async () => (await readStatus(a.db)).message, { timeout: 20_000, interval: 10 }).toMatch(/^Too many pushes from this device: at most 2 per second\. Try again in 1 second\. Sync resumes on its own\.$/);
      await expect.poll(async () => readStatus(a.db), { timeout: 30_000 }).toMatchObject({ state: 'synced', pending: 0 });
      const pushes = lh.requests.filter((r) => r.device === 'A' && r.path === 'push');
      expect(pushes.filter((r) => r.status === 429).length).toBeGreaterThan(0);
      // After every refusal, the next push came no sooner than the second it was told to wait.
      pushes.forEach((r, i) => {
        if (r.status === 429 && pushes[i + 1]) expect(pushes[i + 1]!.at - r.at).toBeGreaterThanOrEqual(950);
      });
      const rows = await lh.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM sync_records WHERE kind = 'entry'");
      expect(rows[0]!.n).toBe(60);
    } finally {
      await lh.close();
    }
  }, 60_000);

  it('a full space: this device’s changes wait with the reason, pushes are not retried every round, the other devices’ changes still arrive', async () => {
    const lh = await syncHarness({ SYNC_QUOTA_RECORDS: '10' });
    try {
      const a = lh.device('A');
      const b = lh.device('B');
      const fromB = await appendMany(b, 'From B', 1);
      const { words } = await b.engine.create('B');
      await b.engine.syncNow();
      await appendMany(a, 'Too much for the space', 30);
      await a.engine.join(words, 'A');
      await a.engine.syncNow();
      const status = await readStatus(a.db);
      expect(status.state).toBe('error');
      expect(status.message).toMatch(/^This sync space is full: it would hold \d+ records, and the server allows 10 records per space \(SYNC_QUOTA_RECORDS\)\. This device’s changes stay here and are not sent/);
      expect(status.pending).toBeGreaterThan(0);
      // Pulling goes on: B's session is here, and so is what B adds later.
      expect((await a.store.getSession(fromB.id))?.title).toBe('From B');
      const [later] = await b.store.appendEntries(fromB.id, null, [user('still arriving')]);
      await b.engine.syncNow();
      await a.engine.syncNow();
      await a.engine.syncNow();
      expect((await a.store.loadSession(fromB.id))!.entries.map((e) => e.id)).toContain(later!.id);
      // One refused push, not one per round.
      expect(lh.requests.filter((r) => r.device === 'A' && r.path === 'push').map((r) => r.status)).toEqual([507]);
      expect((await readStatus(a.db)).message).toMatch(/This sync space is full/);
    } finally {
      await lh.close();
    }
  }, 60_000);

  it('live: a stream the server ends when its lifetime is up is reopened at once, and changes keep arriving through it', async () => {
    const lh = await syncHarness({ SYNC_LIVE_MAX_AGE: '300ms' });
    try {
      const a = lh.device('A', { pollMs: 3_600_000 });
      const b = lh.device('B', { pollMs: 3_600_000 });
      const s = await a.store.createSession({ title: 'Reconnecting' });
      const { words } = await a.engine.create('A');
      await b.engine.join(words, 'B');
      a.engine.start();
      b.engine.start();
      // Three streams at least: the server has ended two, and B opened a new one each time.
      await expect.poll(() => lh.requests.filter((r) => r.device === 'B' && r.path === 'live' && r.status === 200).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
      const [e] = await a.store.appendEntries(s.id, null, [user('after a reconnect')]);
      // Polling is an hour apart: only a live stream can bring it.
      await expect.poll(async () => (await b.store.loadSession(s.id))?.entries.map((x) => x.id), { timeout: 5000, interval: 20 }).toEqual([e!.id]);
      expect(lh.server.live.open()).toBeLessThanOrEqual(2);
    } finally {
      await lh.close();
    }
  }, 60_000);

  it('live: a stream refused because the device has too many open waits the minute it is told, not a backoff', async () => {
    const lh = await syncHarness({ SYNC_LIVE_PER_DEVICE: '1' });
    try {
      const a = lh.device('A', { pollMs: 3_600_000 });
      await a.engine.create('A');
      // Another tab of the same device holds the one stream it may have.
      const space = (await loadSpace(a.db))!;
      const other = await lh.handlers.live(new Request('http://127.0.0.1:3000/api/sync/live', { headers: { authorization: `Device ${space.deviceId}.${space.deviceToken}` } }));
      expect(other.status).toBe(200);
      a.engine.start();
      await expect.poll(() => lh.requests.filter((r) => r.device === 'A' && r.path === 'live').map((r) => r.status), { timeout: 5000 }).toEqual([429]);
      // The engine's own backoff is 20–200 ms here: two seconds later it has still not asked again.
      await new Promise((r) => setTimeout(r, 2000));
      expect(lh.requests.filter((r) => r.device === 'A' && r.path === 'live')).toHaveLength(1);
      await other.body!.cancel();
    } finally {
      await lh.close();
    }
  }, 30_000);
});
