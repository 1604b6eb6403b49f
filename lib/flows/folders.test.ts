// Before Dexie loads: it takes the global indexedDB when its module is first read.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { addFolder, listFolders, removeFolder, updateFolder } from '@/lib/db/folders';
import { readFixture } from '@/lib/testing/fixtures';
import { testPorts, type TestPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import type { FolderAccess, FolderFile } from './ports';

/**
 * Keeping a folder current, with the browser's folder access played by an
 * in-memory folder (the File System Access API exists only in Chromium, and
 * e2e/organize.spec.ts drives the real one) and the kept folders stored in
 * IndexedDB by lib/db/folders.ts.
 */

interface FakeFile {
  text: string;
  modified: number;
}

function fakeFolder(name: string, files: Map<string, FakeFile>, allowed = { value: true }) {
  const reads: string[] = [];
  const access: FolderAccess = {
    supported: () => true,
    pick: async () => ({ name, handle: { fake: name } }),
    permitted: async (_h, ask) => allowed.value || ask,
    files: async () =>
      [...files].map(
        ([path, f]): FolderFile => ({
          path: `${name}/${path}`,
          size: new TextEncoder().encode(f.text).length,
          modified: f.modified,
          file: async () => {
            reads.push(path);
            return new Blob([f.text]);
          },
        }),
      ),
  };
  return { access, reads };
}

function withFolders(ports: TestPorts, access: FolderAccess) {
  const db = ports.db;
  ports.folders = {
    access,
    store: { list: () => listFolders(db), add: (n, h) => addFolder(n, h, Date.now(), db), update: (id, p) => updateFolder(id, p, db), remove: (id) => removeFolder(id, db) },
  };
  return new AppFlows(ports);
}

const claude = readFixture('claudeLog');
const half = claude.split('\n').slice(0, 30).join('\n') + '\n';

describe('a kept folder', () => {
  it('is read when picked, then only the files that changed are read again', async () => {
    const files = new Map<string, FakeFile>([
      ['-home-dev-app/session.jsonl', { text: half, modified: 1 }],
      ['-home-dev-lib/codex.jsonl', { text: readFixture('codexRollout'), modified: 1 }],
    ]);
    const ports = testPorts();
    const { access, reads } = fakeFolder('projects', files);
    const flows = withFolders(ports, access);
    expect(flows.folders.supported).toBe(true);

    const first = await flows.folders.keep(() => {});
    expect(first).toMatchObject({ sessionsImported: 2, sessionsUpdated: 0 });
    const [kept] = await listFolders(ports.db);
    expect(Object.keys(kept!.seen).sort()).toEqual(['projects/-home-dev-app/session.jsonl', 'projects/-home-dev-lib/codex.jsonl']);

    reads.length = 0;
    expect(await flows.folders.check(kept!.id, () => {}, { ask: true })).toBeNull();
    expect(reads).toEqual([]);
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: 'Nothing new in projects.' });

    // Claude Code wrote more to the session.
    files.set('-home-dev-app/session.jsonl', { text: claude, modified: 2 });
    const again = await flows.folders.check(kept!.id, () => {}, { ask: true });
    expect(reads).toEqual(['-home-dev-app/session.jsonl']);
    expect(again).toMatchObject({ sessionsUpdated: 1, sessionsImported: 0 });
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: 'Sessions from projects: 1 updated, 0 new, 0 unchanged.' });
    expect(await ports.store.listSessions()).toHaveLength(2);
  });

  it('on focus: only folders the user chose, only when the browser already allows it, quietly, at most every 30 s', async () => {
    const files = new Map<string, FakeFile>([['a/session.jsonl', { text: half, modified: 1 }]]);
    const allowed = { value: true };
    const ports = testPorts();
    let now = 1_000_000;
    ports.now = () => now;
    const { access, reads } = fakeFolder('projects', files, allowed);
    const flows = withFolders(ports, access);
    await flows.folders.keep(() => {});
    const [kept] = await listFolders(ports.db);
    files.set('a/session.jsonl', { text: claude, modified: 2 });
    reads.length = 0;

    await flows.folders.onFocus(() => {});
    expect(reads).toEqual([]); // not asked for on focus
    await flows.folders.setOnFocus(kept!.id, true);
    now += 31_000;
    allowed.value = false;
    const said = ports.notices.length;
    await flows.folders.onFocus(() => {});
    expect(reads).toEqual([]); // not allowed without a click: nothing read, nothing said
    expect(ports.notices).toHaveLength(said);
    allowed.value = true;
    await flows.folders.onFocus(() => {});
    expect(reads).toEqual([]); // too soon after the last focus check
    now += 31_000;
    await flows.folders.onFocus(() => {});
    expect(reads).toEqual(['a/session.jsonl']);
    expect(ports.notices.at(-1)!.message).toBe('Sessions from projects: 1 updated, 0 new, 0 unchanged.');
    // Nothing new: a quiet check says nothing.
    now += 31_000;
    const before = ports.notices.length;
    await flows.folders.onFocus(() => {});
    expect(ports.notices).toHaveLength(before);
  });

  it('forgotten, it is no longer checked', async () => {
    const ports = testPorts();
    const flows = withFolders(ports, fakeFolder('projects', new Map([['x.jsonl', { text: readFixture('piSession'), modified: 1 }]])).access);
    await flows.folders.keep(() => {});
    const [kept] = await listFolders(ports.db);
    await flows.folders.forget(kept!.id);
    expect(await listFolders(ports.db)).toEqual([]);
    expect(await flows.folders.check(kept!.id, () => {}, { ask: true })).toBeNull();
  });
});
