import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { FIXTURES, FIXTURES_DIR, readFixture } from '@/lib/testing/fixtures';
import { chatGptExportChunks } from '@/lib/testing/generateChatGpt';
import { testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import type { BatchFile, BatchState } from './importBatch';

/**
 * A folder import's details the broad batch test does not state: the order
 * files are read in, hidden files, the clock behind "seconds", what the state
 * holds while the batch runs, which import a Cancel reaches, files that hold
 * no conversation, worker errors as they arrive, and the summary's wording
 * and level. Real fixture files throughout.
 */

const fixtureFile = (name: string, path: string): BatchFile => ({ path, file: new Blob([readFileSync(join(FIXTURES_DIR, name))]) });

/** Sessions a fixture gives, by the importer alone. */
const sessionsOf = (name: string) => importText(readFileSync(join(FIXTURES_DIR, name), 'utf8'), { fileName: name }).sessions;

/** The ports with the formats port wrapped: every import id asked for and every cancel recorded. */
function recordingPorts() {
  const ports = testPorts();
  const real = ports.formats;
  const started: string[] = [];
  const cancelled: string[] = [];
  ports.formats = {
    ...real,
    importFileToStore: (file, name, opts, onProgress) => {
      started.push(opts!.importId!);
      return real.importFileToStore(file, name, opts, onProgress);
    },
    cancelImport: (id) => {
      cancelled.push(id);
      return real.cancelImport(id);
    },
  };
  return { ports, started, cancelled };
}

/** A generated ChatGPT export big enough to be read in several parts. */
function bigExport(): Blob {
  const bytes = new TextEncoder().encode([...chatGptExportChunks({ seed: 11, conversations: 30 })].join(''));
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 65_536) parts.push(bytes.subarray(i, i + 65_536));
  return new Blob(parts as BlobPart[]);
}

describe('folder import: order, hidden files, clock', () => {
  it('reads the files in path order whatever order the folder listing gave, and opens the first session of the first file', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const files = [
      fixtureFile(FIXTURES.sweTraj, 'c/task.traj'),
      fixtureFile(FIXTURES.piV1, 'a/pi.jsonl'),
      fixtureFile(FIXTURES.claudeViewer, 'd/claude.jsonl'),
      fixtureFile(FIXTURES.claudeLog, 'b/log.jsonl'),
    ];
    const order: string[] = [];
    const stop = flows.batch.subscribe(() => {
      const cur = flows.batch.getSnapshot().running?.current;
      if (cur && order.at(-1) !== cur) order.push(cur);
    });
    const opened: string[] = [];
    await flows.importFolder('projects', files, (id) => opened.push(id));
    stop();
    const sorted = files.map((f) => f.path).sort();
    expect(order).toEqual(sorted);
    expect(opened).toHaveLength(1);
    const first = (await ports.store.listSessions()).find((s) => s.id === opened[0])!;
    expect(first.source?.fileName).toBe('pi.jsonl');
  });

  it('a hidden file is never read, at the top of the folder or below it, and is listed as no session file', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const summary = await flows.importFolder('projects', [fixtureFile(FIXTURES.piV1, '.pi.jsonl'), fixtureFile(FIXTURES.piV1, 'old/.pi.jsonl'), fixtureFile(FIXTURES.sweTraj, 'notes.txt')], () => {});
    expect(summary.files).toBe(0);
    expect(summary.sessionsImported).toBe(0);
    expect(await ports.store.listSessions()).toEqual([]);
    const reason = 'not a session file (the app reads .jsonl, .json, .traj and .zip)';
    expect(summary.skipped).toEqual([
      { path: '.pi.jsonl', reason },
      { path: 'notes.txt', reason },
      { path: 'old/.pi.jsonl', reason },
    ]);
  });

  it('"seconds" is the time the ports’ clock says the batch took', async () => {
    const ports = testPorts();
    const readings: number[] = [];
    let t = 1_700_000_000_000;
    ports.now = () => {
      t += 1_250;
      readings.push(t);
      return t;
    };
    const summary = await new AppFlows(ports).importFolder('projects', [fixtureFile(FIXTURES.piV1, 'a/pi.jsonl')], () => {});
    expect(readings.length).toBeGreaterThanOrEqual(2);
    expect(summary.seconds).toBe((readings.at(-1)! - readings[0]!) / 1000);
    expect(summary.seconds).toBeGreaterThan(0);
  });

  it('Cancel with no batch running does nothing', () => {
    const flows = new AppFlows(testPorts());
    expect(() => flows.batch.cancel()).not.toThrow();
    expect(flows.batch.getSnapshot()).toEqual({ running: null, summary: null });
  });
});

