import { describe, expect, it } from 'vitest';
import { resolveLabels } from '@/lib/session/revisions';
import { DEFAULT_COMPACTION_SETTINGS, type AssistantMessage } from '@/lib/session/types';
import { openSession, scriptedTransport, testModel, testPorts, until } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * The session tools' edges: a label or pin shows in this tab at once, a pin
 * waits for a running reply and refuses what cannot be pinned, a fork of the
 * same path twice gives two sessions, an empty session has nothing to fork,
 * and the repair of interrupted replies looks at the stream lock twice and
 * never overwrites a reply another tab completed.
 */

const CHAT = testModel('compat:mock-large', 128_000);

async function withTurn() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
  ports.transport.script({ text: 'an answer' });
  await s.send('a question');
  await s.idle();
  const [prompt, answer] = s.live.getSnapshot().tree.pathTo(s.live.getSnapshot().leafId);
  return { ports, flows, s, row, prompt: prompt!, answer: answer! };
}

const failingAppend = (ports: ReturnType<typeof testPorts>) => {
  ports.store.appendEntries = async () => {
    throw new Error('The browser refused to store data.');
  };
};

describe('labels and pins', () => {
  it('a label shows in this tab at once and the tab moves to it; a failed write says why', async () => {
    const { ports, s, prompt } = await withTurn();
    await s.setLabel(prompt.id, 'the question');
    const snap = s.live.getSnapshot();
    expect(snap.tree.get(snap.leafId!)).toMatchObject({ type: 'label', targetId: prompt.id, label: 'the question' });
    expect(resolveLabels(snap.tree.entries()).get(prompt.id)).toBe('the question');
    failingAppend(ports);
    await s.setLabel(prompt.id, null);
    expect(ports.notices).toEqual([{ level: 'error', message: 'The browser refused to store data.' }]);
  });

  it('a pin is recorded at the leaf and shows at once; a label cannot be pinned; a failed write says why', async () => {
    const { ports, s, prompt } = await withTurn();
    expect(await s.setPinned(prompt.id, true)).toBe(true);
    const snap = s.live.getSnapshot();
    expect(snap.tree.get(snap.leafId!)).toMatchObject({ type: 'pin', targetId: prompt.id, pinned: true });
    await s.setLabel(prompt.id, 'x');
    const label = s.live.getSnapshot().leafId!;
    const entries = (await ports.store.loadSession(s.sessionId))!.entries.length;
    expect(await s.setPinned(label, true)).toBe(false);
    expect(await s.setPinned('no-such-entry', true)).toBe(false);
    expect(ports.notices).toEqual([
      { level: 'error', message: 'Only your messages and the model’s replies can be kept verbatim.' },
      { level: 'error', message: 'Only your messages and the model’s replies can be kept verbatim.' },
    ]);
    expect((await ports.store.loadSession(s.sessionId))!.entries).toHaveLength(entries);
    failingAppend(ports);
    expect(await s.setPinned(prompt.id, false)).toBe(false);
    expect(ports.notices.at(-1)).toEqual({ level: 'error', message: 'The browser refused to store data.' });
  });

  it('while a reply streams, pinning waits: nothing is written and the user is told', async () => {
    const transport = scriptedTransport();
    const ports = testPorts({ transport });
    const flows = new AppFlows(ports);
    const row = (await flows.createSession())!;
    const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const stream = transport.streamChat.bind(transport);
    transport.streamChat = async (req, h) => {
      await held;
      return stream(req, h);
    };
    expect(await s.send('a question')).toBe(true);
    const prompt = s.live.getSnapshot().leafId!;
    await until(() => s.runs.get(row.id) !== undefined);
    expect(await s.setPinned(prompt, true)).toBe(false);
    expect(ports.notices).toEqual([{ level: 'info', message: 'Wait until the reply or summary in progress has finished, then pin the message.' }]);
    release();
    await s.idle();
    expect((await ports.store.loadSession(row.id))!.entries.some((e) => e.type === 'pin')).toBe(false);
  });
});

describe('forks', () => {
  it('the same path forked twice gives two sessions, each announced by its title', async () => {
    const { ports, s } = await withTurn();
    const a = await s.forkHere();
    const b = await s.forkHere();
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(a).not.toBe(b);
    expect((await ports.store.loadSession(b!))!.entries).toHaveLength(2);
    expect(ports.notices).toEqual([
      { level: 'success', message: 'Forked into “Fork of a question”' },
      { level: 'success', message: 'Forked into “Fork of a question”' },
    ]);
  });

  it('an empty session has nothing to fork, and says nothing', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const row = (await flows.createSession())!;
    const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
    expect(await s.forkHere()).toBeNull();
    expect(ports.notices).toEqual([]);
    expect(await ports.store.listSessions()).toHaveLength(1);
  });
});

describe('repairing interrupted replies', () => {
  const streaming = (text: string) => ({ type: 'message' as const, message: { role: 'assistant' as const, content: [{ type: 'text' as const, text }], status: 'streaming' as const } });

  it('a reply whose stream lock is held at either look is left alone', async () => {
    const { ports, s, row, answer } = await withTurn();
    const [first] = await ports.store.appendEntries(row.id, answer.id, [streaming('held, then released')], { moveLeaf: false });
    const [second] = await ports.store.appendEntries(row.id, answer.id, [streaming('free, then taken')], { moveLeaf: false });
    s.live.applyLocal([first!, second!]);
    // The first is held at the first look only; the second is taken between the looks (its tab was acquiring the lock).
    const looks = new Map<string, number>();
    ports.locks.isHeld = async (id) => {
      const n = (looks.get(id) ?? 0) + 1;
      looks.set(id, n);
      return id === first!.id ? n === 1 : id === second!.id ? n === 2 : false;
    };
    expect(await s.repairInterrupted({ recheckMs: 1 })).toBe(0);
    const stored = (await ports.store.loadSession(row.id))!.entries;
    for (const id of [first!.id, second!.id]) expect((stored.find((e) => e.id === id) as { message: AssistantMessage }).message.status).toBe('streaming');
  });

  it('looks only at streaming replies; one another tab completed meanwhile keeps its ending; a failed write repairs nothing and does not throw', async () => {
    const { ports, s, row, answer } = await withTurn();
    const [reply] = await ports.store.appendEntries(row.id, answer.id, [streaming('finished elsewhere')], { moveLeaf: false });
    // This tab saw it streaming; in storage the other tab has completed it since.
    s.live.applyLocal([reply!]);
    await ports.store.updateEntry(row.id, reply!.id, (e) => (e.type === 'message' && e.message.role === 'assistant' ? { ...e, message: { ...e.message, status: 'complete', stopReason: 'stop' } } : e));
    s.live.applyLocal([reply!]);
    const looked: string[] = [];
    ports.locks.isHeld = async (id) => {
      looked.push(id);
      return false;
    };
    await s.repairInterrupted({ recheckMs: 1 });
    expect(new Set(looked)).toEqual(new Set([reply!.id]));
    const stored = (await ports.store.loadSession(row.id))!.entries.find((e) => e.id === reply!.id) as { message: AssistantMessage };
    expect(stored.message).toMatchObject({ status: 'complete', stopReason: 'stop' });

    const [orphan] = await ports.store.appendEntries(row.id, answer.id, [streaming('cut off')], { moveLeaf: false });
    s.live.applyLocal([orphan!]);
    ports.store.updateEntry = async () => {
      throw new Error('The database is closed.');
    };
    await expect(s.repairInterrupted({ recheckMs: 1 })).resolves.toBe(0);
  });
});
