import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats/import';
import type { ImportProgress } from '@/lib/flows/ports';
import { countReads } from './countReads';
import { chatGptExportChunks } from '@/lib/testing/generateChatGpt';
import { AppDB } from './db';
import { importFileToStore } from './importFile';
import { countStoredEntries } from './packed';
import { sweepAbandonedImports } from './importStaging';
import { exportSnapshot, listSessions } from './sessions';
import { outbox } from './sync';

const open = () => new AppDB('import-file', undefined, { indexedDB: new IDBFactory(), IDBKeyRange });

/** A generated ChatGPT export (real-shaped: branches, tools, reasoning) as a File in 64 KB parts, as a browser reads one. */
function exportFile(conversations: number, seed = 15): File {
  const text = [...chatGptExportChunks({ seed, conversations })].join('');
  const bytes = new TextEncoder().encode(text);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 65_536) parts.push(bytes.subarray(i, i + 65_536));
  return new File(parts as BlobPart[], 'conversations.json');
}

async function stored(db: AppDB) {
  return { sessions: await db.sessions.count(), entries: await countStoredEntries(db), staging: await db.settings.where(':id').startsWith('import-staging:').count() };
}

describe('importing a file straight into storage (the formats worker)', () => {
  it('stores a streamed ChatGPT export in batches, as the text reader reads it, with progress from bytes read to "stored N of N"', async () => {
    const db = open();
    const file = exportFile(60);
    const whole = importText(await file.text(), { fileName: 'conversations.json', importedAt: 1 });
    const progress: ImportProgress[] = [];
    const result = await importFileToStore(file, 'conversations.json', { importedAt: 1, batchEntries: 300 }, (p) => progress.push(p), undefined, db);

    expect(result).toMatchObject({ format: 'chatgpt', read: 60, duplicates: [] });
    expect(result.imported).toHaveLength(60);
    // Stored while the file was still being read: some sessions were stored before the last byte.
    expect(progress.some((p) => p.stored > 0 && p.bytesRead < file.size)).toBe(true);
    expect(progress.at(-1)).toEqual({ bytesRead: file.size, totalBytes: file.size, stored: 60, total: 60 });
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.bytesRead).toBeGreaterThanOrEqual(progress[i - 1]!.bytesRead);
      expect(progress[i]!.stored).toBeGreaterThanOrEqual(progress[i - 1]!.stored);
    }
    // Every session as the whole-text reader builds it, in file order, with the file's hash.
    for (const [i, row] of result.imported.entries()) {
      const back = (await exportSnapshot(row.id, db))!;
      expect(back.entries).toStrictEqual(whole.sessions[i]!.entries);
      // Plus what a later copy of the file is compared with (lib/formats/reimport.ts).
      const { entries: _n, entriesHash: _h, ...source } = back.meta.source!;
      expect({ ...back.meta, id: whole.sessions[i]!.meta.id, source }).toStrictEqual(whole.sessions[i]!.meta);
      expect(back.meta.source).toMatchObject({ entries: back.entries.length, entriesHash: expect.stringMatching(/^[0-9a-f]{16}$/) });
    }
    expect(await stored(db)).toMatchObject({ sessions: 60, staging: 0 });
  });

  it('reads existing sessions once per file: rows read stay the same from 50 to 200 conversations (no per-conversation duplicate check)', async () => {
    const readsFor = async (n: number) => {
      const db = open();
      const reads = countReads(db);
      const file = exportFile(n, 7);
      await importFileToStore(file, 'conversations.json', { batchEntries: 400 }, undefined, undefined, db);
      const first = { ...reads.rows };
      const firstRequests = { ...reads.requests };
      reads.reset();
      // The same file again: every conversation is a duplicate, found with one query.
      const again = await importFileToStore(file, 'conversations.json', { batchEntries: 400 }, undefined, undefined, db);
      expect(again.duplicates).toHaveLength(n);
      return { first, firstRequests, again: { ...reads.rows }, againRequests: { ...reads.requests } };
    };
    const small = await readsFor(50);
    const big = await readsFor(200);
    // A first import reads no session rows but the (empty) duplicate lookup, whatever the size.
    expect(big.first.sessions ?? 0).toBe(small.first.sessions ?? 0);
    expect(big.firstRequests.sessions).toBe(small.firstRequests.sessions);
    // A repeat reads each existing row once: linear, where a lookup per conversation would read n² rows.
    expect(small.again.sessions).toBe(50);
    expect(big.again.sessions).toBe(200);
    expect(big.againRequests.sessions).toBe(small.againRequests.sessions);
  });

  it('a cancel, even after batches were written, leaves nothing behind', async () => {
    const db = open();
    const abort = new AbortController();
    const file = exportFile(40);
    const seen: ImportProgress[] = [];
    const run = importFileToStore(file, 'conversations.json', { batchEntries: 200 }, (p) => {
      seen.push(p);
      if (p.stored >= 5) abort.abort();
    }, abort.signal, db);
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.some((p) => p.stored >= 5)).toBe(true);
    expect(await stored(db)).toEqual({ sessions: 0, entries: 0, staging: 0 });
  });

  it('a damaged conversation further down the file names the line, and the batches already written are deleted', async () => {
    const db = open();
    const text = await exportFile(30).text();
    // Cut the file in its last conversation: the first ones were already stored when the parser fails.
    const damaged = text.slice(0, text.length - 200) + '\n"broken';
    await expect(importFileToStore(new File([damaged], 'conversations.json'), 'conversations.json', { batchEntries: 200 }, undefined, undefined, db)).rejects.toThrow(/Line \d+|truncated|Invalid JSON/);
    expect(await stored(db)).toEqual({ sessions: 0, entries: 0, staging: 0 });
  });

  it('a repeat stores nothing new, and "Import a copy" of chosen positions stores just those', async () => {
    const db = open();
    const file = exportFile(12);
    await importFileToStore(file, 'conversations.json', {}, undefined, undefined, db);
    const before = await stored(db);
    const again = await importFileToStore(file, 'conversations.json', {}, undefined, undefined, db);
    expect(again.imported).toEqual([]);
    expect(again.duplicates.map((d) => d.index)).toEqual([...Array(12).keys()]);
    expect(await stored(db)).toEqual(before);
    const copy = await importFileToStore(file, 'conversations.json', { allowDuplicates: true, only: [2, 5] }, undefined, undefined, db);
    expect(copy.imported.map((r) => r.title)).toEqual([again.duplicates[2]!.title, again.duplicates[5]!.title]);
    expect(await listSessions('', db)).toHaveLength(14);
  });

  it('entries of an import abandoned mid-way (tab closed) are invisible to sync and swept by a later import', async () => {
    const db = open();
    // The staged writes of an import whose tab closed: entries and a staging record, no session rows.
    const { StagedImport } = await import('./importStaging');
    const { readChatGpt } = await import('@/lib/formats/readers/chatgpt');
    const staged = new StagedImport({ fileName: 'conversations.json', batchEntries: 1 }, db);
    await staged.add(readChatGpt(await exportFile(3).text(), { fileName: 'conversations.json' }).sessions);
    const left = await stored(db);
    expect(left.entries).toBeGreaterThan(0);
    expect(left.sessions).toBe(0);
    expect((await outbox({ maxRecords: 1_000, maxBytes: 10_000_000 }, db)).entries).toEqual([]);
    // Still fresh: another tab may be importing right now.
    expect(await sweepAbandonedImports(db)).toBe(0);
    expect(await sweepAbandonedImports(db, Date.now() + 11 * 60_000)).toBe(1);
    expect(await stored(db)).toEqual({ sessions: 0, entries: 0, staging: 0 });
  });
});