describe('folder import: the state while it runs', () => {
  it('from the first notice to the last, the batch shows its progress; a new batch clears the previous summary at once', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const one = [fixtureFile(FIXTURES.piV1, 'a/pi.jsonl')];
    await flows.importFolder('first', one, () => {});
    expect(flows.batch.getSnapshot().summary).not.toBeNull();

    const states: BatchState[] = [];
    const stop = flows.batch.subscribe(() => states.push(flows.batch.getSnapshot()));
    const files = [fixtureFile(FIXTURES.sweTraj, 'b/task.traj'), fixtureFile(FIXTURES.claudeLog, 'a/log.jsonl')];
    const summary = await flows.importFolder('second', files, () => {});
    stop();
    const bytes = files.reduce((n, f) => n + f.file.size, 0);
    expect(states[0]).toEqual({ running: { folder: 'second', filesDone: 0, filesTotal: 2, bytesDone: 0, bytesTotal: bytes, current: null }, summary: null });
    // Every state before the last shows the batch running, with no summary.
    for (const s of states.slice(0, -1)) {
      expect(s.running).toMatchObject({ folder: 'second', filesTotal: 2, bytesTotal: bytes });
      expect(s.summary).toBeNull();
    }
    expect(states.map((s) => s.running?.current).filter((c, i, a) => c && a[i - 1] !== c)).toEqual(['a/log.jsonl', 'b/task.traj']);
    expect(states.at(-1)).toEqual({ running: null, summary });
  });

  it('Cancel during the second file asks the worker to stop that import only', async () => {
    const { ports, started, cancelled } = recordingPorts();
    const flows = new AppFlows(ports);
    const files = [fixtureFile(FIXTURES.piV1, 'a/pi.jsonl'), { path: 'b/conversations.json', file: bigExport() }];
    const stop = flows.batch.subscribe(() => {
      const r = flows.batch.getSnapshot().running;
      if (r?.current === 'b/conversations.json' && r.bytesDone > files[0]!.file.size) flows.batch.cancel();
    });
    const summary = await flows.importFolder('export', files, () => {});
    stop();
    expect(started).toHaveLength(2);
    expect(cancelled).toEqual([started[1]]);
    // The cancelled file is neither imported nor listed as skipped; the batch says it was cancelled although it was the last file.
    expect(summary).toMatchObject({ cancelled: true, sessionsImported: sessionsOf(FIXTURES.piV1).length, skipped: [] });
    expect(ports.notices.at(-1)!.level).toBe('info');
  });
});

describe('folder import: files that hold no conversation, errors, the sentence', () => {
  it('an export with no conversations, or only empty ones, is skipped as holding none; the empty ones are counted', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const empties = (JSON.parse(readFixture('claudeAiExport')) as { chat_messages: unknown[] }[]).filter((c) => c.chat_messages.length === 0);
    const summary = await flows.importFolder(
      'exports',
      [
        { path: 'chatgpt/conversations.json', file: new Blob(['[]']) },
        { path: 'claude/conversations.json', file: new Blob([JSON.stringify(empties)]) },
      ],
      () => {},
    );
    expect(summary.skipped).toEqual([
      { path: 'chatgpt/conversations.json', reason: 'it holds no conversation' },
      { path: 'claude/conversations.json', reason: 'it holds no conversation' },
    ]);
    expect(summary.sessionsImported).toBe(0);
    expect(summary.leftOutInside).toBe(`${empties.length} empty conversations skipped`);
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: `Sessions from exports: 0 updated, 0 new, 0 unchanged; 2 files skipped; ${empties.length} empty conversations skipped.` });
  });

  it('a worker result without a list of skipped conversations leaves nothing out', async () => {
    const ports = testPorts();
    const real = ports.formats.importFileToStore;
    ports.formats.importFileToStore = async (...args) => {
      const { skipped: _skipped, ...rest } = await real(...args);
      return rest;
    };
    const summary = await new AppFlows(ports).importFolder('projects', [fixtureFile(FIXTURES.piV1, 'a/pi.jsonl')], () => {});
    expect(summary.leftOutInside).toBe('');
    expect(ports.notices.at(-1)!.message).toBe('Sessions from projects: 0 updated, 1 new, 0 unchanged.');
  });

  it('one file, one session: the sentence is singular and names nothing skipped or left out', async () => {
    const ports = testPorts();
    expect(sessionsOf(FIXTURES.piV1)).toHaveLength(1);
    await new AppFlows(ports).importFolder('projects', [fixtureFile(FIXTURES.piV1, 'a/pi.jsonl')], () => {});
    expect(ports.notices).toEqual([{ level: 'success', message: 'Sessions from projects: 0 updated, 1 new, 0 unchanged.' }]);
  });

  it('one skipped file is "1 file"; a batch that imported nothing new is told as information, not success', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const files = [fixtureFile(FIXTURES.piV1, 'a/pi.jsonl'), { path: 'a/notes.json', file: new Blob(['{"theme":"dark"}']) }];
    await flows.importFolder('projects', files, () => {});
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: 'Sessions from projects: 0 updated, 1 new, 0 unchanged; 1 file skipped.' });
    await flows.importFolder('projects', files, () => {});
    expect(ports.notices.at(-1)).toEqual({ level: 'info', message: 'Sessions from projects: 0 updated, 0 new, 1 unchanged; 1 file skipped.' });
  });

  it('errors from the worker reach the summary as the sentence alone, without the error’s name', async () => {
    const ports = testPorts();
    const real = ports.formats.importFileToStore;
    // How a worker bridge that flattens errors hands them over: "ImportError: …".
    ports.formats.importFileToStore = (...args) =>
      real(...args).catch((e: unknown) => {
        throw new Error(String(e));
      });
    const pi = readFixture('piV1').split('\n');
    pi[99] = pi[99]!.slice(0, 50);
    let expected = '';
    try {
      importText(pi.join('\n'), { fileName: 'pi.jsonl' });
    } catch (e) {
      expected = (e as Error).message;
    }
    expect(expected).toMatch(/^Line 100\b/);
    const summary = await new AppFlows(ports).importFolder('projects', [{ path: 'a/pi.jsonl', file: new Blob([pi.join('\n')]) }], () => {});
    expect(summary.skipped).toEqual([{ path: 'a/pi.jsonl', reason: expected }]);
  });

  it('a reason that names a file keeps its name whole, even one holding "Error:"', async () => {
    const ports = testPorts();
    const summary = await new AppFlows(ports).importFolder('projects', [{ path: 'a/Error: notes.json', file: new Blob(['{"theme":"dark"}']) }], () => {});
    expect(summary.skipped).toHaveLength(1);
    expect(summary.skipped[0]!.reason).toMatch(/^This file is not in a format the app can import \(Error: notes\.json\)\./);
  });
});
