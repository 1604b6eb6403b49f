import { describe, expect, it } from 'vitest';
import { droppedFolder, filesUnder, pickedFolder, type EntryLike } from './folderFiles';

/** A directory tree as FileSystemEntry-shaped objects; readEntries hands out two entries at a time, as browsers batch them. */
function dir(name: string, kids: EntryLike[]): EntryLike {
  return {
    name,
    isFile: false,
    isDirectory: true,
    createReader() {
      let at = 0;
      return { readEntries: (ok: (e: EntryLike[]) => void) => setTimeout(() => ok(kids.slice(at, (at += 2))), 0) };
    },
  } as EntryLike;
}
function file(name: string, text: string): EntryLike {
  return { name, isFile: true, isDirectory: false, file: (ok: (f: File) => void) => ok(new File([text], name)) } as EntryLike;
}

describe('folder files', () => {
  it('walks a dropped folder to the bottom, through batched directory reads, with paths inside it', async () => {
    const tree = dir('projects', [
      dir('-home-me-app', [file('a.jsonl', 'A'), file('b.jsonl', 'B'), file('c.jsonl', 'C')]),
      dir('-home-me-lib', [dir('agents', [file('d.jsonl', 'D')])]),
      file('notes.md', 'N'),
    ]);
    const files = await filesUnder(tree);
    expect(files.map((f) => f.path)).toEqual(['projects/-home-me-app/a.jsonl', 'projects/-home-me-app/b.jsonl', 'projects/-home-me-app/c.jsonl', 'projects/-home-me-lib/agents/d.jsonl', 'projects/notes.md']);
    expect(await files[3]!.file.text()).toBe('D');
    expect((await droppedFolder([tree])).folder).toBe('projects');
    expect((await droppedFolder([tree, file('x.json', '{}')])).folder).toBe('2 dropped items');
  });

  it('takes a picked folder’s relative paths and names it after its top directory', () => {
    const a = new File(['A'], 'a.jsonl');
    Object.defineProperty(a, 'webkitRelativePath', { value: 'sessions/2026/05/11/a.jsonl' });
    expect(pickedFolder([a])).toEqual({ folder: 'sessions', files: [{ file: a, path: 'sessions/2026/05/11/a.jsonl' }] });
  });
});
