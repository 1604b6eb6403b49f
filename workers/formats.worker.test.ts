import { MessageChannel } from 'node:worker_threads';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterAll, describe, expect, it } from 'vitest';
import { expose, proxy, wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { AppDB } from '@/lib/db/db';
import { createStoredImportService, type StoredImportService } from '@/lib/db/importFile';
import { isCancel } from '@/lib/flows/importFiles';
import type { ImportProgress } from '@/lib/flows/ports';
import { chatGptExportChunks } from '@/lib/testing/generateChatGpt';

/** The import half of the formats worker over a real MessagePort, as the page talks to it. */
describe('storing import over comlink', () => {
  const db = new AppDB('formats-worker', undefined, { indexedDB: new IDBFactory(), IDBKeyRange });
  const channel = new MessageChannel();
  expose(createStoredImportService(db), nodeEndpoint(channel.port1));
  const remote: Remote<StoredImportService> = wrap<StoredImportService>(nodeEndpoint(channel.port2));
  afterAll(() => {
    channel.port1.close();
    channel.port2.close();
  });

  const exportBlob = (conversations: number) => {
    const bytes = new TextEncoder().encode([...chatGptExportChunks({ seed: 21, conversations })].join(''));
    const parts: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 65_536) parts.push(bytes.subarray(i, i + 65_536));
    return new Blob(parts as BlobPart[]);
  };

  it('stores a file sent to it, with progress through a proxied callback; a cancel by name comes back as a cancel and keeps nothing', async () => {
    const seen: ImportProgress[] = [];
    const done = await remote.importFileToStore(exportBlob(12), 'conversations.json', { importId: 'a' }, proxy((p: ImportProgress) => void seen.push(p)));
    expect(done.imported).toHaveLength(12);
    await expect.poll(() => seen.at(-1)).toMatchObject({ stored: 12, total: 12 });

    const before = { sessions: await db.sessions.count(), entries: await db.entries.count() };
    const cancelled = remote.importFileToStore(
      // Big enough (many chunks and batches) that the cancel arrives while it is still being read.
      exportBlob(150),
      'other.json',
      { importId: 'b' },
      proxy((p: ImportProgress) => {
        if (p.bytesRead > 0) void remote.cancelImport('b');
      }),
    );
    const err: unknown = await cancelled.then(
      () => null,
      (e: unknown) => e,
    );
    expect(isCancel(err)).toBe(true);
    expect({ sessions: await db.sessions.count(), entries: await db.entries.count() }).toEqual(before);
  });
});
