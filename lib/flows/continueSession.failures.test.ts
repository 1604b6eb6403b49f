import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { openSession, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * Continuing the real Claude Code session in a new one: what the new session
 * takes over from its source, and what the user is told when the message or
 * the session is gone, or the new session cannot be stored.
 */

async function claudeSession() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const { sessions } = importText(readFixture('claudeLog'), { fileName: 'claude.jsonl' });
  const { imported } = await ports.store.importSnapshots([sessions[0]!], { fileName: 'claude.jsonl' });
  const row = imported[0]!;
  const s = await openSession(flows, row.id, { settings: DEFAULT_COMPACTION_SETTINGS });
  const leaf = s.live.getSnapshot().leafId!;
  return { ports, flows, s, row, leaf };
}

describe('continue in a new session: what it takes over and what can go wrong', () => {
  it('the new session keeps the source’s own instructions and compaction settings', async () => {
    const { ports, flows, s, row, leaf } = await claudeSession();
    expect(await s.saveChatSettings({ systemPrompt: 'Answer in British English.' })).toBe(true);
    await flows.saveSettings({ app: {}, session: { id: row.id, compaction: { keepRecentTokens: 6_000 } } });
    const draft = (await s.draftContinuation(leaf))!;
    const id = (await flows.startContinuation(draft, { summary: draft.summary, title: '' }))!;
    const created = (await ports.store.getSession(id))!;
    expect(created).toMatchObject({ title: `${row.title} (continued)`, systemPrompt: 'Answer in British English.', compaction: { keepRecentTokens: 6_000 } });
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: `Started “${row.title} (continued)” from “${row.title}”` });
  });

  it('a source without instructions or overrides gives a new session without them', async () => {
    const { ports, flows, s, leaf } = await claudeSession();
    const draft = (await s.draftContinuation(leaf))!;
    const created = (await ports.store.getSession((await flows.startContinuation(draft, { summary: draft.summary, title: 'Part 2' }))!))!;
    expect(created.title).toBe('Part 2');
    expect(created.systemPrompt).toBeUndefined();
    expect(created.compaction).toBeUndefined();
  });

  it('a message deleted meanwhile, or a session deleted meanwhile, is said and nothing is summarised', async () => {
    const { ports, s, leaf } = await claudeSession();
    expect(await s.draftContinuation('no-such-entry')).toBeNull();
    ports.store.getSession = async () => undefined;
    expect(await s.draftContinuation(leaf)).toBeNull();
    expect(ports.notices).toEqual([
      { level: 'error', message: 'That message is not in this session any more.' },
      { level: 'error', message: 'The session no longer exists.' },
    ]);
    expect(s.runs.get(s.sessionId)).toBeUndefined();
  });

  it('a new session that cannot be stored is said, and no session is added', async () => {
    const { ports, flows, s, leaf } = await claudeSession();
    const draft = (await s.draftContinuation(leaf))!;
    ports.store.importSnapshots = async () => Promise.reject(new Error('The storage quota is exhausted.'));
    expect(await flows.startContinuation(draft, { summary: draft.summary, title: 'Part 2' })).toBeNull();
    expect(ports.notices.at(-1)).toEqual({ level: 'error', message: 'Could not start the new session: The storage quota is exhausted.' });
    expect(await ports.store.listSessions()).toHaveLength(1);
  });
});
