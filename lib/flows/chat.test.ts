import { describe, expect, it } from 'vitest';
import { buildSessionContext } from '@/lib/session/context';
import { messageText } from '@/lib/session/messages';
import { DEFAULT_COMPACTION_SETTINGS, type AssistantMessage, type SessionEntry } from '@/lib/session/types';
import { TITLE_SYSTEM } from '@/lib/chat/title';
import { asyncTokens, openSession, scriptedTransport, testModel, testPorts, until, type ScriptedTransportOptions } from '@/lib/testing/flowPorts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
import { AppFlows } from './app';

const CHAT = testModel('compat:mock-large', 128_000);

async function setup(settings = DEFAULT_COMPACTION_SETTINGS, transport?: ScriptedTransportOptions) {
  const ports = testPorts(transport ? { transport: scriptedTransport(transport) } : {});
  const flows = new AppFlows(ports);
  const row = (await flows.createSession())!;
  const s = await openSession(flows, row.id, { chatModel: CHAT, summarizer: CHAT, settings, title: row.title });
  return { ports, flows, s, row };
}

const assistant = (e: SessionEntry | undefined): AssistantMessage => {
  if (e?.type !== 'message' || e.message.role !== 'assistant') throw new Error('not an assistant entry');
  return e.message;
};

describe('chat flows', () => {
  it('send stores the prompt, streams and stores the reply, and names an untitled session after the prompt', async () => {
    const { ports, s, row } = await setup();
    ports.transport.script({ text: 'Borrowing rules, in short: one writer or many readers.', chunk: 7, usage: { input: 20, output: 12 } });
    await s.send('How does the borrow checker work?');
    await s.idle();
    const stored = (await ports.store.loadSession(row.id))!;
    const ctx = buildSessionContext(stored.entries, stored.row.leafId);
    expect(ctx.items.map((i) => (i.kind === 'message' ? `${i.message.role}: ${messageText(i.message)}` : i.kind))).toEqual([
      'user: How does the borrow checker work?',
      'assistant: Borrowing rules, in short: one writer or many readers.',
    ]);
    const reply = assistant(stored.entries.at(-1));
    expect(reply).toMatchObject({ status: 'complete', stopReason: 'stop', usage: { input: 20, output: 12 }, model: CHAT.id });
    expect(stored.row.title).toBe('How does the borrow checker work?');
    expect(ports.transport.chatRequests[0]!.context.map((i) => i.kind)).toEqual(['message']);
    expect(s.runs.get(row.id)).toBeUndefined();
  });

  it('the meter counts a sent message at once, before it is stored; one that could not be stored leaves the figure as it was', async () => {
    const { ports, s, row } = await setup();
    ports.transport.script({ text: 'First answer.' }, { text: 'Second answer.' });
    await s.send('A first question, so the session has a counted context.');
    await s.idle();
    await s.syncTokens();
    const before = s.sync.figure!;
    const seen: number[] = [];
    s.sync.onFigure((f) => seen.push(f?.tokens ?? 0));

    // Storage held back: the figure must move before the message is written.
    const append = ports.store.appendEntries.bind(ports.store);
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    ports.store.appendEntries = async (...args) => {
      await gate;
      return append(...args);
    };
    const prompt = 'Which of the three cache layouts keeps the most hot keys within a single page of memory?';
    const sending = s.send(prompt);
    await until(() => seen.length > 0);
    expect(seen[0]).toBeGreaterThan(before.tokens);
    expect((await ports.store.loadSession(row.id))!.entries.some((e) => e.type === 'message' && messageText(e.message) === prompt)).toBe(false);
    release();
    await sending;
    await s.idle();
    await s.syncTokens();
    // The worker's count then takes over, with the reply in it too.
    expect(s.sync.figure!.tokens).toBeGreaterThan(seen[0]!);

    // A write refused: the preview is taken back.
    await s.syncTokens();
    const counted = s.sync.figure!;
    ports.store.appendEntries = async () => {
      throw new Error('The browser refused to store more data (quota).');
    };
    seen.length = 0;
    await s.send('This one cannot be stored.');
    await s.idle();
    expect(seen[0]).toBeGreaterThan(counted.tokens);
    expect(s.sync.figure).toEqual(counted);
    expect(ports.notices.at(-1)!.message).toMatch(/quota/);
  });

  it('a provider error keeps the prompt and tells the user; no model at all keeps the prompt and says so', async () => {
    const { ports, s, row } = await setup();
    ports.transport.script({ error: { kind: 'auth', message: 'The provider rejected the API key (401).', status: 401 } });
    await s.send('hello?');
    await s.idle();
    expect(ports.notices).toContainEqual({ level: 'error', message: 'The provider rejected the API key (401).' });
    let stored = (await ports.store.loadSession(row.id))!;
    // The prompt stays, and the failed turn is on record with its reason (the card the user sees), carrying no text.
    expect(stored.entries.map((e) => (e.type === 'message' ? e.message.role : e.type))).toEqual(['user', 'assistant']);
    expect(assistant(stored.entries[1])).toMatchObject({ content: [], stopReason: 'error', errorMessage: 'The provider rejected the API key (401).' });

    s.setEnv({ ...s.env(), chatModel: undefined });
    await s.send('anyone?');
    await s.idle();
    stored = (await ports.store.loadSession(row.id))!;
    expect(stored.entries.filter((e) => e.type === 'message' && e.message.role === 'user')).toHaveLength(2);
    expect(ports.notices.at(-1)!.message).toMatch(/No model is connected: the message is saved/);
  });

  it('edit and regenerate branch instead of overwriting; switching siblings moves between them', async () => {
    const { ports, s, row } = await setup();
    ports.transport.script({ text: 'first answer' }, { text: 'second answer' }, { text: 'answer to the edit' });
    await s.send('question');
    await s.idle();
    const [prompt, firstReply] = s.live.getSnapshot().tree.pathTo(s.live.getSnapshot().leafId);
    await s.regenerateReply(firstReply!);
    await s.editAndResend(prompt!, 'question, edited');
    const tree = s.live.getSnapshot().tree;
    expect(tree.children(prompt!.id).map((e) => messageText((e as { message: AssistantMessage }).message))).toEqual(['first answer', 'second answer']);
    expect(tree.children(null).map((e) => (e.type === 'message' ? messageText(e.message) : ''))).toEqual(['question', 'question, edited']);

    await s.switchSibling(tree.children(null)[1]!, -1);
    const leaf = s.live.getSnapshot().leafId;
    expect(tree.get(leaf!)?.parentId).toBe(prompt!.id);
    expect((await ports.store.getSession(row.id))!.leafId).toBe(leaf);
  });

  it('stop aborts the reply and keeps what arrived, marked aborted', async () => {
    const { ports, s, row } = await setup();
    ports.transport.script({ text: 'a long reply that will be cut off by the user pressing stop', chunk: 5, delayMs: 15 });
    await s.send('go');
    await new Promise((r) => setTimeout(r, 60));
    s.stop();
    await s.idle();
    const reply = assistant((await ports.store.loadSession(row.id))!.entries.at(-1));
    expect(reply.stopReason).toBe('aborted');
    expect(messageText(reply).length).toBeGreaterThan(0);
    expect(messageText(reply).length).toBeLessThan('a long reply that will be cut off by the user pressing stop'.length);
  });

  it('a model change is recorded on the path and remembered by the session', async () => {
    const { ports, s, row } = await setup();
    await s.changeModel('openai:gpt-4o-mini');
    const stored = (await ports.store.loadSession(row.id))!;
    expect(stored.row.model).toBe('openai:gpt-4o-mini');
    expect(buildSessionContext(stored.entries, stored.row.leafId).model).toBe('openai:gpt-4o-mini');
  });

  it('send resolves when the prompt is stored, before the reply; a storage failure resolves false and stores nothing', async () => {
    const { ports, s, row } = await setup();
    ports.transport.script({ text: 'slow reply', chunk: 2, delayMs: 10 });
    expect(await s.send('first')).toBe(true);
    expect(s.runs.get(row.id)?.kind === 'reply' || (await ports.store.loadSession(row.id))!.entries.length >= 1).toBe(true);
    await s.idle();
    const failing = { ...ports.store, appendEntries: async () => Promise.reject(new Error('Browser storage is full: this change was not saved.')) };
    const t = new AppFlows({ ...ports, store: failing }).session(row.id);
    t.setEnv(s.env());
    t.live.subscribe(() => {});
    await new Promise((r) => setTimeout(r, 50));
    expect(await t.send('lost?')).toBe(false);
    await t.idle();
    expect(ports.notices.at(-1)).toEqual({ level: 'error', message: 'Browser storage is full: this change was not saved.' });
    expect((await ports.store.loadSession(row.id))!.entries.filter((e) => e.type === 'message' && e.message.role === 'user')).toHaveLength(1);
  });

  it('two tabs sending at once make siblings, each request holding only its own prompt', async () => {
    const { ports, s, row } = await setup();
    ports.transport.script({ text: 'answer one' });
    await s.send('common ground');
    await s.idle();
    // A second tab: its own flows (own live tree, own token worker) over the same database.
    const other = await openSession(new AppFlows({ ...ports, tokens: asyncTokens() }), row.id, s.env());
    const base = s.live.getSnapshot().leafId;
    // Tab A's pre-send check is slow (a big draft to count, a busy worker): tab B's message lands meanwhile,
    // and tab A's view follows it, since it extends A's path.
    const tokens = asyncTokens();
    const slowA = new AppFlows({ ...ports, tokens: new Proxy(tokens, { get: (t, k) => (k === 'countTexts' ? async (...a: [string[]]) => (await sleep(300), t.countTexts(...a)) : t[k as keyof typeof t]) }) });
    const a = await openSession(slowA, row.id, s.env());
    ports.transport.script({ text: 'to B' }, { text: 'to A' });
    const sentA = a.send('tab A asks');
    await sleep(20);
    await other.send('tab B asks');
    await until(() => a.live.getSnapshot().tree.size === other.live.getSnapshot().tree.size);
    await sentA;
    await Promise.all([a.idle(), other.idle()]);
    const stored = (await ports.store.loadSession(row.id))!;
    const prompts = stored.entries.filter((e) => e.type === 'message' && e.message.role === 'user' && e.parentId === base);
    expect(prompts.map((e) => (e.type === 'message' ? messageText(e.message) : '')).sort()).toEqual(['tab A asks', 'tab B asks']);
    for (const req of ports.transport.chatRequests.slice(-2)) {
      const texts = req.context.flatMap((i) => (i.kind === 'message' && i.message.role === 'user' ? [messageText(i.message)] : []));
      expect(texts.filter((t) => t.startsWith('tab '))).toHaveLength(1);
    }
    other.close();
    a.close();
  });

  it('after the first reply the chat model names the session; later replies do not', async () => {
    const { ports, s, row } = await setup(DEFAULT_COMPACTION_SETTINGS, { text: () => '"Borrow checker basics."' });
    ports.transport.script({ text: 'One writer or many readers.' }, { text: 'Lifetimes, then.' });
    await s.send('How does the borrow checker work?');
    await s.idle();
    expect((await ports.store.getSession(row.id))!.title).toBe('Borrow checker basics');
    const [req] = ports.transport.textRequests;
    expect(req).toMatchObject({ model: CHAT.id, system: TITLE_SYSTEM, maxOutputTokens: 24 });
    expect(req!.prompt).toContain('How does the borrow checker work?');
    expect(req!.prompt).toContain('One writer or many readers.');
    s.setEnv({ ...s.env(), title: 'Borrow checker basics' });
    await s.send('And lifetimes?');
    await s.idle();
    expect(ports.transport.textRequests).toHaveLength(1);
  });

  it('a title the user typed meanwhile is never replaced by the generated one', async () => {
    const { ports, s, row } = await setup(DEFAULT_COMPACTION_SETTINGS, { text: () => 'Generated title' });
    const generate = ports.transport.completeText.bind(ports.transport);
    // The user renames the session while the title is being generated.
    ports.transport.completeText = async (req, signal) => {
      await ports.store.renameSession(row.id, 'My own name');
      return generate(req, signal);
    };
    await s.send('What is a monad?');
    await s.idle();
    expect((await ports.store.getSession(row.id))!.title).toBe('My own name');
  });

  it('when the title call fails, or no reply came, the title from the first prompt’s words stays', async () => {
    const failing = await setup(DEFAULT_COMPACTION_SETTINGS, {
      text: () => {
        throw new Error('model down');
      },
    });
    await failing.s.send('Please review the following pull request carefully and tell me whether the locking is right');
    await failing.s.idle();
    expect((await failing.ports.store.getSession(failing.row.id))!.title).toBe('Please review the following pull request carefully and…');
    expect(failing.ports.notices.filter((n) => n.level === 'error')).toEqual([]);

    const erroring = await setup(DEFAULT_COMPACTION_SETTINGS, { text: () => 'Should not be asked' });
    erroring.ports.transport.script({ error: { kind: 'server', message: 'The provider had a server error (HTTP 500).', status: 500 } });
    await erroring.s.send('hello there');
    await erroring.s.idle();
    expect(erroring.ports.transport.textRequests).toEqual([]);
    expect((await erroring.ports.store.getSession(erroring.row.id))!.title).toBe('hello there');
  });

  it('the session’s instructions, temperature and reply length go with every turn', async () => {
    const { ports, s, flows, row } = await setup();
    s.setEnv({ ...s.env(), systemPrompt: 'Answer in French.', temperature: 0.2, maxOutputTokens: 512 });
    await s.send('hello');
    await s.idle();
    expect(ports.transport.chatRequests[0]).toMatchObject({ system: 'Answer in French.', temperature: 0.2, maxOutputTokens: 512 });
    // Stored with the session; a field left out follows the default again.
    expect(await flows.session(row.id).saveChatSettings({ systemPrompt: 'Be brief.', temperature: 1 })).toBe(true);
    expect(await ports.store.getSession(row.id)).toMatchObject({ systemPrompt: 'Be brief.', temperature: 1 });
    expect(await flows.session(row.id).saveChatSettings({})).toBe(true);
    const cleared = (await ports.store.getSession(row.id))!;
    expect(cleared).not.toHaveProperty('systemPrompt');
    expect(cleared).not.toHaveProperty('temperature');
  });
});
