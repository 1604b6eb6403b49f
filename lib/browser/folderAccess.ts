import type { FolderAccess, FolderFile } from '@/lib/flows/ports';

/**
 * Folders kept current through the File System Access API (Chromium): a
 * picked directory's handle can be stored and asked for again on a later
 * visit, so "Check for new sessions" reads the folder without the user
 * picking it again. Elsewhere the API is missing and the app offers the
 * ordinary folder import, which a grown transcript updates just the same.
 */

interface PermissionHandle {
  queryPermission(d: { mode: 'read' }): Promise<PermissionState>;
  requestPermission(d: { mode: 'read' }): Promise<PermissionState>;
}
interface DirectoryHandle extends PermissionHandle {
  kind: 'directory';
  name: string;
  values(): AsyncIterable<DirectoryHandle | FileHandle>;
}
interface FileHandle {
  kind: 'file';
  name: string;
  getFile(): Promise<File>;
}

type Picker = (opts: { mode: 'read'; id?: string }) => Promise<DirectoryHandle>;

const picker = (): Picker | undefined => (typeof window === 'undefined' ? undefined : (window as unknown as { showDirectoryPicker?: Picker }).showDirectoryPicker);

/** Folders that cannot hold sessions and may hold a great many files. */
const SKIP_DIRS = new Set(['node_modules', '.git']);
/** How deep a walk goes: ~/.codex/sessions is year/month/day, ~/.claude/projects one level with sub-agent folders below. */
const MAX_DEPTH = 8;

async function* walk(dir: DirectoryHandle, prefix: string, depth: number): AsyncGenerator<FolderFile> {
  for await (const child of dir.values()) {
    if (child.name.startsWith('.')) continue;
    const path = `${prefix}/${child.name}`;
    if (child.kind === 'directory') {
      if (depth < MAX_DEPTH && !SKIP_DIRS.has(child.name)) yield* walk(child, path, depth + 1);
      continue;
    }
    // Only the file's size and time are read here: its content is read later, and only if it changed.
    const file = await child.getFile();
    yield { path, size: file.size, modified: file.lastModified, file: () => child.getFile() };
  }
}

export const browserFolderAccess: FolderAccess = {
  supported: () => picker() !== undefined,
  async pick() {
    const show = picker();
    if (!show) return null;
    try {
      const handle = await show({ mode: 'read', id: 'longctx-sessions' });
      return { name: handle.name, handle };
    } catch (err) {
      // The user closed the picker.
      if ((err as { name?: string } | null)?.name === 'AbortError') return null;
      throw err;
    }
  },
  async permitted(handle, ask) {
    const h = handle as PermissionHandle;
    if ((await h.queryPermission({ mode: 'read' })) === 'granted') return true;
    // Asking needs a click (a user activation): a check on focus only reads folders already allowed.
    return ask && (await h.requestPermission({ mode: 'read' })) === 'granted';
  },
  async files(handle) {
    const dir = handle as DirectoryHandle;
    const out: FolderFile[] = [];
    for await (const f of walk(dir, dir.name, 0)) out.push(f);
    return out;
  },
};
