import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { openSession, scriptedTransport, testModel, testPorts, type ScriptedTransportOptions } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { autoTitle } from './autoTitle';

/**
 * When the model is asked for a title, and when its answer replaces the word
 * title: never without a model or a reply to name, and never a write that
 * changes nothing.
 */

const CHAT = testModel('compat:mock-large', 128_000);

async function setup(transport: ScriptedTransportOptions) {
  const ports = testPorts({ transport: scriptedTransport(transport) });
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
  return { ports, s, row };
}

describe('naming a session after its first reply', () => {
  it('a reply that is only white space is not sent to be named: the word title stays', async () => {
    const { ports, s, row } = await setup({ text: () => 'Should not be asked' });
    ports.transport.script({ text: '  \n\t ' });
    await s.send('Tell me about ownership');
    await s.idle();
    expect(ports.transport.textRequests).toEqual([]);
    expect((await ports.store.getSession(row.id))!.title).toBe('Tell me about ownership');
  });

  it('with no chat model it asks nothing and does not fail', async () => {
    const { ports, s, row } = await setup({ text: () => 'Should not be asked' });
    s.setEnv({ ...s.env(), chatModel: undefined });
    await expect(autoTitle(s, row.title, 'What is a monad?', 'A monoid in the category of endofunctors.')).resolves.toBeUndefined();
    expect(ports.transport.textRequests).toEqual([]);
  });

  it('an answer that is the word title already writes nothing', async () => {
    const { ports, s, row } = await setup({ text: () => 'Tell me about ownership.' });
    await s.send('Tell me about ownership');
    await s.idle();
    expect(ports.transport.textRequests).toHaveLength(1);
    const named = (await ports.store.getSession(row.id))!;
    expect(named.title).toBe('Tell me about ownership');
    // Asking again with the same answer: the row is not rewritten (no new revision to sync).
    await autoTitle(s, named.title, 'Tell me about ownership', 'Ownership means one owner per value.');
    expect(ports.transport.textRequests).toHaveLength(2);
    expect((await ports.store.getSession(row.id))!.rev).toBe(named.rev);
  });
});
