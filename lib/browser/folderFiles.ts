import type { BatchFile } from '@/lib/flows/importBatch';

/**
 * The files of a folder the user picked or dropped, with their paths inside
 * it, for the folder import. A picked folder (`<input webkitdirectory>`)
 * arrives as Files carrying `webkitRelativePath`; a dropped one as
 * FileSystemEntry objects walked here (File and Directory Entries API, in
 * every current browser). Files are not read here: a File is a handle on the
 * disk until the formats worker streams it.
 */

/** The parts of FileSystemEntry this walk uses, so tests can hand in plain objects. */
export interface EntryLike {
  isFile: boolean;
  isDirectory: boolean;
  name: string;
}
interface FileEntryLike extends EntryLike {
  file(ok: (f: File) => void, fail: (err: unknown) => void): void;
}
interface DirectoryEntryLike extends EntryLike {
  createReader(): { readEntries(ok: (entries: EntryLike[]) => void, fail: (err: unknown) => void): void };
}

/** A folder picked through `<input type="file" webkitdirectory>`: its name and files. */
export function pickedFolder(files: readonly File[]): { folder: string; files: BatchFile[] } {
  const out = files.map((file) => ({ file, path: file.webkitRelativePath || file.name }));
  const folder = out[0]?.path.split('/')[0] ?? 'folder';
  return { folder, files: out };
}

function fileOf(entry: FileEntryLike): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Every entry of a directory: readEntries hands them out in batches (100 in Chromium) until it returns none. */
async function children(dir: DirectoryEntryLike): Promise<EntryLike[]> {
  const reader = dir.createReader();
  const out: EntryLike[] = [];
  for (;;) {
    const batch = await new Promise<EntryLike[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return out;
    out.push(...batch);
  }
}

/** The files under `entry`, depth first, paths relative to the dropped folder's parent (`folder/sub/file`). */
export async function filesUnder(entry: EntryLike, prefix = ''): Promise<BatchFile[]> {
  const path = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) return [{ file: await fileOf(entry as FileEntryLike), path }];
  if (!entry.isDirectory) return [];
  const out: BatchFile[] = [];
  for (const child of await children(entry as DirectoryEntryLike)) out.push(...(await filesUnder(child, path)));
  return out;
}

/**
 * The folders among dropped items, or null when none was a folder (plain
 * files go to the ordinary import). Entries must be taken during the drop
 * event itself: the browser empties the DataTransfer when it returns.
 */
export function droppedEntries(items: DataTransferItemList): EntryLike[] | null {
  const entries = [...items].map((i) => (i.kind === 'file' ? i.webkitGetAsEntry() : null)).filter((e): e is FileSystemEntry => e !== null);
  return entries.some((e) => e.isDirectory) ? entries : null;
}

/** The dropped entries' files as one batch, named after the folder (or "N items"). */
export async function droppedFolder(entries: readonly EntryLike[]): Promise<{ folder: string; files: BatchFile[] }> {
  const files: BatchFile[] = [];
  for (const e of entries) files.push(...(await filesUnder(e)));
  const folder = entries.length === 1 ? entries[0]!.name : `${entries.length} dropped items`;
  return { folder, files };
}
