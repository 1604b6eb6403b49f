/**
 * Import and export off the main thread. Parsing a 100 MB export or rendering
 * thousands of messages to HTML takes seconds; here it only costs a worker.
 * The API is plain functions over lib/formats so tests call it directly.
 */
import { exportArchive, exportHtml, exportJsonl, exportMarkdown, importBytes, importStream, isZip, type ImportResult } from '@/lib/formats';
import type { ExportKind } from '@/lib/flows/ports';
import type { SessionSnapshot } from '@/lib/session/types';

export type ProgressFn = (bytesRead: number, totalBytes: number) => void;

async function* decodedChunks(blob: Blob): AsyncGenerator<string> {
  const reader = blob.stream().pipeThrough(new TextDecoderStream('utf-8')).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    if (value) yield value;
  }
}

export function createFormatsApi() {
  return {
    /** Reads a file of any supported format, streaming it when it is text. Throws ImportError with the line at fault. */
    async importFile(file: Blob, fileName: string, onProgress?: ProgressFn): Promise<ImportResult> {
      const magic = new Uint8Array(await file.slice(0, 4).arrayBuffer());
      if (isZip(magic)) {
        const result = importBytes(new Uint8Array(await file.arrayBuffer()), { fileName });
        onProgress?.(file.size, file.size);
        return result;
      }
      return importStream(decodedChunks(file), { fileName, totalBytes: file.size, onProgress: (n) => onProgress?.(n, file.size) });
    },

    exportSession(snapshot: SessionSnapshot, kind: ExportKind): string {
      switch (kind) {
        case 'jsonl':
          return exportJsonl(snapshot);
        case 'markdown':
          return exportMarkdown(snapshot);
        case 'markdown-all':
          return exportMarkdown(snapshot, { allBranches: true });
        case 'html':
          return exportHtml(snapshot);
      }
    },

    exportAll(snapshots: SessionSnapshot[]): Uint8Array {
      return exportArchive(snapshots);
    },
  };
}

export type FormatsApi = ReturnType<typeof createFormatsApi>;
