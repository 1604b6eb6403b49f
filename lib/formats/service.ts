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
import { zipContents, zipEntryText } from './zipImport';
import type { ImportResult } from './types';
import type { SessionSnapshot } from '@/lib/session/types';

/** What one session can be exported as. */
export type ExportKind = 'jsonl' | 'markdown' | 'markdown-all' | 'markdown-obsidian' | 'pi-jsonl' | 'html';

export type ProgressFn = (bytesRead: number, totalBytes: number) => void;

/**
 * Bytes read per slice of a file. Reading slices and decoding them with one streaming TextDecoder,
 * rather than `blob.stream()` through a TextDecoderStream, took the renderer's peak during a 100 MB
 * ChatGPT import from about 133 to 117 MB above the empty app (five runs each, same time), and the
 * parse alone from 128 to 90 MB: the stream's small chunks are strings the parser has to join, and its
 * queues and promises are garbage too. 256 KB was the best of 64 KB to 1 MB.
 */
export const READ_SLICE_BYTES = 256 * 1024;

/** A file's text, decoded slice by slice (a character split between two slices comes out whole). */
export async function* decodedChunks(blob: Blob, sliceBytes = READ_SLICE_BYTES): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for (let at = 0; at < blob.size; at += sliceBytes) {
    const text = decoder.decode(new Uint8Array(await blob.slice(at, at + sliceBytes).arrayBuffer()), { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

export function createFormatsService() {
  return {
    /** Reads a file of any supported format, streaming it when it is text. Throws ImportError with the line at fault. */
    async importFile(file: Blob, fileName: string, onProgress?: ProgressFn, importedAt = Date.now()): Promise<ImportResult> {
      const magic = new Uint8Array(await file.slice(0, 4).arrayBuffer());
      if (isZip(magic)) {
        const zip = await zipContents(file);
        if (zip.kind === 'export') {
          // The parts of a split export, one after the other, as one result.
          const results: ImportResult[] = [];
          for (const e of zip.entries) results.push(await importStream(zipEntryText(file, e), { fileName, importedAt, totalBytes: e.size }));
          onProgress?.(file.size, file.size);
          return { ...results[0]!, sessions: results.flatMap((r) => r.sessions), warnings: results.flatMap((r) => r.warnings), skipped: results.flatMap((r) => r.skipped ?? []) };
        }
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
