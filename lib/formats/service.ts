/**
 * Import and export as one service: workers/formats.worker.ts hosts it off
 * the main thread (parsing a 100 MB export or rendering thousands of messages
 * to HTML takes seconds; there it only costs a worker); tests call it directly.
 */
import { exportArchive, isZip } from './export/archive';
import { exportHtml } from './export/html';
import { exportJsonl } from './export/jsonl';
import { exportMarkdown } from './export/markdown';
import { exportPiV3 } from './export/piV3';
import { importBytes } from './import';
import { importStream } from './stream';
import type { ImportResult } from './types';
import type { SessionSnapshot } from '@/lib/session/types';

/** What one session can be exported as. */
export type ExportKind = 'jsonl' | 'markdown' | 'markdown-all' | 'markdown-obsidian' | 'pi-jsonl' | 'html';

export type ProgressFn = (bytesRead: number, totalBytes: number) => void;

/** A file's text in the chunks the browser reads it in. */
export async function* decodedChunks(blob: Blob): AsyncGenerator<string> {
  const reader = blob.stream().pipeThrough(new TextDecoderStream('utf-8')).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    if (value) yield value;
  }
}

export function createFormatsService() {
  return {
    /** Reads a file of any supported format, streaming it when it is text. Throws ImportError with the line at fault. */
    async importFile(file: Blob, fileName: string, onProgress?: ProgressFn, importedAt = Date.now()): Promise<ImportResult> {
      const magic = new Uint8Array(await file.slice(0, 4).arrayBuffer());
      if (isZip(magic)) {
        const result = importBytes(new Uint8Array(await file.arrayBuffer()), { fileName, importedAt });
        onProgress?.(file.size, file.size);
        return result;
      }
      return importStream(decodedChunks(file), { fileName, importedAt, totalBytes: file.size, onProgress: (n) => onProgress?.(n, file.size) });
    },

    exportSession(snapshot: SessionSnapshot, kind: ExportKind): string {
      switch (kind) {
        case 'jsonl':
          return exportJsonl(snapshot);
        case 'markdown':
          return exportMarkdown(snapshot);
        case 'markdown-all':
          return exportMarkdown(snapshot, { allBranches: true });
        case 'markdown-obsidian':
          return exportMarkdown(snapshot, { frontMatter: true });
        case 'pi-jsonl':
          return exportPiV3(snapshot);
        case 'html':
          return exportHtml(snapshot);
      }
    },

    exportAll(snapshots: SessionSnapshot[]): Uint8Array {
      return exportArchive(snapshots);
    },
  };
}

export type FormatsService = ReturnType<typeof createFormatsService>;
