import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { fixturePath, FIXTURES, readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { chatGptExportChunks } from '@/lib/testing/generateChatGpt';
import { testPorts, until } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * Single-file imports in the details the import flow test leaves open: the
 * Cancel before, between and after files (and during "Import a copy"), the
 * notices' exact wording, files that hold no conversation, the warnings shown,
 * and errors as the worker hands them over. Real fixture files.
 */

const file = (name: FixtureName) => new File([readFileSync(fixturePath(name))], FIXTURES[name]);

/** A generated ChatGPT export in 64 KB parts, read in several chunks as a browser File is. */
function bigExport(): File {
  const bytes = new TextEncoder().encode([...chatGptExportChunks({ seed: 5, conversations: 30 })].join(''));
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 65_536) parts.push(bytes.subarray(i, i + 65_536));
  return new File(parts as BlobPart[], 'conversations.json');
}

/** The ports with every import id and every cancel the flow asks the worker for recorded. */
function recordingPorts() {
  const ports = testPorts();
  const real = ports.formats;
  const started: string[] = [];
  const cancelled: (string | null)[] = [];
  ports.formats = {
    ...real,
    importFileToStore: (f, name, opts, onProgress) => {
      started.push(opts!.importId!);
      return real.importFileToStore(f, name, opts, onProgress);
    },
    cancelImport: (id) => {
      cancelled.push(id);
      return real.cancelImport(id);
    },
  };
  return { ports, started, cancelled };
}

describe('Cancel', () => {
  it('with nothing being imported does nothing', () => {
    const flows = new AppFlows(testPorts());
    expect(() => flows.imports.cancel()).not.toThrow();
    expect(flows.imports.getSnapshot()).toEqual({ active: null, error: null });
  });

  it('between two files stops before the second and asks the worker to cancel nothing', async () => {
    const { ports, started, cancelled } = recordingPorts();
    const flows = new AppFlows(ports);
    let seenActive = false;
    const stop = flows.imports.subscribe(() => {
      const { active } = flows.imports.getSnapshot();
      if (active) seenActive = true;
      // The first file is done and the second not started.
      else if (seenActive && started.length === 1) flows.imports.cancel();
    });
    await flows.importFiles([file('piV1'), file('sweTraj')], () => {});
    stop();
    expect(started).toHaveLength(1);
    expect(cancelled).toEqual([]);
    expect((await ports.store.listSessions()).map((s) => s.source?.fileName)).toEqual([FIXTURES.piV1]);
  });

  it('after the files are imported it reaches nothing; during "Import a copy" it stops the copy, which keeps nothing, even after another import', async () => {
    const { ports, started, cancelled } = recordingPorts();
    const flows = new AppFlows(ports);
    const big = bigExport();
    await flows.importFiles([big], () => {});
    expect(await ports.store.listSessions()).toHaveLength(30);
    await flows.importFiles([big], () => {});
    const dup = ports.notices.at(-1)!;
    expect(dup.action?.label).toBe('Import a copy');
    flows.imports.cancel();
    expect(cancelled).toEqual([]);
    // Another file imported since: the copy still takes the Cancel when it runs.
    await flows.importFiles([file('piV1')], () => {});
    const stored = (await ports.store.listSessions()).length;

    let asked = false;
    const stop = flows.imports.subscribe(() => {
      const { active } = flows.imports.getSnapshot();
      if (!asked && active && active.bytesRead > 0 && active.bytesRead < big.size) {
        asked = true;
        flows.imports.cancel();
      }
    });
    const told = ports.notices.length;
    dup.action!.run();
    await until(() => ports.notices.length > told);
    stop();
    expect(asked).toBe(true);
    expect(cancelled).toEqual([started.at(-1)]);
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: 'Import of conversations.json cancelled; nothing from it was saved.' });
    expect(await ports.store.listSessions()).toHaveLength(stored);
    await until(() => flows.imports.getSnapshot().active === null);
  });

  it('"Import a copy" that completes stores the copies and leaves no progress behind', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    await flows.importFiles([file('chatgptExport')], () => {});
    await flows.importFiles([file('chatgptExport')], () => {});
    const stored = (await ports.store.listSessions()).length;
    const dup = ports.notices.at(-1)!;
    dup.action!.run();
    await until(() => ports.notices.at(-1) !== dup);
    await until(() => flows.imports.getSnapshot().active === null);
    expect(await ports.store.listSessions()).toHaveLength(2 * stored);
    expect(flows.imports.getSnapshot()).toEqual({ active: null, error: null });
  });
});

