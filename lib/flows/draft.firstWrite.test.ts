import { describe, expect, it } from 'vitest';
// First: it installs fake-indexeddb, which Dexie must find when it loads.
import { openSession, testModel, testPorts, until } from '@/lib/testing/flowPorts';
import { newId } from '@/lib/session/ids';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { AppFlows } from './app';

/**
 * The write that turns a draft into a stored session: made once however many
 * sends ask for it, stamped with the app's clock, and when it fails, the send
 * says so, nothing is left half-stored, and the next send tries again.
 */

const CHAT = testModel('compat:mock-large', 128_000);
const NOW = Date.UTC(2026, 10, 23, 9, 30, 0);

async function openDraft() {
  const ports = { ...testPorts(), now: () => NOW };
  const creates: string[] = [];
  const create = ports.store.createSession.bind(ports.store);
  let failures = 0;
  ports.store.createSession = async (init) => {
    creates.push(init?.id ?? '');
    if (failures > 0) {
      failures--;
      throw new Error('The browser refused to store data.');
    }
    return create(init);
  };
  const flows = new AppFlows(ports);
  const id = newId();
  flows.session(id, { draft: true });
  const s = await openSession(flows, id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: 'New session' });
  return { ports, s, id, creates, failNext: (n: number) => (failures = n) };
}

describe('storing a draft', () => {
  it('is one write, under the draft’s id and the app’s clock, however many messages follow', async () => {
    const { ports, s, id, creates } = await openDraft();
    await s.send('first');
    await s.send('second');
    await s.idle();
    await until(() => !s.live.getSnapshot().draft);
    await s.send('third');
    await s.idle();
    expect(creates).toEqual([id]);
    const row = (await ports.store.getSession(id))!;
    expect(row.createdAt).toBe(NOW);
    expect(row.entryCount).toBe(6);
  });

  it('a first write that fails: the send says why and stores nothing; the next send stores the session and its message', async () => {
    const { ports, s, id, creates, failNext } = await openDraft();
    failNext(1);
    expect(await s.send('lost?')).toBe(false);
    await s.idle();
    expect(ports.notices.filter((n) => n.level === 'error').map((n) => n.message)).toEqual(['The browser refused to store data.']);
    expect(await ports.store.listSessions()).toEqual([]);
    expect(s.live.getSnapshot().draft).toBe(true);

    expect(await s.send('stored now')).toBe(true);
    await s.idle();
    expect(creates).toEqual([id, id]);
    const loaded = (await ports.store.loadSession(id))!;
    expect(loaded.entries.filter((e) => e.type === 'message' && e.message.role === 'user')).toHaveLength(1);
  });
});
