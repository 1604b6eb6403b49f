import { describe, expect, it } from 'vitest';
import { resolveLabels } from '@/lib/session/revisions';
import { DEFAULT_COMPACTION_SETTINGS, type AssistantMessage } from '@/lib/session/types';
import { asyncTokens, openSession, testModel, testPorts, until } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { checkStorageHealth } from './storageHealth';

const CHAT = testModel('compat:mock-large', 128_000);

async function withTurn() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
  ports.transport.script({ text: 'an answer' });
  await s.send('a question');
  await s.idle();
  return { ports, flows, s, row };
}

describe('session tools', () => {
  it('labels travel as entries; a fork copies the path into a new session', async () => {
    const { ports, flows, s, row } = await withTurn();
    const [prompt] = s.live.getSnapshot().tree.pathTo(s.live.getSnapshot().leafId);
    await s.setLabel(prompt!.id, 'the question');
    expect(resolveLabels((await ports.store.loadSession(row.id))!.entries).get(prompt!.id)).toBe('the question');
    const forkId = (await s.forkHere())!;
    const fork = (await ports.store.loadSession(forkId))!;
    expect(fork.row.title).toBe('Fork of a question');
    expect(fork.entries.map((e) => e.id)).toEqual(s.live.getSnapshot().tree.pathTo(s.live.getSnapshot().leafId).map((e) => e.id));
    expect(await flows.deleteSession(fork.row)).toBe(true);
    expect(await ports.store.getSession(forkId)).toBeUndefined();
  });

  it('a reply left streaming by a closed tab is marked interrupted, keeping its text; one whose tab still streams is left alone', async () => {
    const { ports, s, row } = await withTurn();
    const leaf = s.live.getSnapshot().leafId!;
    const streaming = (text: string) => ({ type: 'message' as const, message: { role: 'assistant' as const, content: [{ type: 'text' as const, text }], status: 'streaming' as const } });
    const [orphan] = await ports.store.appendEntries(row.id, leaf, [streaming('half a rep')], { moveLeaf: false });
    const [live] = await ports.store.appendEntries(row.id, leaf, [streaming('still comi')], { moveLeaf: false });
    ports.locks.held.add(live!.id);
    await until(() => s.live.getSnapshot().tree.has(live!.id));
    expect(await s.repairInterrupted({ recheckMs: 5 })).toBe(1);
    const stored = (await ports.store.loadSession(row.id))!.entries;
    const msg = (id: string) => (stored.find((e) => e.id === id) as { message: AssistantMessage }).message;
    expect(msg(orphan!.id)).toMatchObject({ status: 'complete', stopReason: 'interrupted', content: [{ type: 'text', text: 'half a rep' }] });
    expect(msg(live!.id).status).toBe('streaming');
  });

  it('another tab’s writes reach this tab’s live tree, and this tab follows when they continue its path', async () => {
    const { ports, s, row } = await withTurn();
    const other = await openSession(new AppFlows({ ...ports, tokens: asyncTokens() }), row.id, s.env());
    ports.transport.script({ text: 'from the other tab' });
    await other.send('asked elsewhere');
    await other.idle();
    await until(() => s.live.getSnapshot().leafId === other.live.getSnapshot().leafId);
    expect(s.live.getSnapshot().tree.size).toBe(4);
    other.close();
  });
});

describe('storage health', () => {
  it('asks for persistence, warns near the quota, and reminds about a backup of week-old sessions', async () => {
    const ports = testPorts();
    let persisted = false;
    const week = 7 * 24 * 3600 * 1000;
    const now = Date.now();
    const health = { ...ports, now: () => now, quota: { estimate: async () => ({ usage: 900, quota: 1000 }), persisted: async () => persisted, persist: async () => (persisted = true) } };
    await ports.store.createSession({ title: 'old', createdAt: now - 2 * week });
    await checkStorageHealth(health);
    expect(persisted).toBe(true);
    expect(ports.notices.map((n) => `${n.level}: ${n.message}`)).toEqual([
      'warning: Browser storage is 90% full. Export and delete old sessions before it runs out.',
      'info: Your sessions have never been backed up.',
    ]);
    ports.notices.length = 0;
    await ports.store.setLastBackupAt(now - 2 * week);
    await checkStorageHealth({ ...health, quota: ports.quota });
    expect(ports.notices).toMatchObject([{ level: 'info', message: 'No backup for more than a week.', action: { label: 'Back up now' } }]);
    ports.notices.length = 0;
    await ports.store.setLastBackupAt(now);
    await checkStorageHealth({ ...health, quota: ports.quota });
    expect(ports.notices).toEqual([]);
  });
});
