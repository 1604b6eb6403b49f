import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { exportJsonl } from '@/lib/formats/export/jsonl';
import { importText } from '@/lib/formats/import';
import { SessionTree } from '@/lib/session/tree';
import type { SessionEntry } from '@/lib/session/types';
import { FIXTURES, readFixture } from '@/lib/testing/fixtures';
import { AppDB } from './db';
import { importFileToStore } from './importFile';
import { countStoredEntries } from './packed';
import { appendEntries, createSession, exportSnapshot, listSessions, loadSession } from './sessions';
import { saveSpace } from './sync';

/**
 * A file read again, through the formats worker's storing import on
 * fake-indexeddb: the real Claude Code transcript with its compaction, cut
 * (as an import made while Claude Code was still writing) and then whole.
 */

let n = 0;
const open = (version?: number) => new AppDB(`reimport-${n++}`, version, { indexedDB: new IDBFactory(), IDBKeyRange });
const file = (text: string, name: string) => new File([text], name);
const file2 = (bytes: Uint8Array, name: string) => new File([bytes as BlobPart], name);

const NAME = FIXTURES.claudeCodemie;
const full = readFixture('claudeCodemie');
const lines = full.split('\n');
/** The file up to a line after its compaction, as Claude Code had written it then. */
const cut = lines.slice(0, 180).join('\n') + '\n';

describe('a grown Claude Code transcript updates its session', () => {
  it('cut, then whole: one session with the new messages, the file’s compaction and a compaction made here both in effect', async () => {
    const db = open();
    const first = await importFileToStore(file(cut, NAME), NAME, {}, undefined, undefined, db);
    expect(first.imported).toHaveLength(1);
    const id = first.imported[0]!.id;
    const before = (await loadSession(id, db))!;
    expect(before.entries.some((e) => e.type === 'compaction' && e.details.summarizer.kind === 'imported')).toBe(true);
    // The user compacts here at the end of what was imported.
    const [mine] = await appendEntries(
      id,
      before.row.leafId,
      [{ type: 'compaction', summary: 'Summary made here', firstKeptEntryId: before.row.leafId!, tokensBefore: 50_000, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } }],
      {},
      db,
    );

    const second = await importFileToStore(file(full, NAME), NAME, {}, undefined, undefined, db);
    const whole = importText(full, { fileName: NAME }).sessions[0]!;
    const added = whole.entries.length - before.entries.length;
    expect(second).toMatchObject({ imported: [], duplicates: [], copies: [], updated: [{ id, entries: added, onBranch: false }] });
    expect(second.updated[0]!.messages).toBeGreaterThan(0);
    expect(await listSessions('', db)).toHaveLength(1);
    const after = (await loadSession(id, db))!;
    expect(after.row.entryCount).toBe(before.entries.length + 1 + added);
    expect(after.row.leafId).toBe(whole.meta.leafId);
    const path = new SessionTree(after.entries).pathTo(after.row.leafId);
    expect(path.map((e) => e.id)).toContain(mine!.id);
    expect(path.filter((e) => e.type === 'compaction')).toHaveLength(2);
    // Every entry of the file is stored once; the staged copy of the file is gone.
    const ids = new Set(after.entries.map((e) => e.id));
    for (const e of whole.entries) expect(ids.has(e.id)).toBe(true);
    expect(await countStoredEntries(db)).toBe(after.entries.length);
    expect(after.row.source).toMatchObject({ format: 'claude-code', entries: whole.entries.length, hash: whole.meta.source!.hash });
    // The next look at the same file finds nothing new.
    const third = await importFileToStore(file(full, NAME), NAME, {}, undefined, undefined, db);
    expect(third).toMatchObject({ imported: [], updated: [], duplicates: [{ existingId: id }] });
  });

  it('a file whose earlier part changed is imported as a copy, and says why', async () => {
    const db = open();
    await importFileToStore(file(full, NAME), NAME, {}, undefined, undefined, db);
    const shorter = [...lines.slice(0, 20), ...lines.slice(40)].join('\n');
    const r = await importFileToStore(file(shorter, NAME), NAME, {}, undefined, undefined, db);
    expect(r.imported).toHaveLength(1);
    expect(r.copies).toEqual([{ index: 0, id: r.imported[0]!.id, title: r.imported[0]!.title, reason: expect.stringMatching(/no longer in the file|follows another one/) }]);
    expect(await listSessions('', db)).toHaveLength(2);
  });

  it('“Import a copy” still makes a copy of a session that is here', async () => {
    const db = open();
    await importFileToStore(file(full, NAME), NAME, {}, undefined, undefined, db);
    const r = await importFileToStore(file(full, NAME), NAME, { allowDuplicates: true }, undefined, undefined, db);
    expect(r.imported).toHaveLength(1);
    expect(await listSessions('', db)).toHaveLength(2);
  });

  it('in a sync space, the appended entries wait in the outbox like any append', async () => {
    const db = open();
    await saveSpace({ spaceId: 's', words: 'w', deviceId: 'd', deviceName: 'n', deviceToken: 't', joinedAt: 1 }, db);
    const { imported } = await importFileToStore(file(cut, NAME), NAME, {}, undefined, undefined, db);
    const r = await importFileToStore(file(full, NAME), NAME, {}, undefined, undefined, db);
    expect(await db.entries.where('[sessionId+unsynced]').equals([imported[0]!.id, 1]).count()).toBe(r.updated[0]!.entries);
    expect((await db.sessions.get(imported[0]!.id))!.syncDirty).toBe(1);
  });
});

