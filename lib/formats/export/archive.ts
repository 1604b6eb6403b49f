import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import type { SessionSnapshot } from '@/lib/session/types';
import { readNative } from '../readers/native';
import { ImportError, type ImportResult } from '../types';
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

export function importArchive(bytes: Uint8Array): ImportResult {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, { filter: (f) => f.name === 'index.json' || f.name.endsWith('.jsonl') });
  } catch (err) {
    throw new ImportError(`The zip archive is damaged (${err instanceof Error ? err.message : String(err)}).`, { format: 'native', cause: err });
  }
  const warnings: string[] = [];
  let names: string[];
  const index = files['index.json'];
  if (index) {
    let manifest: Partial<ArchiveManifest> | undefined;
    try {
      manifest = JSON.parse(strFromU8(index)) as Partial<ArchiveManifest>;
    } catch {
      throw new ImportError('index.json in the archive is not valid JSON.', { format: 'native' });
    }
    if (manifest?.format !== ARCHIVE_FORMAT || !Array.isArray(manifest.sessions)) {
      throw new ImportError(`index.json is not a ${ARCHIVE_FORMAT} manifest.`, { format: 'native' });
    }
    if (typeof manifest.version === 'number' && manifest.version > ARCHIVE_VERSION) {
      throw new ImportError(`The archive was written by a newer version of the app (archive version ${manifest.version}).`, { format: 'native' });
    }
    names = manifest.sessions.map((s) => (s && typeof s.file === 'string' ? s.file : ''));
    for (const n of names) if (!files[n]) throw new ImportError(`The archive lists ${JSON.stringify(n)} but does not contain it.`, { format: 'native' });
  } else {
    names = Object.keys(files).sort();
    warnings.push('The archive has no index.json; imported every .jsonl file in it, by name.');
  }
  if (names.length === 0) throw new ImportError('The archive holds no sessions.', { format: 'native' });
  const result: ImportResult = { format: 'native', sessions: [], warnings };
  for (const name of names) {
    let r: ImportResult;
    try {
      r = readNative(strFromU8(files[name]!), { fileName: name });
    } catch (err) {
      const e = err instanceof ImportError ? err : new ImportError(String(err));
      throw new ImportError(`${name}: ${e.message}`, { format: 'native', line: e.line, cause: err });
    }
    result.sessions.push(...r.sessions);
    for (const w of r.warnings) warnings.push(`${name}: ${w}`);
  }
  return result;
}
