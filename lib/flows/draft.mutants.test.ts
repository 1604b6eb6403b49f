import { describe, expect, it } from 'vitest';
// First: it installs fake-indexeddb, which Dexie must find when it loads.
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { newId } from '@/lib/session/ids';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { AppFlows } from './app';
import { ensureStored } from './draft';

/**
 * Storing a draft, called directly as a send calls it: two calls at once
 * write the row once (the second waits for the first), and a session that is
 * stored already is never written again.
 */

const CHAT = testModel('compat:mock-large', 128_000);

function countingPorts() {
  const ports = testPorts();
  const creates: string[] = [];
  const create = ports.store.createSession.bind(ports.store);
  ports.store.createSession = async (init) => {
    creates.push(init?.id ?? '');
    return create(init);
  };
  return { ports, creates };
}

describe('ensureStored', () => {
  it('two calls at once for one draft: one write, and both resolve once the row is stored', async () => {
    const { ports, creates } = countingPorts();
    const flows = new AppFlows(ports);
    const id = newId();
    flows.session(id, { draft: true });
    const s = await openSession(flows, id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: 'New session' });
    const first = ensureStored(s);
    const second = ensureStored(s);
    await Promise.all([first, second]);
    expect(creates).toEqual([id]);
    expect((await ports.store.getSession(id))?.title).toBe('New session');
    s.close();
  });

  it('a stored session is not written again', async () => {
    const { ports, creates } = countingPorts();
    const flows = new AppFlows(ports);
    const row = (await flows.createSession())!;
    creates.length = 0;
    const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
    expect(s.live.getSnapshot()).toMatchObject({ draft: false, row: { id: row.id } });
    await ensureStored(s);
    expect(creates).toEqual([]);
    s.close();
  });
});
