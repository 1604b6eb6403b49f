import { strToU8, zipSync, type Zippable } from 'fflate';
import type { SessionSnapshot } from '@/lib/session/types';
import { LineSplitter } from '../lines';
import { asImportError, JsonlFeeder } from '../readers/jsonl';
import { nativeSink } from '../readers/native';
import { ImportError, type ImportResult } from '../types';
import { unpackEntry, zipDirectory, type ZipEntry } from '../unzip';
import { exportJsonl } from './jsonl';

/**
 * All sessions in one zip: `sessions/NNNN-<title>.jsonl` (native format, one
 * per session) and `index.json`, a manifest listing them in order.
 */

export const ARCHIVE_FORMAT = 'longctx-archive';
export const ARCHIVE_VERSION = 1;

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  exportedAt: number;
  sessions: { file: string; id: string; title: string; entries: number; createdAt: number; updatedAt: number }[];
}

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 0x03 || bytes[2] === 0x05) && (bytes[3] === 0x04 || bytes[3] === 0x06);
}

function slug(title: string): string {
  const s = title
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .toLowerCase()
    .slice(0, 48);
  return s || 'session';
}

/** Zip timestamps are DOS dates: 1980–2099 only. */
function zipTime(ms: number): number {
  const min = Date.UTC(1980, 0, 2);
  const max = Date.UTC(2099, 11, 30);
  return Math.min(Math.max(ms, min), max);
}

export function exportArchive(snapshots: SessionSnapshot[], opts: { now?: number } = {}): Uint8Array {
  const exportedAt = opts.now ?? Date.now();
  const mtime = zipTime(exportedAt);
  const files: Zippable = {};
  const manifest: ArchiveManifest = { format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, exportedAt, sessions: [] };
  snapshots.forEach((s, i) => {
    const file = `sessions/${String(i + 1).padStart(4, '0')}-${slug(s.meta.title)}.jsonl`;
    files[file] = [strToU8(exportJsonl(s)), { mtime }];
    manifest.sessions.push({ file, id: s.meta.id, title: s.meta.title, entries: s.entries.length, createdAt: s.meta.createdAt, updatedAt: s.meta.updatedAt });
  });
  files['index.json'] = [strToU8(JSON.stringify(manifest, null, 2)), { mtime }];
  return zipSync(files, { level: 6 });
}

/**
 * The most one archive may unpack to (its index and session files together).
 * Far above any real backup that fits in browser storage, and far below what
 * would take the tab down: a zip bomb is refused by its declared sizes before
 * anything is inflated.
 */
export const MAX_UNPACKED_BYTES = 1024 ** 3;

function formatSize(bytes: number): string {
  const units: [number, string][] = [
    [1024 ** 3, 'GB'],
    [1024 ** 2, 'MB'],
    [1024, 'KB'],
  ];
  for (const [size, unit] of units) if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  return `${bytes} bytes`;
}

/** An entry's text, decoded and split into lines as it inflates, read as native JSONL. */
function readEntry(bytes: Uint8Array, entry: ZipEntry): ImportResult {
  const feeder = new JsonlFeeder('native', nativeSink, { fileName: entry.name });
  const lines = new LineSplitter(feeder.line);
  const decoder = new TextDecoder('utf-8');
  // Problems with the text name the file inside the archive; problems with the zip itself say so on their own.
  const inFile = <T>(read: () => T): T => {
    try {
      return read();
    } catch (err) {
      const e = asImportError(err, 'native');
      throw new ImportError(`${entry.name}: ${e.message}`, { format: 'native', line: e.line, cause: err });
    }
  };
  unpackEntry(bytes, entry, (chunk) => inFile(() => lines.push(decoder.decode(chunk, { stream: true }))));
  return inFile(() => {
    lines.push(decoder.decode());
    lines.end();
    return feeder.finish('');
  });
}

function unpackText(bytes: Uint8Array, entry: ZipEntry): string {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  unpackEntry(bytes, entry, (chunk) => (text += decoder.decode(chunk, { stream: true })));
  return text + decoder.decode();
}

export function importArchive(bytes: Uint8Array, opts: { maxUnpackedBytes?: number } = {}): ImportResult {
  const limit = opts.maxUnpackedBytes ?? MAX_UNPACKED_BYTES;
  const byName = new Map<string, ZipEntry>();
  for (const e of zipDirectory(bytes)) if (e.name === 'index.json' || e.name.endsWith('.jsonl')) byName.set(e.name, e);
  // Refused on what the directory declares, before inflating anything; unpackEntry holds each entry to its declaration.
  let declared = 0;
  for (const e of byName.values()) declared += e.size;
  if (declared > limit) {
    throw new ImportError(
      `The zip archive is too large when unpacked: ${formatSize(declared)}, more than the ${formatSize(limit)} limit for one import. It may be a zip bomb; a real backup this large has to be split into smaller archives.`,
      { format: 'native' },
    );
  }
  const warnings: string[] = [];
  let names: string[];
  const index = byName.get('index.json');
  if (index) {
    let manifest: Partial<ArchiveManifest> | undefined;
    try {
      manifest = JSON.parse(unpackText(bytes, index)) as Partial<ArchiveManifest>;
    } catch (err) {
      if (err instanceof ImportError) throw err;
      throw new ImportError('index.json in the archive is not valid JSON.', { format: 'native' });
    }
    if (manifest?.format !== ARCHIVE_FORMAT || !Array.isArray(manifest.sessions)) {
      throw new ImportError(`index.json is not a ${ARCHIVE_FORMAT} manifest.`, { format: 'native' });
    }
    if (typeof manifest.version === 'number' && manifest.version > ARCHIVE_VERSION) {
      throw new ImportError(`The archive was written by a newer version of the app (archive version ${manifest.version}).`, { format: 'native' });
    }
    names = manifest.sessions.map((s) => (s && typeof s.file === 'string' ? s.file : ''));
    for (const n of names) if (!byName.has(n)) throw new ImportError(`The archive lists ${JSON.stringify(n)} but does not contain it.`, { format: 'native' });
  } else {
    names = [...byName.keys()].sort();
    warnings.push('The archive has no index.json; imported every .jsonl file in it, by name.');
  }
  if (names.length === 0) throw new ImportError('The archive holds no sessions.', { format: 'native' });
  const result: ImportResult = { format: 'native', sessions: [], warnings };
  for (const name of names) {
    const r = readEntry(bytes, byName.get(name)!);
    result.sessions.push(...r.sessions);
    for (const w of r.warnings) warnings.push(`${name}: ${w}`);
  }
  return result;
}
