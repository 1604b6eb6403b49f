import { readFileSync } from 'node:fs';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { fixturePath, FIXTURES } from '@/lib/testing/fixtures';
import { chatGptExportChunks } from '@/lib/testing/generateChatGpt';
import { testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { EXPORT_FORMATS, safeFileName } from './exportSessions';
import { progressText } from './importFiles';
import { countStoredEntries } from '@/lib/db/packed';

/** A generated ChatGPT export in 64 KB parts, so it streams in several chunks as a browser File does. */
function generatedExport(conversations: number): File {
  const bytes = new TextEncoder().encode([...chatGptExportChunks({ seed: 3, conversations })].join(''));
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 65_536) parts.push(bytes.subarray(i, i + 65_536));
  return new File(parts as BlobPart[], 'conversations.json');
}

const file = (name: keyof typeof FIXTURES) => new File([readFileSync(fixturePath(name))], FIXTURES[name]);

describe('import flow', () => {
  it('imports a real export file with progress, opens its first session, and refuses the same file twice with a way to copy it', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const opened: string[] = [];
    const progress: number[] = [];
    const stop = flows.imports.subscribe(() => {
      const a = flows.imports.getSnapshot().active;
      if (a) progress.push(a.bytesRead);
    });
    await flows.importFiles([file('chatgptExport')], (id) => opened.push(id));
    stop();
    const sessions = await ports.store.listSessions();
    expect(sessions).toHaveLength(2);
    expect(opened).toHaveLength(1);
    expect(sessions.map((s) => s.id)).toContain(opened[0]);
    expect(progress.at(-1)).toBe(readFileSync(fixturePath('chatgptExport')).byteLength);
    expect(flows.imports.getSnapshot()).toEqual({ active: null, error: null });
    expect(ports.notices.at(-1)).toMatchObject({ level: 'success', message: `Imported 2 sessions from ${FIXTURES.chatgptExport}` });

    await flows.importFiles([file('chatgptExport')], (id) => opened.push(id));
    expect(await ports.store.listSessions()).toHaveLength(2);
    const dup = ports.notices.at(-1)!;
    expect(dup.message).toMatch(/^Already imported: .*Nothing was duplicated\.$/);
    dup.action!.run();
    await new Promise((r) => setTimeout(r, 200));
    expect(await ports.store.listSessions()).toHaveLength(4);
  });

  it('shows progress from bytes read to "Stored N of N sessions" for a big export', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const texts: string[] = [];
    const stop = flows.imports.subscribe(() => {
      const a = flows.imports.getSnapshot().active;
      if (a && texts.at(-1) !== progressText(a)) texts.push(progressText(a));
    });
    await flows.importFiles([generatedExport(30)], () => {});
    stop();
    expect(texts[0]).toBe('Read 0%, stored 0 sessions');
    expect(texts.some((t) => /^Read [1-9]\d?%/.test(t))).toBe(true);
    expect(texts.at(-1)).toBe('Stored 30 of 30 sessions');
    expect(await ports.store.listSessions()).toHaveLength(30);
  });

  it('Cancel while a file is read keeps nothing of it and says so', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const file = generatedExport(30);
    const stop = flows.imports.subscribe(() => {
      const a = flows.imports.getSnapshot().active;
      if (a && a.bytesRead > 0 && a.bytesRead < file.size) flows.imports.cancel();
    });
    await flows.importFiles([file, generatedExport(5)], () => {});
    stop();
    expect(await ports.store.listSessions()).toHaveLength(0);
    expect(await countStoredEntries(ports.db)).toBe(0);
    expect(flows.imports.getSnapshot()).toEqual({ active: null, error: null });
    // The file after it was not started.
    expect(ports.notices).toEqual([{ level: 'info', message: 'Import of conversations.json cancelled; nothing from it was saved.' }]);
  });

  it('counts the empty conversations of a Claude.ai export in the result message', async () => {
    const ports = testPorts();
    await new AppFlows(ports).importFiles([file('claudeAiExport')], () => {});
    expect(await ports.store.listSessions()).toHaveLength(83);
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: `Imported 83 sessions from ${FIXTURES.claudeAiExport} (2 empty conversations skipped)` });
  });

  it('a malformed file names the line, writes nothing, and shows the error until dismissed', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const lines = readFileSync(fixturePath('piV1'), 'utf8').split('\n');
    lines[5] = '{"type":"message", broken';
    await flows.importFiles([new File([lines.join('\n')], 'broken.jsonl')], () => {});
    expect(await ports.store.listSessions()).toHaveLength(0);
    const { error } = flows.imports.getSnapshot();
    expect(error).toMatchObject({ fileName: 'broken.jsonl', message: expect.stringMatching(/^Line 6\b/) });
    flows.imports.clearError();
    expect(flows.imports.getSnapshot().error).toBeNull();
  });
});

