import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { exportArchive, importArchive } from '@/lib/formats/export/archive';
import { exportJsonl } from '@/lib/formats/export/jsonl';
import { importText } from '@/lib/formats/import';
import { readChatGpt } from '@/lib/formats/readers/chatgpt';
import { readNative } from '@/lib/formats/readers/native';
import { readPi } from '@/lib/formats/readers/pi';
import { forkSession } from '@/lib/session/fork';
import type { NewEntry, SessionSnapshot } from '@/lib/session/types';
import { allFixtureFiles, FIXTURES_DIR, readFixture } from '@/lib/testing/fixtures';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppDB } from './db';
import { appendEntries, createSession, exportSnapshot, importSnapshots, listSessions, loadSession } from './sessions';

const open = () => new AppDB('import', undefined, { indexedDB: new IDBFactory(), IDBKeyRange });
const user = (text: string): NewEntry => ({ type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } });

/** A session made in the app (no import source) from a real conversation: a fork is exactly that. */
function madeInApp(fixtureIndex = 0): SessionSnapshot {
  const conv = readChatGpt(readFixture('chatgptExport')).sessions[fixtureIndex]!;
  const fork = forkSession(conv.meta, conv.entries, conv.meta.leafId!, 1_766_000_000_000);
  // The same session each time it is asked for, as two exports of one session are.
  return { ...fork, meta: { ...fork.meta, id: `made-here-${fixtureIndex}` } };
}

/** `text` with extra keys written into its header (line 1) and one entry line. */
function withKeys(text: string, header: Record<string, unknown>, entryLine: number, entry: Record<string, unknown>): string {
  const lines = text.trimEnd().split('\n');
  lines[0] = JSON.stringify({ ...(JSON.parse(lines[0]!) as object), ...header });
  lines[entryLine - 1] = JSON.stringify({ ...(JSON.parse(lines[entryLine - 1]!) as object), ...entry });
  return lines.join('\n') + '\n';
}

describe('fields storage owns are never taken from a file', () => {
  it('an entry carrying "seq": 1e300 imports, and every later send and import still saves', async () => {
    const db = open();
    const pi = readPi(readFixture('piV1')).sessions[0]!;
    const text = exportJsonl(pi);
    const lastLine = pi.entries.length + 1;
    const crafted = withKeys(text, { entryCount: 3, rev: 1e300, titleLower: 'spoofed' }, lastLine, { seq: 1e300, sessionId: 'someone-else', rev: 1e300 });
    const file = readNative(crafted, { fileName: 'crafted.jsonl' });
    const { imported } = await importSnapshots(file.sessions, { fileName: 'crafted.jsonl' }, db);
    const row = imported[0]!;
    expect(row.entryCount).toBe(pi.entries.length);
    expect(row.titleLower).toBe(pi.meta.title.toLowerCase());
    expect(row.rev).toBeLessThan(10);
    const stored = await db.entries.where('[sessionId+id]').equals([row.id, pi.entries.at(-1)!.id]).first();
    expect(stored!.sessionId).toBe(row.id);
    expect(stored!.seq).toBe(pi.entries.length);
    expect(stored!.rev).toBe(row.rev);

    // A send in another session and a second import both land.
    const s = await createSession({ title: 'after the import' }, db);
    await expect(appendEntries(s.id, null, [user('still saving')], {}, db)).resolves.toHaveLength(1);
    const chatgpt = readChatGpt(readFixture('chatgptTree'), { fileName: 'tree.json' });
    expect((await importSnapshots(chatgpt.sessions, { fileName: 'tree.json' }, db)).imported).toHaveLength(1);
    // The imported session itself takes new entries after its last one.
    await appendEntries(row.id, row.leafId, [user('continuing the import')], {}, db);
    const loaded = (await loadSession(row.id, db))!;
    expect(loaded.entries).toHaveLength(pi.entries.length + 1);
    expect(loaded.entries.at(-1)!.parentId).toBe(row.leafId);
  });

  it('an entry whose "seq" equals one already stored does not make the import fail', async () => {
    const db = open();
    const s = await createSession({}, db);
    const [first] = await appendEntries(s.id, null, [user('written first')], {}, db);
    const existingSeq = (await db.entries.where('[sessionId+id]').equals([s.id, first!.id]).first())!.seq;
    const snap = madeInApp();
    const crafted = withKeys(exportJsonl(snap), {}, 2, { seq: existingSeq });
    const { imported } = await importSnapshots(readNative(crafted).sessions, { fileName: 'seq.jsonl' }, db);
    expect(imported).toHaveLength(1);
    expect((await loadSession(s.id, db))!.entries.map((e) => e.id)).toEqual([first!.id]);
    expect((await loadSession(imported[0]!.id, db))!.entries).toHaveLength(snap.entries.length);
  });

  it('imported sessions get a fresh id from storage; the id in the file is kept as source.originalId', async () => {
    const db = open();
    const existing = await createSession({ title: 'already here' }, db);
    const snap = madeInApp();
    const file = readNative(exportJsonl({ ...snap, meta: { ...snap.meta, id: existing.id } }));
    const { imported } = await importSnapshots(file.sessions, { fileName: 'same-id.jsonl' }, db);
    expect(imported[0]!.id).not.toBe(existing.id);
    expect(imported[0]!.source).toMatchObject({ format: 'native', fileName: 'same-id.jsonl', originalId: existing.id });
    expect((await db.sessions.get(existing.id))!.title).toBe('already here');
    // Another file naming a session id that is free gets a fresh one too.
    const other = madeInApp(1);
    const second = await importSnapshots(readNative(exportJsonl(other)).sessions, { fileName: 'other.jsonl' }, db);
    expect(second.imported[0]!.id).not.toBe(other.meta.id);
  });

  it('unknown keys in a file are not stored; every field a reader produces is', async () => {
    const db = open();
    const snap = madeInApp();
    const crafted = withKeys(exportJsonl(snap), { injected: 'header' }, 3, { injected: { deep: true } });
    const { imported } = await importSnapshots(readNative(crafted).sessions, { fileName: 'extra.jsonl' }, db);
    const rows = await db.entries.where('[sessionId+seq]').between([imported[0]!.id, 0], [imported[0]!.id, Infinity]).toArray();
    expect(rows.some((r) => 'injected' in r)).toBe(false);
    expect('injected' in imported[0]!).toBe(false);

    // Nothing legitimate is dropped: every real file's sessions come back as the reader built them.
    for (const name of allFixtureFiles()) {
      const read = importText(readFileSync(join(FIXTURES_DIR, name), 'utf8'), { fileName: name });
      const { imported: rows2 } = await importSnapshots(read.sessions, { fileName: name, allowDuplicates: true }, db);
      for (const [i, row] of rows2.entries()) {
        const back = (await exportSnapshot(row.id, db))!;
        expect(back.entries, name).toStrictEqual(read.sessions[i]!.entries);
        expect({ ...back.meta, id: read.sessions[i]!.meta.id }, name).toStrictEqual(read.sessions[i]!.meta);
      }
    }
  });
});