describe('a newer ChatGPT export', () => {
  it('updates the conversations that went on and leaves the others as they were', async () => {
    const convs = JSON.parse(readFixture('chatgptExport')) as { current_node: string; mapping: Record<string, { parent: string | null; children: string[] }> }[];
    const older = structuredClone(convs);
    const c = older[0]!;
    const parent = c.mapping[c.current_node]!.parent!;
    delete c.mapping[c.current_node];
    c.mapping[parent]!.children = [];
    c.current_node = parent;
    const db = open();
    const first = await importFileToStore(file(JSON.stringify(older), 'conversations.json'), 'conversations.json', {}, undefined, undefined, db);
    expect(first.imported).toHaveLength(2);
    const r = await importFileToStore(file(JSON.stringify(convs), 'conversations.json'), 'conversations.json', {}, undefined, undefined, db);
    expect(r.imported).toHaveLength(0);
    expect(r.updated).toMatchObject([{ index: 0, messages: 1 }]);
    expect(r.duplicates.map((d) => d.index)).toEqual([1]);
    expect(await listSessions('', db)).toHaveLength(2);
  });
});

describe('a zipped ChatGPT export', () => {
  it('imports from the zip as downloaded, and the same zip again changes nothing', async () => {
    const zip = zipSync({ 'chat.html': strToU8('<html></html>'), 'conversations.json': strToU8(readFixture('chatgptExport')), 'file-1.png': new Uint8Array(5000) });
    const db = open();
    const first = await importFileToStore(file2(zip, 'export.zip'), 'export.zip', {}, undefined, undefined, db);
    expect(first).toMatchObject({ format: 'chatgpt', read: 2 });
    expect(first.imported).toHaveLength(2);
    const again = await importFileToStore(file2(zip, 'export.zip'), 'export.zip', {}, undefined, undefined, db);
    expect(again).toMatchObject({ imported: [], updated: [] });
    expect(again.duplicates).toHaveLength(2);
  });
});

describe('the app’s own export, by session id', () => {
  async function madeHere(db: AppDB) {
    const s = await createSession({ title: 'Made here' }, db);
    const msg = (text: string) => ({ type: 'message' as const, message: { role: 'user' as const, content: [{ type: 'text' as const, text }] } });
    await appendEntries(s.id, null, [msg('one'), msg('two')], {}, db);
    return s.id;
  }

  it('imported into the browser it came from, it is the same session (no copy)', async () => {
    const db = open();
    const id = await madeHere(db);
    const text = exportJsonl((await exportSnapshot(id, db))!);
    const r = await importFileToStore(file(text, 'made-here.jsonl'), 'made-here.jsonl', {}, undefined, undefined, db);
    expect(r).toMatchObject({ imported: [], duplicates: [{ existingId: id }] });
  });

  it('a newer export adds the entries written since on the other device', async () => {
    const a = open();
    const id = await madeHere(a);
    const older = exportJsonl((await exportSnapshot(id, a))!);
    const b = open();
    const [copy] = (await importFileToStore(file(older, 'older.jsonl'), 'older.jsonl', {}, undefined, undefined, b)).imported;
    await appendEntries(id, (await loadSession(id, a))!.row.leafId, [{ type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'three' }] } }], {}, a);
    const newer = exportJsonl((await exportSnapshot(id, a))!);
    const r = await importFileToStore(file(newer, 'newer.jsonl'), 'newer.jsonl', {}, undefined, undefined, b);
    expect(r).toMatchObject({ imported: [], updated: [{ id: copy!.id, entries: 1, messages: 1 }] });
    const texts = (await loadSession(copy!.id, b))!.entries.map((e: SessionEntry) => (e.type === 'message' && e.message.content[0]?.type === 'text' ? e.message.content[0].text : ''));
    expect(texts).toEqual(['one', 'two', 'three']);
  });
});

describe('schema v5 to v6', () => {
  it('a Claude Code sub-agent session imported before is found by its own id afterwards', async () => {
    const v5 = open(5);
    await v5.open();
    const agent = importText(readFixture('claudeCompactAgent946'), { fileName: 'agent-acompact-946d2b.jsonl' }).sessions[0]!;
    const mainId = agent.meta.source!.originalId!.replace(/:agent-.*/, '');
    const meta = { ...agent.meta, id: 'old-agent', source: { ...agent.meta.source!, originalId: mainId } };
    await v5.table('sessions').add({ ...meta, entryCount: agent.entries.length, titleLower: meta.title.toLowerCase(), rev: 1 });
    await v5.table('entryRows').bulkAdd(agent.entries.map((e) => ({ ...e, sessionId: 'old-agent', rev: 1 })));
    const name = v5.name;
    v5.close();
    const db = new AppDB(name, undefined, { indexedDB: (v5 as unknown as { _options: { indexedDB: IDBFactory } })._options.indexedDB, IDBKeyRange });
    await db.open();
    expect((await db.sessions.get('old-agent'))!.source!.originalId).toBe(`${mainId}:agent-acompact-946d2b`);
    const r = await importFileToStore(file(readFixture('claudeCompactAgent946'), 'agent-acompact-946d2b.jsonl'), 'agent-acompact-946d2b.jsonl', {}, undefined, undefined, db);
    expect(r).toMatchObject({ imported: [], duplicates: [{ existingId: 'old-agent' }] });
  });
});