describe('export flows', () => {
  it('exports a session in each format under a file name from its title, and everything as a zip that re-imports', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    await flows.importFiles([file('librechatTree'), file('sweTraj')], () => {});
    const [row] = await ports.store.listSessions();
    for (const format of EXPORT_FORMATS) expect(await flows.exportSession(row!.id, row!.title, format)).toBe(true);
    expect(ports.saved.map((f) => f.name)).toEqual(EXPORT_FORMATS.map((f) => safeFileName(row!.title, f.ext)));
    expect(ports.saved.map((f) => f.name.slice(f.name.indexOf('.')))).toEqual(['.jsonl', '.md', '.all-branches.md', '.md', '.pi.jsonl', '.html']);
    expect(String(ports.saved[0]!.data).split('\n')[0]).toContain('"format":"longctx-session"');

    expect(await ports.store.getLastBackupAt()).toBeNull();
    await flows.exportEverything();
    const zip = ports.saved.at(-1)!;
    expect(zip.name).toMatch(/^longctx-backup-\d{4}-\d{2}-\d{2}\.zip$/);
    const manifest = JSON.parse(strFromU8(unzipSync(zip.data as Uint8Array)['index.json']!));
    expect(manifest.sessions).toHaveLength(2);
    expect(await ports.store.getLastBackupAt()).not.toBeNull();

    const restored = testPorts();
    await new AppFlows(restored).importFiles([new File([zip.data as BlobPart], zip.name)], () => {});
    expect((await restored.store.listSessions()).map((s) => s.title).sort()).toEqual((await ports.store.listSessions()).map((s) => s.title).sort());
  });

  it('a session’s instructions, temperature and reply length go out in its JSONL and come back on import', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    await flows.importFiles([file('librechatTree')], () => {});
    const [row] = await ports.store.listSessions();
    expect(await flows.session(row!.id).saveChatSettings({ systemPrompt: 'You review Rust code.\nBe strict.', temperature: 0.4, maxOutputTokens: 2048 })).toBe(true);
    const jsonl = EXPORT_FORMATS.find((f) => f.ext === 'jsonl')!;
    await flows.exportSession(row!.id, row!.title, jsonl);
    const text = String(ports.saved.at(-1)!.data);
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ systemPrompt: 'You review Rust code.\nBe strict.', temperature: 0.4, maxOutputTokens: 2048 });

    const other = testPorts();
    await new AppFlows(other).importFiles([new File([text], 'reviewer.jsonl')], () => {});
    expect((await other.store.listSessions())[0]).toMatchObject({ systemPrompt: 'You review Rust code.\nBe strict.', temperature: 0.4, maxOutputTokens: 2048 });

    // A temperature no provider accepts is a bad file: refused with the line named, nothing stored.
    const bad = text.replace('"temperature":0.4', '"temperature":7');
    const third = testPorts();
    const t = new AppFlows(third);
    await t.importFiles([new File([bad], 'bad.jsonl')], () => {});
    expect(await third.store.listSessions()).toHaveLength(0);
    expect(t.imports.getSnapshot().error?.message).toMatch(/^Line 1: invalid session header \(temperature/);
  });

  it('a session deleted meanwhile gives a clear export error; an empty browser has nothing to back up', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    expect(await flows.exportSession('gone', 'Gone', EXPORT_FORMATS[0]!)).toBe(false);
    expect(ports.notices.at(-1)).toEqual({ level: 'error', message: 'Export failed: The session no longer exists.' });
    await flows.exportEverything();
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: 'There are no sessions to export yet.' });
    expect(ports.saved).toHaveLength(0);
  });
});
