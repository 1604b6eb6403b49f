import { isZip } from '@/lib/formats/export/archive';
import { importBytes } from '@/lib/formats/import';
import { decodedChunks } from '@/lib/formats/service';
import { importStream } from '@/lib/formats/stream';
import { zipContents, zipEntryText } from '@/lib/formats/zipImport';
import type { ImportResult } from '@/lib/formats/types';
import type { ImportFileOptions, ImportProgress, StoredImport } from '@/lib/flows/ports';
import { getDB, type AppDB } from './db';
import { StagedImport, sweepAbandonedImports } from './importStaging';
import type { ImportOutcome } from './sessions';

/**
 * A file from disk to stored sessions in one call, meant for the formats
 * worker: the file is read, parsed and written there, so the page never holds
 * the file's sessions nor waits on their writes. A streamed export's
 * conversations are written while the rest of the file is still being read,
 * in bounded batches (importStaging.ts), and the file lands whole or not at
 * all: a cancel or an error anywhere deletes what was written.
 */

const cancelled = () => new DOMException('The import was cancelled; nothing of the file was kept.', 'AbortError');

export async function importFileToStore(
  file: Blob,
  fileName: string,
  opts: ImportFileOptions = {},
  onProgress?: (p: ImportProgress) => void,
  signal?: AbortSignal,
  db: AppDB = getDB(),
): Promise<StoredImport> {
  await sweepAbandonedImports(db);
  const progress: ImportProgress = { bytesRead: 0, totalBytes: file.size, stored: 0, total: null };
  const report = () => onProgress?.({ ...progress });
  const staged = new StagedImport(
    {
      fileName,
      allowDuplicates: opts.allowDuplicates,
      only: opts.only ? new Set(opts.only) : undefined,
      signal,
      batchEntries: opts.batchEntries,
      onStored: (n) => {
        progress.stored = n;
        report();
      },
    },
    db,
  );
  const importedAt = opts.importedAt ?? Date.now();
  try {
    let result: ImportResult;
    const magic = new Uint8Array(await file.slice(0, 4).arrayBuffer());
    const stream = (chunks: AsyncIterable<string>, totalBytes: number, before = 0) =>
      importStream(chunks, {
        fileName,
        importedAt,
        totalBytes,
        onProgress: (n) => {
          progress.bytesRead = before + n;
          report();
          if (signal?.aborted) throw cancelled();
        },
        onSessions: (sessions) => staged.add(sessions, true),
      });
    const zip = isZip(magic) ? await zipContents(file) : null;
    if (zip?.kind === 'export') {
      // A chat app's export as it is downloaded: its conversations are streamed out of the zip as they inflate.
      progress.totalBytes = zip.entries.reduce((n, e) => n + e.size, 0);
      let done = 0;
      result = { format: 'chatgpt', sessions: [], warnings: [] };
      for (const [i, entry] of zip.entries.entries()) {
        const part = await stream(zipEntryText(file, entry), progress.totalBytes, done);
        done += entry.size;
        result = i === 0 ? part : { ...result, sessions: [...result.sessions, ...part.sessions], warnings: [...result.warnings, ...part.warnings], skipped: [...(result.skipped ?? []), ...(part.skipped ?? [])] };
      }
    } else if (zip) {
      result = importBytes(new Uint8Array(await file.arrayBuffer()), { fileName, importedAt });
      progress.bytesRead = file.size;
    } else {
      result = await stream(decodedChunks(file), file.size);
    }
    const native = result.format === 'native';
    // What the reader returned rather than handed over (line formats, zips, single documents).
    const rest = result.sessions;
    result.sessions = [];
    progress.total = staged.accepted + rest.filter((_, i) => !opts.only || opts.only.includes(staged.read + i)).length;
    report();
    await staged.add(rest, false, native);
    const read = staged.read;
    const outcome: ImportOutcome = read > 0 ? await staged.commit() : { imported: [], duplicates: [] };
    progress.stored = progress.total;
    report();
    return {
      format: result.format,
      warnings: result.warnings,
      ...(result.skipped ? { skipped: result.skipped } : {}),
      read,
      imported: outcome.imported.map((r) => ({ id: r.id, title: r.title })),
      duplicates: outcome.duplicates,
      updated: outcome.updated ?? [],
      copies: outcome.copies ?? [],
    };
  } catch (err) {
    await staged.abort();
    // The reader reports a cancel from its progress callback as its own error; the caller needs to know it was a cancel.
    if (signal?.aborted) throw cancelled();
    throw err;
  }
}

/**
 * The storing import as the formats worker offers it: comlink cannot pass an
 * AbortSignal, so the page names each import and cancels it by that name.
 */
export function createStoredImportService(db?: AppDB) {
  const running = new Map<string, AbortController>();
  return {
    async importFileToStore(file: Blob, fileName: string, opts: ImportFileOptions = {}, onProgress?: (p: ImportProgress) => void): Promise<StoredImport> {
      const abort = new AbortController();
      if (opts.importId) running.set(opts.importId, abort);
      try {
        return await importFileToStore(file, fileName, opts, onProgress, abort.signal, db);
      } finally {
        if (opts.importId) running.delete(opts.importId);
      }
    },
    async cancelImport(importId: string): Promise<void> {
      running.get(importId)?.abort();
    },
  };
}

export type StoredImportService = ReturnType<typeof createStoredImportService>;
