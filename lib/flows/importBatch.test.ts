import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { allFixtureFiles, FIXTURES_DIR } from '@/lib/testing/fixtures';
import { chatGptExportChunks } from '@/lib/testing/generateChatGpt';
import { testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import type { BatchFile, BatchProgress } from './importBatch';
import { countStoredEntries } from '@/lib/db/packed';

/** fixtures/real as a folder, with the kinds of files real folders also hold. */
function folder(): BatchFile[] {
  const files: BatchFile[] = [...allFixtureFiles(), 'SOURCES.md'].map((name) => ({ path: `real/${name}`, file: new Blob([readFileSync(join(FIXTURES_DIR, name))]) }));
  const pi = readFileSync(join(FIXTURES_DIR, 'badlogic_pi-mono_compact.jsonl'), 'utf8').split('\n');
  pi[99] = pi[99]!.slice(0, 50);
  files.push({ path: 'real/broken/pi-truncated.jsonl', file: new Blob([pi.join('\n')]) });
  files.push({ path: 'real/notes/settings.json', file: new Blob(['{"theme":"dark"}']) });
  files.push({ path: 'real/.DS_Store', file: new Blob(['\0\0\0\x01Bud1']) });
  return files;
}

/** Sessions each fixture gives, counted by the importer on its own (not through the flow). */
function expectedSessions(): number {
  return allFixtureFiles().reduce((n, f) => n + importText(readFileSync(join(FIXTURES_DIR, f), 'utf8'), { fileName: f }).sessions.length, 0);
}

describe('folder import', () => {
  it('imports every session file of a folder as one batch: one progress, one summary, bad files skipped with their reason', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const seen: BatchProgress[] = [];
    const stop = flows.batch.subscribe(() => {
      const r = flows.batch.getSnapshot().running;
      if (r) seen.push(r);
    });
    const opened: string[] = [];
    const files = folder();
    const summary = await flows.importFolder('real', files, (id) => opened.push(id));
    stop();

    const sessions = expectedSessions();
    expect(summary).toMatchObject({ folder: 'real', files: allFixtureFiles().length + 2, sessionsImported: sessions, alreadyImported: 0, cancelled: false });
    expect(await ports.store.listSessions()).toHaveLength(sessions);
    expect(summary.skipped.map((s) => s.path).sort()).toEqual(['real/.DS_Store', 'real/SOURCES.md', 'real/broken/pi-truncated.jsonl', 'real/notes/settings.json']);
    expect(summary.skipped.find((s) => s.path === 'real/broken/pi-truncated.jsonl')!.reason).toMatch(/^Line 100\b/);
    expect(summary.skipped.find((s) => s.path === 'real/notes/settings.json')!.reason).toMatch(/^This file is not in a format the app can import/);
    expect(summary.leftOutInside).toBe('14 assistants without messages skipped, 2 empty conversations skipped');
    expect(opened).toHaveLength(1);
    expect(ports.notices.at(-1)).toEqual({
      level: 'success',
      message: `Sessions from real: 0 updated, ${sessions} new, 0 unchanged; 4 files skipped; 14 assistants without messages skipped, 2 empty conversations skipped.`,
    });

    // One progress for the whole batch: files and bytes only go up, to the totals.
    const total = files.filter((f) => /\.(jsonl|json|traj|zip)$/.test(f.path) && !f.path.includes('/.')).reduce((n, f) => n + f.file.size, 0);
    expect(seen.every((p) => p.filesTotal === allFixtureFiles().length + 2 && p.bytesTotal === total)).toBe(true);
    expect(seen.every((p, i) => i === 0 || (p.bytesDone >= seen[i - 1]!.bytesDone && p.filesDone >= seen[i - 1]!.filesDone))).toBe(true);
    expect(seen.at(-1)).toMatchObject({ filesDone: allFixtureFiles().length + 2, bytesDone: total });
    expect(flows.batch.getSnapshot()).toEqual({ running: null, summary });

    // The same folder again: everything is already there, nothing is duplicated.
    const again = await flows.importFolder('real', files, () => {});
    expect(again).toMatchObject({ sessionsImported: 0, alreadyImported: sessions });
    expect(await ports.store.listSessions()).toHaveLength(sessions);
    expect(ports.notices.at(-1)!.message).toBe(`Sessions from real: 0 updated, 0 new, ${sessions} unchanged; 4 files skipped; 14 assistants without messages skipped, 2 empty conversations skipped.`);
    flows.batch.dismiss();
    expect(flows.batch.getSnapshot().summary).toBeNull();
  });

  it('Cancel stops before the next file; what was imported stays, each file whole', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    let files = 0;
    const stop = flows.batch.subscribe(() => {
      const r = flows.batch.getSnapshot().running;
      if (r && r.filesDone > files) {
        files = r.filesDone;
        if (files === 3) flows.batch.cancel();
      }
    });
    const summary = await flows.importFolder('real', folder(), () => {});
    stop();
    expect(summary.cancelled).toBe(true);
    const stored = await ports.store.listSessions();
    expect(stored.length).toBe(summary.sessionsImported);
    // Three files were read, each imported whole: their sessions are exactly what the importer gives for them.
    const firstThree = folder()
      .filter((f) => /\.(jsonl|json|traj)$/.test(f.path) && !f.path.includes('/.'))
      .sort((a, b) => (a.path < b.path ? -1 : 1))
      .slice(0, 3);
    const expected = firstThree.reduce((n, f) => {
      const name = f.path.split('/').pop()!;
      try {
        return n + importText(readFileSync(join(FIXTURES_DIR, name), 'utf8'), { fileName: name }).sessions.length;
      } catch {
        return n;
      }
    }, 0);
    expect(summary.sessionsImported).toBe(expected);
    expect(ports.notices.at(-1)!.message).toMatch(/^Cancelled: Sessions from real: 0 updated, \d+ new, 0 unchanged/);
  });

  it('Cancel while a big file is read keeps nothing of that file, and the files before it', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const first = 'badlogic_pi-mono_compact.jsonl';
    const bytes = new TextEncoder().encode([...chatGptExportChunks({ seed: 9, conversations: 30 })].join(''));
    const parts: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 65_536) parts.push(bytes.subarray(i, i + 65_536));
    const files: BatchFile[] = [
      { path: `export/a/${first}`, file: new Blob([readFileSync(join(FIXTURES_DIR, first))]) },
      { path: 'export/b/conversations.json', file: new Blob(parts as BlobPart[]) },
      { path: 'export/c/more.jsonl', file: new Blob([readFileSync(join(FIXTURES_DIR, first))]) },
    ];
    const stop = flows.batch.subscribe(() => {
      const r = flows.batch.getSnapshot().running;
      // Part of the export read: some of its conversations may already be written.
      if (r?.current === 'export/b/conversations.json' && r.bytesDone > files[0]!.file.size + 65_536) flows.batch.cancel();
    });
    const summary = await flows.importFolder('export', files, () => {});
    stop();
    expect(summary.cancelled).toBe(true);
    const firstFile = importText(readFileSync(join(FIXTURES_DIR, first), 'utf8'), { fileName: first });
    expect(summary.sessionsImported).toBe(firstFile.sessions.length);
    const stored = await ports.store.listSessions();
    expect(stored.map((s) => s.source?.fileName)).toEqual(firstFile.sessions.map(() => first));
    // Nothing of the export is left, not even entries without a session.
    expect(await countStoredEntries(ports.db)).toBe(firstFile.sessions.reduce((n, s) => n + s.entries.length, 0));
  });
});