describe('importing the same app-made sessions again', () => {
  it('a JSONL export imported twice is stored once, and "Import a copy" still adds one', async () => {
    const db = open();
    const text = exportJsonl(madeInApp());
    const first = await importSnapshots(readNative(text).sessions, { fileName: 'mine.jsonl' }, db);
    expect(first.imported).toHaveLength(1);
    const again = await importSnapshots(readNative(text).sessions, { fileName: 'mine (1).jsonl' }, db);
    expect(again.imported).toHaveLength(0);
    expect(again.duplicates).toEqual([{ index: 0, title: first.imported[0]!.title, existingId: first.imported[0]!.id }]);
    expect(await listSessions('', db)).toHaveLength(1);
    const copy = await importSnapshots(readNative(text).sessions, { fileName: 'mine.jsonl', allowDuplicates: true }, db);
    expect(copy.imported).toHaveLength(1);
    expect(await listSessions('', db)).toHaveLength(2);
  });

  it('a backup zip imported twice duplicates no session; a zip holding one new session adds only that one', async () => {
    const db = open();
    const pi = readPi(readFixture('piV1'), { fileName: 'compact.jsonl' }).sessions[0]!;
    const backup = exportArchive([madeInApp(0), madeInApp(1), pi]);
    expect((await importSnapshots(importArchive(backup).sessions, { fileName: 'backup.zip' }, db)).imported).toHaveLength(3);
    const again = await importSnapshots(importArchive(backup).sessions, { fileName: 'backup.zip' }, db);
    expect(again.imported).toHaveLength(0);
    expect(again.duplicates.map((d) => d.index)).toEqual([0, 1, 2]);

    // The same sessions in a concatenated JSONL file are recognised too: the key is each session's content.
    const both = exportJsonl(madeInApp(0)) + exportJsonl(madeInApp(1));
    expect((await importSnapshots(readNative(both).sessions, { fileName: 'both.jsonl' }, db)).duplicates).toHaveLength(2);

    const grown = madeInApp(1);
    grown.entries = [...grown.entries, { id: 'later', parentId: grown.meta.leafId, timestamp: 1_766_000_000_001, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'one more question' }] } }];
    grown.meta = { ...grown.meta, leafId: 'later', updatedAt: 1_766_000_000_001 };
    const later = await importSnapshots(importArchive(exportArchive([madeInApp(0), grown, pi])).sessions, { fileName: 'later.zip' }, db);
    expect(later.imported.map((r) => r.title)).toEqual([grown.meta.title]);
    expect(later.duplicates.map((d) => d.index)).toEqual([0, 2]);
  });

  it('looks up existing sessions once per file, not once per conversation', async () => {
    const db = open();
    const convs = readChatGpt(readFixture('chatgptExport'), { fileName: 'conversations.json' }).sessions;
    // A big export: every conversation of one file shares its hash.
    const many = Array.from({ length: 300 }, (_, i) => {
      const c = convs[i % convs.length]!;
      return { ...c, meta: { ...c.meta, source: { ...c.meta.source!, originalId: `${c.meta.source!.originalId}-${i}` } } };
    });
    await importSnapshots(many.slice(0, 100), { fileName: 'conversations.json' }, db);
    const where = vi.spyOn(db.sessions, 'where');
    const outcome = await importSnapshots(many, { fileName: 'conversations.json' }, db);
    expect(outcome.duplicates).toHaveLength(100);
    expect(outcome.imported).toHaveLength(200);
    expect(where).toHaveBeenCalledTimes(1);
  });
});
