import { describe, expect, it } from 'vitest';
import { FIXTURES, readFixture } from '@/lib/testing/fixtures';
import { testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import type { BatchFile } from './importBatch';

/**
 * What the user is told when files are read again: a grown transcript
 * updates its session, a changed one is imported as a copy with the reason,
 * and a folder read again reports "N updated, M new, K unchanged".
 */

const claude = readFixture('claudeLog');
const codex = readFixture('codexRollout');
const cutAt = (text: string, fraction: number) => {
  const lines = text.split('\n');
  return lines.slice(0, Math.floor(lines.length * fraction)).join('\n') + '\n';
};
const asFile = (text: string, name: string) => new File([text], name);

describe('importing files read before', () => {
  it('a grown file: “Updated …: N new messages”, the session opened, nothing duplicated', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const opened: string[] = [];
    await flows.importFiles([asFile(cutAt(claude, 0.5), FIXTURES.claudeLog)], (id) => opened.push(id));
    await flows.importFiles([asFile(claude, FIXTURES.claudeLog)], (id) => opened.push(id));
    expect(await ports.store.listSessions()).toHaveLength(1);
    expect(opened).toHaveLength(2);
    expect(opened[1]).toBe(opened[0]);
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: expect.stringMatching(new RegExp(`^Updated “.+” from ${FIXTURES.claudeLog}: \\d+ new messages?$`)) });
  });

  it('a file whose earlier part changed: a copy, and a warning that says why', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    await flows.importFiles([asFile(claude, FIXTURES.claudeLog)], () => {});
    const lines = claude.split('\n');
    await flows.importFiles([asFile([...lines.slice(0, 5), ...lines.slice(15)].join('\n'), FIXTURES.claudeLog)], () => {});
    expect(await ports.store.listSessions()).toHaveLength(2);
    // The copy is not announced as a new import.
    expect(ports.notices.filter((n) => n.level === 'success')).toHaveLength(1);
    expect(ports.notices.filter((n) => n.level === 'warning').at(-1)?.message).toMatch(/changed in its earlier part \(.+\), so it was imported as a copy; the session imported before is as it was\.$/);
  });
});

describe('a folder read again', () => {
  it('reports “N updated, M new, K unchanged”', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const before: BatchFile[] = [
      { path: 'projects/a/claude.jsonl', file: new Blob([cutAt(claude, 0.6)]) },
      { path: 'sessions/codex.jsonl', file: new Blob([codex]) },
    ];
    const first = await flows.importFolder('projects', before, () => {});
    expect(first).toMatchObject({ sessionsImported: 2, sessionsUpdated: 0, alreadyImported: 0 });
    const after: BatchFile[] = [
      { path: 'projects/a/claude.jsonl', file: new Blob([claude]) },
      { path: 'sessions/codex.jsonl', file: new Blob([codex]) },
      { path: 'pi/session.jsonl', file: new Blob([readFixture('piSession')]) },
    ];
    const again = await flows.importFolder('projects', after, () => {});
    expect(again).toMatchObject({ sessionsImported: 1, sessionsUpdated: 1, alreadyImported: 1, copies: [] });
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: 'Sessions from projects: 1 updated, 1 new, 1 unchanged.' });
    expect(await ports.store.listSessions()).toHaveLength(3);
  });
});