describe('what the user is told', () => {
  it('one session: "Imported 1 session from …"', async () => {
    const ports = testPorts();
    expect(importText(readFixture('piV1'), { fileName: FIXTURES.piV1 }).sessions).toHaveLength(1);
    await new AppFlows(ports).importFiles([file('piV1')], () => {});
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: `Imported 1 session from ${FIXTURES.piV1}` });
  });

  it('the same file again names every session already there, in the file’s order, and offers a copy', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    await flows.importFiles([file('chatgptExport')], () => {});
    await flows.importFiles([file('chatgptExport')], () => {});
    const titles = importText(readFixture('chatgptExport'), { fileName: FIXTURES.chatgptExport }).sessions.map((s) => s.meta.title);
    expect(titles.length).toBeGreaterThan(1);
    const n = ports.notices.at(-1)!;
    expect(n.level).toBe('info');
    expect(n.message).toBe(`Already imported: ${titles.map((t) => `“${t}”`).join(', ')}. Nothing was duplicated.`);
    expect(n.action!.label).toBe('Import a copy');
  });

  it('an export with no conversations: its warning, then the error, shown until dismissed', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    await flows.importFiles([new File(['[]'], 'conversations.json')], () => {});
    expect(ports.notices).toEqual([
      { level: 'warning', message: 'conversations.json: The export holds no conversations.' },
      { level: 'error', message: 'Could not import conversations.json: The file holds no conversation.' },
    ]);
    expect(flows.imports.getSnapshot().error).toEqual({ fileName: 'conversations.json', message: 'The file holds no conversation.' });
    expect(await ports.store.listSessions()).toEqual([]);
  });

  it('an export of only empty conversations says how many it left out', async () => {
    const ports = testPorts();
    const empties = (JSON.parse(readFixture('claudeAiExport')) as { chat_messages: unknown[] }[]).filter((c) => c.chat_messages.length === 0);
    expect(empties.length).toBeGreaterThan(1);
    await new AppFlows(ports).importFiles([new File([JSON.stringify(empties)], 'conversations.json')], () => {});
    expect(ports.notices.at(-1)).toEqual({
      level: 'error',
      message: `Could not import conversations.json: The file holds no conversation (${empties.length} empty conversations skipped).`,
    });
  });

  it('at most three of a file’s warnings are shown, each named with the file', async () => {
    const ports = testPorts();
    const real = ports.formats.importFileToStore;
    const warnings = ['first', 'second', 'third', 'fourth', 'fifth'].map((w) => `The ${w} conversation has no title.`);
    ports.formats.importFileToStore = async (...args) => ({ ...(await real(...args)), warnings });
    await new AppFlows(ports).importFiles([file('piV1')], () => {});
    expect(ports.notices.filter((n) => n.level === 'warning').map((n) => n.message)).toEqual(warnings.slice(0, 3).map((w) => `${FIXTURES.piV1}: ${w}`));
  });
});

describe('errors as the worker hands them over', () => {
  it('"ImportError: …" reaches the user as the sentence alone', async () => {
    const ports = testPorts();
    const real = ports.formats.importFileToStore;
    // A bridge that flattens errors to their text, name first.
    ports.formats.importFileToStore = (...args) =>
      real(...args).catch((e: unknown) => {
        throw new Error(String(e));
      });
    const flows = new AppFlows(ports);
    await flows.importFiles([new File([''], 'empty.jsonl')], () => {});
    expect(flows.imports.getSnapshot().error).toEqual({ fileName: 'empty.jsonl', message: 'The file is empty.' });
    expect(ports.notices).toEqual([{ level: 'error', message: 'Could not import empty.jsonl: The file is empty.' }]);
  });

  it('a file name holding "Error:" is kept whole in the message', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    await flows.importFiles([new File(['{"theme":"dark"}'], 'Error: notes.json')], () => {});
    expect(flows.imports.getSnapshot().error!.message).toMatch(/^This file is not in a format the app can import \(Error: notes\.json\)\./);
  });

  it('a rejection that carries no error at all is reported, not thrown', async () => {
    const ports = testPorts();
    ports.formats.importFileToStore = () => Promise.reject(null);
    const flows = new AppFlows(ports);
    await expect(flows.importFiles([file('piV1')], () => {})).resolves.toBeUndefined();
    expect(ports.notices).toHaveLength(1);
    expect(ports.notices[0]!.level).toBe('error');
    expect(ports.notices[0]!.message.startsWith(`Could not import ${FIXTURES.piV1}: `)).toBe(true);
  });
});
