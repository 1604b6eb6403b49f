import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type FilePart, type SessionEntry } from '@/lib/session/types';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';
import { send } from './chat';

/**
 * The chat actions' guards and the position they move to at once: editing or
 * regenerating something that cannot be, Stop with nothing running, switching
 * among siblings of other kinds, the attachments an edit keeps, and where the
 * view is before any write is done. Conversations written through the app.
 */

const CHAT = testModel('compat:mock-large', 128_000, 4_000);

async function chat() {
  const ports = testPorts();
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings: DEFAULT_COMPACTION_SETTINGS, title: row.title });
  const entries = async () => (await ports.store.loadSession(row.id))!.entries;
  const turn = async (q: string, a: string, attachments: FilePart[] = []) => {
    ports.transport.script({ text: a });
    await s.send(q, attachments);
    await s.idle();
  };
  const leaf = () => s.live.getSnapshot().leafId;
  const entry = (id: string | null) => s.live.getSnapshot().tree.get(id!) as SessionEntry;
  return { ports, flows, s, id: row.id, entries, turn, leaf, entry };
}

describe('guards', () => {
  it('editing an assistant reply or an entry that is no message sends nothing', async () => {
    const c = await chat();
    await c.turn('What is a borrow?', 'A reference that does not own.');
    await c.s.changeModel('openai:gpt-4o');
    const before = (await c.entries()).length;
    const requests = c.ports.transport.chatRequests.length;
    const reply = (await c.entries()).find((e) => e.type === 'message' && e.message.role === 'assistant')!;
    await expect(c.s.editAndResend(reply, 'Changed')).resolves.toBeUndefined();
    const other = (await c.entries()).find((e) => e.type !== 'message')!;
    await expect(c.s.editAndResend(other, 'Changed')).resolves.toBeUndefined();
    expect(await c.entries()).toHaveLength(before);
    expect(c.ports.transport.chatRequests).toHaveLength(requests);
  });

  it('regenerating the session’s first message (it has no parent) does nothing', async () => {
    const c = await chat();
    await c.turn('What is a borrow?', 'A reference that does not own.');
    const first = (await c.entries()).find((e) => e.parentId === null)!;
    const leaf = c.leaf();
    await c.s.regenerateReply(first);
    expect(c.ports.transport.chatRequests).toHaveLength(1);
    expect(c.leaf()).toBe(leaf);
  });

  it('Stop with nothing running does nothing', async () => {
    const c = await chat();
    expect(() => c.s.stop()).not.toThrow();
  });
});

describe('where the view is at once', () => {
  it('an edit moves the view to the branch point before anything is written; a regeneration to the prompt', async () => {
    const c = await chat();
    await c.turn('What is a borrow?', 'A reference that does not own.');
    await c.turn('And a move?', 'Ownership passes on.');
    const path = c.s.live.getSnapshot().tree.pathTo(c.leaf());
    const secondPrompt = path[2]!;
    const edit = c.s.editAndResend(secondPrompt, 'And a copy?');
    expect(c.leaf()).toBe(secondPrompt.parentId);
    await edit;
    await c.s.idle();
    const lastReply = c.entry(c.leaf());
    const regen = c.s.regenerateReply(lastReply);
    expect(c.leaf()).toBe(lastReply.parentId);
    await regen;
  });

  it('a model change is this tab’s position as soon as it resolves', async () => {
    const c = await chat();
    await c.turn('What is a borrow?', 'A reference that does not own.');
    await c.s.changeModel('openai:gpt-4o');
    const at = c.entry(c.leaf());
    expect(at).toMatchObject({ type: 'model_change', model: 'openai:gpt-4o' });
  });
});

describe('what an edit keeps', () => {
  it('the attachments of the edited message stay, its text is replaced', async () => {
    const c = await chat();
    const file: FilePart = { type: 'file', name: 'notes.txt', mimeType: 'text/plain', byteLength: 21, text: 'borrow, move and copy' };
    await c.turn('Explain these notes.', 'They are about ownership.', [file]);
    const prompt = (await c.entries()).find((e) => e.type === 'message' && e.message.role === 'user')!;
    c.ports.transport.script({ text: 'Sure.' });
    await c.s.editAndResend(prompt, 'Explain these notes briefly.');
    await c.s.idle();
    const edited = (await c.entries()).filter((e) => e.type === 'message' && e.message.role === 'user' && e.parentId === prompt.parentId && e.id !== prompt.id);
    expect(edited).toHaveLength(1);
    expect(edited[0]!.type === 'message' && edited[0]!.message.content).toEqual([{ type: 'text', text: 'Explain these notes briefly.' }, file]);
  });

  it('a send without attachments stores the text alone', async () => {
    const c = await chat();
    c.ports.transport.script({ text: 'Hello.' });
    await send(c.s, 'Hi there').finished;
    const prompt = (await c.entries()).find((e) => e.type === 'message' && e.message.role === 'user')!;
    expect(prompt.type === 'message' && prompt.message.content).toEqual([{ type: 'text', text: 'Hi there' }]);
  });
});

describe('switching among siblings', () => {
  it('only replies of the same role are siblings: not a new prompt nor a model change under the same message', async () => {
    const c = await chat();
    await c.turn('What is a borrow?', 'First answer.');
    const firstReply = c.entry(c.leaf());
    c.ports.transport.script({ text: 'Second answer.' });
    await c.s.regenerateReply(firstReply);
    await c.s.idle();
    const secondReply = c.entry(c.leaf());
    const prompt = firstReply.parentId!;
    // Under the same prompt: a new prompt (sent from there) and a model change.
    await c.s.arriveAt(prompt, { kind: 'switch' });
    await c.turn('Never mind, what is a move?', 'Ownership passes on.');
    await c.s.arriveAt(prompt, { kind: 'switch' });
    await c.s.changeModel('openai:gpt-4o');
    const kinds = c.s.live
      .getSnapshot()
      .tree.children(prompt)
      .map((e) => (e.type === 'message' ? e.message.role : e.type));
    expect(kinds).toEqual(['assistant', 'assistant', 'user', 'model_change']);

    await c.s.arriveAt(secondReply.id, { kind: 'switch' });
    // The newest reply has no next sibling of its kind: nothing moves.
    await c.s.switchSibling(secondReply, 1);
    expect(c.leaf()).toBe(secondReply.id);
    await c.s.switchSibling(secondReply, -1);
    expect(c.leaf()).toBe(firstReply.id);
    // A model change has no siblings to switch among.
    const change = c.s.live.getSnapshot().tree.children(prompt).find((e) => e.type === 'model_change')!;
    await expect(c.s.switchSibling(change, -1)).resolves.toBeUndefined();
    expect(c.leaf()).toBe(firstReply.id);
  });
});
