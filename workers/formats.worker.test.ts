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
import { createProbeService, probeReport, type ProbeService } from '@/lib/compaction/probes/report';
import { importText } from '@/lib/formats/import';
import { claudeCodeWithCompaction } from '@/lib/testing/claudeCodeCompaction';

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

/** The probe half: a span crosses the port by structured clone and comes back scored as on the page's thread. */
describe('summary probes over comlink', () => {
  const channel = new MessageChannel();
  expose(createProbeService(), nodeEndpoint(channel.port1));
  const remote: Remote<ProbeService> = wrap<ProbeService>(nodeEndpoint(channel.port2));
  afterAll(() => {
    channel.port1.close();
    channel.port2.close();
  });

  it('scores the real Claude Code compaction’s span like the in-thread report', async () => {
    const { text } = claudeCodeWithCompaction();
    const { entries } = importText(text, { fileName: 'cc.jsonl' }).sessions[0]!;
    const span = entries.flatMap((e) => (e.type === 'message' ? [{ entryId: e.id, message: e.message }] : []));
    const summary = entries.find((e) => e.type === 'compaction')!;
    if (summary.type !== 'compaction') throw new Error('no compaction');
    const remoteReport = await remote.probeReport(span, summary.summary);
    expect(remoteReport.total).toBeGreaterThan(0);
    expect(remoteReport).toEqual(probeReport(span, summary.summary));
  });
});
