import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * Sending at the edges: an empty composer, a message that is only an
 * attachment, and storage failing under the reply after the prompt was kept.
 */

const CHAT = testModel('compat:mock-large', 128_000);

async function setup() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
  return { ports, s, row };
}

describe('sending at the edges', () => {
  it('an empty or blank composer sends nothing and stores nothing', async () => {
    const { ports, s, row } = await setup();
    expect(await s.send('')).toBe(false);
    expect(await s.send('   \n ')).toBe(false);
    await s.idle();
    expect(ports.transport.chatRequests).toEqual([]);
    expect((await ports.store.loadSession(row.id))!.entries).toEqual([]);
    expect(ports.notices).toEqual([]);
  });

  it('a file alone is a message: sent without an empty text part', async () => {
    const { ports, s, row } = await setup();
    const text = '# Lifetimes\nA borrow never outlives its owner.';
    const file = { type: 'file' as const, name: 'notes.md', mimeType: 'text/markdown', byteLength: text.length, text };
    ports.transport.script({ text: 'Read it.' });
    expect(await s.send('  ', [file])).toBe(true);
    await s.idle();
    const [prompt] = (await ports.store.loadSession(row.id))!.entries;
    expect(prompt).toMatchObject({ type: 'message', message: { role: 'user', content: [file] } });
    expect(ports.transport.chatRequests).toHaveLength(1);
  });

  it('storage failing under the reply keeps the prompt, says why and leaves no run behind', async () => {
    const { ports, s, row } = await setup();
    const append = ports.store.appendEntries.bind(ports.store);
    let calls = 0;
    ports.store.appendEntries = async (...args) => {
      if (++calls > 1) throw new Error('The storage quota is exhausted.');
      return append(...args);
    };
    expect(await s.send('Why does this closure not compile?')).toBe(true);
    await s.idle();
    const stored = (await ports.store.loadSession(row.id))!.entries;
    expect(stored.map((e) => (e.type === 'message' ? e.message.role : e.type))).toEqual(['user']);
    expect(ports.notices.filter((n) => n.level === 'error').map((n) => n.message)).toEqual(['The storage quota is exhausted.']);
    expect(s.runs.get(row.id)).toBeUndefined();
  });
});
