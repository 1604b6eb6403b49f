import { ImportError } from './types';
import { zipDirectoryOf, zipEntryBytes, type ZipEntry } from './unzip';

/**
 * What a zip file holds, for the import: a backup of this app (index.json and
 * one .jsonl per session, read whole by importArchive), or a chat app's data
 * export, which ChatGPT and Claude.ai deliver as a .zip with the conversations
 * in conversations.json beside images and other files. Only the directory
 * and the conversations are read from disk; the rest is never unpacked.
 */

/** Far above any real export, far below what would be a zip bomb's promise. */
export const MAX_EXPORT_BYTES = 4 * 1024 ** 3;

export type ZipContents = { kind: 'archive' } | { kind: 'export'; entries: ZipEntry[] };

const CONVERSATIONS = /(^|\/)conversations(-\d+)?\.json$/i;

export async function zipContents(blob: Blob): Promise<ZipContents> {
  const entries = await zipDirectoryOf(blob);
  if (entries.some((e) => e.name === 'index.json' || e.name.endsWith('.jsonl'))) return { kind: 'archive' };
  // Split exports number their parts; the outermost folder holding them is the export's.
  const found = entries.filter((e) => CONVERSATIONS.test(e.name));
  const depth = (e: ZipEntry) => e.name.split('/').length;
  const top = Math.min(...found.map(depth));
  const parts = found.filter((e) => depth(e) === top).sort((a, b) => (a.name < b.name ? -1 : 1));
  if (parts.length === 0) {
    throw new ImportError(
      'This zip holds no conversations: it is neither a backup of this app (index.json and .jsonl files) nor a ChatGPT or Claude.ai data export (conversations.json).',
    );
  }
  const size = parts.reduce((n, e) => n + e.size, 0);
  if (size > MAX_EXPORT_BYTES) throw new ImportError(`The conversations in this zip declare ${size} bytes unpacked, more than the ${MAX_EXPORT_BYTES} one import takes; it may be a zip bomb.`);
  return { kind: 'export', entries: parts };
}

/** A zip entry's text, decoded as it is inflated (a character split between two pieces comes out whole). */
export async function* zipEntryText(blob: Blob, entry: ZipEntry): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const bytes of zipEntryBytes(blob, entry)) {
    const text = decoder.decode(bytes, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}
